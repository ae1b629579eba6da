#pragma once
// What a valid cell of each AITER column looks like: the rule behind check's bad-value findings
// and the typed readers' errors. Blank result cells (us, err, tflops, bw, gfx) are not judged
// here: check reports them as blank-timing / gfx-inferred.
#include <optional>
#include <string>
#include <string_view>

namespace moetune::table {

// Why `value` is not a valid `column` cell ("token '0' is not a whole number >= 1"), or nullopt.
// Columns this module does not know (and kernel names, _tag) accept anything.
std::optional<std::string> cell_problem(std::string_view column, std::string_view value);

}  // namespace moetune::table
