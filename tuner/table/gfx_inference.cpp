#include "table/gfx_inference.h"

namespace moetune::table {

std::optional<std::string> gfx_from_cu_num(long long cu_num) {
    switch (cu_num) {
        case 256: return "gfx950";
        case 80:
        case 304: return "gfx942";
        default: return std::nullopt;
    }
}

}  // namespace moetune::table
