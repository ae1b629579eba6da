// The hand-over to the kernel templates: every parameter of the config's stage, nothing of the other.
#include <map>
#include <string>

#include "kernels/compile_definitions.h"
#include "kernels/kernel_name.h"
#include "kernels/resource_model.h"
#include "support/catch.hpp"

using namespace moetune::kernels;

namespace {
std::map<std::string, std::string> definitions(const KernelConfig& c) {
    std::map<std::string, std::string> m;
    for (const Definition& d : compile_definitions(c)) CHECK(m.emplace(d.name, d.value).second);
    return m;
}
}  // namespace

TEST_CASE("stage-1 definitions") {
    const std::string name = "moetune_moe1_afp8_wfp4_bf16_t32x128x256_w4_nt_gui_fp8";
    const auto d = definitions(*parse_kernel_name(name));
    const std::map<std::string, std::string> expected = {
        {"MOETUNE_KERNEL_NAME", name},       {"MOETUNE_STAGE", "1"},
        {"MOETUNE_A_DTYPE", "1"},            {"MOETUNE_W_DTYPE", "2"},
        {"MOETUNE_OUT_DTYPE", "3"},          {"MOETUNE_TILE_M", "32"},
        {"MOETUNE_TILE_N", "128"},           {"MOETUNE_TILE_K", "256"},
        {"MOETUNE_WARPS", "4"},              {"MOETUNE_WARPS_M", "1"},
        {"MOETUNE_WARPS_N", "4"},            {"MOETUNE_PIPELINE_STAGES", "2"},
        {"MOETUNE_NONTEMPORAL_WEIGHTS", "1"}, {"MOETUNE_PERSISTENT", "0"},
        {"MOETUNE_GATE_UP_INTERLEAVED", "1"}, {"MOETUNE_FUSED_MXFP8_OUT", "1"},
    };
    CHECK(d == expected);
}

TEST_CASE("stage-2 definitions carry the mode and the sort block") {
    const KernelConfig c = *parse_kernel_name("moetune_moe2_afp8_wfp4_bf16_t32x256x128_reduce_st4_persist_sbm64");
    const auto d = definitions(c);
    CHECK(d.at("MOETUNE_STAGE") == "2");
    CHECK(d.at("MOETUNE_STAGE2_MODE") == "1");
    CHECK(d.at("MOETUNE_SORT_BLOCK_M") == "64");
    CHECK(d.at("MOETUNE_TILE_M") == "32");
    CHECK(d.at("MOETUNE_PIPELINE_STAGES") == "4");
    CHECK(d.at("MOETUNE_PERSISTENT") == "1");
    CHECK(d.at("MOETUNE_WARPS_M") == std::to_string(warp_grid(c)->warps_m));
    CHECK(d.at("MOETUNE_WARPS_N") == std::to_string(warp_grid(c)->warps_n));
    CHECK(d.count("MOETUNE_GATE_UP_INTERLEAVED") == 0);
    CHECK(d.count("MOETUNE_FUSED_MXFP8_OUT") == 0);
}

TEST_CASE("a config the warps cannot split has no definitions") {
    CHECK_THROWS_AS(compile_definitions(*parse_kernel_name("moetune_moe1_afp8_wfp4_bf16_t16x64x128_w4")),
                    std::invalid_argument);
}
