#pragma once
// The gfx arch AITER assumes for a row without one (chip_info._LEGACY_CU_NUM_TO_GFX): legacy
// tables were keyed by cu_num only, and these CU counts were only ever tuned on one arch.
#include <optional>
#include <string>

namespace moetune::table {

// 256 -> gfx950, 80/304 -> gfx942; nullopt otherwise (AITER then uses the GPU it runs on).
std::optional<std::string> gfx_from_cu_num(long long cu_num);

}  // namespace moetune::table
