#include "bench/shape_bench.h"

#include <algorithm>
#include <array>
#include <set>
#include <vector>

#include "common/median.h"
#include "data/error_metrics.h"
#include "data/routing.h"
#include "data/routing_spec.h"
#include "data/synthetic_inputs.h"
#include "data_gpu/data_kernels.h"
#include "data_gpu/synthetic_inputs_gpu.h"
#include "formats/bf16_vector.h"
#include "gpu/device_buffer.h"
#include "measure/graph_timing.h"
#include "measure/sm_clock_probe.h"
#include "rtc/kernel_cache.h"
#include "runtime/cache_dir.h"

namespace moetune::bench {
namespace {

MoeShapeKey shape_key(const data::MoeShape& s) {
    MoeShapeKey k;  // the a8w4 spellings are the defaults: read_shape_rows keeps only rows the kernels run
    k.model_dim = s.model_dim;
    k.inter_dim = s.inter_dim;
    k.experts = s.experts;
    k.topk = s.topk;
    return k;
}

// The expert weights in the kernels' layout: generated logical on the GPU, then laid out by the
// library's own entry points, as a user of libmoetune would.
struct KernelLayoutWeights {
    gpu::DeviceBuffer<uint8_t> w1, w1_scale, w2, w2_scale;
    gpu::DeviceBuffer<uint8_t> w1_rebased, w1_base, w2_rebased, w2_base;  // for the plans that read them
    gpu::DeviceBuffer<uint8_t> w1_e4m3_coded, w2_e4m3_coded;              // likewise
    gpu::DeviceBuffer<uint8_t> w1_fp4_blocks, w2_fp4_blocks;              // likewise (with w1_base, w2_base)
};

// e4m3_coded: also the values in the e4m3 code (a plan of either arm reads them). `cache`: where the generator's
// kernels are compiled (the bench's one cache).
KernelLayoutWeights make_weights(const data::MoeShape& shape, uint64_t seed, const FusedMoeOptions& options,
                                 const gpu::Stream& stream, bool e4m3_coded, const rtc::KernelCache& cache) {
    const data::DataKernels data_kernels(&cache);
    const data::DeviceMoeWeights logical = data::generate_synthetic_weights_gpu(data_kernels, shape, seed, stream);
    const ExpertWeightBytes bytes = FusedMoe::weight_bytes(shape_key(shape));
    KernelLayoutWeights out{gpu::DeviceBuffer<uint8_t>(bytes.w1), gpu::DeviceBuffer<uint8_t>(bytes.w1_scale),
                            gpu::DeviceBuffer<uint8_t>(bytes.w2), gpu::DeviceBuffer<uint8_t>(bytes.w2_scale)};
    FusedMoe::lay_out_weights(shape_key(shape),
                              {logical.w1.data(), logical.w1_scale.data(), logical.w2.data(), logical.w2_scale.data()},
                              {out.w1.data(), out.w1_scale.data(), out.w2.data(), out.w2_scale.data()},
                              stream.native(), options);
    if (e4m3_coded) {
        out.w1_e4m3_coded = gpu::DeviceBuffer<uint8_t>(bytes.w1);
        out.w2_e4m3_coded = gpu::DeviceBuffer<uint8_t>(bytes.w2);
        FusedMoe::code_weights_e4m3(shape_key(shape), {.w1 = logical.w1.data(), .w2 = logical.w2.data()},
                                    {out.w1_e4m3_coded.data(), out.w2_e4m3_coded.data()}, stream.native(), options);
    }
    return out;
}

// The rebased copy (twice the FP4 weights' bytes), made only when a plan of either arm reads it.
void add_rebased_weights(KernelLayoutWeights& w, const data::MoeShape& shape, const FusedMoeOptions& options,
                         const gpu::Stream& stream) {
    const RebasedWeightBytes bytes = FusedMoe::rebased_weight_bytes(shape_key(shape));
    w.w1_rebased = gpu::DeviceBuffer<uint8_t>(bytes.w1);
    w.w1_base = gpu::DeviceBuffer<uint8_t>(bytes.w1_base);
    w.w2_rebased = gpu::DeviceBuffer<uint8_t>(bytes.w2);
    w.w2_base = gpu::DeviceBuffer<uint8_t>(bytes.w2_base);
    FusedMoe::rebase_weights(shape_key(shape), {w.w1.data(), w.w1_scale.data(), w.w2.data(), w.w2_scale.data()},
                             {w.w1_rebased.data(), w.w1_base.data(), w.w2_rebased.data(), w.w2_base.data()},
                             stream.native(), options);
}

// The FP4 blocks (about the FP4 weights' bytes) and, unless the rebased copy made them, the bases
// (the same bytes), made only when a plan of either arm reads them.
void add_fp4_weight_blocks(KernelLayoutWeights& w, const data::MoeShape& shape, const FusedMoeOptions& options,
                           const gpu::Stream& stream) {
    const Fp4WeightBlockBytes bytes = FusedMoe::fp4_weight_block_bytes(shape_key(shape));
    w.w1_fp4_blocks = gpu::DeviceBuffer<uint8_t>(bytes.w1);
    w.w2_fp4_blocks = gpu::DeviceBuffer<uint8_t>(bytes.w2);
    if (w.w1_base.empty()) w.w1_base = gpu::DeviceBuffer<uint8_t>(bytes.w1_base);
    if (w.w2_base.empty()) w.w2_base = gpu::DeviceBuffer<uint8_t>(bytes.w2_base);
    FusedMoe::fp4_weight_blocks(shape_key(shape), {w.w1.data(), w.w1_scale.data(), w.w2.data(), w.w2_scale.data()},
                                {w.w1_fp4_blocks.data(), w.w1_base.data(), w.w2_fp4_blocks.data(), w.w2_base.data()},
                                stream.native(), options);
}

}  // namespace

struct ShapeBench::State {
    data::MoeShape shape;
    BenchSettings settings;
    const gpu::Stream& stream;
    std::array<FusedMoe, 2> arms;  // [0] default (no table), [1] tuned
    KernelLayoutWeights weights;   // made once the arms are prepared: the copies their plans read
    measure::SmClockProbe clock_probe;

