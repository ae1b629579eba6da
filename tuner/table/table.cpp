#include "table/table.h"

#include <algorithm>

#include "table/schema.h"

namespace moetune::table {

std::optional<std::size_t> Table::column_index(std::string_view name) const {
    const auto it = std::find(columns.begin(), columns.end(), name);
    if (it == columns.end()) return std::nullopt;
    return static_cast<std::size_t>(it - columns.begin());
}

std::string_view Table::cell(const TableRow& row, std::string_view column) const {
    const std::optional<std::size_t> i = column_index(column);
    if (!i || *i >= row.cells.size()) return {};
    return row.cells[*i];
}

TableKind Table::kind() const {
    return std::any_of(columns.begin(), columns.end(), [](const std::string& c) { return is_result_column(c); })
               ? TableKind::tuned
               : TableKind::untuned;
}

}  // namespace moetune::table
