#include "table/missing.h"

#include <algorithm>
#include <tuple>
#include <unordered_set>

#include "common/input_error.h"
#include "table/bucket.h"
#include "table/cell_value.h"
#include "table/row_key.h"
#include "table/schema.h"

namespace moetune::table {
namespace {

std::string key_of_cells(const std::array<std::string, 12>& cells) {
    std::string key;
    for (const std::string& c : cells) (key += c) += '\x1f';
    return key;
}

bool counts_as_cover(const Table& t, const TableRow& r, const MissingQuery& q) {
    if (has_extra_fields(t, r) || t.cell(r, col::tag) == kFallbackTag) return false;
    if (q.gfx && effective_gfx(t, r) != *q.gfx) return false;
    if (q.cu_num && parse_integer(t.cell(r, col::cu_num)) != q.cu_num) return false;
    return true;
}

std::unordered_set<std::string> covered_keys(const std::vector<Table>& tuned, const MissingQuery& q) {
    std::unordered_set<std::string> keys;
    for (const Table& t : tuned) {
        require_tuned_table(t);  // an untuned table would cover every shape it lists
        for (std::string_view c : kShapeColumns)
            if (!t.has_column(c)) throw InputError(t.file, t.header_line, "no " + std::string(c) + " column");
        for (const TableRow& r : t.rows) {
            if (!counts_as_cover(t, r, q)) continue;
            std::array<std::string, 12> cells;
            for (std::size_t i = 0; i < kShapeColumns.size(); ++i)
                cells[i] = normalized_cell(kShapeColumns[i], t.cell(r, kShapeColumns[i]));
            keys.insert(key_of_cells(cells));
        }
    }
    return keys;
}

// The pairs asked about, without repeats, in the order the shapes file gives them.
std::vector<TableShape> wanted_pairs(const Table& shapes, const MissingQuery& q) {
    std::vector<TableShape> pairs;
    std::unordered_set<std::string> seen;
    const auto add = [&](TableShape s) {
        if (seen.insert(key_of_cells(shape_cells(s))).second) pairs.push_back(std::move(s));
    };
    for (const TableRow& r : shapes.rows) {
        TableShape s = read_shape(shapes, r);
        if (q.buckets.empty()) {
            s.token = padded_m(s.token);
            add(s);
            continue;
        }
        for (long long bucket : q.buckets) {
            s.token = bucket;
            add(s);
        }
    }
    return pairs;
}

bool shape_then_token_less(const TableShape& a, const TableShape& b) {
    return std::tie(a.model_dim, a.inter_dim, a.expert, a.topk, a.act_type, a.dtype, a.q_dtype_a, a.q_dtype_w,
                    a.q_type, a.use_g1u1, a.doweight_stage1, a.token) <
           std::tie(b.model_dim, b.inter_dim, b.expert, b.topk, b.act_type, b.dtype, b.q_dtype_a, b.q_dtype_w,
                    b.q_type, b.use_g1u1, b.doweight_stage1, b.token);
}

}  // namespace

MissingReport find_missing(const Table& shapes, const std::vector<Table>& tuned, const MissingQuery& query) {
    const std::unordered_set<std::string> covered = covered_keys(tuned, query);
    MissingReport report;
    const std::vector<TableShape> pairs = wanted_pairs(shapes, query);
    report.pairs = pairs.size();
    const auto covers = [&](TableShape s) {
        if (covered.count(key_of_cells(shape_cells(s)))) return true;
        const auto retried = retried_bucket(s.token);  // as AITER's lookup, the smaller tier next
        if (!retried) return false;
        s.token = *retried;
        return covered.count(key_of_cells(shape_cells(s))) > 0;
    };
    for (const TableShape& s : pairs)
        if (!covers(s)) report.missing.push_back(s);
    std::sort(report.missing.begin(), report.missing.end(), shape_then_token_less);
    return report;
}

}  // namespace moetune::table
