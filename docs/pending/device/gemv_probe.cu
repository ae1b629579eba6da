// Experiment (not project code, session 63): one token's two stages as GEMVs on a grid of many short
// weight streams. The register-fed one-token kernels are bound by the warps that stream (their grid is 360
// workgroups of 4 warps: 2.49 TB/s on an H100 with loads alone, stream_probe.cu), not by their math. Here each
// workgroup takes one 16-row MMA tile of one expert and splits K among its S warps, so stage 1 runs 1440 x S
// warps, each with D 16-byte loads a lane in flight (in registers, or in a cp.async ring: tile_share's LOADER).
// The math: FP4 weights decoded to e4m3 (two operations a 32-bit word of eight), mma.sync m16n8k32 e4m3 with the
// token in every column of B, each 32-wide block's FP32 sum scaled by its two e8m0 scales; or (MATH 3) decoded to
// f16 for m16n8k16 f16 products on the token in f16.
//   Stage 1: rows g = gate, g + 8 = up of 8 intermediate columns, so a lane ends with both halves of SiLU(g) * u.
//   Stage 2: 16 rows of w2; the workgroup's warps are (topk slot, K share); the weighted sum over slots in smem.
//   The chain (stage1_mx): stage 1 in workgroups of one 32-column MX block writing SiLU(g) * u as f16 under an e8m0
//   scale a block, in the order the f16 stage 2 reads, and that stage 2 reading it: the pair as a MoE would run it.
// Weights of 96 experts, 8 routings of 5 in turn (nothing of a launch's experts in L2 from the launch before, as
// `moetune measure` times them). Checked against a host reference computed from the packed bytes through the
// PTX fragment tables (so a wrong fragment assumption fails), then timed: median of 30 graph replays of 8
// launches (one a routing) after 3, per launch.
// nvcc -O3 -std=c++17 -arch=sm_90a -o gemv_probe gemv_probe.cu && ./gemv_probe
#include "gemv_probe.cuh"