    State(const data::MoeShape& s, const TunedTables& tables, const BenchSettings& b, const FusedMoeOptions& options,
          const gpu::Stream& st, const rtc::KernelCache& cache)
        : shape(s),
          settings(b),
          stream(st),
          arms{FusedMoe(shape_key(s), TunedTables(), silent(options)), FusedMoe(shape_key(s), tables, options)},
          clock_probe(&cache) {}

    // The default arm runs the heuristic by design: the library's "no tuned row" line is for the tuned arm,
    // where it names a bucket the table lacks.
    static FusedMoeOptions silent(FusedMoeOptions options) {
        options.log = [](const std::string&) {};
        return options;
    }
};

ShapeBench::ShapeBench(const data::MoeShape& shape, const TunedTables& tables, const BenchSettings& settings,
                       int max_tokens, const gpu::Stream& stream) {
    FusedMoeOptions options;
    options.cache_dir = settings.cache_dir;
    options.overlap_launches = settings.overlap_launches;
    options.l2_stage2_weights = settings.l2_stage2_weights;
    const rtc::KernelCache cache(runtime::cache_dir(options));
    state_ = std::make_unique<State>(shape, tables, settings, options, stream, cache);
    for (FusedMoe& arm : state_->arms) arm.prepare(max_tokens);
    const bool e4m3_coded =
        std::ranges::any_of(state_->arms, [](const FusedMoe& arm) { return arm.reads_e4m3_coded_weights(); });
    state_->weights = make_weights(shape, settings.seed, options, stream, e4m3_coded, cache);
    if (std::ranges::any_of(state_->arms, [](const FusedMoe& arm) { return arm.reads_rebased_weights(); }))
        add_rebased_weights(state_->weights, shape, options, stream);
    if (std::ranges::any_of(state_->arms, [](const FusedMoe& arm) { return arm.reads_fp4_weight_blocks(); }))
        add_fp4_weight_blocks(state_->weights, shape, options, stream);
}

ShapeBench::~ShapeBench() = default;

BucketBench ShapeBench::run(int tokens) {
    State& st = *state_;
    data::MoeShape shape = st.shape;
    shape.tokens = tokens;
    const data::RoutingSpec spec = data::parse_routing_spec(st.settings.routing);
    std::vector<gpu::DeviceBuffer<int32_t>> ids;
    std::vector<gpu::DeviceBuffer<float>> routing_weights;
    std::vector<int> touched;  // each routing's distinct experts
    for (int r = 0; r < std::max(1, st.settings.timing.routings); ++r) {
        const data::Routing routing = data::make_routing(spec, shape, st.settings.seed + static_cast<uint64_t>(r));
        ids.emplace_back(std::span<const int32_t>(routing.ids));
        routing_weights.emplace_back(std::span<const float>(routing.weights));
        touched.push_back(static_cast<int>(std::set<int32_t>(routing.ids.begin(), routing.ids.end()).size()));
    }
    const std::vector<uint16_t> hidden_bits = formats::floats_to_bf16(data::make_synthetic_hidden(shape, st.settings.seed));
    const gpu::DeviceBuffer<uint16_t> hidden{std::span<const uint16_t>(hidden_bits)};
    std::array<gpu::DeviceBuffer<uint16_t>, 2> outs{gpu::DeviceBuffer<uint16_t>(hidden_bits.size()),
                                                    gpu::DeviceBuffer<uint16_t>(hidden_bits.size())};
    const auto args = [&](int arm, int launch = 0) {
        const std::size_t r = static_cast<std::size_t>(launch) % ids.size();
        FusedMoeArgs a;
        a.tokens = tokens;
        a.hidden = hidden.data();
        a.topk_ids = ids[r].data();
        a.topk_weights = routing_weights[r].data();
        a.w1 = st.weights.w1.data();
        a.w1_scale = st.weights.w1_scale.data();
        a.w2 = st.weights.w2.data();
        a.w2_scale = st.weights.w2_scale.data();
        a.w1_rebased = st.weights.w1_rebased.data();
        a.w1_base = st.weights.w1_base.data();
        a.w2_rebased = st.weights.w2_rebased.data();
        a.w2_base = st.weights.w2_base.data();
        a.w1_e4m3_coded = st.weights.w1_e4m3_coded.data();
        a.w2_e4m3_coded = st.weights.w2_e4m3_coded.data();
        a.w1_fp4_blocks = st.weights.w1_fp4_blocks.data();
        a.w2_fp4_blocks = st.weights.w2_fp4_blocks.data();
        a.out = outs[arm].data();
        return a;
    };

    BucketBench b;
    b.tokens = tokens;
    b.experts_touched = touched.front();
    for (int experts : touched) {  // every routing is launched equally often (below)
        const MoeWork w = moe_work(shape, experts);
        b.work.bytes += w.bytes / double(touched.size());
        b.work.flops += w.flops / double(touched.size());
    }
    b.roofline_us = roofline_us(b.work, st.settings.peaks);
    b.default_arm.plan = st.arms[0].plan(tokens);
    const KernelPlan tuned_plan = st.arms[1].plan(tokens);
    const int arm_count = tuned_plan.tuned ? 2 : 1;

    for (int arm = 0; arm < arm_count; ++arm) st.arms[arm].run(args(arm), st.stream.native());
    st.stream.synchronize();
    if (arm_count == 2) {
        const std::vector<float> reference = formats::bf16_to_floats(outs[0].download());
        const std::vector<float> tuned = formats::bf16_to_floats(outs[1].download());
        b.max_abs_diff = data::max_abs_difference(reference, tuned);
        b.rel_l2 = data::relative_l2_difference(reference, tuned);
    }

    // Each arm's launches per graph are adapted once (the arms ran above, so this launch is warm).
    std::array<measure::TimingOptions, 2> timing;
    // Rounded UP to a multiple of the routings, so that both arms time every routing as often and the roofline (the
    // mean work over all of them, above) is the work timed; scripts/peer_torch.py rounds its launches the same way.
    // `moetune measure` rounds DOWN instead (measure::adapted_launches_per_graph): it times one candidate among
    // hundreds, so it keeps each replay within replay_ms and, where fewer launches fit than there are routings, takes
    // the first ones: launches of more than replay_ms / routings (0.25 ms by default, the stage kernels from ~32
    // tokens on), whose routings touch most of the experts each.
    const int n = static_cast<int>(ids.size());
    measure::TimingOptions unrounded = st.settings.timing;  // adapted to the call's time alone, rounded up below
    unrounded.routings = 1;
    for (int arm = 0; arm < arm_count; ++arm) {
        timing[arm] = measure::adapt_to_launch_time(st.stream, unrounded,
                                                    [&] { st.arms[arm].run(args(arm), st.stream.native()); });
        timing[arm].launches_per_graph = (timing[arm].launches_per_graph + n - 1) / n * n;
    }
    std::array<std::vector<double>, 2> us;
    std::array<ClockRange, 2> clocks;  // the readings beside each arm's rounds
    for (int round = 0; round < st.settings.rounds; ++round)
        for (int i = 0; i < arm_count; ++i) {
            const int arm = (round + i) % arm_count;  // alternate which arm goes first
            clocks[arm].add(st.clock_probe.mhz(st.stream));
            us[arm].push_back(measure::time_in_graph(st.stream, timing[arm], [&](int launch) {
                                  st.arms[arm].run(args(arm, launch), st.stream.native());
                              }).us_per_launch);
            clocks[arm].add(st.clock_probe.mhz(st.stream));
        }
    const auto arm_result = [&](const KernelPlan& plan, int arm) {
        std::sort(us[arm].begin(), us[arm].end());
        return ArmResult{plan, sorted_median(us[arm]), timing[arm].launches_per_graph, clocks[arm]};
    };
    b.default_arm = arm_result(b.default_arm.plan, 0);
    if (arm_count == 2) b.tuned = arm_result(tuned_plan, 1);
    return b;
}

double busy_ms(const ArmResult& arm, const measure::TimingOptions& timing) {
    return arm.us * arm.launches_per_graph * (timing.warmup_replays + timing.timed_replays) / 1000.0;
}

}  // namespace moetune::bench
