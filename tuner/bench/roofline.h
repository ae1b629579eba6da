#pragma once
// The work of one fused-MoE call and its roofline, counted as ../shared/reference/performance-anchors.md
// counts them, so `moetune bench`, scripts/peer_torch.py and the anchors' table compare like with like:
//   bytes = experts touched x (FP4 W1 + W2 and their e8m0 scales) + FP8 activations and their
//           scales + the bf16 output
//   flops = 2*M*topk*model_dim*(2*inter_dim) + 2*M*topk*inter_dim*model_dim
//   roofline_us = max(bytes / HBM bandwidth, flops / tensor peak)
#include "data/moe_problem.h"

namespace moetune::bench {

struct MoeWork {
    double bytes = 0;
    double flops = 0;
};

struct Peaks {
    double hbm_tbps = 0;  // TB/s (1e12 bytes/s)
    double tflops = 0;    // dense FP8 tensor TFLOP/s
};

// Pure. experts_touched: distinct experts the routing sends at least one row to.
MoeWork moe_work(const data::MoeShape& shape, int experts_touched);
double roofline_us(const MoeWork& work, const Peaks& peaks);
double achieved_tbps(const MoeWork& work, double us);
double achieved_tflops(const MoeWork& work, double us);

}  // namespace moetune::bench
