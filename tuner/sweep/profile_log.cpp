#include "sweep/profile_log.h"

#include <fstream>
#include <sstream>

#include <spdlog/fmt/fmt.h>

#include "common/atomic_file.h"
#include "common/input_error.h"
#include "table/csv_reader.h"
#include "table/number_format.h"
#include "table/schema.h"
#include "table/table_writer.h"

namespace moetune::sweep {
namespace {

std::vector<std::string> header_fields() {
    std::vector<std::string> h = {std::string(table::col::gfx), std::string(table::col::cu_num)};
    h.insert(h.end(), table::kShapeColumns.begin(), table::kShapeColumns.end());
    for (const char* c : {"stage", "block_m", "kernelName", "us", "err", "spread_pct", "status", "failure"})
        h.emplace_back(c);
    return h;
}

std::string read_all(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path.string(), 0, "cannot read the profile file");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

void check_profile_file(const std::filesystem::path& path) {
    if (!std::filesystem::exists(path)) return;
    const std::string text = read_all(path);
    const std::string header = table::format_csv_record(header_fields());
    if (!text.empty() && text.compare(0, header.size(), header) != 0)
        throw InputError(path.string(), 1,
                         "exists and is not a sweep profile (its header differs); name a new --profile-out file");
    table::parse_csv(text, path.string());  // rows are appended to it: a quote left open would swallow them
}

void append_profile(const std::filesystem::path& path, const std::string& gfx, long long cu_num,
                    const table::TableShape& shape, const std::vector<MeasuredCandidate>& candidates,
                    double err_ratio) {
    std::string text = std::filesystem::exists(path) ? read_all(path) : std::string();
    if (text.empty()) text = table::format_csv_record(header_fields());
    const auto shape_cells = table::shape_cells(shape);
    for (const MeasuredCandidate& c : candidates) {
        const select::CandidateResult r = candidate_result(c);
        const bool timed = select::measured(r);
        std::vector<std::string> fields = {gfx, std::to_string(cu_num)};
        fields.insert(fields.end(), shape_cells.begin(), shape_cells.end());
        const std::vector<std::string> tail = {std::to_string(r.stage),
                                               std::to_string(r.block_m),
                                               r.kernel_name,
                                               timed ? table::format_rounded(r.us, 4) : "",
                                               timed ? fmt::format("{:.6g}", r.err) : "",
                                               timed ? fmt::format("{:.2f}", c.result.spread_pct) : "",
                                               std::string(outcome_name(candidate_outcome(c, err_ratio))),
                                               c.result.failure};
        fields.insert(fields.end(), tail.begin(), tail.end());
        text += table::format_csv_record(fields);
    }
    write_file_atomically(path, text);
}

}  // namespace moetune::sweep
