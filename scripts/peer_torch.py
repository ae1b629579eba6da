#!/usr/bin/env python3
"""The PyTorch peer of moetune's fused MoE (issue 6): per shape and token bucket of an AITER
untuned CSV, times the same MoE built from stock torch operators and writes a JSON that
plot_bench.py sets beside `moetune bench`'s.

What one timed call does (torch_moe.moe_forward): from bf16 hidden states [M, model_dim], top-k
expert ids and routing weights, to bf16 output [M, model_dim] -- argsort of the routed rows by
expert, per-row FP8 quantisation of the activations and gather, torch._scaled_grouped_mm (FP8
rowwise) for gate/up, SiLU(gate)*up, per-row FP8 re-quantisation, torch._scaled_grouped_mm for
down, routing-weight multiply and index_add combine. Not timed: making the weights (random FP8
e4m3 with per-channel scales) and the routing (softmax over random logits, top-k, weights
renormalised to sum to 1), which moetune's kernels take as inputs too.

Timing: --launches calls captured in one CUDA graph, --warmup replays, then --replays replays each
between CUDA events; a bucket's `us` is the median replay / launches. With --routings N (default 8,
as `moetune bench`) the graph's calls take N routings in turn (bucket M's from SEED+M, SEED+M+1, ...; the launches rounded up to a
multiple of N), so that a call's experts do not find their weights in the L2 the call before left, as
`moetune bench --routings N` does; the bytes and roofline are then the mean over the N, the experts
touched and the check routing 0's. Each bucket's output is then
checked against an fp32 reference on the same FP8 operands (torch_moe.reference_forward) with
moetune's cosine measure; above 0.1 the bucket is reported and the run exits 1.

Exit codes as moetune's (docs/exit-codes.md): 2 bad flags or shapes file (FILE:LINE: message),
3 no usable GPU or no PyTorch, 4 output not writable, 1 torch rejected the MoE or a check failed.
docs/benchmarks.md has the JSON schema.
"""
import argparse
import json
import sys

import atomic_file
import exit_codes
import graph_timing
import moe_roofline
import torch_moe
import untuned_shapes

