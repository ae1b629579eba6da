#include "table/keeper.h"

#include "table/cell_value.h"
#include "table/schema.h"

namespace moetune::table {

std::optional<double> row_us(const Table& table, const TableRow& row) {
    return parse_number(table.cell(row, col::us));
}

std::size_t lowest_us_index(const std::vector<std::optional<double>>& us_in_order) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < us_in_order.size(); ++i) {
        const std::optional<double>& candidate = us_in_order[i];
        const std::optional<double>& kept = us_in_order[best];
        if (candidate && (!kept || *candidate < *kept)) best = i;  // strict: a tie stays with the earlier row
    }
    return best;
}

}  // namespace moetune::table
