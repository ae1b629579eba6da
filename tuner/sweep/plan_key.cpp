#include "sweep/plan_key.h"

#include "table/row_key.h"
#include "table/schema.h"

namespace moetune::sweep {

std::string plan_key(const table::TableShape& shape, const std::string& gfx, long long cu_num) {
    table::Table t;
    t.columns = {std::string(table::col::gfx), std::string(table::col::cu_num)};
    table::TableRow row;
    row.cells = {gfx, std::to_string(cu_num)};
    const auto cells = table::shape_cells(shape);
    for (std::size_t i = 0; i < table::kShapeColumns.size(); ++i) {
        t.columns.emplace_back(table::kShapeColumns[i]);
        row.cells.push_back(cells[i]);
    }
    row.field_count = row.cells.size();
    return table::dedup_key(t, row);
}

}  // namespace moetune::sweep
