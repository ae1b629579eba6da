#include "sweep/run_report.h"

#include "common/atomic_file.h"
#include "table/schema.h"

namespace moetune::sweep {
namespace {

using nlohmann::ordered_json;

ordered_json pair_json(const std::optional<select::PairChoice>& p) {
    if (!p) return nullptr;
    // us1 as in the row: stage 1's time and the pass between the stages (handoff_us), if any.
    return {{"block_m", p->block_m},   {"kernelName1", p->stage1.kernel_name}, {"us1", p->us1()},
            {"handoff_us", p->handoff_us}, {"err1", p->stage1.err},          {"kernelName2", p->stage2.kernel_name},
            {"us2", p->stage2.us},     {"err2", p->stage2.err},               {"us", p->us()}};
}

ordered_json bucket_json(const BucketReport& b) {
    ordered_json shape = ordered_json::object();
    const auto cells = table::shape_cells(b.shape);
    for (std::size_t i = 0; i < cells.size(); ++i) shape[std::string(table::kShapeColumns[i])] = cells[i];
    ordered_json j = {{"shape", shape},
                      {"token", b.shape.token},
                      {"source", b.where},
                      {"status", status_name(b.status)},
                      {"reason", b.reason},
                      {"winner", pair_json(b.winner)},
                      {"runner_up", pair_json(b.runner_up)}};
    ordered_json passes = ordered_json::object();
    for (const auto& [name, us] : b.handoff_passes) passes[name] = us ? ordered_json(*us) : ordered_json(nullptr);
    j["handoff_passes"] = passes;
    j["previous_us"] = b.previous_us ? ordered_json(*b.previous_us) : ordered_json(nullptr);
    j["candidates"] = {{"tried", b.tried}, {"failed", b.failed}, {"over_err_ratio", b.over_err_ratio}, {"pruned", b.pruned}};
    j["sm_clock"] = {{"low_mhz", b.sm_clock.low_mhz}, {"high_mhz", b.sm_clock.high_mhz}, {"rechecked", b.clock_rechecked},
                     {"changed_winner", b.clock_changed_winner}};
    j["compile_wall_s"] = b.compile_wall_s;
    j["timing_wall_s"] = b.timing_wall_s;
    return j;
}

}  // namespace

ordered_json report_json(const SweepSettings& settings, const std::vector<BucketReport>& buckets, bool finished) {
    ordered_json list = ordered_json::array();
    for (const BucketReport& b : buckets) list.push_back(bucket_json(b));
    const RunInfo& run = settings.run;
    const measure::MeasureTask& task = settings.task;
    return {{"shapes", run.shapes},
            {"output", settings.output.string()},
            {"gfx", run.gfx},
            {"cu_num", run.cu_num},
            {"arch", task.arch},
            {"gpus", run.gpus},
            {"shard", run.shard},
            {"err_ratio", task.err_ratio},
            {"metric", task.metric},
            {"routing", task.routing},
            {"routings", task.timing.routings},
            {"seed", task.seed},
            {"retune", settings.retune},
            {"min_improvement_pct", settings.min_improvement_pct},
            {"finished", finished},
            {"buckets", list}};
}

void write_report(const std::filesystem::path& path, const SweepSettings& settings, const std::vector<BucketReport>& buckets,
                  bool finished) {
    write_file_atomically(path, report_json(settings, buckets, finished).dump(2) + "\n");
}

}  // namespace moetune::sweep
