#include "sweep/plan_listing.h"

#include <spdlog/fmt/fmt.h>

#include "table/schema.h"

namespace moetune::sweep {

std::string format_plan(const std::vector<PlanEntry>& entries, const TunedOutput& output, bool retune) {
    std::string out;
    std::string heading;
    std::size_t measured = 0, candidates = 0;
    for (const PlanEntry& e : entries) {
        auto cells = table::shape_cells(e.shape);
        std::string h = "shape";
        for (std::size_t i = 1; i < cells.size(); ++i) h += fmt::format(" {}={}", table::kShapeColumns[i], cells[i]);
        if (h != heading) {
            heading = h;
            out += heading + "\n";
        }
        if (!e.supported()) {
            out += fmt::format("  token {}: skipped: {}\n", e.shape.token, e.skip_reason);
            continue;
        }
        if (!retune && output.contains(e.key)) {
            out += fmt::format("  token {}: already in the output (a rerun skips it; --retune measures it again)\n",
                               e.shape.token);
            continue;
        }
        ++measured;
        candidates += e.candidate_count();
        out += fmt::format("  token {}: {} candidates ({} stage 1 + {} stage 2), {} pruned\n", e.shape.token,
                           e.candidate_count(), e.stage1.kept.size(), e.stage2.kept.size(), e.pruned_count());
    }
    out += fmt::format("{} (shape, bucket) entries, {} to measure: {} candidates\n", entries.size(), measured,
                       candidates);
    return out;
}

}  // namespace moetune::sweep
