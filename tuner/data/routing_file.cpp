#include "data/routing_file.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/input_error.h"
#include "data/routing_validation.h"

namespace moetune::data {
namespace {

struct Row {
    std::vector<int32_t> ids;
    std::vector<float> weights;
};

std::string_view trim(std::string_view s) {
    const auto first = s.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) return {};
    return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

// Splits a list of numbers separated by spaces, tabs and/or commas.
std::vector<std::string_view> split_numbers(std::string_view s) {
    std::vector<std::string_view> out;
    size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == ',' || s[i] == '\r')) ++i;
        size_t j = i;
        while (j < s.size() && !(s[j] == ' ' || s[j] == '\t' || s[j] == ',' || s[j] == '\r')) ++j;
        if (j > i) out.push_back(s.substr(i, j - i));
        i = j;
    }
    return out;
}

template <typename T>
T parse_number(std::string_view token, const std::string& source, size_t line, const char* what) {
    T value{};
    const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (ec != std::errc() || end != token.data() + token.size())
        throw InputError(source, line, "'" + std::string(token) + "' is not " + what);
    return value;
}

Row parse_text_row(std::string_view line_text, const std::string& source, size_t line) {
    const auto semicolon = line_text.find(';');
    if (semicolon == std::string_view::npos || line_text.find(';', semicolon + 1) != std::string_view::npos)
        throw InputError(source, line, "expected 'expert ids ; weights' (exactly one ';')");
    Row row;
    for (std::string_view t : split_numbers(line_text.substr(0, semicolon)))
        row.ids.push_back(parse_number<int32_t>(t, source, line, "an expert id"));
    for (std::string_view t : split_numbers(line_text.substr(semicolon + 1)))
        row.weights.push_back(parse_number<float>(t, source, line, "a weight"));
    return row;
}

Row parse_json_row(std::string_view line_text, const std::string& source, size_t line) {
    const nlohmann::json j = nlohmann::json::parse(line_text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) throw InputError(source, line, "invalid JSON object");
    const auto ids = j.find("topk_ids");
    const auto weights = j.find("topk_weights");
    if (ids == j.end() || weights == j.end() || !ids->is_array() || !weights->is_array())
        throw InputError(source, line, "a JSON row needs the arrays \"topk_ids\" and \"topk_weights\"");
    Row row;
    for (const auto& v : *ids) {
        if (!v.is_number_integer()) throw InputError(source, line, "topk_ids holds a non-integer: " + v.dump());
        const double id = v.get<double>();  // range check before narrowing; the validator checks [0, experts)
        if (id < double(INT32_MIN) || id > double(INT32_MAX))
            throw InputError(source, line, "expert id " + v.dump() + " out of range");
        row.ids.push_back(v.get<int32_t>());
    }
    for (const auto& v : *weights) {
        if (!v.is_number()) throw InputError(source, line, "topk_weights holds a non-number: " + v.dump());
        row.weights.push_back(v.get<float>());
    }
    return row;
}

}  // namespace

Routing parse_routing_text(std::string_view text, const std::string& source, int experts, int topk) {
    Routing routing;
    routing.topk = topk;
    size_t line = 0;
    size_t start = 0;
    while (start < text.size()) {
        const size_t end = std::min(text.find('\n', start), text.size());
        const std::string_view line_text = trim(text.substr(start, end - start));
        start = end + 1;
        ++line;
        if (line_text.empty() || line_text.front() == '#') continue;
        const Row row =
            line_text.front() == '{' ? parse_json_row(line_text, source, line) : parse_text_row(line_text, source, line);
        if (const std::string problem = routing_row_problem(row.ids, row.weights, experts, topk); !problem.empty())
            throw InputError(source, line, problem);
        routing.ids.insert(routing.ids.end(), row.ids.begin(), row.ids.end());
        routing.weights.insert(routing.weights.end(), row.weights.begin(), row.weights.end());
        ++routing.tokens;
    }
    if (routing.tokens == 0) throw InputError(source, 0, "no routing rows (one line per token expected)");
    return routing;
}

Routing read_routing_file(const std::filesystem::path& path, int experts, int topk) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path.string(), 0, "cannot open routing file");
    std::ostringstream content;
    content << in.rdbuf();
    return parse_routing_text(content.str(), path.string(), experts, topk);
}

}  // namespace moetune::data
