#pragma once
// The informational tflops and bw columns, computed exactly as AITER's FmoeTuner.calculate does
// (reference §3.8; its per-stage branch is dead, so the whole-MoE formula on the total us is
// used): all E experts' weights counted regardless of routing, fp4x2 counted as 1 byte per
// logical element. Rounded to 2 decimals they reproduce the shipped tables' numbers.
#include <optional>
#include <string_view>

#include "table/table_shape.h"

namespace moetune::table {

// Bytes per element AITER assumes for a torch dtype string (dtype2bpe_dict); nullopt if unknown.
std::optional<double> bytes_per_element(std::string_view torch_dtype);

struct MoeMetrics {
    double tflops = 0;
    double bandwidth_gbps = 0;
};

// Unrounded. AITER writes 0/0 for a failed measurement; so does this for us <= 0 or an unknown dtype.
MoeMetrics moe_metrics(const TableShape& shape, double us);

}  // namespace moetune::table
