#include "cli/candidate_options.h"

#include <regex>
#include <string>

#include "kernels/candidates.h"

namespace moetune::cli {

void add_mma_option(CLI::App& app, std::vector<kernels::MmaPath>& paths) {
    app.add_option_function<std::string>(
           "--mma", [&paths](const std::string& choice) { paths = *kernels::mma_paths_from_choice(choice); },
           "Tensor-core path of the candidates: fp8 (FP8 products rescaled per MX block; _smem_wgmma: on rows "
           "rebased to one scale each), bf16 (_mbf16: operands widened to bf16 with the scales folded in) or all "
           "(both)")
        ->check(CLI::IsMember({"fp8", "bf16", "all"}))
        ->default_str("all");
}

void add_kernels_option(CLI::App& app, std::string& pattern) {
    const CLI::Validator is_regex(
        [](std::string& text) {
            try {
                kernels::name_filter(text);
                return std::string();
            } catch (const std::regex_error& e) {
                return "not a regular expression (" + std::string(e.what()) + ")";
            }
        },
        "REGEX");
    app.add_option("--kernels", pattern,
                   "Only candidates whose kernel name matches this regular expression (anywhere in the name)")
        ->check(is_regex);
}

}  // namespace moetune::cli
