#!/usr/bin/env python3
"""Summarises an Nsight Compute source page (call5.sh: `ncu -i R --page source --csv --print-source sass`): the
warp-stall samples of a kernel grouped by how often their instructions ran (a loop's instructions run equally
often, so the groups are the consumer loop, the producer loop, the epilogue ...), each group's share of all
samples, its instructions a pass, and its opcodes and instructions with the most samples.
Usage: pc_summary.py SOURCE.csv [groups]"""
import collections
import csv
import sys


def main(path, groups=5):
    rows = list(csv.reader(open(path)))
    head = next(i for i, r in enumerate(rows) if r and r[0] == "Address")
    h = rows[head]
    data = [r for r in rows[head + 1:] if len(r) == len(h)]
    col = {name: h.index(name) for name in ("Source", "Warp Stall Sampling (All Samples)",
                                            "Warp Stall Sampling (Not-issued Samples)", "Instructions Executed")}
    num = lambda r, name: float(r[col[name]] or 0)
    total = sum(num(r, "Warp Stall Sampling (All Samples)") for r in data)
    by_count = collections.defaultdict(list)
    for r in data:
        by_count[num(r, "Instructions Executed")].append(r)
    ranked = sorted(by_count.items(), key=lambda kv: -sum(num(r, "Warp Stall Sampling (All Samples)") for r in kv[1]))
    print(f"{path}: {len(data)} instructions, {total:.0f} samples")
    for count, rs in ranked[:groups]:
        samples = sum(num(r, "Warp Stall Sampling (All Samples)") for r in rs)
        idle = sum(num(r, "Warp Stall Sampling (Not-issued Samples)") for r in rs)
        ops = collections.Counter()
        for r in rs:
            words = [w for w in r[col["Source"]].split() if not w.startswith("@")]
            ops[words[0].split(".")[0] if words else "?"] += num(r, "Warp Stall Sampling (All Samples)")
        print(f"  executed {count:.0f} times: {len(rs)} instructions, {samples:.0f} samples "
              f"({100 * samples / total:.1f} %), not issued {100 * idle / max(samples, 1):.0f} %")
        print("    by opcode: " + ", ".join(f"{op} {100 * s / samples:.0f} %" for op, s in ops.most_common(8)))
        for r in sorted(rs, key=lambda r: -num(r, "Warp Stall Sampling (All Samples)"))[:4]:
            print(f"    {num(r, 'Warp Stall Sampling (All Samples)'):7.0f}  {r[col['Source']].strip()[:70]}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 5)
