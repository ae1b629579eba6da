#include "sweep/shard.h"

#include <charconv>
#include <optional>
#include <stdexcept>
#include <string>

namespace moetune::sweep {
namespace {

std::optional<int> whole_number(std::string_view text) {
    int value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
    return value;
}

}  // namespace

Shard parse_shard(std::string_view text) {
    const std::string quoted = "'" + std::string(text) + "'";
    const std::size_t slash = text.find('/');
    if (slash == std::string_view::npos) throw std::invalid_argument(quoted + " is not of the form i/n (e.g. 0/4)");
    const std::optional<int> index = whole_number(text.substr(0, slash));
    const std::optional<int> count = whole_number(text.substr(slash + 1));
    if (!index || !count) throw std::invalid_argument(quoted + " is not of the form i/n with whole numbers i and n");
    if (*count < 1) throw std::invalid_argument(quoted + ": the shard count n must be at least 1");
    if (*index < 0 || *index >= *count)
        throw std::invalid_argument(quoted + ": the shard index i must be 0.." + std::to_string(*count - 1) +
                                    " (0-based, as Slurm's --array=0-" + std::to_string(*count - 1) + ")");
    return {*index, *count};
}

}  // namespace moetune::sweep
