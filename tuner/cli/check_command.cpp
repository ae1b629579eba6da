// moetune check [--format text|json|github] [--strict] FILE...
// Validates AITER tables alone and as the set AITER would merge (files in the given order, like
// AITER_CONFIG_FMOE=a:b:c). The findings come from table/check.h; this file only formats them.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "cli/command.h"
#include "cli/exit_codes.h"
#include "kernels/moetune_kernel_rules.h"
#include "table/cell_value.h"
#include "table/check.h"
#include "table/table_reader.h"

namespace moetune::cli {
namespace {

using table::CheckResult;
using table::Finding;

struct CheckOptions {
    std::string format = "text";
    bool strict = false;
    std::vector<std::string> files;
};

void print_text(const CheckResult& r) {
    for (const Finding& f : r.findings)
        std::cout << f.file << ':' << f.line << ": " << table::severity_name(f.severity) << ": " << f.message << " ["
                  << f.code << "]\n";
    std::cout << r.errors << " error(s), " << r.warnings << " warning(s) in " << r.files.size() << " file(s)\n";
}

void print_json(const CheckResult& r) {
    // ordered_json keeps the documented key order: files, findings, errors, warnings.
    nlohmann::ordered_json findings = nlohmann::ordered_json::array();
    for (const Finding& f : r.findings)
        findings.push_back({{"severity", table::severity_name(f.severity)},
                            {"code", f.code},
                            {"file", f.file},
                            {"line", f.line},
                            {"message", f.message}});
    const nlohmann::ordered_json doc = {
        {"files", r.files}, {"findings", findings}, {"errors", r.errors}, {"warnings", r.warnings}};
    std::cout << doc.dump(2) << '\n';
}

// GitHub workflow commands: data escapes %, CR, LF; property values also ':' and ','.
std::string github_escape(const std::string& s, bool property) {
    std::string out;
    for (char c : s) {
        if (c == '%') out += "%25";
        else if (c == '\r') out += "%0D";
        else if (c == '\n') out += "%0A";
        else if (property && c == ':') out += "%3A";
        else if (property && c == ',') out += "%2C";
        else out += c;
    }
    return out;
}

void print_github(const CheckResult& r) {
    for (const Finding& f : r.findings)
        std::cout << "::" << table::severity_name(f.severity) << " file=" << github_escape(f.file, true)
                  << ",line=" << f.line << "::" << github_escape("[" + std::string(f.code) + "] " + f.message, false)
                  << '\n';
}

// libmoetune's rule for the moetune_ kernels a table names: check reports what the library would refuse.
std::optional<std::string> moetune_kernel_problem(int stage, std::string_view name, std::string_view block_m) {
    return kernels::moetune_kernel_problem(name, stage == 1 ? kernels::Stage::gate_up : kernels::Stage::down,
                                           table::parse_integer(block_m));
}

int run_check(const CheckOptions& o) {
    CheckResult result;
    try {
        result = table::check_files(o.files, moetune_kernel_problem);
    } catch (const table::TableReadError& e) {  // a file that cannot be opened: usage error
        spdlog::error("{}", e.what());
        return kExitUsage;
    }
    if (o.format == "json") print_json(result);
    else if (o.format == "github") print_github(result);
    else print_text(result);

    if (result.errors > 0 || (o.strict && result.warnings > 0)) return kExitFailed;
    return kExitOk;
}

}  // namespace

Command add_check_command(CLI::App& parent) {
    auto options = std::make_shared<CheckOptions>();
    CLI::App* app = parent.add_subcommand(
        "check", "Validate AITER fused-MoE tables, each alone and the tuned ones as AITER would merge them in the "
                 "given order (AITER_CONFIG_FMOE=a:b:c)");
    app->add_option("--format", options->format, "Output: text, json or github (workflow annotations)")
        ->check(CLI::IsMember({"text", "json", "github"}));
    app->add_flag("--strict", options->strict, "Exit 1 on warnings too");
    app->add_option("files", options->files, "Tables to check, in AITER's merge order")->required();
    return {app, [options] { return run_check(*options); }};
}

}  // namespace moetune::cli
