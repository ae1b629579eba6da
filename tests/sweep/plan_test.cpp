// The plan: which (shape, bucket) entries, in which order, with which keys and candidates, and
// what a shapes file must look like.
#include <algorithm>
#include <random>

#include "common/input_error.h"
#include "kernels/kernel_name.h"
#include "support/catch.hpp"
#include "sweep/plan.h"
#include "sweep/plan_key.h"
#include "sweep/tuned_output.h"
#include "sweep_fakes.h"
#include "table/row_key.h"
#include "table/table_reader.h"
#include "table/tuned_row.h"

using namespace moetune;
using namespace moetune::sweep;

namespace {

const std::string kHeader =
    "token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,q_type,use_g1u1,doweight_stage1\n";
const std::string kA8w4 =
    ",ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,torch.float4_e2m1fn_x2,QuantType.per_1x32,1,0\n";

PlanRequests requests_of(const std::string& csv, const std::vector<long long>& buckets = {}) {
    return read_plan_requests(table::parse_table(csv, "shapes.csv"), buckets);
}

std::vector<long long> tokens_of(const std::vector<PlanRequest>& requests) {
    std::vector<long long> tokens;
    for (const PlanRequest& r : requests) tokens.push_back(r.shape.token);
    return tokens;
}

}  // namespace

TEST_CASE("plan: the reference shape file gives its 15 buckets, each with both stages' candidates") {
    const std::vector<PlanEntry> plan = test::reference_plan({});
    REQUIRE(plan.size() == 15);
    long long token = 1;
    for (const PlanEntry& e : plan) {
        CHECK(e.shape.token == token);
        token *= 2;
        REQUIRE(e.supported());
        CHECK(e.problem->tokens == e.shape.token);
        CHECK_FALSE(e.stage1.kept.empty());
        CHECK_FALSE(e.stage2.kept.empty());
        for (const auto& c : e.stage1.kept) CHECK(c.stage == kernels::Stage::gate_up);
        for (const auto& c : e.stage2.kept) CHECK(c.stage == kernels::Stage::down);
        CHECK(e.candidate_count() == e.stage1.kept.size() + e.stage2.kept.size());
        CHECK(e.where.find("dsv41_flash_ep4_a8w4.csv:") != std::string::npos);
    }
    CHECK(plan.front().where.substr(plan.front().where.rfind(':')) == ":2");
}

TEST_CASE("plan: order depends on the content, not on the row order") {
    std::vector<std::string> rows;
    for (const char* shape : {"7168,512,384,6", "5120,2304,96,5", "3584,512,896,16"})
        for (const char* token : {"64", "1", "4096"}) rows.push_back(std::string(token) + "," + shape + kA8w4);
    std::mt19937 rng(3);
    std::vector<std::vector<long long>> orders;
    std::vector<std::vector<long long>> dims;
    for (int round = 0; round < 5; ++round) {
        std::shuffle(rows.begin(), rows.end(), rng);
        std::string csv = kHeader;
        for (const std::string& r : rows) csv += r;
        const PlanRequests p = requests_of(csv);
        orders.push_back(tokens_of(p.requests));
        std::vector<long long> d;
        for (const PlanRequest& r : p.requests) d.push_back(r.shape.model_dim);
        dims.push_back(d);
    }
    for (const auto& o : orders) CHECK(o == std::vector<long long>{1, 64, 4096, 1, 64, 4096, 1, 64, 4096});
    for (const auto& d : dims) CHECK(d == std::vector<long long>{3584, 3584, 3584, 5120, 5120, 5120, 7168, 7168, 7168});
}

TEST_CASE("plan: tokens map to AITER's buckets, with a warning for the ones it never looks up") {
    const PlanRequests p = requests_of(kHeader + "96" + ",5120,2304,96,5" + kA8w4 + "128,5120,2304,96,5" + kA8w4 +
                                       "40000,5120,2304,96,5" + kA8w4);
    CHECK(tokens_of(p.requests) == std::vector<long long>{128, 32768});  // 96 and 128 are one bucket
    REQUIRE(p.warnings.size() == 2);
    CHECK(p.warnings[0] == "shapes.csv:2: token 96 is not a bucket AITER looks up (for that many tokens it looks up "
                           "128); tuning bucket 128");
    CHECK(p.warnings[1].find("token 40000") != std::string::npos);
}

TEST_CASE("plan: --tokens tunes every distinct shape at exactly those buckets") {
    const PlanRequests p = requests_of(kHeader + "1,5120,2304,96,5" + kA8w4 + "2,5120,2304,96,5" + kA8w4 +
                                           "96,5120,2304,96,5" + kA8w4,
                                       {4, 8});
    CHECK(tokens_of(p.requests) == std::vector<long long>{4, 8});
    CHECK(p.warnings.empty());  // the file's tokens are not used, so none is worth a warning
    CHECK(p.requests[0].where == "shapes.csv:2");
}

