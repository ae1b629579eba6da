#include "sweep/only_missing.h"

#include <array>
#include <set>

#include "table/missing.h"
#include "table/schema.h"

namespace moetune::sweep {

std::vector<PlanRequest> drop_covered(const std::vector<PlanRequest>& requests,
                                      const std::vector<table::Table>& tuned, const PlanTarget& target) {
    // The requests as an untuned table at their buckets: find_missing then asks about exactly them.
    table::Table wanted;
    wanted.file = "(sweep plan)";
    wanted.columns.assign(table::kShapeColumns.begin(), table::kShapeColumns.end());
    for (const PlanRequest& r : requests) {
        const auto cells = table::shape_cells(r.shape);
        wanted.rows.push_back({0, cells.size(), {cells.begin(), cells.end()}});
    }
    table::MissingQuery query;
    query.gfx = target.gfx;
    query.cu_num = target.cu_num;
    std::set<std::array<std::string, 12>> missing;
    for (const table::TableShape& s : table::find_missing(wanted, tuned, query).missing)
        missing.insert(table::shape_cells(s));

    std::vector<PlanRequest> kept;
    for (const PlanRequest& r : requests)
        if (missing.count(table::shape_cells(r.shape))) kept.push_back(r);
    return kept;
}

}  // namespace moetune::sweep
