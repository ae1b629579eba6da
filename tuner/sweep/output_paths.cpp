#include "sweep/output_paths.h"

namespace moetune::sweep {

std::filesystem::path default_output_path(const std::filesystem::path& shapes) {
    return std::filesystem::path("output") / (shapes.stem().string() + "_tuned.csv");
}

}  // namespace moetune::sweep
