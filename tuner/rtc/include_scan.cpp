#include "rtc/include_scan.h"

#include <cctype>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <utility>

#include "rtc/kernel_sources.h"

namespace moetune::rtc {
namespace {

// Quoted include targets of `text`, in order. Conditional includes are all taken (harmless: a
// header passed but unused only widens the cache key).
std::vector<std::string> quoted_includes(const std::string& text) {
    std::vector<std::string> names;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string::npos) end = text.size();
        std::size_t i = text.find_first_not_of(" \t", pos);
        if (i < end && text[i] == '#') {
            i = text.find_first_not_of(" \t", i + 1);
            if (i < end && text.compare(i, 7, "include") == 0) {
                i = text.find_first_not_of(" \t", i + 7);
                if (i < end && text[i] == '"') {
                    const std::size_t close = text.find('"', i + 1);
                    if (close < end) names.push_back(text.substr(i + 1, close - i - 1));
                }
            }
        }
        pos = end + 1;
    }
    return names;
}

// An include is looked up next to the including file first, then at the templates' root, as a
// compiler's quoted include search would.
std::string resolve(const std::string& including, const std::string& name) {
    const std::filesystem::path dir = std::filesystem::path(including).parent_path();
    const std::string beside = (dir / name).lexically_normal().generic_string();
    if (has_kernel_source(beside)) return beside;
    const std::string from_root = std::filesystem::path(name).lexically_normal().generic_string();
    if (has_kernel_source(from_root)) return from_root;
    throw std::invalid_argument(including + ": #include \"" + name + "\" is not an embedded kernel template");
}

}  // namespace

std::string guarded_header_text(const std::string& path, std::string_view text) {
    std::string guard = "MOETUNE_RTC_ONCE_";
    for (char c : path) guard += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return "#ifndef " + guard + "\n#define " + guard + "\n#line 1 \"" + path + "\"\n" + std::string(text) +
           "\n#endif\n";
}

std::vector<Header> resolve_includes(const std::string& source_name, const std::string& source) {
    std::map<std::string, std::string> by_name;                // include name -> embedded path
    std::vector<std::pair<std::string, std::string>> pending;  // (including file, its text)
    pending.emplace_back(source_name, source);
    while (!pending.empty()) {
        auto [file, text] = std::move(pending.back());
        pending.pop_back();
        for (const std::string& name : quoted_includes(text)) {
            if (by_name.count(name)) continue;
            const std::string path = resolve(file, name);
            by_name.emplace(name, path);
            pending.emplace_back(path, std::string(kernel_source(path)));
        }
    }
    std::vector<Header> headers;
    for (const auto& [name, path] : by_name)
        headers.push_back({name, path, guarded_header_text(path, kernel_source(path))});
    return headers;
}

}  // namespace moetune::rtc
