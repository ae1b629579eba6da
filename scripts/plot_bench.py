#!/usr/bin/env python3
"""Plots one shape of a `moetune bench` JSON, with the PyTorch peer of peer_torch.py beside it
(issue 6): µs per call vs tokens (log-log) for the default and tuned arms and torch, and % of the
roofline vs tokens with the 60 % target dashed, as one PNG. Prints the same comparison as a
markdown table on stdout (and to --markdown) for notes and docs.

Shapes are matched between the two files by (model_dim, inter_dim, experts, topk); buckets by
tokens. Every % of roofline uses the bench bucket's roofline_us (bench_table.py).

Exit codes as moetune's (docs/exit-codes.md): 2 bad flags or input JSON (FILE[:LINE]: message),
4 an output not writable, 1 -o without matplotlib installed. docs/benchmarks.md has the schemas.
"""
import argparse
import io
import sys

import atomic_file
import bench_table
import exit_codes

TARGET_PCT = 60  # issue 6: every bucket at >= 60 % of the roofline
# label, BucketRow field, matplotlib line style
SERIES = (("default", "default_us", "o-"), ("tuned", "tuned_us", "s-"), ("torch FP8", "torch_us", "^--"))


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="plot_bench.py", description="µs and % of roofline vs tokens: "
                                     "moetune default, tuned and the torch peer (issue 6).",
                                     epilog="Schemas: docs/benchmarks.md.")
    parser.add_argument("--bench", required=True, metavar="bench.json", help="`moetune bench --json` output")
    parser.add_argument("--peer", metavar="peer.json", help="peer_torch.py output")
    parser.add_argument("-o", "--output", metavar="plot.png", help="the PNG (needs matplotlib)")
    parser.add_argument("--shape", type=int, default=0, metavar="INDEX",
                        help="which shape of the bench JSON (default %(default)s)")
    parser.add_argument("--markdown", metavar="OUT.md", help="also write the table here")
    return parser.parse_args(argv)


def import_pyplot():
    """matplotlib's pyplot on the file-only Agg backend; exit 1 when matplotlib is missing."""
    try:
        import matplotlib
    except ImportError:
        raise exit_codes.ExitError(exit_codes.FAILED, "-o needs matplotlib, which is not installed "
                                   "(the markdown table does not)") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot
    return pyplot


def draw_png(pyplot, key, rows, device):
    """The two panels as PNG bytes."""
    from matplotlib.ticker import FuncFormatter

    figure, (times, fractions) = pyplot.subplots(1, 2, figsize=(13, 5))
    times.plot([row.tokens for row in rows], [row.roofline_us for row in rows], ":", color="gray", label="roofline")
    for label, field, style in SERIES:
        points = [(row.tokens, getattr(row, field), row.pct(getattr(row, field)))
                  for row in rows if getattr(row, field) is not None]
        if points:
            xs, us, pct = zip(*points)
            times.plot(xs, us, style, label=label)
            fractions.plot(xs, pct, style, label=label)
    fractions.axhline(TARGET_PCT, linestyle="--", color="gray", label=f"target {TARGET_PCT} %")

    times.set(yscale="log", xlabel="tokens", ylabel="µs per call")
    fractions.set(xlabel="tokens", ylabel="% of roofline")
    fractions.set_ylim(bottom=0)
    for axes in (times, fractions):
        axes.set_xscale("log", base=2)
        axes.xaxis.set_major_formatter(FuncFormatter(lambda tokens, _: f"{tokens:g}"))  # 1024, not 2^10
        axes.grid(True, which="both", alpha=0.3)
        axes.legend()
    figure.suptitle(f"{bench_table.describe_shape(key)} — {device}")
    figure.tight_layout()
    png = io.BytesIO()
    figure.savefig(png, format="png", dpi=120)
    pyplot.close(figure)
    return png.getvalue()


def main(argv):
    args = parse_args(argv)
    pyplot = import_pyplot() if args.output else None
    for path in (args.output, args.markdown):
        if path:
            atomic_file.check_writable(path)
    bench = bench_table.load_json(args.bench)
    peer = bench_table.load_json(args.peer) if args.peer else None
    key, rows = bench_table.compare(bench, args.bench, peer, args.peer, args.shape)
    device = bench.get("device", "unknown device")

    table = bench_table.markdown_table(key, rows, device)
    if args.markdown:
        atomic_file.write_file_atomically(args.markdown, table.encode())
    if pyplot:
        atomic_file.write_file_atomically(args.output, draw_png(pyplot, key, rows, device))
    sys.stdout.write(table)
    return exit_codes.OK


if __name__ == "__main__":
    sys.exit(exit_codes.run_main(main))
