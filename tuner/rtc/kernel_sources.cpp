#include "rtc/kernel_sources.h"

#include <stdexcept>

namespace moetune::rtc {
namespace {

const detail::EmbeddedSource* find(std::string_view path) {
    for (std::size_t i = 0; i < detail::kEmbeddedSourceCount; ++i)
        if (path == detail::kEmbeddedSources[i].path) return &detail::kEmbeddedSources[i];
    return nullptr;
}

}  // namespace

std::string_view kernel_source(std::string_view relative_path) {
    if (const auto* s = find(relative_path)) return s->text;
    throw std::invalid_argument("no kernel template '" + std::string(relative_path) +
                                "' is embedded in this binary (kernel_templates/ at build time)");
}

bool has_kernel_source(std::string_view relative_path) { return find(relative_path) != nullptr; }

std::vector<std::string_view> kernel_source_paths() {
    std::vector<std::string_view> paths;
    for (std::size_t i = 0; i < detail::kEmbeddedSourceCount; ++i) paths.push_back(detail::kEmbeddedSources[i].path);
    return paths;
}

}  // namespace moetune::rtc
