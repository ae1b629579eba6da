#pragma once
// One AITER CSV as read: column names in file order and every row's raw cell text. Nothing is
// parsed on the way in, so writing the table back reproduces every value exactly (a float such as
// 131.81310000000002 stays as written); typed access parses on demand (cell_value.h, row_key.h,
// table_shape.h, tuned_row.h).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/input_error.h"

namespace moetune::table {

enum class TableKind { untuned, tuned };

struct TableRow {
    std::size_t line = 0;        // physical line the record starts on (1-based)
    std::size_t field_count = 0; // fields as written; differs from the header's count in a ragged row
    // One cell per column (trailing cells of a short row are empty, as pandas gives NaN), then any
    // fields beyond the header, kept so a faithful rewrite loses nothing.
    std::vector<std::string> cells;
};

struct Table {
    std::string file;  // as the user named it; used in findings and errors
    std::size_t header_line = 1;
    std::vector<std::string> columns;
    std::vector<TableRow> rows;

    std::optional<std::size_t> column_index(std::string_view name) const;
    bool has_column(std::string_view name) const { return column_index(name).has_value(); }
    // The cell of `column` in `row`; empty when the table has no such column.
    std::string_view cell(const TableRow& row, std::string_view column) const;
    // Tuned when any result column (block_m .. bw) is present.
    TableKind kind() const;
};

// A row with fewer fields than the header (pandas pads it with NaN) or more (pandas refuses the file).
inline bool is_short_row(const Table& t, const TableRow& r) { return r.field_count < t.columns.size(); }
inline bool has_extra_fields(const Table& t, const TableRow& r) { return r.field_count > t.columns.size(); }

// Throws InputError unless `t` is a tuned table (merge, missing's and sweep's --tuned read its results).
inline void require_tuned_table(const Table& t) {
    if (t.kind() != TableKind::tuned)
        throw InputError(t.file, t.header_line, "not a tuned table (no result columns such as us, kernelName1)");
}

}  // namespace moetune::table
