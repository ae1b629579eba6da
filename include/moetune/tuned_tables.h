#pragma once
// libmoetune, part 1 of 2: AITER fused-MoE tuned tables, loaded, merged and looked up by AITER's
// own rules (docs/library.md). Needs no GPU; standard library only.
//
//   moetune::TunedTables tables = moetune::TunedTables::load({"base_tuned.csv", "my_tuned.csv"});
//   std::optional<moetune::KernelPlan> plan = tables.lookup(shape, 100, "sm_90", 132);  // the 128 bucket
#include <cstddef>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "moetune/export.h"

namespace moetune {

// AITER's key columns, the token count aside, spelled as the tables spell them. The defaults are
// the a8w4 spellings of DeepSeek-V4.1 rows (FP8 activations x MXFP4 weights, per 1x32 scales).
struct MoeShapeKey {
    int model_dim = 0, inter_dim = 0, experts = 0, topk = 0;
    std::string act_type = "ActivationType.Silu", dtype = "torch.bfloat16", q_dtype_a = "torch.float8_e4m3fn",
                q_dtype_w = "torch.float4_e2m1fn_x2", q_type = "QuantType.per_1x32";
    bool use_g1u1 = true, doweight_stage1 = false;
};

// What runs at one token count.
struct KernelPlan {
    long long bucket = 0;  // AITER's token bucket of the token count (next power of two, 32768, 131072)
    int block_m = 0;       // moe_sorting block size
    std::string kernel_name1, kernel_name2;
    bool tuned = false;    // false: the heuristic default
    std::string source;    // "file.csv:line" of the row, or "heuristic default"
};

// A table that cannot be used: unreadable, not a tuned table, a bad cell or kernel name. The
// message starts with "file:line: ".
class MOETUNE_API TableError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Immutable after load; copies share the rows.
class MOETUNE_API TunedTables {
public:
    TunedTables();  // no rows: every lookup misses

    // Reads the tables and merges them as AITER's runtime merges several (AITER_CONFIG_FMOE=a:b):
    // column union, then per dedup key (the 12 shape columns, cu_num, gfx, _tag) the row with the
    // lowest us. One file is used as it is. Rows tagged flydsl_fallback are dropped, as AITER's
    // loader does. Throws TableError.
    static TunedTables load(const std::vector<std::string>& paths);

    // AITER's lookup: bucket = next power of two of `tokens` below 32768, else the 32768 / 131072
    // tier (131072 falls back to a 32768 row); then the exact key gfx, cu_num, bucket and the shape,
    // act_type aside (AITER's runtime effectively ignores it: among rows that differ only in act_type
    // the first in merged order wins). nullopt: no row, so the caller's heuristic default runs.
    // Throws std::invalid_argument for tokens < 1.
    std::optional<KernelPlan> lookup(const MoeShapeKey& shape, long long tokens, std::string_view gfx,
                                     int cu_num) const;

    std::size_t rows() const;  // rows lookups consider (after the merge)

private:
    struct Impl;
    explicit TunedTables(std::shared_ptr<const Impl> impl);
    std::shared_ptr<const Impl> impl_;
};

}  // namespace moetune
