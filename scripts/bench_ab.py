#!/usr/bin/env python3
"""A/B of moetune builds on one GPU: runs `moetune bench` of two or more binaries with the same
arguments, rounds of one run per arm with the first arm rotating, and tabulates each bucket's µs per
arm and round with the difference of the medians against the first arm. docs/ compares code this
way because identical trees move 2-8 % between hosts and commands (docs/benchmarks.md), more than
most changes do; within one command, alternated, the rounds of two arms rarely overlap.

  bench_ab.py --arm main=build-main/moetune --arm new=build/moetune [--rounds 3] [--field tuned]
              [--json ab.json] [--markdown ab.md] -- --shapes S.csv --tuned T.csv --tokens 1,128 --rounds 5

Everything after `--` goes to every `moetune bench` (which then takes the median of its own
--rounds); this script adds --json. --json keeps every run's bench document, rewritten after each
run; run again with the same flags, it resumes: the runs the file holds are not repeated (a file
from other arms, field or bench arguments is refused). Progress and ETA go to stderr, the markdown
table to stdout (and --markdown).

Exit codes as moetune's (docs/exit-codes.md): 2 bad flags (fewer than two arms, a repeated name, an
arm that is no executable file, a bench argument this script sets), 1 a bench run failed (the
message names arm, round and the end of its stderr), 4 an output not writable.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import atomic_file
import bench_table
import exit_codes

FIELDS = ("tuned", "default")


def split_argv(argv):
    """(this script's arguments, the bench arguments after `--`)."""
    if "--" not in argv:
        return argv, []
    at = argv.index("--")
    return argv[:at], argv[at + 1:]


def parse_arm(text):
    name, separator, binary = text.partition("=")
    if not separator or not name or not binary:
        raise exit_codes.ExitError(exit_codes.USAGE, f"--arm {text}: expected NAME=BINARY")
    if not os.path.isfile(binary) or not os.access(binary, os.X_OK):
        raise exit_codes.ExitError(exit_codes.USAGE, f"--arm {text}: {binary} is not an executable file")
    return name, binary


def parse_args(argv):
    own, bench_args = split_argv(argv)
    parser = argparse.ArgumentParser(prog="bench_ab.py", description="moetune bench of several builds, "
                                     "alternated, with the medians' differences per bucket.",
                                     epilog="Arguments after -- go to every `moetune bench`.")
    parser.add_argument("--arm", action="append", required=True, metavar="NAME=BINARY",
                        help="a moetune binary and its name in the table; the first is the baseline")
    parser.add_argument("--rounds", type=int, default=3, help="runs per arm (default %(default)s)")
    parser.add_argument("--field", choices=FIELDS, default="tuned",
                        help="which arm of each bench to compare (default %(default)s)")
    parser.add_argument("--json", metavar="OUT.json", help="every run's bench JSON, rewritten after each run")
    parser.add_argument("--markdown", metavar="OUT.md", help="also write the table here")
    args = parser.parse_args(own)
    args.bench_args = bench_args
    args.arms = [parse_arm(text) for text in args.arm]
    names = [name for name, _ in args.arms]
    if len(names) < 2:
        raise exit_codes.ExitError(exit_codes.USAGE, "--arm: at least two arms to compare")
    if len(set(names)) != len(names):
        raise exit_codes.ExitError(exit_codes.USAGE, f"--arm: repeated name in {', '.join(names)}")
    if args.rounds < 1:
        raise exit_codes.ExitError(exit_codes.USAGE, f"--rounds {args.rounds}: must be at least 1")
    if not bench_args:
        raise exit_codes.ExitError(exit_codes.USAGE, "no bench arguments: give them after -- (--shapes ...)")
    if any(a == "--json" or a.startswith("--json=") for a in bench_args):
        raise exit_codes.ExitError(exit_codes.USAGE, "--json after --: bench_ab.py sets each run's --json itself")
    for path in (args.json, args.markdown):
        if path:
            atomic_file.check_writable(path)
    return args


def run_order(arms, round_index):
    """The arms of one round: the first arm rotates, so no arm always runs first (or after the same one)."""
    shift = round_index % len(arms)
    return arms[shift:] + arms[:shift]


def run_bench(name, binary, bench_args, round_index, json_path):
    """One `moetune bench`; its JSON document. ExitError(FAILED) naming the run when it fails."""
    command = [binary, "bench", *bench_args, "--json", json_path]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        tail = " | ".join(done.stderr.strip().splitlines()[-3:])
        raise exit_codes.ExitError(exit_codes.FAILED, f"{name} round {round_index + 1}: moetune bench exited "
                                   f"{done.returncode}: {tail}")
    return bench_table.load_json(json_path)


def bucket_times(document, path, field):
    """[(shape key, {tokens: µs or None})] of one bench document, in its order."""
    shapes = []
    for s in range(bench_table.shape_count(document, path)):
        key, rows = bench_table.compare(document, path, None, None, s)
        shapes.append((key, {row.tokens: getattr(row, f"{field}_us") for row in rows}))
    return shapes


def _times_cell(values):
    return " / ".join("—" if v is None else f"{v:.1f}" for v in values)


def _median(values):
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def markdown_tables(names, field, times, device):
    """times[name] = [per round: [(shape key, {tokens: µs})]]; one table per shape of the first arm's first run."""
    lines = []
    for s, (key, first_buckets) in enumerate(times[names[0]][0]):
        lines += [f"### {bench_table.describe_shape(key)} ({device}; {field} arm, µs per round)", ""]
        header = ["tokens"] + names + [f"{name} − {names[0]} (medians)" for name in names[1:]]
        lines += ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
        for tokens in sorted(first_buckets):
            per_arm = {name: [rounds[s][1].get(tokens) if s < len(rounds) else None for rounds in times[name]]
                       for name in names}
            cells = [str(tokens)] + [_times_cell(per_arm[name]) for name in names]
            base = _median(per_arm[names[0]])
            for name in names[1:]:
                other = _median(per_arm[name])
                if base is None or other is None:
                    cells.append("—")
                else:
                    cells.append(f"{other - base:+.1f} ({(other / base - 1) * 100:+.1f} %)")
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def _settings(args):
    return {"tool": "bench_ab", "field": args.field, "bench_args": args.bench_args,
            "arms": {name: binary for name, binary in args.arms}}


def write_json(path, args, runs):
    document = dict(_settings(args), runs=runs)
    atomic_file.write_file_atomically(path, (json.dumps(document, indent=1) + "\n").encode())


def resumed_runs(args):
    """The runs an earlier --json of the same A/B holds ([] without one); ExitError(USAGE) for a file of another."""
    if not args.json or not os.path.exists(args.json):
        return []
    document = bench_table.load_json(args.json)
    if not isinstance(document, dict) or {k: document.get(k) for k in _settings(args)} != _settings(args):
        raise exit_codes.ExitError(exit_codes.USAGE, f"{args.json}: holds another A/B (arms, field or bench "
                                   "arguments differ); remove it or choose another --json")
    runs = document.get("runs")
    if not isinstance(runs, list) or not all(isinstance(r, dict) and {"arm", "round", "bench"} <= r.keys()
                                             for r in runs):
        raise exit_codes.ExitError(exit_codes.USAGE, f"{args.json}: no valid 'runs' list")
    names = {name for name, _ in args.arms}
    return [r for r in runs if r["arm"] in names and 1 <= r["round"] <= args.rounds]


def main(argv):
    args = parse_args(argv)
    names = [name for name, _ in args.arms]
    runs = resumed_runs(args)
    done_before = {(r["arm"], r["round"]) for r in runs}
    if runs:
        print(f"bench_ab: resuming {args.json}: {len(runs)} run(s) already there", file=sys.stderr)
    total = args.rounds * len(args.arms)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bench_ab.") as scratch:
        for r in range(args.rounds):
            for name, binary in run_order(args.arms, r):
                if (name, r + 1) in done_before:
                    continue
                path = os.path.join(scratch, f"{name}.r{r + 1}.json")
                runs.append({"arm": name, "round": r + 1, "bench": run_bench(name, binary, args.bench_args, r, path)})
                if args.json:
                    write_json(args.json, args, runs)
                measured = len(runs) - len(done_before)
                elapsed = time.monotonic() - started
                print(f"bench_ab: round {r + 1}/{args.rounds}, {name} done ({len(runs)}/{total} runs, {elapsed:.0f} s, "
                      f"ETA {elapsed / measured * (total - len(runs)):.0f} s)", file=sys.stderr)
    # Each arm's rounds in round order, whichever command measured them.
    times, device = {name: [] for name in names}, "?"
    for run in sorted(runs, key=lambda r: r["round"]):
        where = f"{args.json or 'bench'}: {run['arm']} round {run['round']}"
        times[run["arm"]].append(bucket_times(run["bench"], where, args.field))
        device = run["bench"].get("device", device) if isinstance(run["bench"], dict) else device
    table = markdown_tables(names, args.field, times, device)
    print(table)
    if args.markdown:
        atomic_file.write_file_atomically(args.markdown, (table + "\n").encode())
    return exit_codes.OK


if __name__ == "__main__":
    sys.exit(exit_codes.run_main(main))
