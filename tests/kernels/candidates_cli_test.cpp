// `moetune candidates` end to end: the reference shape file, -v, filters, bad rows and bad flags.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/kernel_name.h"
#include "support/catch.hpp"
#include "support/test_env.h"

using namespace moetune;
using moetune::test::run_moetune;
using moetune::test::shell_quote;
using moetune::test::contains;

namespace {

std::string reference_shapes() { return test::reference_shapes_file().string(); }


std::vector<std::string> lines_starting_with(const std::string& text, const std::string& prefix) {
    std::vector<std::string> found;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (line.rfind(prefix, 0) == 0) found.push_back(line.substr(prefix.size()));
    return found;
}

constexpr const char* kHeader =
    "token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,q_type,use_g1u1,doweight_stage1\n";
constexpr const char* kA8w4 =
    ",ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,torch.float4_e2m1fn_x2,QuantType.per_1x32,1,0\n";

}  // namespace

TEST_CASE("candidates lists parseable kernels for every row of the DSv4.1 shape file") {
    const auto r = run_moetune("candidates --shapes " + shell_quote(reference_shapes()));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.empty());
    // One header per row (15 buckets), each with both stages.
    const auto headers = lines_starting_with(r.out, reference_shapes() + ":");
    REQUIRE(headers.size() == 15);
    CHECK(contains(headers.front(), "token 1 model_dim 5120 inter_dim 2304 expert 96 topk 5"));
    CHECK(contains(headers.back(), "token 16384 "));
    CHECK(lines_starting_with(r.out, "  stage 1: ").size() == 15);
    CHECK(lines_starting_with(r.out, "  stage 2: ").size() == 15);

    const auto names = lines_starting_with(r.out, "    ");
    REQUIRE(names.size() > 100);
    for (const std::string& name : names) {
        std::string why;
        const bool parsed = kernels::parse_kernel_name(name, &why).has_value();
        INFO(name << ": " << why);
        CHECK(parsed);
    }
    CHECK(contains(r.out, "15 shapes on sm_90a: "));
}

TEST_CASE("--tokens and --stage narrow the listing; -v adds each pruned config with its reason") {
    const std::string args = "candidates --shapes " + shell_quote(reference_shapes()) + " --tokens 1 --stage 2";
    const auto quiet = run_moetune(args);
    REQUIRE(quiet.exit_code == 0);
    // The file's 15 rows are one shape at 15 token counts: one shape at --tokens.
    CHECK(lines_starting_with(quiet.out, reference_shapes() + ":").size() == 1);
    CHECK(contains(quiet.out, ": token 1 model_dim 5120"));
    CHECK(lines_starting_with(quiet.out, "  stage 1: ").empty());
    for (const std::string& name : lines_starting_with(quiet.out, "    "))
        CHECK(name.rfind("moetune_moe2_", 0) == 0);
    CHECK_FALSE(contains(quiet.err, "pruned"));

    const auto verbose = run_moetune(args + " -v");
    REQUIRE(verbose.exit_code == 0);
    CHECK(verbose.out == quiet.out);
    CHECK(contains(verbose.err, "pruned moetune_moe2_"));
    CHECK(contains(verbose.err, "heuristic: block_m 128 is mostly padding"));
    CHECK(contains(verbose.err, "per thread exceed 255 (sm_90a)"));

    const auto no_heuristics = run_moetune(args + " --no-heuristics -v");
    REQUIRE(no_heuristics.exit_code == 0);
    CHECK_FALSE(contains(no_heuristics.err, "heuristic"));
    CHECK(lines_starting_with(no_heuristics.out, "    ").size() > lines_starting_with(quiet.out, "    ").size());
}

TEST_CASE("--kernels narrows the listing to matching names; a bad pattern is a usage error") {
    const std::string args = "candidates --shapes " + shell_quote(reference_shapes()) + " --tokens 4096";
    const auto r = run_moetune(args + " --kernels '_smem_wgmma_'");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto names = lines_starting_with(r.out, "    ");
    REQUIRE_FALSE(names.empty());
    for (const std::string& name : names) CHECK(contains(name, "_smem_wgmma_"));
    CHECK(names.size() < lines_starting_with(run_moetune(args).out, "    ").size());

    const auto bad = run_moetune(args + " --kernels '(t128'");
    CHECK(bad.exit_code == 2);
    CHECK(contains(bad.err, "--kernels"));
    CHECK(contains(bad.err, "not a regular expression"));
}

