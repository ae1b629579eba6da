#pragma once
// Paths of the table fixtures (tests/fixtures/tables) and a compact view of check findings, so a
// test can state exactly which codes it expects on which lines.
#include <string>
#include <utility>
#include <vector>

#include "support/test_env.h"
#include "table/finding.h"

namespace moetune::test {

inline std::string table_fixture(const std::string& name) { return (fixtures_dir() / "tables" / name).string(); }

// The 12 shape cells of one a8w4 row at 1 token (the untuned columns, in their order), for tables
// written inline.
inline constexpr const char* kShapeCells = "1,7168,512,384,6,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,"
                                           "torch.float4_e2m1fn_x2,QuantType.per_1x32,1,0";

// (code, line) of each finding, in report order.
inline std::vector<std::pair<std::string, std::size_t>> codes_and_lines(const std::vector<table::Finding>& findings) {
    std::vector<std::pair<std::string, std::size_t>> out;
    for (const table::Finding& f : findings) out.emplace_back(std::string(f.code), f.line);
    return out;
}

using CodeLines = std::vector<std::pair<std::string, std::size_t>>;

}  // namespace moetune::test
