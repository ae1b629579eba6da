#pragma once
// One tuned result with typed values, and its AITER CSV form: the current tuner's 28-column
// header (gfx first) plus `_tag` only when some row carries a non-empty tag (a column of empty
// tags says nothing, and AITER's own tuner drops the column). Numbers are formatted as AITER
// formats them (number_format.h); tflops/bw are computed from the row (metrics.h), never stored.
#include <string>
#include <vector>

#include "table/table.h"
#include "table/table_shape.h"

namespace moetune::table {

struct TunedRow {
    std::string gfx;  // "gfx950"
    long long cu_num = 0;
    TableShape shape;
    long long block_m = 0;
    long long ksplit = 0;  // 0 = none, -1 = the kernel decides
    double us1 = 0;
    std::string kernel_name1;
    double err1 = 0;  // a ratio: 0.053 is written as 5.3%
    double us2 = 0;   // 0 for a 1-stage row
    std::string kernel_name2;  // "" or "Null" for a 1-stage row
    double err2 = 0;
    double us = 0;  // us1 + us2 as selected (AITER: round(us1 + us2, 4))
    bool run_1stage = false;
    bool xbf16 = false;
    bool flat = false;
    std::string tag;
};

// Header + rows, LF line ends, ready for write_file_atomically.
std::string format_tuned_table(const std::vector<TunedRow>& rows);

// The inverse, for any tuned header generation: gfx missing -> inferred from cu_num, xbf16/flat
// missing -> 0 (AITER's fill). Throws InputError(file, line) for a missing column or a cell that is
// not valid, including a blank timing.
TunedRow read_tuned_row(const Table& table, const TableRow& row);

}  // namespace moetune::table
