#include "sweep/plan.h"

#include <algorithm>
#include <array>
#include <set>
#include <tuple>

#include "common/input_error.h"
#include "kernels/supported_shape.h"
#include "sweep/plan_key.h"
#include "table/bucket.h"
#include "table/schema.h"

namespace moetune::sweep {
namespace {

// Plan order (see plan.h): shape, then token as a number.
auto order_tuple(const table::TableShape& s) {
    return std::tie(s.model_dim, s.inter_dim, s.expert, s.topk, s.act_type, s.dtype, s.q_dtype_a, s.q_dtype_w,
                    s.q_type, s.use_g1u1, s.doweight_stage1, s.token);
}

PlanEntry make_entry(const PlanRequest& request, const PlanTarget& target,
                     const kernels::EnumerationOptions& enumeration) {
    PlanEntry e;
    e.shape = request.shape;
    e.where = request.where;
    e.key = plan_key(request.shape, target.gfx, target.cu_num);
    std::string why;
    const std::optional<data::MoeShape> problem = kernels::supported_moe_shape(request.shape, &why);
    if (!problem) {
        e.skip_reason = why;
        return e;
    }
    kernels::CandidateList stage1 =
        kernels::enumerate_candidates(kernels::Stage::gate_up, *problem, target.limits, enumeration);
    kernels::CandidateList stage2 =
        kernels::enumerate_candidates(kernels::Stage::down, *problem, target.limits, enumeration);
    for (const auto& [list, stage] : {std::pair{&stage1, kernels::Stage::gate_up}, std::pair{&stage2, kernels::Stage::down}})
        if (list->kept.empty()) {
            e.skip_reason =
                kernels::empty_list_reason(stage, *list, target.limits.arch) + " (`moetune candidates -v` lists why)";
            return e;
        }
    e.problem = problem;
    e.stage1 = std::move(stage1);
    e.stage2 = std::move(stage2);
    return e;
}

}  // namespace

PlanRequests read_plan_requests(const table::Table& shapes, const std::vector<long long>& buckets) {
    for (std::string_view c : table::kShapeColumns)
        if (!shapes.has_column(c))
            throw InputError(shapes.file, shapes.header_line, "no " + std::string(c) + " column (a shape column)");
    if (shapes.rows.empty()) throw InputError(shapes.file, shapes.header_line, "no shape rows: nothing to tune");

    PlanRequests out;
    std::set<std::array<std::string, 12>> seen;  // AITER's tuner also drops repeated rows
    const auto add = [&](const table::TableShape& s, const std::string& where) {
        if (seen.insert(table::shape_cells(s)).second) out.requests.push_back({s, where});
    };
    for (const table::TableRow& row : shapes.rows) {
        table::TableShape s = table::read_shape(shapes, row);  // InputError for a malformed row
        const std::string where = shapes.file + ":" + std::to_string(row.line);
        if (!buckets.empty()) {
            for (long long bucket : buckets) {
                s.token = bucket;
                add(s, where);
            }
            continue;
        }
        const long long bucket = table::padded_m(s.token);
        if (bucket != s.token)
            out.warnings.push_back(where + ": token " + std::to_string(s.token) +
                                   " is not a bucket AITER looks up (for that many tokens it looks up " +
                                   std::to_string(bucket) + "); tuning bucket " + std::to_string(bucket));
        s.token = bucket;
        add(s, where);
    }
    std::stable_sort(out.requests.begin(), out.requests.end(), [](const PlanRequest& a, const PlanRequest& b) {
        return order_tuple(a.shape) < order_tuple(b.shape);
    });
    return out;
}

std::vector<PlanEntry> build_plan(const std::vector<PlanRequest>& requests, const PlanTarget& target,
                                  const kernels::EnumerationOptions& enumeration) {
    std::vector<PlanEntry> entries;
    entries.reserve(requests.size());
    for (const PlanRequest& r : requests) entries.push_back(make_entry(r, target, enumeration));
    return entries;
}

std::string short_label(const table::TableShape& s) {
    return std::to_string(s.model_dim) + "x" + std::to_string(s.inter_dim) + " E" + std::to_string(s.expert) +
           " top" + std::to_string(s.topk) + ", token " + std::to_string(s.token);
}

}  // namespace moetune::sweep
