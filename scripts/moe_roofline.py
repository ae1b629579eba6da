"""The roofline of one fused MoE call, as ../shared/reference/performance-anchors.md defines it,
shared by peer_torch.py and plot_bench.py so the torch peer and moetune's kernels are held to the
same bound.

The bytes are those of moetune's a8w4 MoE (what the kernels must move at least), whatever the
format the measured implementation uses: FP4 e2m1 weights with one e8m0 scale per 32 values for
the routed experts only, FP8 activations with their per-32 scales, bf16 output.
"""


def expert_weight_bytes(model_dim, inter_dim):
    """FP4 values (2 per byte) and e8m0 scales (1 per 32 values) of W1 [2*inter, model_dim] and
    W2 [model_dim, inter] of one expert."""
    values = 2 * inter_dim * model_dim + model_dim * inter_dim
    return values // 2 + values // 32


def bytes_touched(tokens, model_dim, inter_dim, experts_touched):
    """The routed experts' weights and scales, the FP8 activations with their scales, the bf16 output."""
    activations = tokens * model_dim + tokens * model_dim // 32
    output = tokens * model_dim * 2
    return experts_touched * expert_weight_bytes(model_dim, inter_dim) + activations + output


def flops(tokens, model_dim, inter_dim, topk):
    """Both GEMMs over the routed rows: gate/up (N = 2*inter) and down (N = model_dim)."""
    rows = tokens * topk
    return 2 * rows * model_dim * (2 * inter_dim) + 2 * rows * inter_dim * model_dim


def roofline_us(byte_count, flop_count, hbm_tbps, peak_tflops):
    """The slower of streaming the bytes at hbm_tbps (TB/s) and doing the flops at peak_tflops."""
    return max(byte_count / (hbm_tbps * 1e12), flop_count / (peak_tflops * 1e12)) * 1e6


def roofline_pct(roofline, measured_us):
    """How close a measured time comes to the roofline, in percent (100 = at the bound)."""
    return 100.0 * roofline / measured_us


def bucket_roofline(tokens, model_dim, inter_dim, topk, experts_touched_each, hbm_tbps, peak_tflops):
    """The per-bucket fields both JSON outputs carry: bytes, flops, roofline_us. Over the routings a
    bucket's calls take in turn, equally often (experts_touched_each: each one's distinct experts): the
    mean bytes and the roofline of that mean work, as `moetune bench --routings` counts them."""
    byte_count = sum(bytes_touched(tokens, model_dim, inter_dim, e) for e in experts_touched_each) / len(
        experts_touched_each)
    flop_count = flops(tokens, model_dim, inter_dim, topk)
    return {
        "bytes": byte_count,
        "flops": flop_count,
        "roofline_us": roofline_us(byte_count, flop_count, hbm_tbps, peak_tflops),
    }
