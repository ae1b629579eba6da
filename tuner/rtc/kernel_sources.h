#pragma once
// The kernel templates (kernel_templates/ in the source tree), embedded into the binary at build
// time and looked up by their relative path, e.g. "moe_sort.hip" or "common/mx_types.h".
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace moetune::rtc {

// Throws std::invalid_argument naming the path when no such template was embedded.
std::string_view kernel_source(std::string_view relative_path);
bool has_kernel_source(std::string_view relative_path);
// All embedded paths, sorted.
std::vector<std::string_view> kernel_source_paths();

namespace detail {
struct EmbeddedSource {
    const char* path;
    const char* text;
};
extern const EmbeddedSource kEmbeddedSources[];
extern const std::size_t kEmbeddedSourceCount;
}  // namespace detail

}  // namespace moetune::rtc
