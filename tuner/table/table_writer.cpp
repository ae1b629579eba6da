#include "table/table_writer.h"

namespace moetune::table {
namespace {

void append_field(std::string& out, std::string_view field) {
    if (field.find_first_of(",\"\r\n") == std::string_view::npos) {
        out += field;
        return;
    }
    out += '"';
    for (char c : field) {
        if (c == '"') out += '"';
        out += c;
    }
    out += '"';
}

}  // namespace

std::string format_csv_record(const std::vector<std::string>& fields) {
    std::string out;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        if (i) out += ',';
        append_field(out, fields[i]);
    }
    out += '\n';
    return out;
}

std::string format_table(const Table& table) {
    std::string out = format_csv_record(table.columns);
    for (const TableRow& row : table.rows) out += format_csv_record(row.cells);
    return out;
}

}  // namespace moetune::table
