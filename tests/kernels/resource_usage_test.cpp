// Reading registers and spills from what the compilers report: ptxas -v lines (NVRTC's program
// log) and the msgpack metadata of AMD code objects.
#include <string>

#include "instantiate/resource_usage.h"
#include "support/catch.hpp"

using namespace moetune;
using instantiate::resource_usage;

namespace {
rtc::CompiledCode with_log(std::string log) {
    rtc::CompiledCode c;
    c.log = std::move(log);
    return c;
}

rtc::CompiledCode with_code(std::string code) {
    rtc::CompiledCode c;
    c.code = std::move(code);
    return c;
}

// A msgpack fixstr key as AMD code object metadata spells it.
std::string key(const std::string& k) { return std::string(1, char(0xA0 | k.size())) + k; }

constexpr const char* kSpillingLog =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function 'moetune_moe1_afp8_wfp4_bf16_t32x128x256_w4_gui_fp8' for 'sm_90a'\n"
    "ptxas info    : Function properties for moetune_moe1_afp8_wfp4_bf16_t32x128x256_w4_gui_fp8\n"
    "ptxas         .     56 bytes stack frame, 52 bytes spill stores, 52 bytes spill loads\n"
    "ptxas info    : Used 255 registers, used 1 barriers, 56 bytes cumulative stack size, 256 bytes smem\n"
    "ptxas info    : Compile time = 612.000 ms\n";
}  // namespace

TEST_CASE("ptxas -v: registers and spill stores of the entry function") {
    const auto spilled = resource_usage(with_log(kSpillingLog), "sm_90a");
    REQUIRE(spilled);
    CHECK(spilled->registers == 255);
    CHECK(spilled->spill_bytes == 52);
    const kernels::KernelConfig unbounded;
    CHECK(instantiate::spill_reason(*spilled, unbounded) == "spills 52 bytes at 255 registers");
    // An occupancy bound (_occ4) asks for spills: measured, not pruned.
    kernels::KernelConfig bounded;
    bounded.warps = 4;
    bounded.min_workgroups = 4;
    CHECK_FALSE(instantiate::spill_reason(*spilled, bounded));

    const auto clean = resource_usage(
        with_log("ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
                 "ptxas info    : Used 168 registers, used 1 barriers, 256 bytes smem\n"),
        "sm_90a");
    REQUIRE(clean);
    CHECK(clean->registers == 168);
    CHECK(clean->spill_bytes == 0);
    CHECK_FALSE(instantiate::spill_reason(*clean, unbounded));
}

TEST_CASE("ptxas -v with several entry functions: the most registers, the sum of spills") {
    const std::string log = std::string(kSpillingLog) +
                            "ptxas         .     8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
                            "ptxas info    : Used 96 registers, used 1 barriers, 8 bytes cumulative stack size\n";
    const auto usage = resource_usage(with_log(log), "sm_90a");
    REQUIRE(usage);
    CHECK(usage->registers == 255);
    CHECK(usage->spill_bytes == 56);
}

TEST_CASE("no report, or not a target, is no usage") {
    CHECK_FALSE(resource_usage(with_log(""), "sm_90a"));
    CHECK_FALSE(resource_usage(with_log("warning: something unrelated; Used twice\n"), "sm_90a"));
    CHECK_FALSE(resource_usage(with_log(kSpillingLog), "x86_64"));
    // An NVIDIA report means nothing for an AMD target: AMD's comes from the code object.
    CHECK_FALSE(resource_usage(with_log(kSpillingLog), "gfx90a"));
}

TEST_CASE("AMD code object metadata: VGPRs and spilled VGPRs in every integer width") {
    // .vgpr_count 248 (uint8), .vgpr_spill_count 3 (fixint): 3 VGPRs = 12 bytes per lane.
    std::string meta = "\x7f" "ELF...." + key(".sgpr_count") + "\x30" + key(".vgpr_count") + "\xcc\xf8" +
                       key(".vgpr_spill_count") + "\x03" + key(".sgpr_spill_count") + "\x05";
    const auto usage = resource_usage(with_code(meta), "gfx90a");
    REQUIRE(usage);
    CHECK(usage->registers == 248);
    CHECK(usage->spill_bytes == 12);
    CHECK(instantiate::spill_reason(*usage, kernels::KernelConfig{}) == "spills 12 bytes at 248 registers");

    // uint16 and uint32 values; no spill entry means no spill.
    const auto wide = resource_usage(with_code(key(".vgpr_count") + std::string("\xcd\x01\x00", 3)), "gfx942");
    REQUIRE(wide);
    CHECK(wide->registers == 256);
    CHECK(wide->spill_bytes == 0);
    const auto wider = resource_usage(
        with_code(key(".vgpr_count") + "\x10" + key(".vgpr_spill_count") + std::string("\xce\x00\x00\x01\x00", 5)),
        "gfx950");
    REQUIRE(wider);
    CHECK(wider->spill_bytes == 256 * 4);

    CHECK_FALSE(resource_usage(with_code("\x7f" "ELF no metadata"), "gfx90a"));
    CHECK_FALSE(resource_usage(with_code(key(".vgpr_count") + "\xc3"), "gfx90a"));  // not an integer
}
