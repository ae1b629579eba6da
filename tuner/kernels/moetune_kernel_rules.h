#pragma once
// What a tuned row must hold for libmoetune to run the moetune_ kernel in one of its stage slots: a
// well-formed name (docs/kernel-names.md) of that slot's stage, walking sort blocks of the row's
// block_m. The library refuses a table that breaks it (runtime/tuned_row_check.h); `moetune check`
// reports it before (bad-moetune-kernel), so that a table's CI catches what its users' loads would.
#include <optional>
#include <string>
#include <string_view>

#include "kernels/kernel_config.h"

namespace moetune::kernels {

// Why `name` cannot run in `stage`'s slot of a row whose block_m is `block_m` (nullopt: the cell
// is not a number, judged elsewhere), as the end of a sentence that starts with the name ("is a
// stage-2 kernel"); nullopt when it can.
std::optional<std::string> moetune_kernel_problem(std::string_view name, Stage stage,
                                                  std::optional<long long> block_m);

}  // namespace moetune::kernels
