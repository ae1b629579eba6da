#include "table/check_file.h"

#include <algorithm>

#include "table/bucket.h"
#include "table/cell_rules.h"
#include "table/cell_value.h"
#include "table/gfx_inference.h"
#include "table/kernel_name.h"
#include "table/schema.h"

namespace moetune::table {
namespace {

// Columns AITER's key is made of: validated in every row, even a ragged one.
bool is_key_column(std::string_view c) {
    return c == col::gfx || c == col::cu_num ||
           std::find(kShapeColumns.begin(), kShapeColumns.end(), c) != kShapeColumns.end();
}

std::string join(const std::vector<std::string>& parts) {
    std::string text;
    for (const std::string& p : parts) text += (text.empty() ? "" : ", ") + p;
    return text;
}

// What AITER does with a gfx it has to infer from this cu_num cell.
std::string gfx_inference_text(std::string_view cu_num_cell) {
    const auto cu_num = parse_integer(cu_num_cell);
    const auto gfx = cu_num ? gfx_from_cu_num(*cu_num) : std::nullopt;
    if (gfx) return "cu_num " + std::string(cu_num_cell) + " -> " + *gfx;
    return "cu_num " + std::string(cu_num_cell) + " has no inferred arch, so AITER uses the GPU it runs on";
}

void check_header(const Table& t, std::vector<Finding>& out) {
    const bool tuned = t.kind() == TableKind::tuned;
    if (t.rows.empty()) out.push_back(make_finding(code::empty_file, t.file, t.header_line, "only a header, no rows"));

    std::vector<std::string_view> required(kShapeColumns.begin(), kShapeColumns.end());
    if (tuned) required.push_back(col::cu_num);
    for (std::string_view c : required)
        if (!t.has_column(c))
            out.push_back(make_finding(code::missing_column, t.file, t.header_line,
                                       "no " + std::string(c) + " column: it is part of AITER's lookup key"));

    // A legacy header: AITER fills gfx from cu_num. Say once per file which arch each CU count becomes.
    if (tuned && !t.has_column(col::gfx) && t.has_column(col::cu_num)) {
        std::vector<std::string> mappings;
        for (const TableRow& r : t.rows) {
            std::string m = gfx_inference_text(t.cell(r, col::cu_num));
            if (std::find(mappings.begin(), mappings.end(), m) == mappings.end()) mappings.push_back(std::move(m));
        }
        out.push_back(make_finding(code::gfx_inferred, t.file, t.header_line,
                                   "no gfx column: AITER infers it from cu_num (" + join(mappings) + ")"));
    }
}

void check_ragged(const Table& t, const TableRow& r, std::vector<Finding>& out) {
    const std::string counts =
        std::to_string(r.field_count) + " fields under a " + std::to_string(t.columns.size()) + "-column header";
    if (has_extra_fields(t, r)) {
        out.push_back(make_finding(code::not_a_table, t.file, r.line,
                                   counts + ": pandas refuses the whole file (\"Expected " +
                                       std::to_string(t.columns.size()) + " fields\"), so AITER cannot load it"));
    } else if (is_short_row(t, r)) {
        out.push_back(make_finding(code::ragged_row, t.file, r.line,
                                   counts + ": AITER reads the missing trailing cells (" + t.columns[r.field_count] +
                                       " onwards) as empty; if a field in the middle was left out, every later value "
                                       "sits one column to the left"));
    }
}

void check_cells(const Table& t, const TableRow& r, std::vector<Finding>& out) {
    for (std::string& problem : cell_problems(t, r))
        out.push_back(make_finding(code::bad_value, t.file, r.line, std::move(problem)));
}

void check_bucket(const Table& t, const TableRow& r, std::vector<Finding>& out) {
    const auto token = parse_integer(t.cell(r, col::token));
    if (!token || *token < 1 || is_reachable_bucket(*token)) return;
    const std::string looked_up = std::to_string(padded_m(*token));
    const std::string consequence = t.kind() == TableKind::tuned ? "this row is never used"
                                                                 : "a row tuned for it is never used; tune " + looked_up;
    out.push_back(make_finding(code::unreachable_bucket, t.file, r.line,
                               "token " + std::to_string(*token) + " is not a bucket AITER looks up (a batch of " +
                                   std::to_string(*token) + " tokens looks up " + looked_up + "): " + consequence));
}

void check_blank_gfx(const Table& t, const TableRow& r, std::vector<Finding>& out) {
    if (!t.has_column(col::gfx) || !is_blank(t.cell(r, col::gfx))) return;
    out.push_back(make_finding(code::gfx_inferred, t.file, r.line,
                               "gfx is blank: AITER infers it from cu_num (" +
                                   gfx_inference_text(t.cell(r, col::cu_num)) + ")"));
}

void check_blank_timing(const Table& t, const TableRow& r, std::vector<Finding>& out) {
    std::vector<std::string> blank;
    for (std::string_view c : {col::us1, col::err1, col::us2, col::err2, col::us})
        if (t.has_column(c) && is_blank(t.cell(r, c))) blank.emplace_back(c);
    if (blank.empty()) return;
    out.push_back(make_finding(code::blank_timing, t.file, r.line,
                               "blank " + join(blank) +
                                   ": an untimed row; AITER's merge sorts a blank us last, so any timed row with the "
                                   "same key replaces it"));
}

void check_kernel_names(const Table& t, const TableRow& r, std::vector<Finding>& out) {
    const auto report = [&](std::string_view column, const std::string& what) {
        out.push_back(make_finding(code::unknown_kernel_name, t.file, r.line, std::string(column) + " " + what));
    };
    const auto check_name = [&](std::string_view column) {
        const std::string_view name = t.cell(r, column);
        if (kernel_family(name) == KernelFamily::unknown)
            report(column, "'" + std::string(name) +
                               "' is of no known kernel family (flydsl_moe1/moe2, flydsl_mxmoe, opus_moe, cktile_, "
                               "moe_ck2stages_, _ZN5aiter asm, moetune_): AITER cannot resolve it");
    };
    if (t.has_column(col::kernel_name1)) {
        if (kernel_family(t.cell(r, col::kernel_name1)) == KernelFamily::none)
            report(col::kernel_name1, "is empty: AITER has no stage-1 kernel to run");
        check_name(col::kernel_name1);
    }
    if (t.has_column(col::kernel_name2)) {
        const auto one_stage = parse_flag(t.cell(r, col::run_1stage));
        if (kernel_family(t.cell(r, col::kernel_name2)) == KernelFamily::none && one_stage && !*one_stage)
            report(col::kernel_name2, "is empty on a 2-stage row (run_1stage 0)");
        check_name(col::kernel_name2);
    }
}

// What libmoetune refuses of a row's moetune_ kernels (it loads no table that holds such a row): a
// moetune kernel beside another family's, and, given the rule, a name it cannot run in its slot.
void check_moetune_kernels(const Table& t, const TableRow& r, std::vector<Finding>& out,
                           const MoetuneKernelRule& rule) {
    if (!t.has_column(col::kernel_name1) || !t.has_column(col::kernel_name2)) return;
    const std::string_view names[2] = {t.cell(r, col::kernel_name1), t.cell(r, col::kernel_name2)};
    const KernelFamily families[2] = {kernel_family(names[0]), kernel_family(names[1])};
    if (splits_moetune(families[0], families[1]))
        out.push_back(make_finding(code::bad_moetune_kernel, t.file, r.line,
                                   "a moetune kernel beside one of another family: libmoetune runs moetune kernels "
                                   "in both stages or in neither"));
    if (!rule || !t.has_column(col::block_m)) return;
    for (int stage = 1; stage <= 2; ++stage) {
        if (families[stage - 1] != KernelFamily::moetune) continue;
        const std::optional<std::string> problem = rule(stage, names[stage - 1], t.cell(r, col::block_m));
        if (!problem) continue;
        std::string message(stage == 1 ? col::kernel_name1 : col::kernel_name2);
        message.append(" '").append(names[stage - 1]).append("' ").append(*problem);
        out.push_back(make_finding(code::bad_moetune_kernel, t.file, r.line,
                                   message.append(": libmoetune will not load this table")));
    }
}

}  // namespace

std::vector<std::string> cell_problems(const Table& t, const TableRow& r) {
    std::vector<std::string> problems;
    for (std::size_t i = 0; i < t.columns.size(); ++i) {
        const std::string& c = t.columns[i];
        // After a missing field the columns of a short row cannot be trusted; its key still must be valid.
        if (is_short_row(t, r) && !is_key_column(c)) continue;
        if (auto problem = cell_problem(c, r.cells[i])) problems.push_back(std::move(*problem));
    }
    return problems;
}

void require_loadable_rows(const Table& t) {
    for (const TableRow& r : t.rows) {
        if (has_extra_fields(t, r))
            throw InputError(t.file, r.line, std::to_string(r.field_count) + " fields under a " +
                                                 std::to_string(t.columns.size()) + "-column header");
        if (const std::vector<std::string> problems = cell_problems(t, r); !problems.empty())
            throw InputError(t.file, r.line, problems.front() + " (moetune check lists every such cell)");
    }
}

void check_table(const Table& t, std::vector<Finding>& out, const MoetuneKernelRule& moetune_rule) {
    check_header(t, out);
    const bool tuned = t.kind() == TableKind::tuned;
    for (const TableRow& r : t.rows) {
        check_ragged(t, r, out);
        if (has_extra_fields(t, r)) continue;  // AITER never gets to this row
        check_cells(t, r, out);
        check_bucket(t, r, out);
        if (!tuned) continue;
        check_blank_gfx(t, r, out);
        if (is_short_row(t, r)) continue;  // its result cells may be shifted: the ragged-row finding covers them
        check_blank_timing(t, r, out);
        check_kernel_names(t, r, out);
        check_moetune_kernels(t, r, out, moetune_rule);
    }
}

}  // namespace moetune::table