ERR_COSINE_LIMIT = 0.1  # moetune's default --err-ratio for its cosine measure (docs/measurement.md)


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="peer_torch.py", description="Times the PyTorch FP8 MoE per shape and token bucket (issue 6).",
        epilog="What is timed and the JSON schema: docs/benchmarks.md.")
    parser.add_argument("--shapes", required=True, metavar="F.csv", help="AITER untuned CSV")
    parser.add_argument("--tokens", metavar="LIST", help="token buckets, e.g. 1,2,4 (default: the file's token column)")
    parser.add_argument("--json", required=True, metavar="OUT.json", help="where the results go (written atomically)")
    parser.add_argument("--launches", type=int, default=20, help="calls per CUDA graph (default %(default)s)")
    parser.add_argument("--replays", type=int, default=7, help="timed graph replays, median taken (default %(default)s)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed graph replays first (default %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="weights from SEED, bucket M's inputs from SEED+M (default %(default)s)")
    parser.add_argument("--routings", type=int, default=8,
                        help="routings the graph's calls take in turn, bucket M's from SEED+M on: more than 1 keeps "
                             "one call's experts from finding their weights in the L2 the call before left, as "
                             "moetune bench --routings, whose default this is (1 to 64, default %(default)s)")
    parser.add_argument("--hbm-tbps", type=float, default=4.27, help="HBM bandwidth of the roofline, TB/s (default %(default)s)")
    parser.add_argument("--peak-tflops", type=float, default=1550.0, help="FP8 tensor peak of the roofline, TFLOP/s (default %(default)s)")
    # argparse exits 2 on bad flags, the project's usage code.
    args = parser.parse_args(argv)
    for flag in ("launches", "replays", "hbm_tbps", "peak_tflops"):
        if getattr(args, flag) <= 0:
            parser.error(f"--{flag.replace('_', '-')} must be positive")
    if args.warmup < 0:
        parser.error("--warmup must not be negative")
    if not 1 <= args.routings <= 64:
        parser.error("--routings must be 1 to 64")
    # Every routing captured as often.
    args.launches = -(-args.launches // args.routings) * args.routings
    return args


def import_cuda_torch():
    """torch, once it is known to reach a GPU; exit 3 otherwise."""
    try:
        import torch
    except ImportError:
        raise exit_codes.ExitError(exit_codes.NO_GPU, "no usable GPU: peer_torch.py needs PyTorch with CUDA, "
                                   "and torch is not installed") from None
    if not torch.cuda.is_available():
        raise exit_codes.ExitError(exit_codes.NO_GPU, f"no usable GPU: torch {torch.__version__} sees no CUDA device")
    return torch


def measure_bucket(torch, shape, tokens, weights, args):
    """Times and checks one bucket; returns its JSON object."""
    inputs = [torch_moe.make_inputs(tokens, shape.model_dim, shape.experts, shape.topk, args.seed + tokens + r)
              for r in range(args.routings)]
    hidden, topk_ids, topk_weights = inputs[0]
    calls = [0]

    def call():
        """The next routing's call (the check's is routing 0's); each call captured takes the next."""
        h, ids, w = inputs[calls[0] % len(inputs)]
        calls[0] += 1
        return torch_moe.moe_forward(h, ids, w, weights)

    try:
        err = torch_moe.cosine_difference(
            torch_moe.reference_forward(hidden, topk_ids, topk_weights, weights), call())
        us = graph_timing.time_per_call_us(call, args.launches, args.warmup, args.replays)
    except (AttributeError, NotImplementedError, RuntimeError, TypeError, ValueError) as error:
        # torch._scaled_grouped_mm's checks (strides, dims, scale shapes, device capability) raise these.
        raise exit_codes.ExitError(
            exit_codes.FAILED, f"{args.shapes}:{shape.line}: torch {torch.__version__} rejected the MoE at "
            f"{tokens} tokens: {error}") from None

    touched = [ids.unique().numel() for _, ids, _ in inputs]
    experts_touched = touched[0]
    bucket = {"tokens": tokens, "us": us, "experts_touched": experts_touched}
    bucket.update(moe_roofline.bucket_roofline(tokens, shape.model_dim, shape.inter_dim, shape.topk, touched,
                                               args.hbm_tbps, args.peak_tflops))
    bucket["roofline_pct"] = moe_roofline.roofline_pct(bucket["roofline_us"], us)
    bucket["err_cosine"] = err
    print(f"{shape.model_dim}x{shape.inter_dim} E{shape.experts} top{shape.topk} M={tokens}: {us:.2f} us, "
          f"{bucket['roofline_pct']:.1f}% of roofline, {experts_touched} experts, err {err:.2e}", file=sys.stderr)
    return bucket


def measure_shape(torch, shape, tokens, args):
    weights = torch_moe.make_weights(shape.model_dim, shape.inter_dim, shape.experts, args.seed)
    return {"model_dim": shape.model_dim, "inter_dim": shape.inter_dim, "experts": shape.experts,
            "topk": shape.topk,
            "buckets": [measure_bucket(torch, shape, m, weights, args) for m in tokens]}


def main(argv):
    args = parse_args(argv)
    shapes = untuned_shapes.read_shapes(args.shapes)
    tokens = untuned_shapes.parse_token_list(args.tokens) if args.tokens else None
    for shape in shapes:
        problem = torch_moe.unsupported_dims(shape.model_dim, shape.inter_dim)
        if problem:
            raise exit_codes.ExitError(exit_codes.USAGE, f"{args.shapes}:{shape.line}: {problem}")
    atomic_file.check_writable(args.json)
    torch = import_cuda_torch()

    results = [measure_shape(torch, shape, tokens or shape.tokens, args) for shape in shapes]
    document = {
        "tool": "peer_torch",
        "device": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "command": ["peer_torch.py"] + list(argv),
        "timing": {"launches": args.launches, "replays": args.replays, "warmup": args.warmup,
                   "us": "median replay / launches"},
        "seed": args.seed,
        "routing": "softmax over N(0,1) logits, top-k, weights renormalised to sum 1",
        "routings": args.routings,
        "peaks": {"hbm_tbps": args.hbm_tbps, "tflops": args.peak_tflops},
        "shapes": results,
    }
    atomic_file.write_file_atomically(args.json, (json.dumps(document, indent=2) + "\n").encode())

    wrong = [f"M={b['tokens']} ({s['model_dim']}x{s['inter_dim']})" for s in results for b in s["buckets"]
             if not b["err_cosine"] <= ERR_COSINE_LIMIT]
    if wrong:
        print(f"{args.json}: cosine difference to the fp32 reference above {ERR_COSINE_LIMIT} at "
              f"{', '.join(wrong)}", file=sys.stderr)
        return exit_codes.FAILED
    return exit_codes.OK


if __name__ == "__main__":
    sys.exit(exit_codes.run_main(main))
