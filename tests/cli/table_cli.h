#pragma once
// Helpers of the table-command CLI tests: fixture paths, already quoted for the shell.
#include <string>

#include "support/test_env.h"

namespace moetune::test {

inline std::string table_fixture_path(const std::string& name) { return (fixtures_dir() / "tables" / name).string(); }
inline std::string quoted_fixture(const std::string& name) { return shell_quote(table_fixture_path(name)); }

}  // namespace moetune::test
