#pragma once
// `moetune check`'s engine: validates each file alone (check_file.h) and the tuned files as the
// set AITER would merge in the given order, like AITER_CONFIG_FMOE=a:b:c (check_set.h). The
// command only formats the result.
#include <string>
#include <vector>

#include "table/check_file.h"
#include "table/finding.h"

namespace moetune::table {

struct CheckResult {
    std::vector<std::string> files;
    std::vector<Finding> findings;  // by file (in the given order), then line
    std::size_t errors = 0;
    std::size_t warnings = 0;
};

// Throws TableReadError (reason cannot_open) for a file that cannot be opened; a file that is
// empty or not a table becomes a finding. moetune_rule: see check_file.h.
CheckResult check_files(const std::vector<std::string>& paths, const MoetuneKernelRule& moetune_rule = {});

}  // namespace moetune::table
