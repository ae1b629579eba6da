"""Writes TABLE with the stage 2 of each bucket measured here replaced by the fastest kernel there.

usage: fastest_stage2_table.py [--token T] TABLE OUT MEASURE_TXT...  (MEASURE_TXT: `moetune measure --tokens M`
outputs, named ..._M.txt). A row changes only where the fastest passing kernel has the row's block_m (no _sbm),
differs from the row's and (with --token) has T in its name; us2 and us take its time. Prints what changed.
"""
import csv
import re
import sys


def fastest(path):
    best = None
    for line in open(path):
        f = line.split()
        if len(f) == 4 and f[0].startswith("moetune_moe2_") and f[3] == "ok":
            if best is None or float(f[1]) < best[1]:
                best = (f[0], float(f[1]))
    return best


def main(table, out, measures, token=""):
    picks = {}
    for m in measures:
        tokens = int(re.search(r"_(\d+)\.txt$", m).group(1))
        if (b := fastest(m)) and "_sbm" not in b[0] and token in b[0]:
            picks[tokens] = b
    with open(table, newline="") as f:
        rows = list(csv.reader(f))
    head = rows[0]
    tok, k2, us1, us2, us = (head.index(c) for c in ("token", "kernelName2", "us1", "us2", "us"))
    for r in rows[1:]:
        p = picks.get(int(r[tok]))
        if p and p[0] != r[k2]:
            print(f"{r[tok]} tokens: {r[k2]} {r[us2]} -> {p[0]} {p[1]}")
            r[k2], r[us2] = p[0], f"{p[1]:.4f}"
            r[us] = f"{float(r[us1]) + p[1]:.4f}"
    with open(out, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)


if __name__ == "__main__":
    args = sys.argv[1:]
    token = ""
    if args[0] == "--token":
        token, args = args[1], args[2:]
    main(args[0], args[1], args[2:], token)
