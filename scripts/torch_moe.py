"""The fused MoE of moetune's shapes built from stock PyTorch operators: the peer that
peer_torch.py times next to moetune's kernels (issue 6). Needs torch with CUDA; every function
imports it inside so the module loads anywhere.

One call, moe_forward, takes what a fused MoE kernel takes (bf16 hidden states [M, model_dim], the
top-k expert ids and routing weights, the FP8 expert weights) and does, all on the GPU:
  1. sort: a stable argsort of the M*topk expert ids groups the routed rows by expert; the group
     ends (offs) come from searchsorted on the sorted ids;
  2. per-row FP8 e4m3 quantisation of the M activation rows (one fp32 scale per row), then the
     gather of the quantised rows and scales into expert order;
  3. gate/up GEMM: torch._scaled_grouped_mm(rows, W1^T, row scales, W1 channel scales, offs);
     W1 is [E, 2*inter, model_dim] with the gate in rows [0, inter) and up in [inter, 2*inter)
     (two halves, not interleaved: the layout does not change the work);
  4. SiLU(gate) * up in bf16, re-quantised per row to FP8;
  5. down GEMM: torch._scaled_grouped_mm with W2 [E, model_dim, inter];
  6. combine: each row times its routing weight, index_add into an fp32 [M, model_dim] buffer,
     returned as bf16.
torch._scaled_grouped_mm (rowwise-scaled CUTLASS grouped GEMM on sm_90) takes mat_a row-major
[rows, K], mat_b column-major [E, K, N] (a transposed view of the [E, N, K] weights), fp32 scales
[rows] and [E, N], int32 offs with the cumulative row count per expert, and wants K and N multiples
of 16. Groups need no padding in this 2D x 3D case: a group's rows start at offs * K bytes, 16-byte
aligned whenever K is a multiple of 16.
"""

FP8_MAX = 448.0  # the largest finite float8_e4m3fn
GEMM_DIM_MULTIPLE = 16  # torch._scaled_grouped_mm's requirement on K and N


def unsupported_dims(model_dim, inter_dim):
    """Why torch._scaled_grouped_mm cannot take this shape, or None."""
    if model_dim % GEMM_DIM_MULTIPLE or inter_dim % GEMM_DIM_MULTIPLE:
        return (f"model_dim {model_dim} and inter_dim {inter_dim} must be multiples of {GEMM_DIM_MULTIPLE} "
                "for torch._scaled_grouped_mm")
    return None


def quantize_rows(x):
    """x [rows, K] -> (float8_e4m3fn [rows, K], fp32 scale [rows]) with x ~= q * scale; an all-zero
    row gets the smallest normal fp32 as its scale rather than 0/0."""
    import torch

    amax = x.abs().amax(dim=-1).float().clamp(min=torch.finfo(torch.float32).tiny)
    scale = amax / FP8_MAX
    return (x.float() / scale.unsqueeze(-1)).to(torch.float8_e4m3fn), scale


def make_expert_weights(experts, rows, cols, generator):
    """Random expert weights [experts, rows, cols], N(0, 1/cols) so products stay near unit scale,
    quantised per output channel (row) to FP8: (values, fp32 scales [experts, rows]). One expert at a
    time, so the bf16 draft never needs more memory than one expert."""
    import torch

    values = torch.empty(experts, rows, cols, dtype=torch.float8_e4m3fn, device="cuda")
    scales = torch.empty(experts, rows, dtype=torch.float32, device="cuda")
    for e in range(experts):
        draft = torch.randn(rows, cols, generator=generator, device="cuda", dtype=torch.bfloat16) / cols ** 0.5
        values[e], scales[e] = quantize_rows(draft)
    return values, scales


def make_weights(model_dim, inter_dim, experts, seed):
    """W1 [E, 2*inter, model_dim] and W2 [E, model_dim, inter] with their channel scales."""
    import torch

    generator = torch.Generator(device="cuda").manual_seed(seed)
    w1, w1_scale = make_expert_weights(experts, 2 * inter_dim, model_dim, generator)
    w2, w2_scale = make_expert_weights(experts, model_dim, inter_dim, generator)
    return {"w1": w1, "w1_scale": w1_scale, "w2": w2, "w2_scale": w2_scale}


