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

// (code, line) of each finding, in report order.
inline std::vector<std::pair<std::string, std::size_t>> codes_and_lines(const std::vector<table::Finding>& findings) {
    std::vector<std::pair<std::string, std::size_t>> out;
    for (const table::Finding& f : findings) out.emplace_back(std::string(f.code), f.line);
    return out;
}

using CodeLines = std::vector<std::pair<std::string, std::size_t>>;

}  // namespace moetune::test
