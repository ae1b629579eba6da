#include "sweep/only_missing.h"

#include <array>
#include <set>

#include "table/missing.h"
#include "table/schema.h"

namespace moetune::sweep {

std::vector<PlanEntry> drop_covered(const std::vector<PlanEntry>& entries, const std::vector<table::Table>& tuned,
                                    const PlanTarget& target) {
    // The entries as an untuned table at their buckets: find_missing then asks about exactly them.
    table::Table wanted;
    wanted.file = "(sweep plan)";
    wanted.columns.assign(table::kShapeColumns.begin(), table::kShapeColumns.end());
    for (const PlanEntry& e : entries) {
        const auto cells = table::shape_cells(e.shape);
        wanted.rows.push_back({0, cells.size(), {cells.begin(), cells.end()}});
    }
    table::MissingQuery query;
    query.gfx = target.gfx;
    query.cu_num = target.cu_num;
    std::set<std::array<std::string, 12>> missing;
    for (const table::TableShape& s : table::find_missing(wanted, tuned, query).missing)
        missing.insert(table::shape_cells(s));

    std::vector<PlanEntry> kept;
    for (const PlanEntry& e : entries)
        if (missing.count(table::shape_cells(e.shape))) kept.push_back(e);
    return kept;
}

}  // namespace moetune::sweep
