#include "table/row_key.h"

#include "table/cell_value.h"
#include "table/gfx_inference.h"
#include "table/schema.h"

namespace moetune::table {
namespace {

constexpr char kSeparator = '\x1f';  // cannot occur in a cell of a valid UTF-8 table

void append_part(std::string& key, std::string_view part) {
    key += part;
    key += kSeparator;
}

}  // namespace

std::string normalized_cell(std::string_view column, std::string_view raw) {
    if (is_integer_key_column(column))
        if (const auto v = parse_integer(raw)) return std::to_string(*v);
    if (is_flag_column(column))
        if (const auto v = parse_flag(raw)) return *v ? "1" : "0";
    return std::string(raw);
}

std::string inferred_gfx(const Table& table, const TableRow& row) {
    if (const auto cu_num = parse_integer(table.cell(row, col::cu_num)))
        if (auto gfx = gfx_from_cu_num(*cu_num)) return *gfx;
    return "";
}

std::string effective_gfx(const Table& table, const TableRow& row) {
    if (table.has_column(col::gfx) && !is_blank(table.cell(row, col::gfx))) return std::string(table.cell(row, col::gfx));
    return inferred_gfx(table, row);
}

std::string dedup_key(const Table& table, const TableRow& row) {
    std::string key;
    for (std::string_view c : kShapeColumns) append_part(key, normalized_cell(c, table.cell(row, c)));
    append_part(key, normalized_cell(col::cu_num, table.cell(row, col::cu_num)));
    append_part(key, effective_gfx(table, row));
    append_part(key, table.cell(row, col::tag));
    return key;
}

std::string lookup_key_ignoring_act_type(const Table& table, const TableRow& row, bool with_arch) {
    std::string key;
    if (with_arch) {
        append_part(key, effective_gfx(table, row));
        append_part(key, normalized_cell(col::cu_num, table.cell(row, col::cu_num)));
    }
    for (std::string_view c : kShapeColumns)
        if (c != col::act_type) append_part(key, normalized_cell(c, table.cell(row, c)));
    return key;
}

std::string describe_key(const Table& table, const TableRow& row) {
    std::string text;
    const auto add = [&](std::string_view part) {
        if (!text.empty()) text += ", ";
        text += part;
    };
    if (table.kind() == TableKind::tuned) {
        const std::string gfx = effective_gfx(table, row);
        add(gfx.empty() ? "gfx ?" : gfx);
        add(table.cell(row, col::cu_num));
    }
    for (std::string_view c : kShapeColumns) add(table.cell(row, c));
    if (const std::string_view tag = table.cell(row, col::tag); !tag.empty()) add("_tag '" + std::string(tag) + "'");
    return text;
}

}  // namespace moetune::table
