// `moetune bench` on any host: what it refuses before it looks for a GPU — bad flags and input
// files exit 2 naming the flag or file and line, an unwritable --json exits 4 with nothing run.
#include <string>

#include "cli/exit_codes.h"
#include "support/catch.hpp"
#include "support/test_env.h"

using namespace moetune;
using namespace moetune::test;

namespace {

std::string reference() { return shell_quote(reference_shapes_file().string()); }

ProcessResult bench(const std::string& args) { return run_moetune("bench " + args); }

const std::string kHeader =
    "token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,q_type,use_g1u1,doweight_stage1\n";

}  // namespace

TEST_CASE("bench: bad flags and inputs exit 2 and name the flag or the file and line") {
    TempDir dir("bench-cli");
    const std::string untuned = write_file(dir, "untuned.csv", kHeader);
    const auto usage = [&](const std::string& args) {
        const ProcessResult r = bench(args);
        CHECK(r.exit_code == cli::kExitUsage);
        return r.err;
    };
    CHECK(contains(usage("--shapes " + reference() + " --tokens 0"), "--tokens: '0' is not a token bucket"));
    // Bounds said in words (CLI11's own checks printed the 309 digits of DBL_MAX as the upper bound).
    CHECK(contains(usage("--shapes " + reference() + " --rounds 0"), "--rounds: must be greater than 0, got 0"));
    CHECK(contains(usage("--shapes " + reference() + " --hbm-tbps -1"), "--hbm-tbps: must be 0 or more, got -1"));
    CHECK(contains(usage("--shapes " + reference() + " --peak-tflops -5"), "--peak-tflops: must be 0 or more, got -5"));
    // Rotating routings that do not depend on the seed would time one routing N times.
    CHECK(contains(usage("--shapes " + reference() + " --routing balanced --routings 3"),
                   "--routing balanced is the same whatever the seed"));
    CHECK(contains(usage("--shapes " + reference() + " --tuned " + shell_quote(untuned)),
                   untuned + ":1: not a tuned table"));
    CHECK(contains(usage("--shapes " + shell_quote(untuned)), untuned + ":1: no shape rows"));
    CHECK(contains(usage("--shapes " + shell_quote((dir / "absent.csv").string())), "absent.csv"));
}

TEST_CASE("bench: a --json it cannot write exits 4 before anything runs") {
    TempDir dir("bench-cli");
    const ProcessResult r = bench("--shapes " + reference() + " --json " + shell_quote(dir.path().string()));
    CHECK(r.exit_code == cli::kExitCannotWrite);
    CHECK(contains(r.err, "nothing was run"));
}
