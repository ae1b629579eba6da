#include "bench/bench_report.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "common/atomic_file.h"

namespace moetune::bench {
namespace {

using nlohmann::json;

double percent_of_roofline(const BucketBench& b, double us) { return us > 0 ? b.roofline_us / us * 100 : 0; }

json arm_json(const BucketBench& b, const ArmResult& a, const measure::TimingOptions& timing) {
    return {{"us", a.us},
            {"block_m", a.plan.block_m},
            {"kernel_name1", a.plan.kernel_name1},
            {"kernel_name2", a.plan.kernel_name2},
            {"source", a.plan.source},
            {"launches_per_graph", a.launches_per_graph},
            {"sm_mhz_low", a.sm_clock.low_mhz},
            {"sm_mhz_high", a.sm_clock.high_mhz},
            {"busy_ms", busy_ms(a, timing)},
            {"tbps", achieved_tbps(b.work, a.us)},
            {"tflops", achieved_tflops(b.work, a.us)},
            {"roofline_pct", percent_of_roofline(b, a.us)}};
}

json bucket_json(const BucketBench& b, const measure::TimingOptions& timing) {
    json j = {{"tokens", b.tokens},
              {"experts_touched", b.experts_touched},
              {"bytes", b.work.bytes},
              {"flops", b.work.flops},
              {"roofline_us", b.roofline_us},
              {"default", arm_json(b, b.default_arm, timing)},
              {"tuned", nullptr},
              {"speedup", nullptr},
              {"max_abs_diff", b.max_abs_diff},
              {"rel_l2", b.rel_l2}};
    if (b.tuned) {
        j["tuned"] = arm_json(b, *b.tuned, timing);
        j["speedup"] = b.tuned->us > 0 ? b.default_arm.us / b.tuned->us : 0.0;
    }
    return j;
}

std::string format(const char* spec, double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, spec, x);
    return buf;
}

}  // namespace

std::string bench_json(const BenchHeader& h, const std::vector<ShapeResults>& shapes) {
    const BenchSettings& s = h.settings;
    json j = {{"tool", "moetune bench"},
              {"device", h.device},
              {"gfx", h.gfx},
              {"cu_num", h.cu_num},
              {"command", h.command},
              {"tuned_tables", h.tuned_tables},
              {"peaks",
               {{"hbm_tbps", s.peaks.hbm_tbps},
                {"hbm_source", h.hbm_measured ? "measured" : "flag"},
                {"tflops", s.peaks.tflops},
                {"tflops_source", h.tflops_measured ? "measured" : "flag"}}},
              {"rounds", s.rounds},
              {"timing", s.timing},
              {"seed", s.seed},
              {"routing", s.routing},
              {"routings", s.timing.routings},
              {"overlap_launches", s.overlap_launches},
              {"l2_stage2_weights", s.l2_stage2_weights},
              {"shapes", json::array()}};
    if (h.hbm_measured) {
        j["peaks"]["hbm_copy_tbps"] = h.hbm_measured->copy_tbps;
        j["peaks"]["hbm_read_tbps"] = h.hbm_measured->read_tbps;
    }
    for (const ShapeResults& r : shapes) {
        json shape = {{"model_dim", r.shape.model_dim},
                      {"inter_dim", r.shape.inter_dim},
                      {"experts", r.shape.experts},
                      {"topk", r.shape.topk},
                      {"buckets", json::array()}};
        for (const BucketBench& b : r.buckets) shape["buckets"].push_back(bucket_json(b, s.timing));
        j["shapes"].push_back(std::move(shape));
    }
    return j.dump(1) + "\n";
}

std::string bench_table_header() {
    return "  tokens  default us    tuned us  speedup   TB/s  TFLOP/s  % roofline  max |diff|    rel L2     SM MHz";
}

std::string bench_table_row(const BucketBench& b) {
    const double best = b.tuned ? b.tuned->us : b.default_arm.us;
    std::string row = format("%8.0f", b.tokens) + format("%12.1f", b.default_arm.us);
    row += b.tuned ? format("%12.1f", b.tuned->us) + format("%8.2fx", b.default_arm.us / b.tuned->us)
                   : std::string("           -        -");
    row += format("%7.2f", achieved_tbps(b.work, best)) + format("%9.1f", achieved_tflops(b.work, best)) +
           format("%11.1f%%", percent_of_roofline(b, best));
    row += b.tuned ? format("%12.3g", b.max_abs_diff) + format("%10.2e", b.rel_l2) : std::string("           -         -");
    // The clocks both arms' rounds met (they alternate): a bucket's figures compare with another run's where these do.
    ClockRange both = b.default_arm.sm_clock;
    if (b.tuned) both.add(b.tuned->sm_clock);
    row += both.read() ? format("%6.0f", both.low_mhz) + format("-%-4.0f", both.high_mhz) : std::string("          -");
    return row;
}

void write_bench_json(const std::filesystem::path& path, const BenchHeader& header,
                      const std::vector<ShapeResults>& shapes) {
    write_file_atomically(path, bench_json(header, shapes));
}

}  // namespace moetune::bench
