#pragma once
// The keys AITER matches rows by (reference §2.2-§2.3), built from a row's cells.
// Cells are compared as pandas compares the parsed values: integer columns as numbers ("32" ==
// "32.0"), 0/1 columns as booleans ("1" == "True"), everything else as text
// ("torch.float8_e4m3fn" != "torch.float8_e4m3fnuz").
#include <string>
#include <string_view>

#include "table/table.h"

namespace moetune::table {

// The cell text a key compares: canonical for numeric/flag columns, as written otherwise
// (also when it does not parse: such a row is a bad-value finding, not a crash).
std::string normalized_cell(std::string_view column, std::string_view raw);

// The arch AITER fills in for a row without a gfx (a table without the column, or a blank cell):
// the one it infers from cu_num, "" when cu_num has none (AITER then uses the GPU it runs on).
std::string inferred_gfx(const Table& table, const TableRow& row);

// The row's gfx: its gfx cell, or where there is none (no column, or a blank cell, which AITER's
// loader and merge backfill alike) inferred_gfx.
std::string effective_gfx(const Table& table, const TableRow& row);

// update_config_files' dedup key: the 12 shape columns + cu_num + gfx + _tag. Including the
// inferred gfx matches AITER, which fills gfx from cu_num for files without the column.
std::string dedup_key(const Table& table, const TableRow& row);

// The key of AITER's act-type-agnostic lookup dict (the one that decides, §2.3): gfx, cu_num and
// the shape without act_type. with_arch=false leaves out gfx/cu_num, for untuned files whose
// gfx/cu_num the tuner overwrites.
std::string lookup_key_ignoring_act_type(const Table& table, const TableRow& row, bool with_arch = true);

// "gfx950, 256, 1, 7168, 512, 384, 6, ActivationType.Silu, ..." (+ ", _tag 'x'"), for messages.
std::string describe_key(const Table& table, const TableRow& row);

}  // namespace moetune::table
