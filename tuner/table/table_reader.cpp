#include "table/table_reader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "table/csv_reader.h"
#include "table/schema.h"
#include "table/text_encoding.h"

namespace moetune::table {
namespace {

using Reason = TableReadError::Reason;

// A header names at least one shape column; a first line of numbers (a header-less file) or of
// unrelated names is something else.
bool looks_like_header(const std::vector<std::string>& fields) {
    return std::any_of(fields.begin(), fields.end(), [](const std::string& f) {
        return std::find(kShapeColumns.begin(), kShapeColumns.end(), f) != kShapeColumns.end();
    });
}

}  // namespace

Table parse_table(std::string_view content, const std::string& file) {
    if (const auto binary = find_binary_content(content))
        throw TableReadError(Reason::not_a_table, file, binary->line, "binary content: " + binary->what);

    std::vector<CsvRecord> records;
    try {
        records = parse_csv(strip_utf8_bom(content), file);
    } catch (const InputError& e) {
        throw TableReadError(Reason::not_a_table, file, e.line(), "cannot be parsed as CSV: quoted field is never closed");
    }
    if (records.empty()) throw TableReadError(Reason::empty_file, file, 1, "the file is empty (no header, no rows)");
    if (!looks_like_header(records.front().fields))
        throw TableReadError(Reason::not_a_table, file, records.front().line,
                             "first line is not an AITER table header (it names none of token, model_dim, "
                             "inter_dim, expert, topk, ...)");

    Table table;
    table.file = file;
    table.header_line = records.front().line;
    table.columns = std::move(records.front().fields);
    table.rows.reserve(records.size() - 1);
    for (std::size_t i = 1; i < records.size(); ++i) {
        TableRow row;
        row.line = records[i].line;
        row.field_count = records[i].fields.size();
        row.cells = std::move(records[i].fields);
        if (row.cells.size() < table.columns.size()) row.cells.resize(table.columns.size());
        table.rows.push_back(std::move(row));
    }
    return table;
}

Table read_table(const std::filesystem::path& path) {
    const std::string name = path.string();
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw TableReadError(Reason::cannot_open, name, 0, "cannot open: is a directory");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw TableReadError(Reason::cannot_open, name, 0, std::string("cannot open: ") + std::strerror(errno));
    std::ostringstream content;
    content << in.rdbuf();
    if (in.bad()) throw TableReadError(Reason::cannot_open, name, 0, "cannot read");
    return parse_table(content.str(), name);
}

}  // namespace moetune::table
