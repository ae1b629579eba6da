// moetune merge [--on-duplicate lowest-us|first|last|error] -o OUT FILE...
// AITER's runtime merge (table/merge.h), written atomically to OUT. Inputs are only read; OUT may
// name one of them, which is then replaced whole after everything was read.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "cli/command.h"
#include "cli/exit_codes.h"
#include "common/atomic_file.h"
#include "common/input_error.h"
#include "table/merge.h"
#include "table/table_reader.h"
#include "table/table_writer.h"

namespace moetune::cli {
namespace {

using table::DuplicatePolicy;

struct MergeOptions {
    DuplicatePolicy policy = DuplicatePolicy::lowest_us;
    std::string output;
    std::vector<std::string> files;
};

int run_merge(const MergeOptions& o) {
    table::MergeResult result;
    try {
        std::vector<table::Table> inputs;
        for (const std::string& f : o.files) inputs.push_back(table::read_table(f));
        result = table::merge_tables(inputs, o.policy);
    } catch (const InputError& e) {  // unreadable, not a table, or a table AITER could not merge
        spdlog::error("{}", e.what());
        return kExitUsage;
    }

    const bool refuse = o.policy == DuplicatePolicy::error && !result.dropped.empty();
    for (const table::DroppedRow& d : result.dropped) {
        const std::string what = refuse ? "duplicate" : "dropped";
        const auto log = refuse ? spdlog::level::err : spdlog::level::info;
        spdlog::log(log, "{}:{}: {} ({}): kept {}:{}: {}", d.file, d.line, what, d.key, d.kept_file, d.kept_line,
                    d.reason);
    }
    if (refuse) {
        spdlog::error("{} duplicate row(s); nothing written to {}", result.dropped.size(), o.output);
        return kExitFailed;
    }

    try {
        write_file_atomically(o.output, table::format_table(result.merged));
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return kExitCannotWrite;
    }
    spdlog::info("wrote {} row(s) from {} file(s) to {} ({} duplicate(s) dropped)", result.merged.rows.size(),
                 o.files.size(), o.output, result.dropped.size());
    return kExitOk;
}

}  // namespace

Command add_merge_command(CLI::App& parent) {
    auto options = std::make_shared<MergeOptions>();
    CLI::App* app = parent.add_subcommand(
        "merge", "Merge tuned tables as AITER does at run time: column union, rows in file order, one row per key");
    const std::map<std::string, DuplicatePolicy> policies = {{"lowest-us", DuplicatePolicy::lowest_us},
                                                             {"first", DuplicatePolicy::first},
                                                             {"last", DuplicatePolicy::last},
                                                             {"error", DuplicatePolicy::error}};
    app->add_option("--on-duplicate", options->policy,
                    "Which row of a duplicate key survives: lowest-us (AITER), first, last, or error (write nothing)")
        ->transform(CLI::CheckedTransformer(policies, CLI::ignore_case));
    app->add_option("-o,--output", options->output, "Merged table to write (atomically)")->required();
    app->add_option("files", options->files, "Tuned tables, in merge order")->required();
    return {app, [options] { return run_merge(*options); }};
}

}  // namespace moetune::cli