TEST_CASE("unsupported rows are reported with file:line and skipped; a row that is not a shape is an input error") {
    test::TempDir dir("candidates-cli");
    const std::string file = (dir / "shapes.csv").string();
    std::ofstream(file) << kHeader                             // line 1
                        << "16,5120,2304,96,5" << kA8w4        // line 2: fine
                        << "16,5120,2300,96,5" << kA8w4        // line 3: inter_dim not a multiple of 32
                        << "16,5120,2304,96,5,ActivationType.Silu,torch.bfloat16,torch.bfloat16,"
                           "torch.float4_e2m1fn_x2,QuantType.per_1x32,1,0\n";  // line 4: a16w4
    const auto r = run_moetune("candidates --shapes " + shell_quote(file));
    INFO(r.err);
    CHECK(r.exit_code == 1);
    CHECK(contains(r.err, file + ":3: inter_dim 2300 is not a positive multiple of 128"));
    CHECK(contains(r.err, file + ":4: unsupported quantisation torch.bfloat16"));
    CHECK(lines_starting_with(r.out, file + ":").size() == 1);
    CHECK(contains(r.out, file + ":2: token 16 "));

    // Token 0 is not a shape (as sweep says, exit 2), and a file of no rows has nothing to list.
    std::ofstream(file, std::ios::app) << "0,5120,2304,96,5" << kA8w4;  // line 5
    const auto bad = run_moetune("candidates --shapes " + shell_quote(file));
    CHECK(bad.exit_code == 2);
    CHECK(contains(bad.err, file + ":5: token '0'"));
    CHECK(bad.out.empty());
    std::ofstream(file) << kHeader;
    const auto empty = run_moetune("candidates --shapes " + shell_quote(file));
    CHECK(empty.exit_code == 2);
    CHECK(contains(empty.err, file + ":1: no shape rows"));
}

TEST_CASE("the smallest shape the kernels run still has candidates in both stages") {
    test::TempDir dir("candidates-cli");
    const std::string file = (dir / "small.csv").string();
    std::ofstream(file) << kHeader << "64,128,128,8,2" << kA8w4;  // one 128-wide K chunk per GEMM
    const auto r = run_moetune("candidates --shapes " + shell_quote(file));
    INFO(r.err);
    CHECK(r.exit_code == 0);
    const auto names = lines_starting_with(r.out, "    ");
    REQUIRE_FALSE(names.empty());
    for (const std::string& name : names) {
        const auto c = kernels::parse_kernel_name(name);
        REQUIRE(c);
        CHECK(c->tile_k == 128);
        CHECK(c->tile_n <= 256);
    }
    CHECK(lines_starting_with(r.out, "  stage 1: ").size() == 1);
    CHECK(lines_starting_with(r.out, "  stage 2: ").size() == 1);
}

TEST_CASE("--mma picks the tensor-core paths: all by default, fp8 or bf16 (_mbf16)") {
    const std::string args = "candidates --shapes " + shell_quote(reference_shapes()) + " --tokens 1";
    const auto plain = run_moetune(args), fp8 = run_moetune(args + " --mma fp8");
    const auto bf16 = run_moetune(args + " --mma bf16"), all = run_moetune(args + " --mma all");
    for (const auto* r : {&plain, &fp8, &bf16, &all}) REQUIRE(r->exit_code == 0);
    CHECK(all.out == plain.out);
    const auto fp8_names = lines_starting_with(fp8.out, "    ");
    const auto bf16_names = lines_starting_with(bf16.out, "    ");
    REQUIRE_FALSE(bf16_names.empty());
    for (const std::string& name : fp8_names) CHECK_FALSE(contains(name, "_mbf16"));
    for (const std::string& name : bf16_names) CHECK(contains(name, "_mbf16"));
    CHECK(lines_starting_with(all.out, "    ").size() == fp8_names.size() + bf16_names.size());
    CHECK(run_moetune(args + " --mma fp4").exit_code == 2);
}

TEST_CASE("--arch picks the device limits; bad flags and files are usage errors") {
    const std::string shapes = shell_quote(reference_shapes());
    const auto amd = run_moetune("candidates --shapes " + shapes + " --tokens 4096 --arch gfx942");
    REQUIRE(amd.exit_code == 0);
    CHECK(contains(amd.out, "1 shapes on gfx942: "));
    const auto nv = run_moetune("candidates --shapes " + shapes + " --tokens 4096");
    // CDNA's 512 VGPRs per lane fit warp blocks that sm_90a's 255 registers do not (the _ws tiles
    // aside, whose buffers only sm_90a's shared memory holds).
    const auto without_ws = [](const std::vector<std::string>& lines) {
        return std::count_if(lines.begin(), lines.end(), [](const std::string& l) { return !contains(l, "_ws"); });
    };
    CHECK(without_ws(lines_starting_with(amd.out, "    ")) > without_ws(lines_starting_with(nv.out, "    ")));

    CHECK(run_moetune("candidates --shapes " + shapes + " --arch sm_80").exit_code == 2);
    CHECK(run_moetune("candidates --shapes " + shapes + " --stage 3").exit_code == 2);
    CHECK(run_moetune("candidates --shapes " + shapes + " --tokens 0").exit_code == 2);
    CHECK(run_moetune("candidates").exit_code == 2);
    const auto missing = run_moetune("candidates --shapes /nonexistent/shapes.csv");
    CHECK(missing.exit_code == 2);
    CHECK(contains(missing.err, "/nonexistent/shapes.csv"));
}
