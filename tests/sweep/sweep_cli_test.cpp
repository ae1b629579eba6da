// `moetune sweep` end to end on any host: --dry-run plans the reference file without a GPU, a real
// sweep without a GPU refuses with exit 3 and writes nothing, and bad input exits 2 (or 1 for
// unsupported rows) with a message naming file and line.
#include <filesystem>
#include <sstream>

#include "cli/exit_codes.h"
#include "gpu/device.h"
#include "support/catch.hpp"
#include "support/test_env.h"
#include "sweep_fakes.h"

using namespace moetune;
using moetune::test::ProcessResult;
using moetune::test::shell_quote;
using moetune::test::TempDir;
using moetune::test::contains;
using moetune::test::write_file;

namespace {


std::size_t count_lines_starting(const std::string& text, const std::string& prefix) {
    std::istringstream in(text);
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);) n += line.rfind(prefix, 0) == 0;
    return n;
}

// Runs moetune with `dir` as the working directory, so a default output/ would land there.
ProcessResult sweep_in(const TempDir& dir, const std::string& args) {
    return test::run_process("cd " + shell_quote(dir.path().string()) + " && " +
                             shell_quote(test::moetune_binary().string()) + " sweep " + args);
}

std::string reference() { return shell_quote(test::reference_shapes_file().string()); }

const std::string kHeader =
    "token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,q_type,use_g1u1,doweight_stage1\n";
const std::string kA8w4 =
    ",ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,torch.float4_e2m1fn_x2,QuantType.per_1x32,1,0\n";


}  // namespace

TEST_CASE("sweep --dry-run plans the 15 buckets of the reference file without a GPU and writes nothing") {
    TempDir dir("sweep-cli");
    const ProcessResult r = sweep_in(dir, "--dry-run --shapes " + reference());
    INFO(r.err);
    REQUIRE(r.exit_code == cli::kExitOk);
    CHECK(count_lines_starting(r.out, "shape model_dim=5120 inter_dim=2304 expert=96 topk=5 ") == 1);
    CHECK(count_lines_starting(r.out, "  token ") == 15);
    for (long long token = 1; token <= 16384; token *= 2)
        CHECK(contains(r.out, "  token " + std::to_string(token) + ": "));
    CHECK(contains(r.out, "\n15 (shape, bucket) entries, 15 to measure: "));
    CHECK(contains(r.err, "dry run for sm_90a (rows stamped gfx sm_90, cu_num 132"));
    CHECK(std::filesystem::is_empty(dir.path()));
}

TEST_CASE("sweep --dry-run: --tokens, --shard and --arch change the plan") {
    TempDir dir("sweep-cli");
    const ProcessResult tokens = sweep_in(dir, "--dry-run --tokens 1,4 --shapes " + reference());
    CHECK(count_lines_starting(tokens.out, "  token ") == 2);
    const ProcessResult shard = sweep_in(dir, "--dry-run --shard 1/4 --shapes " + reference());
    INFO(shard.err);
    CHECK(count_lines_starting(shard.out, "  token ") == 4);
    for (const char* t : {"2", "32", "512", "8192"}) CHECK(contains(shard.out, std::string("  token ") + t + ": "));
    CHECK(contains(shard.err, "shard 1/4: 4 of 15 (shape, bucket) entries"));
    const ProcessResult amd = sweep_in(dir, "--dry-run --arch gfx950 --tokens 1 --shapes " + reference());
    CHECK(amd.exit_code == cli::kExitOk);
    CHECK(contains(amd.err, "rows stamped gfx gfx950, cu_num 256"));
}

TEST_CASE("sweep --dry-run marks what a rerun skips, and --only-missing drops what --tuned covers") {
    TempDir dir("sweep-cli");
    const std::string tuned_row = "gfx950,256,4,5120,2304,96,5,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,"
                                  "torch.float4_e2m1fn_x2,QuantType.per_1x32,1,0,16,0,1.0,k1,0.0%,1.0,k2,0.0%,2.0,0,0,"
                                  "0,1.0,1.0\n";
    const std::string tuned =
        write_file(dir, "tuned.csv",
                   "gfx,cu_num,token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,q_type,"
                   "use_g1u1,doweight_stage1,block_m,ksplit,us1,kernelName1,err1,us2,kernelName2,err2,us,run_1stage,"
                   "xbf16,flat,tflops,bw\n" +
                       tuned_row);
    const ProcessResult resume =
        sweep_in(dir, "--dry-run --arch gfx950 --tokens 1,2,4 -o " + shell_quote(tuned) + " --shapes " + reference());
    INFO(resume.err);
    CHECK(contains(resume.out, "  token 4: already in the output"));
    CHECK(contains(resume.out, "3 (shape, bucket) entries, 2 to measure"));
    const ProcessResult missing = sweep_in(dir, "--dry-run --arch gfx950 --tokens 1,2,4 --only-missing --tuned " +
                                                    shell_quote(tuned) + " --shapes " + reference());
    CHECK(count_lines_starting(missing.out, "  token ") == 2);
    CHECK(contains(missing.err, "--only-missing: 1 of 3 entries are already covered by --tuned for gfx950 cu_num 256"));
    // On an sm_90 the same rows are another GPU's: nothing is covered.
    const ProcessResult other = sweep_in(dir, "--dry-run --tokens 1,2,4 --only-missing --tuned " + shell_quote(tuned) +
                                                  " --shapes " + reference());
    CHECK(count_lines_starting(other.out, "  token ") == 3);
}