TEST_CASE("plan: repeated rows are planned once") {
    const PlanRequests p = requests_of(kHeader + "1,5120,2304,96,5" + kA8w4 + "1.0,5120,2304,96,5" + kA8w4 +
                                       "1,5120,2304,96,5,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,"
                                       "torch.float4_e2m1fn_x2,QuantType.per_1x32,True,False\n");
    REQUIRE(p.requests.size() == 1);
    CHECK(p.requests[0].where == "shapes.csv:2");
}

TEST_CASE("plan: a malformed or empty shapes file is an InputError naming file and line") {
    const auto message = [](const std::string& csv) {
        try {
            requests_of(csv);
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(message(kHeader) == "shapes.csv:1: no shape rows: nothing to tune");
    CHECK(message(kHeader + "1,5120,2304,96,5" + kA8w4 + "x,5120,2304,96,5" + kA8w4).rfind("shapes.csv:3: ", 0) == 0);
    CHECK(message(kHeader + "0,5120,2304,96,5" + kA8w4).rfind("shapes.csv:2: ", 0) == 0);
    CHECK(message("token,model_dim\n1,5120\n").rfind("shapes.csv:1: no inter_dim column", 0) == 0);
}

TEST_CASE("plan: unsupported rows stay in the plan with the reason, and without candidates") {
    const std::string fp8_weights = "1,5120,2304,96,5,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,"
                                    "torch.float8_e4m3fn,QuantType.per_1x32,1,0\n";
    const std::string odd_inter = "1,5120,2300,96,5" + kA8w4;
    const std::string gelu = "1,5120,2304,96,5,ActivationType.Gelu,torch.bfloat16,torch.float8_e4m3fn,"
                             "torch.float4_e2m1fn_x2,QuantType.per_1x32,1,0\n";
    const PlanRequests p = requests_of(kHeader + fp8_weights + odd_inter + gelu + "1,5120,2304,96,5" + kA8w4);
    const std::vector<PlanEntry> plan = build_plan(p.requests, test::test_target());
    REQUIRE(plan.size() == 4);
    std::vector<std::string> reasons;
    std::size_t supported = 0;
    for (const PlanEntry& e : plan) {
        if (e.supported()) {
            ++supported;
            continue;
        }
        CHECK(e.candidate_count() == 0);
        reasons.push_back(e.skip_reason);
    }
    CHECK(supported == 1);
    REQUIRE(reasons.size() == 3);
    CHECK(reasons[0].find("inter_dim 2300 is not a positive multiple of ") != std::string::npos);
    const auto has = [&](const std::string& part) {
        return std::any_of(reasons.begin(), reasons.end(), [&](const std::string& r) { return r.find(part) != std::string::npos; });
    };
    CHECK(has("unsupported quantisation torch.float8_e4m3fn x torch.float8_e4m3fn"));
    CHECK(has("unsupported act_type ActivationType.Gelu"));
}

TEST_CASE("plan: the key is the dedup key of the row the sweep writes, whatever the cell spelling") {
    const std::vector<PlanEntry> plan = test::reference_plan({64});
    REQUIRE(plan.size() == 1);
    table::TunedRow row;
    row.gfx = "gfx950";
    row.cu_num = 256;
    row.shape = plan[0].shape;
    row.block_m = 32;
    row.us1 = row.us2 = row.us = 1;
    row.kernel_name1 = row.kernel_name2 = "k";
    const table::Table written = table::parse_table(table::format_tuned_table({row}), "out.csv");
    CHECK(plan[0].key == table::dedup_key(written, written.rows[0]));
    CHECK(plan[0].key == row_key(row));
    // The same shape spelled "64.0" / "True" / "False" is the same key; another gfx or cu_num is not.
    const PlanRequests spelled = requests_of(kHeader + "64.0,5120,2304,96,5,ActivationType.Silu,torch.bfloat16,"
                                                       "torch.float8_e4m3fn,torch.float4_e2m1fn_x2,"
                                                       "QuantType.per_1x32,True,False\n");
    CHECK(build_plan(spelled.requests, test::test_target())[0].key == plan[0].key);
    CHECK(plan_key(plan[0].shape, "gfx942", 256) != plan[0].key);
    CHECK(plan_key(plan[0].shape, "gfx950", 304) != plan[0].key);
}

TEST_CASE("plan: labels are short and name the bucket") {
    CHECK(short_label(test::reference_plan({64})[0].shape) == "5120x2304 E96 top5, token 64");
}
