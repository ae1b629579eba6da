// moetune missing --shapes UNTUNED.csv --tuned T.csv [--tuned T2.csv ...] [--buckets aiter|1,2,4,...]
//                 [--gfx G] [--cu-num N] [--format text|csv]
// Lists the (shape, token bucket) pairs no tuned row covers (table/missing.h). The csv format is
// an untuned table, ready for `sweep`.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "cli/command.h"
#include "cli/exit_codes.h"
#include "common/input_error.h"
#include "table/bucket.h"
#include "table/missing.h"
#include "table/schema.h"
#include "table/table_reader.h"
#include "table/table_writer.h"

namespace moetune::cli {
namespace {

struct MissingOptions {
    std::string shapes;
    std::vector<std::string> tuned;
    std::string buckets;  // empty: the shapes file's own tokens
    std::optional<std::string> gfx;
    std::optional<long long> cu_num;
    std::string format = "text";
};

// A tuned output that `sweep` has not written yet covers nothing: every pair is missing.
std::optional<table::Table> read_tuned(const std::string& path) {
    if (!std::filesystem::exists(path)) {
        spdlog::info("{} does not exist yet: it covers no pair", path);
        return std::nullopt;
    }
    return table::read_table(path);
}

void print_text(const table::MissingReport& report) {
    for (const table::TableShape& s : report.missing) {
        const auto cells = table::shape_cells(s);
        std::cout << "token=" << cells[0];
        for (std::size_t i = 1; i < cells.size(); ++i) std::cout << ' ' << table::kShapeColumns[i] << '=' << cells[i];
        std::cout << '\n';
    }
    std::cout << report.missing.size() << " of " << report.pairs << " (shape, bucket) pair(s) have no tuned row\n";
}

void print_csv(const table::MissingReport& report) {
    std::cout << table::format_csv_record({table::kShapeColumns.begin(), table::kShapeColumns.end()});
    for (const table::TableShape& s : report.missing) {
        const auto cells = table::shape_cells(s);
        std::cout << table::format_csv_record({cells.begin(), cells.end()});
    }
    spdlog::info("{} of {} (shape, bucket) pair(s) have no tuned row", report.missing.size(), report.pairs);
}

int run_missing(const MissingOptions& o) {
    table::MissingQuery query;
    query.gfx = o.gfx;
    query.cu_num = o.cu_num;
    try {
        if (!o.buckets.empty()) query.buckets = table::parse_bucket_list(o.buckets);
    } catch (const std::invalid_argument& e) {
        spdlog::error("--buckets: {}", e.what());
        return kExitUsage;
    }

    table::MissingReport report;
    try {
        const table::Table shapes = table::read_table(o.shapes);
        std::vector<table::Table> tuned;
        for (const std::string& path : o.tuned)
            if (auto t = read_tuned(path)) tuned.push_back(std::move(*t));
        report = table::find_missing(shapes, tuned, query);
    } catch (const InputError& e) {
        spdlog::error("{}", e.what());
        return kExitUsage;
    }
    if (o.format == "csv") print_csv(report);
    else print_text(report);
    return kExitOk;
}

}  // namespace

Command add_missing_command(CLI::App& parent) {
    auto options = std::make_shared<MissingOptions>();
    CLI::App* app = parent.add_subcommand("missing", "List the (shape, token bucket) pairs that no tuned row covers");
    app->add_option("--shapes", options->shapes, "Untuned table with the shapes to cover")->required();
    app->add_option("--tuned", options->tuned, "Tuned table (repeat for several)")->required();
    app->add_option("--buckets", options->buckets,
                    "Token buckets: 'aiter' (1,2,4,...,16384,32768,131072) or a list like 1,2,4; every shape of "
                    "--shapes is checked at each. Default: the shapes file's own tokens");
    app->add_option("--gfx", options->gfx, "Count only tuned rows for this gfx arch as covering (e.g. gfx950)");
    app->add_option("--cu-num", options->cu_num, "Count only tuned rows for this CU count as covering (e.g. 256)");
    app->add_option("--format", options->format, "Output: text, or csv (an untuned table for sweep)")
        ->check(CLI::IsMember({"text", "csv"}));
    return {app, [options] { return run_missing(*options); }};
}

}  // namespace moetune::cli
