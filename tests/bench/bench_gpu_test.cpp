// `moetune bench` on the GPU: a small shape at two token counts, one of them with a tuned row (a
// pair other than the heuristic default), so both arms run, are compared and timed, and the JSON
// holds what docs/benchmarks.md promises.
#include <algorithm>
#include <fstream>

#include <nlohmann/json.hpp>

#include "bench/peak_probes.h"
#include "cli/exit_codes.h"
#include "gpu/device.h"
#include "support/catch.hpp"
#include "support/test_env.h"

using namespace moetune;
using moetune::test::ProcessResult;
using moetune::test::read_text;
using moetune::test::run_moetune;
using moetune::test::shell_quote;
using moetune::test::TempDir;

namespace {

constexpr const char* kShape =
    "512,256,8,2,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,torch.float4_e2m1fn_x2,QuantType.per_1x32,1,0";

void write(const std::filesystem::path& p, const std::string& text) { std::ofstream(p) << text; }

}  // namespace

TEST_CASE("bench times the default and the tuned arm and writes the JSON", "[gpu]") {
    TempDir dir("bench-gpu");
    const gpu::DeviceInfo d = gpu::device_info(0);
    const bool measures_fp8 = bench::PeakProbes::measures_fp8(d.arch);
    write(dir / "shapes.csv", std::string("token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,"
                                          "q_type,use_g1u1,doweight_stage1\n16,") +
                                  kShape + "\n64," + kShape + "\n");
    write(dir / "tuned.csv",
          "gfx,cu_num,token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,q_type,use_g1u1,"
          "doweight_stage1,block_m,ksplit,us1,kernelName1,err1,us2,kernelName2,err2,us,run_1stage\n" +
              d.gfx + "," + std::to_string(d.cu_num) + ",16," + kShape +
              ",16,0,10,moetune_moe1_afp8_wfp4_bf16_t16x64x128_w2_gui,0.0%,10,"
              "moetune_moe2_afp8_wfp4_bf16_t16x64x128_atomic_w4,0.0%,20,0\n");
    const auto json_path = dir / "bench.json";
    const ProcessResult r = run_moetune("bench --shapes " + shell_quote((dir / "shapes.csv").string()) + " --tuned " +
                                        shell_quote((dir / "tuned.csv").string()) + " --rounds 3 --json " +
                                        shell_quote(json_path.string()) + " --hbm-tbps 0 --routings 3" +
                                        (measures_fp8 ? " --peak-tflops 0" : ""));
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == cli::kExitOk);
    const auto j = nlohmann::json::parse(read_text(json_path));
    CHECK(j["peaks"]["hbm_source"] == "measured");
    CHECK(j["routings"] == 3);  // the timed calls rotate over three routings (the outputs compared: the first's)
    // Sanity, not a target: any real HBM (an H100's read stream: 3.08 TB/s); any Hopper's FP8 rate.
    CHECK(j["peaks"]["hbm_tbps"].get<double>() > 0.5);
    CHECK(j["peaks"]["hbm_tbps"].get<double>() < 20);
    // The ceiling is the faster of the two streams, both reported.
    CHECK(j["peaks"]["hbm_tbps"].get<double>() ==
          std::max(j["peaks"]["hbm_copy_tbps"].get<double>(), j["peaks"]["hbm_read_tbps"].get<double>()));
    CHECK(j["peaks"]["hbm_copy_tbps"].get<double>() > 0.5);
    if (measures_fp8) {
        CHECK(j["peaks"]["tflops_source"] == "measured");
        CHECK(j["peaks"]["tflops"].get<double>() > 100);
        CHECK(j["peaks"]["tflops"].get<double>() < 5000);
    }
    const auto& buckets = j["shapes"].at(0)["buckets"];
    REQUIRE(buckets.size() == 2);
    const auto& tuned = buckets[0];
    CHECK(tuned["tokens"] == 16);
    CHECK(tuned["tuned"]["kernel_name1"] == "moetune_moe1_afp8_wfp4_bf16_t16x64x128_w2_gui");
    CHECK(tuned["tuned"]["us"].get<double>() > 0);
    CHECK(tuned["default"]["us"].get<double>() > 0);
    CHECK(tuned["default"]["kernel_name1"] != tuned["tuned"]["kernel_name1"]);
    // The SM clock read beside each arm's rounds (sanity, not a target: any GPU's clock in MHz).
    for (const char* arm : {"default", "tuned"}) {
        INFO(arm);
        CHECK(tuned[arm]["sm_mhz_low"].get<double>() > 100);
        CHECK(tuned[arm]["sm_mhz_high"].get<double>() >= tuned[arm]["sm_mhz_low"].get<double>());
        CHECK(tuned[arm]["sm_mhz_high"].get<double>() < 5000);
    }
    // Two correct kernel pairs on the same inputs: bf16 rounding and atomic order apart, the same MoE.
    CHECK(tuned["rel_l2"].get<double>() < 0.02);
    const auto& untuned = buckets[1];
    CHECK(untuned["tuned"].is_null());
    CHECK(untuned["default"]["roofline_pct"].get<double>() > 0);
    CHECK(r.out.find("% roofline") != std::string::npos);
}
