#!/usr/bin/env python3
"""Condenses Nsight Compute's per-instruction SASS page of one kernel into what a profile of the
stage kernels needs first (docs/measurement.md, "Profiling one kernel with Nsight Compute"): where
the warps stall (share of all stall samples per reason), the executed instruction mix (warp
instructions per opcode, weighted by how often each instruction ran), and the instructions with the
most samples, each with its three largest reasons.

Input: `ncu -i REPORT.ncu-rep --page source --csv --print-source sass > SOURCE.csv` (a
"Kernel Name" line, then one header line and one line per SASS instruction). No third-party modules.
Exit codes as moetune's (docs/exit-codes.md): 2 bad flags or an input that is not such a page
(FILE[:LINE]: message), 4 --json not writable.
"""
import argparse
import collections
import csv
import json
import sys

import atomic_file
import exit_codes

SOURCE = "Source"
SAMPLES = "Warp Stall Sampling (All Samples)"
EXECUTED = "Instructions Executed"
STALL_PREFIX = "stall_"
NOT_ISSUED = "(Not Issued)"


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="ncu_sass_summary.py",
                                     description="Stall reasons, executed instruction mix and hottest instructions "
                                     "of one kernel's Nsight Compute SASS source page.")
    parser.add_argument("source", metavar="SOURCE.csv", help="ncu -i R --page source --csv --print-source sass")
    parser.add_argument("--top", type=int, default=30, metavar="N",
                        help="instructions with the most stall samples to list (default %(default)s)")
    parser.add_argument("--json", metavar="OUT.json", help="also write the summary here")
    args = parser.parse_args(argv)
    if args.top < 0:
        parser.error("--top must be >= 0")
    return args


def number(text):
    """ncu prints counts with thousands separators; an empty cell is 0."""
    text = text.replace(",", "").strip()
    return float(text) if text else 0.0


def opcode(sass):
    """The opcode of a SASS line without its predicate and modifiers: '@!P1 LDG.E.128 R4, [R2]' -> 'LDG'."""
    words = sass.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0].split(".")[0] if words else "?"


def read_page(path):
    """(kernel name, header, rows of the instructions) of an ncu source page CSV."""
    try:
        with open(path, newline="", encoding="utf-8", errors="replace") as source:
            lines = list(csv.reader(source))
    except OSError as error:
        raise exit_codes.ExitError(exit_codes.USAGE, f"{path}: cannot read: {error.strerror or error}")
    kernel = "unknown kernel"
    for index, line in enumerate(lines):
        if line and line[0] == "Kernel Name" and len(line) > 1:
            kernel = line[1]
        if SOURCE in line:
            missing = [column for column in (SAMPLES, EXECUTED) if column not in line]
            if missing:
                raise exit_codes.ExitError(exit_codes.USAGE, f"{path}:{index + 1}: the header lacks "
                                           f"{', '.join(repr(c) for c in missing)} (an ncu source page with "
                                           "--print-source sass?)")
            rows = [row for row in lines[index + 1:] if len(row) == len(line)]
            if not rows:
                raise exit_codes.ExitError(exit_codes.USAGE, f"{path}:{index + 1}: no instruction lines after the header")
            return kernel, line, rows
    raise exit_codes.ExitError(exit_codes.USAGE, f"{path}: no header with a '{SOURCE}' column "
                               "(expected `ncu -i R --page source --csv --print-source sass`)")


def summarize(kernel, header, rows, top):
    """The summary as a dict: totals, stall shares, executed mix, the top instructions."""
    at = {name: i for i, name in enumerate(header)}
    reasons = [name for name in header if name.startswith(STALL_PREFIX) and NOT_ISSUED not in name]
    samples = sum(number(row[at[SAMPLES]]) for row in rows)
    executed = sum(number(row[at[EXECUTED]]) for row in rows)
    stall_totals = {reason: sum(number(row[at[reason]]) for row in rows) for reason in reasons}
    mix = collections.Counter()
    for row in rows:
        mix[opcode(row[at[SOURCE]])] += number(row[at[EXECUTED]])
    hottest = sorted(range(len(rows)), key=lambda i: -number(rows[i][at[SAMPLES]]))[:top]
    return {
        "kernel": kernel,
        "instructions": len(rows),
        "executed_warp_instructions": executed,
        "samples": samples,
        "stalls": [{"reason": reason[len(STALL_PREFIX):], "samples": value, "share": value / samples if samples else 0.0}
                   for reason, value in sorted(stall_totals.items(), key=lambda item: -item[1]) if value > 0],
        "executed_mix": [{"opcode": op, "executed": value, "share": value / executed if executed else 0.0}
                         for op, value in mix.most_common() if value > 0],
        "hottest": [{
            "index": i,
            "sass": rows[i][at[SOURCE]].strip(),
            "samples": number(rows[i][at[SAMPLES]]),
            "executed": number(rows[i][at[EXECUTED]]),
            "reasons": [{"reason": reason[len(STALL_PREFIX):], "samples": number(rows[i][at[reason]])}
                        for reason in sorted(reasons, key=lambda r: -number(rows[i][at[r]]))[:3]
                        if number(rows[i][at[reason]]) > 0],
        } for i in sorted(hottest)],
    }


def render(summary):
    """The summary as text: one section per part."""
    out = [f"{summary['kernel']}: {summary['instructions']} SASS instructions, "
           f"{summary['executed_warp_instructions']:.0f} warp instructions executed, {summary['samples']:.0f} stall samples",
           "stall reasons (share of all samples):"]
    out += [f"  {s['reason']:<20} {100 * s['share']:5.1f} %" for s in summary["stalls"]]
    out.append("executed instruction mix (share of warp instructions):")
    out += [f"  {m['opcode']:<10} {100 * m['share']:5.1f} %  {m['executed']:.0f}" for m in summary["executed_mix"][:25]]
    out.append("most sampled instructions (index in the page, samples, executed, top reasons):")
    for h in summary["hottest"]:
        reasons = " ".join(f"{r['reason']}={r['samples']:.0f}" for r in h["reasons"])
        out.append(f"  {h['index']:6d} {h['samples']:8.0f} {h['executed']:10.0f}  {h['sass'][:64]:<64} {reasons}")
    return "\n".join(out) + "\n"


def main(argv):
    args = parse_args(argv)
    if args.json:
        atomic_file.check_writable(args.json)
    summary = summarize(*read_page(args.source), args.top)
    if args.json:
        atomic_file.write_file_atomically(args.json, (json.dumps(summary, indent=1) + "\n").encode())
    sys.stdout.write(render(summary))
    return exit_codes.OK


if __name__ == "__main__":
    sys.exit(exit_codes.run_main(main))
