#pragma once
// Routing captured from a real server: one line per token, either
//     e0 e1 ... e{k-1} ; w0 w1 ... w{k-1}          (ids and weights separated by ';', numbers by
//                                                  spaces and/or commas)
// or a JSON Lines object
//     {"topk_ids": [e0, ...], "topk_weights": [w0, ...]}
// Blank lines and lines starting with '#' are ignored. Every row is validated as it is read
// (routing_validation.h) and a bad one is reported as "FILE:LINE: ...".
#include <filesystem>
#include <string>
#include <string_view>

#include "data/moe_problem.h"

namespace moetune::data {

// `source` names the text in error messages (the file path).
Routing parse_routing_text(std::string_view text, const std::string& source, int experts, int topk);
Routing read_routing_file(const std::filesystem::path& path, int experts, int topk);

}  // namespace moetune::data
