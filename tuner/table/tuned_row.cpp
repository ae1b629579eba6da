#include "table/tuned_row.h"

#include <algorithm>

#include "common/input_error.h"
#include "table/cell_rules.h"
#include "table/cell_value.h"
#include "table/metrics.h"
#include "table/number_format.h"
#include "table/row_key.h"
#include "table/schema.h"
#include "table/table_writer.h"

namespace moetune::table {
namespace {

constexpr int kUsDecimals = 4;
constexpr int kMetricDecimals = 2;

std::vector<std::string> row_cells(const TunedRow& r, bool with_tag) {
    const MoeMetrics m = moe_metrics(r.shape, r.us);
    std::vector<std::string> cells = {r.gfx, std::to_string(r.cu_num)};
    for (std::string& c : shape_cells(r.shape)) cells.push_back(std::move(c));
    const auto flag = [](bool b) { return std::string(b ? "1" : "0"); };
    const std::vector<std::string> results = {
        std::to_string(r.block_m),  std::to_string(r.ksplit),
        format_rounded(r.us1, kUsDecimals), r.kernel_name1, format_err_percent(r.err1),
        format_rounded(r.us2, kUsDecimals), r.kernel_name2, format_err_percent(r.err2),
        format_rounded(r.us, kUsDecimals),  flag(r.run_1stage), flag(r.xbf16), flag(r.flat),
        format_rounded(m.tflops, kMetricDecimals), format_rounded(m.bandwidth_gbps, kMetricDecimals)};
    cells.insert(cells.end(), results.begin(), results.end());
    if (with_tag) cells.push_back(r.tag);
    return cells;
}

}  // namespace

std::string format_tuned_table(const std::vector<TunedRow>& rows) {
    const bool with_tag = std::any_of(rows.begin(), rows.end(), [](const TunedRow& r) { return !r.tag.empty(); });
    std::vector<std::string> header(kTunedColumns.begin(), kTunedColumns.end());
    if (with_tag) header.emplace_back(col::tag);
    std::string out = format_csv_record(header);
    for (const TunedRow& r : rows) out += format_csv_record(row_cells(r, with_tag));
    return out;
}

TunedRow read_tuned_row(const Table& table, const TableRow& row) {
    // A value of a column the table has, checked by the shared cell rules.
    const auto valid = [&](std::string_view c) -> std::string_view {
        if (!table.has_column(c)) throw InputError(table.file, table.header_line, "no " + std::string(c) + " column");
        const std::string_view v = table.cell(row, c);
        if (is_blank(v)) throw InputError(table.file, row.line, std::string(c) + " is blank");
        if (auto problem = cell_problem(c, v)) throw InputError(table.file, row.line, *problem);
        return v;
    };
    const auto optional_flag = [&](std::string_view c) { return table.has_column(c) && *parse_flag(valid(c)); };
    const auto text = [&](std::string_view c) {
        if (!table.has_column(c)) throw InputError(table.file, table.header_line, "no " + std::string(c) + " column");
        return std::string(table.cell(row, c));
    };

    TunedRow r;
    r.shape = read_shape(table, row);
    r.cu_num = *parse_integer(valid(col::cu_num));
    r.gfx = effective_gfx(table, row);
    if (r.gfx.empty()) throw InputError(table.file, row.line, "no gfx, and none can be inferred from cu_num");
    if (table.has_column(col::gfx)) valid(col::gfx);
    r.block_m = *parse_integer(valid(col::block_m));
    r.ksplit = *parse_integer(valid(col::ksplit));
    r.us1 = *parse_number(valid(col::us1));
    r.kernel_name1 = text(col::kernel_name1);
    r.err1 = *parse_error_ratio(valid(col::err1));
    r.us2 = *parse_number(valid(col::us2));
    r.kernel_name2 = text(col::kernel_name2);
    r.err2 = *parse_error_ratio(valid(col::err2));
    r.us = *parse_number(valid(col::us));
    r.run_1stage = *parse_flag(valid(col::run_1stage));
    r.xbf16 = optional_flag(col::xbf16);
    r.flat = optional_flag(col::flat);
    r.tag = std::string(table.cell(row, col::tag));
    return r;
}

}  // namespace moetune::table
