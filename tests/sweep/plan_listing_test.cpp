// --dry-run's text and --only-missing's filter.
#include <fstream>

#include "support/catch.hpp"
#include "support/test_env.h"
#include "sweep/only_missing.h"
#include "sweep/plan_listing.h"
#include "sweep/tuned_output.h"
#include "sweep_fakes.h"
#include "table/table_reader.h"

using namespace moetune;
using namespace moetune::sweep;

TEST_CASE("dry run: a heading per shape, a line per bucket with candidate counts, and the totals") {
    test::TempDir dir("listing");
    const std::vector<PlanEntry> plan = test::reference_plan({});
    const std::string text = format_plan(plan, TunedOutput::read(dir / "out.csv"), false);
    CHECK(text.rfind("shape model_dim=5120 inter_dim=2304 expert=96 topk=5 act_type=ActivationType.Silu "
                     "dtype=torch.bfloat16 q_dtype_a=torch.float8_e4m3fn q_dtype_w=torch.float4_e2m1fn_x2 "
                     "q_type=QuantType.per_1x32 use_g1u1=1 doweight_stage1=0\n",
                     0) == 0);
    std::size_t total = 0;
    for (const PlanEntry& e : plan) {
        total += e.candidate_count();
        CHECK(text.find("\n  token " + std::to_string(e.shape.token) + ": " + std::to_string(e.candidate_count()) +
                        " candidates (" + std::to_string(e.stage1.kept.size()) + " stage 1 + " +
                        std::to_string(e.stage2.kept.size()) + " stage 2), " + std::to_string(e.pruned_count()) +
                        " pruned\n") != std::string::npos);
    }
    CHECK(text.find("\n15 (shape, bucket) entries, 15 to measure: " + std::to_string(total) + " candidates\n") !=
          std::string::npos);
}

TEST_CASE("dry run: entries already in the output are marked, unless --retune") {
    test::TempDir dir("listing");
    std::vector<PlanEntry> plan = test::reference_plan({1, 2});
    table::TunedRow row;
    row.gfx = "gfx950";
    row.cu_num = 256;
    row.shape = plan[1].shape;
    row.block_m = 16;
    row.us1 = row.us2 = row.us = 1;
    row.kernel_name1 = row.kernel_name2 = "k";
    TunedOutput out = TunedOutput::read(dir / "out.csv");
    out.put(row);
    const std::string text = format_plan(plan, out, false);
    CHECK(text.find("  token 2: already in the output (a rerun skips it; --retune measures it again)\n") !=
          std::string::npos);
    CHECK(text.find("2 (shape, bucket) entries, 1 to measure") != std::string::npos);
    CHECK(format_plan(plan, out, true).find("already") == std::string::npos);

    plan[0].problem.reset();
    plan[0].skip_reason = "inter_dim 100 is not a positive multiple of 32 (the MX scale block)";
    CHECK(format_plan(plan, out, false).find("  token 1: skipped: inter_dim 100 is not") != std::string::npos);
}

TEST_CASE("only-missing: requests covered by a tuned row for this gfx and cu_num are dropped") {
    test::TempDir dir("missing");
    const auto requests =
        read_plan_requests(table::read_table(test::reference_shapes_file()), {1, 2, 4, 8}).requests;
    const std::string shape = ",5120,2304,96,5,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,"
                              "torch.float4_e2m1fn_x2,QuantType.per_1x32,1,0,16,0,1.0,k1,0.0%,1.0,k2,0.0%,2.0,0,0,0,"
                              "1.0,1.0\n";
    std::ofstream(dir / "tuned.csv")
        << "gfx,cu_num,token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,q_type,use_g1u1,"
           "doweight_stage1,block_m,ksplit,us1,kernelName1,err1,us2,kernelName2,err2,us,run_1stage,xbf16,flat,"
           "tflops,bw\n"
        << "gfx950,256,2" << shape << "gfx942,304,4" << shape << "gfx950,256,8" << shape;
    const std::vector<table::Table> tuned = {table::read_table(dir / "tuned.csv")};
    std::vector<long long> tokens;
    for (const PlanRequest& r : drop_covered(requests, tuned, test::test_target())) tokens.push_back(r.shape.token);
    CHECK(tokens == std::vector<long long>{1, 4});  // 4 is tuned only for another GPU
}
