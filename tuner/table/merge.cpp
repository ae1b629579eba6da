#include "table/merge.h"

#include <algorithm>

#include "common/input_error.h"
#include "table/cell_value.h"
#include "table/check_file.h"
#include "table/grouping.h"
#include "table/keeper.h"
#include "table/row_key.h"
#include "table/schema.h"

namespace moetune::table {
namespace {

void require_mergeable(const Table& t) {
    require_tuned_table(t);
    std::vector<std::string_view> required(kShapeColumns.begin(), kShapeColumns.end());
    required.push_back(col::cu_num);
    for (std::string_view c : required)
        if (!t.has_column(c)) throw InputError(t.file, t.header_line, "no " + std::string(c) + " column (a key column)");
    // A cell pandas would not parse as its column's type: AITER's merge would compare and sort text
    // where it expects numbers, and the merged table would fail check.
    require_loadable_rows(t);
}

std::vector<std::string> union_columns(const std::vector<Table>& inputs) {
    std::vector<std::string> columns = inputs.front().columns;
    for (std::size_t i = 1; i < inputs.size(); ++i) {
        for (const std::string& c : inputs[i].columns) {
            if (std::find(columns.begin(), columns.end(), c) != columns.end()) continue;
            auto before = std::find(columns.begin(), columns.end(), col::tflops);
            if (before == columns.end()) before = columns.end() - 1;
            columns.insert(before, c);
        }
    }
    return columns;
}

// The value AITER fills in for a column the whole file lacks. (gfx: AITER falls back to the live
// GPU's arch for other CU counts; left blank, its loader does the same.)
std::string fill_value(const Table& t, const TableRow& r, std::string_view column) {
    if (column == col::tag) return "";
    if (column == col::gfx) return inferred_gfx(t, r);
    return "0";
}

// Row r's cell of `column` in the merged table: its own, filled in where the file lacks the column,
// and a blank gfx inferred as AITER's merge fills it.
std::string merged_cell(const Table& t, const TableRow& r, const std::string& column) {
    if (!t.has_column(column)) return fill_value(t, r, column);
    if (column == col::gfx) return effective_gfx(t, r);
    return std::string(t.cell(r, column));
}

struct Origin {
    const Table* table;
    std::size_t line;
};

std::string drop_reason(DuplicatePolicy policy, const Table& merged, const TableRow& dropped, const TableRow& kept) {
    switch (policy) {
        case DuplicatePolicy::first: return "--on-duplicate first keeps the earliest row";
        case DuplicatePolicy::last: return "--on-duplicate last keeps the latest row";
        case DuplicatePolicy::error: return "duplicate key (--on-duplicate error)";
        case DuplicatePolicy::lowest_us: break;
    }
    const std::string this_us(merged.cell(dropped, col::us)), kept_us(merged.cell(kept, col::us));
    if (!row_us(merged, kept)) return "neither row has a us value; the earlier row is kept";
    if (!row_us(merged, dropped)) return "no us value; the kept row has us " + kept_us;
    if (*row_us(merged, dropped) == *row_us(merged, kept))
        return "same us as the kept row (" + kept_us + "); the earlier row is kept";
    return "us " + this_us + " is higher than the kept row's " + kept_us;
}

std::size_t kept_index(DuplicatePolicy policy, const Table& merged, const std::vector<std::size_t>& group) {
    switch (policy) {
        case DuplicatePolicy::last: return group.back();
        case DuplicatePolicy::first:
        case DuplicatePolicy::error: return group.front();
        case DuplicatePolicy::lowest_us: break;
    }
    std::vector<std::optional<double>> us;
    for (std::size_t i : group) us.push_back(row_us(merged, merged.rows[i]));
    return group[lowest_us_index(us)];
}

}  // namespace

MergeResult merge_tables(const std::vector<Table>& inputs, DuplicatePolicy policy) {
    if (inputs.empty()) throw InputError("", 0, "nothing to merge");
    for (const Table& t : inputs) require_mergeable(t);

    Table merged;
    merged.columns = union_columns(inputs);
    std::vector<Origin> origins;
    for (const Table& t : inputs) {
        for (const TableRow& r : t.rows) {
            TableRow row{r.line, merged.columns.size(), {}};
            for (const std::string& c : merged.columns)
                row.cells.push_back(merged_cell(t, r, c));
            merged.rows.push_back(std::move(row));
            origins.push_back({&t, r.line});
        }
    }

    // Group rows by dedup key; each group's kept row per the policy.
    const auto groups =
        group_by_key(merged.rows.size(), [&](std::size_t i) { return dedup_key(merged, merged.rows[i]); });
    std::vector<std::size_t> kept_of_row(merged.rows.size());
    for (const std::vector<std::size_t>& group : groups) {
        const std::size_t kept = kept_index(policy, merged, group);
        for (std::size_t i : group) kept_of_row[i] = kept;
    }

    // Report drops in file order, the order a reader of the inputs goes through them.
    MergeResult result;
    std::vector<bool> drop(merged.rows.size(), false);
    for (std::size_t i = 0; i < merged.rows.size(); ++i) {
        const std::size_t kept = kept_of_row[i];
        if (kept == i) continue;
        drop[i] = true;
        result.dropped.push_back({origins[i].table->file, origins[i].line, describe_key(merged, merged.rows[i]),
                                  origins[kept].table->file, origins[kept].line,
                                  drop_reason(policy, merged, merged.rows[i], merged.rows[kept])});
    }

    result.merged.columns = merged.columns;
    result.merged.header_line = 1;
    for (std::size_t i = 0; i < merged.rows.size(); ++i) {
        if (drop[i]) continue;
        result.merged.rows.push_back(std::move(merged.rows[i]));
        result.row_files.push_back(origins[i].table->file);
    }
    return result;
}

}  // namespace moetune::table