def make_inputs(tokens, model_dim, experts, topk, seed):
    """bf16 hidden states N(0, 1) and the routing: softmax over N(0, 1) logits per token, its top-k
    experts, their probabilities renormalised to sum to 1 (fp32)."""
    import torch

    generator = torch.Generator(device="cuda").manual_seed(seed)
    hidden = torch.randn(tokens, model_dim, generator=generator, device="cuda", dtype=torch.bfloat16)
    logits = torch.randn(tokens, experts, generator=generator, device="cuda", dtype=torch.float32)
    weights, ids = logits.softmax(dim=-1).topk(topk, dim=-1)
    return hidden, ids, weights / weights.sum(dim=-1, keepdim=True)


def moe_forward(hidden, topk_ids, topk_weights, weights):
    """The MoE of the module docstring: bf16 [M, model_dim] out. No host synchronisation, so the
    call can be captured in a CUDA graph."""
    import torch

    tokens, topk = topk_ids.shape
    experts, inter = weights["w1"].shape[0], weights["w1"].shape[1] // 2

    flat_ids = topk_ids.reshape(-1)
    order = torch.argsort(flat_ids, stable=True)
    sorted_ids = flat_ids[order]
    row_token = order // topk
    offs = torch.searchsorted(sorted_ids, torch.arange(experts, device=hidden.device), right=True).to(torch.int32)

    hidden_q, hidden_scale = quantize_rows(hidden)
    # Gathered as bytes: a plain copy, whichever FP8 kernels this torch build indexes with.
    rows = hidden_q.view(torch.uint8)[row_token].view(torch.float8_e4m3fn)
    gate_up = torch._scaled_grouped_mm(rows, weights["w1"].transpose(1, 2), hidden_scale[row_token],
                                       weights["w1_scale"], offs=offs, out_dtype=torch.bfloat16)
    act = torch.nn.functional.silu(gate_up[:, :inter]) * gate_up[:, inter:]
    act_q, act_scale = quantize_rows(act)
    down = torch._scaled_grouped_mm(act_q, weights["w2"].transpose(1, 2), act_scale, weights["w2_scale"],
                                    offs=offs, out_dtype=torch.bfloat16)

    out = torch.zeros(tokens, down.shape[1], dtype=torch.float32, device=hidden.device)
    out.index_add_(0, row_token, down.float() * topk_weights.reshape(-1)[order].unsqueeze(1))
    return out.to(torch.bfloat16)


def reference_forward(hidden, topk_ids, topk_weights, weights):
    """The same MoE in fp32 on the same FP8 operands, expert by expert with masks (no sort, no
    grouped GEMM, no re-quantisation of the intermediate): the judge of moe_forward's plumbing."""
    import torch

    hidden_q, hidden_scale = quantize_rows(hidden)
    x = hidden_q.float() * hidden_scale.unsqueeze(1)
    inter = weights["w1"].shape[1] // 2
    out = torch.zeros(hidden.shape[0], weights["w2"].shape[1], dtype=torch.float32, device=hidden.device)
    for e in topk_ids.unique().tolist():
        token, slot = (topk_ids == e).nonzero(as_tuple=True)
        w1 = weights["w1"][e].float() * weights["w1_scale"][e].unsqueeze(1)
        w2 = weights["w2"][e].float() * weights["w2_scale"][e].unsqueeze(1)
        gate_up = x[token] @ w1.T
        act = torch.nn.functional.silu(gate_up[:, :inter]) * gate_up[:, inter:]
        out.index_add_(0, token, (act @ w2.T) * topk_weights[token, slot].unsqueeze(1))
    return out


def cosine_difference(reference, output):
    """1 - 2*sum(x*y) / sum(x^2 + y^2) in float64: the measure moetune gates candidates with
    (tuner/data/error_metrics.h, default threshold 0.1); inf when the output is not finite."""
    import torch

    ref, out = reference.double(), output.double()
    if not torch.isfinite(out).all():
        return float("inf")
    denominator = (ref * ref + out * out).sum().item()
    return 0.0 if denominator == 0 else 1.0 - 2.0 * (ref * out).sum().item() / denominator
