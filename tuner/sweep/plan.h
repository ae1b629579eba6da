#pragma once
// The plan of a sweep: every (shape, token bucket) of a shapes file, each with the key its row
// will have and the candidate kernels of both stages after static pruning. Building it needs no
// GPU (the device limits come from the target), so `--dry-run` shows exactly what a sweep would do.
// It is built in two steps: the requests (read and validated from the shapes file alone, so bad
// input is reported before anything else is looked at), then the entries for a target.
//
// Order: by shape (model_dim, inter_dim, expert, topk, the type columns), then token. It depends
// only on the shapes file's content and the buckets, never on row order, gfx or cu_num, so every
// host of a cluster computes the same plan, and `--shard i/n` cuts it the same way everywhere.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "data/moe_problem.h"
#include "kernels/candidates.h"
#include "kernels/device_limits.h"
#include "table/table.h"
#include "table/table_shape.h"

namespace moetune::sweep {

// One (shape, bucket) asked for by the shapes file.
struct PlanRequest {
    table::TableShape shape;  // token = the bucket
    std::string where;        // "FILE:LINE" of the first shapes row that asked for it
};

struct PlanRequests {
    std::vector<PlanRequest> requests;  // plan order, each (shape, bucket) once
    // Rows whose token is not a bucket AITER looks up ("token 96 ... tuning bucket 128").
    std::vector<std::string> warnings;
};

// buckets empty: each row at its own token, mapped to the bucket AITER looks up (96 -> 128).
// Otherwise every distinct shape of the file (its token ignored) at each of these buckets.
// Throws InputError (file, line) for a file without the shape columns, without rows, or with a row
// that is not a valid shape (table/table_shape.h's rules).
PlanRequests read_plan_requests(const table::Table& shapes, const std::vector<long long>& buckets);

// What the rows are stamped with and what prunes the candidates.
struct PlanTarget {
    std::string gfx;       // the gfx column: "sm_90", "gfx950"
    long long cu_num = 0;  // SMs / CUs
    kernels::DeviceLimits limits;
};

struct PlanEntry {
    table::TableShape shape;  // token = the bucket
    std::string where;
    std::string key;          // plan_key(shape, gfx, cu_num)
    // The kernels' problem (tokens = the bucket); nullopt when the entry is unsupported.
    std::optional<data::MoeShape> problem;
    std::string skip_reason;  // why unsupported: a shape the kernels do not implement, or no candidate fits
    kernels::CandidateList stage1;  // empty when unsupported
    kernels::CandidateList stage2;

    bool supported() const { return problem.has_value(); }
    std::size_t candidate_count() const { return stage1.kept.size() + stage2.kept.size(); }
    std::size_t pruned_count() const { return stage1.pruned.size() + stage2.pruned.size(); }
};

std::vector<PlanEntry> build_plan(const std::vector<PlanRequest>& requests, const PlanTarget& target,
                                  const kernels::EnumerationOptions& enumeration = {});

// A short label for progress lines and logs: "5120x2304 E96 top5, token 64". Reports and the
// dry run print every key column.
std::string short_label(const table::TableShape& shape);

}  // namespace moetune::sweep