TEST_CASE("sweep without a GPU exits 3 with the reason and writes nothing") {
    const std::string why = gpu::unavailable_reason();
    if (!why.empty()) {
        TempDir dir("sweep-cli");
        const ProcessResult r =
            sweep_in(dir, "--shapes " + reference() + " --profile-out all.csv --report run.json --cache-dir cache");
        INFO(r.err);
        CHECK(r.exit_code == cli::kExitNoGpu);
        CHECK(contains(r.err, "no GPU: " + why));
        CHECK(r.out.empty());
        CHECK(std::filesystem::is_empty(dir.path()));  // no output/, profile, report or cache
    } else {
        SUCCEED("this host has a GPU: sweep_gpu_test runs real sweeps");
    }
}

TEST_CASE("sweep: bad shapes files exit 2 with file and line, before anything else") {
    TempDir dir("sweep-cli");
    const auto run = [&](const std::string& shapes_text) {
        return sweep_in(dir, "--shapes " + shell_quote(write_file(dir, "shapes.csv", shapes_text)));
    };
    const std::string shapes = (dir / "shapes.csv").string();
    ProcessResult r = run(kHeader);
    CHECK(r.exit_code == cli::kExitUsage);
    CHECK(contains(r.err, shapes + ":1: no shape rows: nothing to tune"));
    r = run("");
    CHECK(r.exit_code == cli::kExitUsage);
    CHECK(contains(r.err, shapes));
    r = run(kHeader + "1,5120,2304,96,5" + kA8w4 + "1,5120,2304,0,5" + kA8w4);
    CHECK(r.exit_code == cli::kExitUsage);
    CHECK(contains(r.err, shapes + ":3: "));
    CHECK(contains(r.err, "expert"));
    r = run("a,b\n1,2\n");
    CHECK(r.exit_code == cli::kExitUsage);
    r = sweep_in(dir, "--shapes " + shell_quote((dir / "absent.csv").string()));
    CHECK(r.exit_code == cli::kExitUsage);
    CHECK(contains(r.err, "absent.csv"));
    CHECK_FALSE(std::filesystem::exists(dir / "output"));
}

TEST_CASE("sweep: bad flags exit 2 and say which flag") {
    TempDir dir("sweep-cli");
    const auto err_of = [&](const std::string& flags) {
        const ProcessResult r = sweep_in(dir, "--dry-run --shapes " + reference() + " " + flags);
        CHECK(r.exit_code == cli::kExitUsage);
        return r.err;
    };
    CHECK(contains(err_of("--shard 4/4"), "--shard: '4/4': the shard index i must be 0..3"));
    CHECK(contains(err_of("--tokens 96"), "--tokens: '96' is not a token bucket AITER looks up"));
    CHECK(contains(err_of("--routing sorted"), "sorted"));
    CHECK(contains(err_of("--metric l2"), "unknown error metric 'l2'"));
    // Rotating routings that do not depend on the seed would time one routing N times.
    CHECK(contains(err_of("--routing balanced --routings 3"), "--routing balanced is the same whatever the seed"));
    CHECK(contains(err_of("--routings 65"), "--routings"));
    CHECK(contains(err_of("--only-missing"), "--tuned"));
    CHECK(contains(err_of("--tuned x.csv"), "--only-missing"));
    CHECK(contains(err_of("--err-ratio 2"), "--err-ratio: must lie in 0..1, got 2"));
    CHECK(contains(err_of("--task-timeout 0"), "--task-timeout: must be greater than 0, got 0"));
    CHECK(contains(err_of("--arch sm_80"), "--arch"));
    for (const char* margin : {"abc", "1e999", "0.5"})  // (a non-number used to abort, exit 134)
        CHECK(contains(err_of(std::string("--finalist-margin ") + margin), "--finalist-margin"));
    const ProcessResult no_dry = sweep_in(dir, "--shapes " + reference() + " --cu-num 80");
    CHECK(no_dry.exit_code == cli::kExitUsage);
    CHECK(contains(no_dry.err, "--dry-run"));
    const std::string untuned = write_file(dir, "untuned.csv", kHeader + "1,5120,2304,96,5" + kA8w4);
    CHECK(contains(err_of("-o " + shell_quote(untuned)), "the output is an untuned table"));
    const std::string profile = write_file(dir, "profile.csv", "something,else\n");
    CHECK(contains(err_of("--profile-out " + shell_quote(profile)), "is not a sweep profile"));
    // Found with the flags, before the GPU is looked for (a run without --dry-run said "no GPU", exit 3).
    CHECK(contains(err_of("--only-missing --tuned " + shell_quote(untuned)), "not a tuned table"));
    CHECK(contains(err_of("--gpus abc"), "--gpus: 'abc' is not a GPU index"));
    const ProcessResult gpus = sweep_in(dir, "--shapes " + reference() + " --gpus 0,0");
    CHECK(gpus.exit_code == cli::kExitUsage);
}

TEST_CASE("sweep: unsupported rows are skipped with the reason and the run exits 1") {
    TempDir dir("sweep-cli");
    const std::string shapes = write_file(
        dir, "shapes.csv",
        kHeader + "1,5120,2304,96,5" + kA8w4 + "1,5120,100,96,5" + kA8w4 +
            "1,5120,2304,96,5,ActivationType.Silu,torch.bfloat16,torch.bfloat16,torch.float4_e2m1fn_x2,"
            "QuantType.per_1x32,1,0\n");
    const ProcessResult r = sweep_in(dir, "--dry-run --shapes " + shell_quote(shapes));
    INFO(r.out + r.err);
    CHECK(r.exit_code == cli::kExitFailed);
    CHECK(contains(r.out, "  token 1: skipped: inter_dim 100 is not a positive multiple of "));
    CHECK(contains(r.out, "  token 1: skipped: unsupported quantisation torch.bfloat16 x torch.float4_e2m1fn_x2"));
    CHECK(contains(r.out, "3 (shape, bucket) entries, 1 to measure"));
}
