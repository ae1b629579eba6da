#pragma once
// OUT, the tuned table a sweep fills one row at a time. Rows already there are kept exactly as
// written (other shapes, other GPUs, hand-made rows), a new row replaces the row with its key in
// place or is appended, and rows are formatted by the table library's writer (AITER's 28 columns).
// The sweep re-reads OUT, puts the row and writes it back atomically after every (shape, bucket),
// so a run killed at any moment leaves a valid table holding every row finished before.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <unordered_map>

#include "table/table.h"
#include "table/tuned_row.h"

namespace moetune::sweep {

class TunedOutput {
public:
    // A file that does not exist yet reads as an empty table with AITER's 28 columns. Throws
    // InputError when it exists but is not a tuned table this can add rows to: unreadable, not a
    // table, untuned, or lacking one of the 28 columns (write to a new file and `moetune merge`).
    static TunedOutput read(const std::filesystem::path& path);

    bool contains(const std::string& key) const { return row_of_key_.count(key) > 0; }
    // The us of the row with this plan key; nullopt when there is none or its us is blank.
    std::optional<double> us(const std::string& key) const;
    // Replaces the row with the same key in place, or appends.
    void put(const table::TunedRow& row);

    // Writes the table atomically (temporary file + rename). Throws std::runtime_error naming the
    // path when it cannot.
    void write(const std::filesystem::path& path) const;

    const table::Table& table() const { return table_; }

private:
    table::Table table_;
    std::unordered_map<std::string, std::size_t> row_of_key_;  // the first row of each key
};

// The key of a result row: sweep/plan_key.h for its shape, gfx and cu_num.
std::string row_key(const table::TunedRow& row);

}  // namespace moetune::sweep