int main() {
    cudaDeviceProp prop;
    const ProbeWeights pw = start_probe(prop);
    unsigned *w1 = pw.w1, *s1 = pw.s1, *w2 = pw.w2, *s2 = pw.s2;

    std::mt19937 rng(7);
    auto fp8 = [&]() { unsigned char b = rng() & 0xFF; return (b & 0x7F) == 0x7F ? (unsigned char)(b ^ 1) : b; };
    std::vector<unsigned char> tok(kModel), tok_s(kModel / 32), mid(kTopk * kInter), mid_s(kTopk * kInter / 32);
    for (auto& b : tok) b = fp8();
    for (auto& b : tok_s) b = 118 + rng() % 8;
    for (auto& b : mid) b = fp8();
    for (auto& b : mid_s) b = 118 + rng() % 8;
    std::vector<unsigned char> tok_p(kModel), mid_p(kTopk * kInter);
    permute_token(tok.data(), kPairs1, tok_p.data());
    for (int s = 0; s < kTopk; ++s) permute_token(mid.data() + s * kInter, kPairs2, mid_p.data() + s * kInter);
    std::vector<int> experts(kRoutings * kTopk);
    std::vector<float> weights(kRoutings * kTopk);
    make_routings(rng, experts, weights);
    unsigned char *d_tok, *d_mid;
    unsigned short *d_tok_s, *d_mid_s;
    int* d_exp;
    float* d_wt;
    __nv_bfloat16 *d_out1, *d_out2;
    CK(cudaMalloc(&d_tok, kModel));
    CK(cudaMalloc(&d_mid, kTopk * kInter));
    CK(cudaMalloc(&d_tok_s, kModel / 32));
    CK(cudaMalloc(&d_mid_s, kTopk * kInter / 32));
    CK(cudaMalloc(&d_exp, experts.size() * 4));
    CK(cudaMalloc(&d_wt, weights.size() * 4));
    CK(cudaMalloc(&d_out1, kTopk * kInter * 2));
    CK(cudaMalloc(&d_out2, kModel * 2));
    CK(cudaMemcpy(d_tok, tok_p.data(), kModel, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_mid, mid_p.data(), kTopk * kInter, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_tok_s, tok_s.data(), kModel / 32, cudaMemcpyHostToDevice));  // pairs of blocks = ushorts
    CK(cudaMemcpy(d_mid_s, mid_s.data(), kTopk * kInter / 32, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_exp, experts.data(), experts.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_wt, weights.data(), weights.size() * 4, cudaMemcpyHostToDevice));

    std::vector<unsigned> tok_h(kModel / 2), mid_h(kTopk * kInter / 2);
    permute_token_f16(tok.data(), kPairs1, tok_h.data());
    for (int s = 0; s < kTopk; ++s) permute_token_f16(mid.data() + s * kInter, kPairs2, mid_h.data() + s * kInter / 2);
    unsigned *d_tok_h, *d_mid_h;
    CK(cudaMalloc(&d_tok_h, tok_h.size() * 4));
    CK(cudaMalloc(&d_mid_h, mid_h.size() * 4));
    CK(cudaMemcpy(d_tok_h, tok_h.data(), tok_h.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_mid_h, mid_h.data(), mid_h.size() * 4, cudaMemcpyHostToDevice));
    Stage1Args a1{(const uint4*)w1, s1, (const uint4*)d_tok, d_tok_s, d_exp, 0, d_out1, (const uint4*)d_tok_h};
    Stage2Args a2{(const uint4*)w2, s2, (const uint4*)d_mid, d_mid_s, d_exp, d_wt, 0, d_out2, (const uint4*)d_mid_h};
    const double bytes1 = double(kTopk) * kGroups1 * kPairs1 * 544, bytes2 = double(kTopk) * kGroups2 * kPairs2 * 544;

    // Host reference of routing 0, for the e4m3 reading of the weights and for the f16 one (MATH 3); and the chain's
    // (stage 2 on the f16 reading's stage-1 values).
    auto values = [](const std::vector<unsigned char>& v, const std::vector<unsigned char>& sc) {
        std::vector<double> out(v.size());
        for (size_t k = 0; k < v.size(); ++k) out[k] = e4m3(v[k]) * std::ldexp(1.0, int(sc[k / 32]) - 127);
        return out;
    };
    const std::vector<double> tokv = values(tok, tok_s), midv = values(mid, mid_s);
    std::vector<double> ref1(kTopk * kInter), mag1(kTopk * kInter), ref2(kModel, 0.0), mag2(kModel, 0.0);
    std::vector<double> ref1h(kTopk * kInter), mag1h(kTopk * kInter), ref2h(kModel, 0.0), mag2h(kModel, 0.0);
    // Stage 1, then stage 2 on the given intermediate values (midv), of routing 0.
    auto reference = [&](bool f16, std::vector<double>& ref1, std::vector<double>& mag1, std::vector<double>& ref2,
                         std::vector<double>& mag2) {
        reference1(w1, s1, experts.data(), tokv.data(), f16, ref1, mag1);
        reference2(w2, s2, experts.data(), weights.data(), midv.data(), f16, ref2, mag2);
    };
    reference(false, ref1, mag1, ref2, mag2);
    reference(true, ref1h, mag1h, ref2h, mag2h);
    std::vector<double> refc(kModel, 0.0), magc(kModel, 0.0);
    reference2(w2, s2, experts.data(), weights.data(), ref1h.data(), true, refc, magc);
    bool ok = true;
    // One kernel: checked against the reference its math reads (MATH 1: e4m3, 3: f16; none for 0 and 2), then
    // timed over the routings.
    auto run_kernel = [&](auto kernel, auto args, int grid, int block, int smem, int math, const char* label,
                          __nv_bfloat16* out, size_t elems, const std::vector<double>* ref,
                          const std::vector<double>* mag, double bytes) {
        cudaFuncAttributes fa;
        CK(cudaFuncGetAttributes(&fa, kernel));
        if (fa.maxThreadsPerBlock < block) {  // its registers do not fit the workgroup
            std::printf("%s: %d registers, at most %d threads a workgroup: skipped\n    -\n", label, fa.numRegs,
                        fa.maxThreadsPerBlock);
            return;
        }
        if (smem) CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        CK(cudaMemset(out, 0, elems * 2));
        args.routing = 0;
        kernel<<<grid, block, smem>>>(args);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        static const char* const kMath[] = {"loads only", "math e4m3", "no products", "math f16"};
        std::printf("%s %s (%d regs): grid %d x %d warps\n", label, kMath[math], fa.numRegs, grid, block / 32);
        if (ref) ok &= check(out, *ref, *mag);
        const float us = time_graph([&](cudaStream_t st) {
            for (int r = 0; r < kRoutings; ++r) {
                auto b = args;
                b.routing = r;
                kernel<<<grid, block, smem, st>>>(b);
            }
        });
        std::printf("    %.2f us, %.2f TB/s (%.1f MB)\n", us, bytes / us / 1e6, bytes / 1e6);
    };
    auto run1 = [&](auto s, auto d, auto h, auto m) {
        constexpr int S = decltype(s)::value, D = decltype(d)::value, H = decltype(h)::value, M = decltype(m)::value;
        char label[64];
        std::snprintf(label, sizeof label, "stage 1 S=%d D=%-2d loader %d", S, D, H);
        run_kernel(stage1<S, D, H, M>, a1, kTopk * kGroups1, 32 * S, H == 2 ? S * D * kSlotVec * 16 : 0, M, label,
                   d_out1, ref1.size(), M == 1 ? &ref1 : M == 3 ? &ref1h : nullptr, M == 1 ? &mag1 : &mag1h, bytes1);
    };
    auto run2 = [&](auto s, auto d, auto h, auto m) {
        constexpr int S = decltype(s)::value, D = decltype(d)::value, H = decltype(h)::value, M = decltype(m)::value;
        char label[64];
        std::snprintf(label, sizeof label, "stage 2 S=%d D=%-2d loader %d", S, D, H);
        run_kernel(stage2<S, D, H, M>, a2, kGroups2, 32 * S * kTopk, H == 2 ? S * kTopk * D * kSlotVec * 16 : 0, M,
                   label, d_out2, ref2.size(), M == 1 ? &ref2 : M == 3 ? &ref2h : nullptr, M == 1 ? &mag2 : &mag2h,
                   bytes2);
    };
    using std::integral_constant;
    using I0 = integral_constant<int, 0>;
    using I1 = integral_constant<int, 1>;
    using I2 = integral_constant<int, 2>;
    using I3 = integral_constant<int, 3>;
    auto each = [&](auto run, auto s, auto d) {
        run(s, d, I0{}, I1{}), run(s, d, I2{}, I1{}), run(s, d, I0{}, I3{}), run(s, d, I2{}, I3{});
        run(s, d, I0{}, I2{}), run(s, d, I0{}, I0{});
    };
    each(run1, integral_constant<int, 4>{}, integral_constant<int, 8>{});
    each(run1, integral_constant<int, 8>{}, integral_constant<int, 4>{});
    each(run1, integral_constant<int, 8>{}, integral_constant<int, 10>{});
    each(run2, integral_constant<int, 2>{}, integral_constant<int, 6>{});
    each(run2, integral_constant<int, 4>{}, integral_constant<int, 9>{});
    // More shapes for the f16 products only (fewer registers than the e4m3 ones: more warps an SM).
    auto each_f16 = [&](auto run, auto s, auto d) { run(s, d, I0{}, I3{}), run(s, d, I2{}, I3{}); };
    each_f16(run1, integral_constant<int, 8>{}, integral_constant<int, 8>{});
    each_f16(run1, integral_constant<int, 16>{}, integral_constant<int, 5>{});
    each_f16(run2, integral_constant<int, 1>{}, integral_constant<int, 8>{});
    each_f16(run2, integral_constant<int, 3>{}, integral_constant<int, 6>{});
    each_f16(run2, integral_constant<int, 6>{}, integral_constant<int, 6>{});
    // The chain (item 29 step 3): stage1_mx writing f16 rows and their scales, the f16 stage 2 reading them.
    constexpr int kBlocks1 = kInter / 32;
    unsigned short* d_mid16;
    unsigned char* d_mids;
    CK(cudaMalloc(&d_mid16, kTopk * kInter * 2));
    CK(cudaMalloc(&d_mids, kTopk * kBlocks1));
    Stage1MxArgs m1{(const uint4*)w1, s1, d_tok_s, (const uint4*)d_tok_h, d_exp, 0, d_mid16, d_mids};
    Stage2Args c2 = a2;
    c2.xh = (const uint4*)d_mid16;
    c2.xs = (const unsigned short*)d_mids;
    constexpr int kSmem2 = 2 * kTopk * 6 * kSlotVec * 16;  // stage2<2, 6, 2, 3>'s ring
    auto check_mid = [&]() {  // stage1_mx's rows against the f16 reading's reference
        std::vector<unsigned short> h(kTopk * kInter);
        std::vector<unsigned char> sc(kTopk * kBlocks1);
        CK(cudaMemcpy(h.data(), d_mid16, h.size() * 2, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(sc.data(), d_mids, sc.size(), cudaMemcpyDeviceToHost));
        double worst = 0;
        for (int slot = 0; slot < kTopk; ++slot)
            for (int k = 0; k < kInter; ++k) {
                const int i = slot * kInter + k;
                const double v = f16v(h[slot * kInter + f16_position(k)]) *
                                 std::ldexp(1.0, int(sc[slot * kBlocks1 + k / 32]) - 127);
                worst = std::max(worst, std::fabs(v - ref1h[i]) / (mag1h[i] + std::fabs(ref1h[i]) + 1e-30));
            }
        std::printf("    check of stage 1's f16 rows: worst error / magnitude %.2e -> %s\n", worst, worst < 1e-2 ? "pass" : "FAIL");
        return worst < 1e-2;
    };
    auto chain = [&](auto s, auto d) {
        constexpr int S = decltype(s)::value, D = decltype(d)::value, block = 4 * S * 32;
        cudaFuncAttributes fa;
        CK(cudaFuncGetAttributes(&fa, stage1_mx<S, D>));
        std::printf("chain: stage1_mx S=%d D=%-2d (%d regs): grid %d x %d warps, then stage 2 S=2 D=6 loader 2 f16\n", S,
                    D, fa.numRegs, kTopk * kBlocks1, 4 * S);
        if (fa.maxThreadsPerBlock < block) {
            std::printf("    skipped: at most %d threads a workgroup\n", fa.maxThreadsPerBlock);
            return;
        }
        m1.routing = c2.routing = 0;
        CK(cudaMemset(d_out2, 0, kModel * 2));
        stage1_mx<S, D><<<kTopk * kBlocks1, block>>>(m1);
        stage2<2, 6, 2, 3><<<kGroups2, 32 * 2 * kTopk, kSmem2>>>(c2);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        ok &= check_mid();
        ok &= check(d_out2, refc, magc);
        const float alone = time_graph([&](cudaStream_t st) {
            for (int r = 0; r < kRoutings; ++r) {
                Stage1MxArgs b = m1;
                b.routing = r;
                stage1_mx<S, D><<<kTopk * kBlocks1, block, 0, st>>>(b);
            }
        });
        const float both = time_graph([&](cudaStream_t st) {
            for (int r = 0; r < kRoutings; ++r) {
                Stage1MxArgs b = m1;
                b.routing = r;
                stage1_mx<S, D><<<kTopk * kBlocks1, block, 0, st>>>(b);
                Stage2Args c = c2;
                c.routing = r;
                stage2<2, 6, 2, 3><<<kGroups2, 32 * 2 * kTopk, kSmem2, st>>>(c);
            }
        });
        std::printf("    stage1_mx alone %.2f us (%.2f TB/s); with stage 2 reading its rows %.2f us a routing\n", alone,
                    bytes1 / alone / 1e6, both);
    };
    chain(integral_constant<int, 2>{}, integral_constant<int, 8>{});
    chain(integral_constant<int, 4>{}, integral_constant<int, 4>{});
    chain(integral_constant<int, 8>{}, integral_constant<int, 4>{});
    // Both stages, one routing after another (stage 2 of routing r reads its own inputs, not stage 1's output:
    // the pair's time with no pass between them).
    const float pair = time_graph([&](cudaStream_t st) {
        for (int r = 0; r < kRoutings; ++r) {
            Stage1Args b = a1;
            b.routing = r;
            stage1<8, 4, 0, 3><<<kTopk * kGroups1, 256, 0, st>>>(b);
            Stage2Args c = a2;
            c.routing = r;
            stage2<2, 6, 2, 3><<<kGroups2, 32 * 2 * kTopk, 10 * 6 * kSlotVec * 16, st>>>(c);
        }
    });
    std::printf("both stages (f16 products: S=8 D=4 registers, S=2 D=6 cp.async ring) one after the other: %.2f us a routing\n", pair);
    std::printf("%s\n", ok ? "all checks passed" : "SOME CHECKS FAILED");
    return ok ? 0 : 1;
}
