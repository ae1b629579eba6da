#include "support/catch.hpp"

#include "table_cli.h"

using namespace moetune::test;

namespace {

const std::string kShapeA =
    "7168,512,384,6,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,torch.float4_e2m1fn_x2,QuantType.per_1x32,1,0";
const std::string kShapeB = "3584,512,896,16,ActivationType.Situv2,torch.bfloat16,torch.float8_e4m3fn,"
                            "torch.float4_e2m1fn_x2,QuantType.per_1x32,1,0";

std::string missing_args(const std::string& extra) {
    return "missing --shapes " + quoted_fixture("missing_shapes.csv") + " --tuned " +
           quoted_fixture("missing_tuned.csv") + " " + extra;
}

}  // namespace

TEST_CASE("moetune missing: text lists each uncovered pair and a summary") {
    const ProcessResult r = run_moetune(missing_args(""));
    CHECK(r.exit_code == 0);
    CHECK(r.out ==
          "token=1 model_dim=3584 inter_dim=512 expert=896 topk=16 act_type=ActivationType.Situv2 dtype=torch.bfloat16 "
          "q_dtype_a=torch.float8_e4m3fn q_dtype_w=torch.float4_e2m1fn_x2 q_type=QuantType.per_1x32 use_g1u1=1 "
          "doweight_stage1=0\n"
          "token=2 model_dim=7168 inter_dim=512 expert=384 topk=6 act_type=ActivationType.Silu dtype=torch.bfloat16 "
          "q_dtype_a=torch.float8_e4m3fn q_dtype_w=torch.float4_e2m1fn_x2 q_type=QuantType.per_1x32 use_g1u1=1 "
          "doweight_stage1=0\n"
          "2 of 5 (shape, bucket) pair(s) have no tuned row\n");
}

TEST_CASE("moetune missing: csv is an untuned table sorted by shape, then token") {
    const ProcessResult r = run_moetune(missing_args("--buckets 1,2,4 --gfx gfx950 --cu-num 256 --format csv"));
    CHECK(r.exit_code == 0);
    CHECK(r.out == "token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,q_type,use_g1u1,"
                   "doweight_stage1\n"
                   "1," + kShapeB + "\n2," + kShapeB + "\n4," + kShapeB + "\n2," + kShapeA + "\n");
    CHECK(r.err.find("4 of 6 (shape, bucket) pair(s)") != std::string::npos);
}

TEST_CASE("moetune missing: --buckets aiter covers the whole ladder; --tuned repeats") {
    const ProcessResult r = run_moetune("missing --shapes " + quoted_fixture("missing_shapes.csv") + " --tuned " +
                                        quoted_fixture("missing_tuned.csv") + " --tuned " +
                                        quoted_fixture("clean_tuned.csv") + " --buckets aiter --format csv");
    CHECK(r.exit_code == 0);
    // 2 shapes x 17 buckets; shape A is covered at 1, 2 (clean_tuned), 4 and 128.
    CHECK(r.err.find("30 of 34 (shape, bucket) pair(s)") != std::string::npos);
    CHECK(r.out.find("\n131072," + kShapeA + "\n") != std::string::npos);
}

TEST_CASE("moetune missing: a tuned table sweep has not written yet covers nothing") {
    TempDir tmp("missing-fresh");
    const ProcessResult r = run_moetune("missing --shapes " + quoted_fixture("clean_untuned.csv") + " --tuned " +
                                        shell_quote((tmp / "not-yet.csv").string()));
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("4 of 4 (shape, bucket) pair(s) have no tuned row") != std::string::npos);
}

TEST_CASE("moetune missing: bad buckets, an unreadable shapes file or a bad shape row exit 2") {
    const ProcessResult buckets = run_moetune(missing_args("--buckets 1,96"));
    CHECK(buckets.exit_code == 2);
    CHECK(buckets.err.find("'96' is not a token bucket") != std::string::npos);
    CHECK(run_moetune("missing --shapes " + quoted_fixture("no_such_file.csv") + " --tuned " +
                      quoted_fixture("missing_tuned.csv"))
              .exit_code == 2);
    const ProcessResult bad = run_moetune("missing --shapes " + quoted_fixture("bad_values.csv") + " --tuned " +
                                          quoted_fixture("missing_tuned.csv"));
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find("bad_values.csv:2: token '0'") != std::string::npos);
    CHECK(run_moetune("missing --tuned " + quoted_fixture("missing_tuned.csv")).exit_code == 2);  // no --shapes
    CHECK(run_moetune(missing_args("--format yaml")).exit_code == 2);
}
