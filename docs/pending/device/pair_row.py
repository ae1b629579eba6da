"""The table of record with its one-token row made the MXFP8-rows pair, if the pair was faster in the bench.

usage: pair_row.py AB_JSON MEASURE_S1 MEASURE_S2 TABLE OUT

AB_JSON: bench_ab.py's --json of arms `table` (TABLE) and `mx` (TABLE with the pair, steps.sh mx_rows_table) at one
token. MEASURE_S1/S2: `moetune measure --tokens 1` outputs that hold both kernels of the pair (their us1 / us2 for
the row; the mx_rows_space.patch puts them in the space). OUT is TABLE, with the bucket-1 row's kernels, us1, us2
and us the pair's where the median of the `mx` rounds is below the `table` ones; prints the medians and the choice.
"""
import csv
import json
import statistics
import sys

PAIR = {"kernelName1": ("_nt_wgmma_gui", "_nt_wgmma_gui_fp8"), "kernelName2": ("_nt_wgmma", "_nt_wgmma_mxr")}


def medians(ab_json):
    us = {}
    for run in json.load(open(ab_json))["runs"]:
        bucket = run["bench"]["shapes"][0]["buckets"][0]
        us.setdefault(run["arm"], []).append(bucket["tuned"]["us"])
    return {arm: statistics.median(v) for arm, v in us.items()}


def measured(path):
    out = {}
    for line in open(path):
        f = line.split()
        if len(f) >= 4 and f[0].startswith("moetune_moe") and f[-1] == "ok":  # SM MHz before ok since session 61
            out[f[0]] = float(f[1])
    return out


def main(ab_json, s1, s2, table, out):
    m = medians(ab_json)
    times = {**measured(s1), **measured(s2)}
    with open(table, newline="") as f:
        rows = list(csv.reader(f))
    head = rows[0]
    col = {c: head.index(c) for c in ("token", "kernelName1", "kernelName2", "us1", "us2", "us")}
    take = m["mx"] < m["table"]
    print(f"one token: table {m['table']:.2f} us, pair {m['mx']:.2f} us (medians): "
          f"{'the pair takes the row' if take else 'the row stays'}")
    for r in rows[1:]:
        if not take or r[col["token"]] != "1":
            continue
        for name, (old, new) in PAIR.items():
            if not r[col[name]].endswith(old):
                sys.exit(f"pair_row.py: the one-token {name} {r[col[name]]} does not end in {old}")
            r[col[name]] = r[col[name]][: -len(old)] + new
        us1, us2 = times[r[col["kernelName1"]]], times[r[col["kernelName2"]]]
        r[col["us1"]], r[col["us2"]], r[col["us"]] = f"{us1:.4f}", f"{us2:.4f}", f"{us1 + us2:.4f}"
        print(f"row: {r[col['kernelName1']]} {us1} + {r[col['kernelName2']]} {us2}")
    with open(out, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    main(*sys.argv[1:])
