// The glue from configs to compiled kernels: the request, the build's targets, and -- where the
// build has a kernel compiler -- a handful of representative candidates of both MMA paths compiled
// for real for MOETUNE_TEST_ARCH (sm_90a in the CUDA build; gfx90a in the HIP build, the portable
// path of kernel_templates/common/mma_emulation.h and memory.h; the CUDA build also compiles that
// path for sm_75), with the disk cache and the spill check.
#include <algorithm>
#include <string>
#include <vector>

#include "instantiate/batch_compile.h"
#include "instantiate/compile_stats.h"
#include "instantiate/compile_target.h"
#include "instantiate/kernel_request.h"
#include "kernels/candidates.h"
#include "kernels/kernel_name.h"
#include "parsed_config.h"
#include "support/catch.hpp"
#include "support/test_env.h"

using namespace moetune;
using moetune::test::parse;
using instantiate::CompileStatus;

namespace {
bool has(const std::vector<std::string>& v, const std::string& item) {
    return std::find(v.begin(), v.end(), item) != v.end();
}

// One per path through the templates: stage 1 streaming (4-chunk prefetch, non-temporal, bf16 out),
// fused MXFP8 epilogue on a 2x2 and an 8x1 warp grid; stage 2 atomic with a half sort block and
// non-temporal loads, reduce, and 64x32 warp blocks; then the bf16 MMA path (_mbf16) of streaming
// and fused stage 1 and of atomic and reduce stage 2.
const std::vector<std::string> kRepresentative = {
    "moetune_moe1_afp8_wfp4_bf16_t16x64x512_w2_nt_gui",
    "moetune_moe1_afp8_wfp4_bf16_t32x128x128_w4_gui_fp8",
    "moetune_moe1_afp8_wfp4_bf16_t128x64x128_gui_fp8",
    "moetune_moe2_afp8_wfp4_bf16_t16x128x512_atomic_w4_nt_sbm32",
    "moetune_moe2_afp8_wfp4_bf16_t64x128x256_reduce",
    "moetune_moe2_afp8_wfp4_bf16_t128x128x128_atomic",
    "moetune_moe1_afp8_wfp4_bf16_t16x64x512_w2_nt_mbf16_gui",
    "moetune_moe1_afp8_wfp4_bf16_t32x128x128_w4_mbf16_gui_fp8",
    "moetune_moe2_afp8_wfp4_bf16_t16x128x512_atomic_w4_nt_mbf16_sbm32",
    "moetune_moe2_afp8_wfp4_bf16_t16x128x128_reduce_w4_mbf16",
    // K-groups: the shared-memory sum and its barriers on every target.
    "moetune_moe1_afp8_wfp4_bf16_t16x128x128_nt_mbf16_gui_kw4_fp8",
    "moetune_moe2_afp8_wfp4_bf16_t16x128x128_atomic_nt_kw2",
};

// Shared operands (the staged bf16 buffers in dynamic shared memory) and the wgmma loop, compiled on
// every target: clean on NVIDIA; on AMD the portable (emulated) products spill at these tiles, so
// the tuner prunes them there, but the templates must still build (the wgmma one as its fallback).
const std::vector<std::string> kSharedOperandRepresentative = {
    "moetune_moe1_afp8_wfp4_bf16_t64x128x128_smem_mbf16_gui_fp8",
    "moetune_moe2_afp8_wfp4_bf16_t128x128x128_atomic_smem_mbf16",
    "moetune_moe1_afp8_wfp4_bf16_t128x128x128_smem_wgmma_mbf16_gui_fp8",
    "moetune_moe2_afp8_wfp4_bf16_t256x128x128_atomic_w12_smem_wgmma_ws",
    "moetune_moe1_afp8_wfp4_bf16_t128x256x128_w12_smem_wgmma_ws_gui_fp8",
};

// The portable path on NVIDIA (sm_75): one kernel per way through the emulation -- stage 1 fused
// on the FP8 path, stage 2 on the bf16 path, K-groups, shared operands and the wgmma fallback. The
// emulated products compile slowly (all 15 representatives took ~160 s on 2 cores, most of the
// CPU suite's second core); the HIP build compiles every representative on the portable path.
const std::vector<std::string> kPortableRepresentative = {
    "moetune_moe1_afp8_wfp4_bf16_t32x128x128_w4_gui_fp8",
    "moetune_moe2_afp8_wfp4_bf16_t16x128x128_reduce_w4_mbf16",
    "moetune_moe2_afp8_wfp4_bf16_t16x128x128_atomic_nt_kw2",
    "moetune_moe1_afp8_wfp4_bf16_t64x128x128_smem_mbf16_gui_fp8",
    "moetune_moe1_afp8_wfp4_bf16_t128x128x128_smem_wgmma_mbf16_gui_fp8",
    "moetune_moe1_afp8_wfp4_bf16_t16x64x256_w16_nt_smem_gemv_gui",
};

// The few-token GEMVs (_gemv; moe_gemv_stage{1,2}.hip): stage 1 with pairs in flight in registers and
// in the cp.async ring (also under _occ2: 64 registers), stage 2 of one tile and of four. Not in the
// search space yet (the library does not run them), so compiled here by name, on the test arch and (CUDA
// build) on the portable path.
const std::vector<std::string> kGemvRepresentative = {
    "moetune_moe1_afp8_wfp4_bf16_t16x64x256_w16_nt_gemv_gui",
    "moetune_moe1_afp8_wfp4_bf16_t16x64x256_w16_nt_smem_gemv_gui",
    "moetune_moe1_afp8_wfp4_bf16_t16x64x256_w16_occ2_nt_smem_gemv_gui",
    "moetune_moe2_afp8_wfp4_bf16_t16x16x512_atomic_w2_nt_smem_gemv",
    "moetune_moe2_afp8_wfp4_bf16_t16x64x256_atomic_nt_gemv",
};
}  // namespace

TEST_CASE("the compile request: the stage's template, the name as entry point, the definitions") {
    const kernels::KernelConfig s1 = parse("moetune_moe1_afp8_wfp4_bf16_t32x128x128_w4_gui_fp8");
    const rtc::CompileRequest r = instantiate::kernel_compile_request(s1, "sm_90a");
    CHECK(r.source_name == "moe_stage1.hip");
    CHECK(r.source.find("moe_stage1") != std::string::npos);
    CHECK(r.name_expressions == std::vector<std::string>{"moetune_moe1_afp8_wfp4_bf16_t32x128x128_w4_gui_fp8"});
    CHECK(r.arch == "sm_90a");
    CHECK(has(r.options, "-DMOETUNE_KERNEL_NAME=moetune_moe1_afp8_wfp4_bf16_t32x128x128_w4_gui_fp8"));
    CHECK(has(r.options, "-DMOETUNE_WARPS_M=2"));
    CHECK(has(r.options, "-DMOETUNE_FUSED_MXFP8_OUT=1"));
    CHECK(has(r.options, "--ptxas-options=-v"));  // NVIDIA: registers and spills into the log
    CHECK_FALSE(r.exact_float);

    const rtc::CompileRequest amd =
        instantiate::kernel_compile_request(parse("moetune_moe2_afp8_wfp4_bf16_t64x128x256_reduce"), "gfx90a");
    CHECK(amd.source_name == "moe_stage2.hip");
    CHECK(has(amd.options, "-DMOETUNE_STAGE2_MODE=1"));
    CHECK_FALSE(has(amd.options, "--ptxas-options=-v"));  // AMD: the code object's metadata
}

TEST_CASE("test-break variants carry their option; the real kernel does not") {
    const kernels::KernelConfig c = parse("moetune_moe2_afp8_wfp4_bf16_t128x128x128_atomic");
    const auto real = instantiate::kernel_compile_request(c, "sm_90a");
    const auto broken = instantiate::kernel_compile_request(c, "sm_90a", 2);
    CHECK(has(broken.options, "-DMOETUNE_TEST_BREAK=2"));
    for (const std::string& o : real.options) CHECK(o.find("TEST_BREAK") == std::string::npos);
    CHECK_THROWS_AS(instantiate::kernel_compile_request(c, "sm_90a", 4), std::invalid_argument);
    CHECK_THROWS_AS(instantiate::kernel_compile_request(parse("moetune_moe1_afp8_wfp4_bf16_t16x64x128_w4_gui"), "sm_90a"),
                    std::invalid_argument);  // no warp grid
}

TEST_CASE("the representative configs are candidates of the search space") {
    std::vector<std::string> names = kRepresentative;
    names.insert(names.end(), kSharedOperandRepresentative.begin(), kSharedOperandRepresentative.end());
    for (const std::string& name : names) {
        const kernels::KernelConfig c = parse(name);
        const auto space = kernels::search_space(c.stage, {kernels::MmaPath::fp8, kernels::MmaPath::bf16});
        INFO(name);
        CHECK(std::find(space.begin(), space.end(), c) != space.end());
    }
}

TEST_CASE("targets: NVIDIA sm_*, AMD gfx*, and only the build's own vendor compiles") {
    CHECK(instantiate::target_vendor("sm_90a") == instantiate::TargetVendor::nvidia);
    CHECK(instantiate::target_vendor("gfx90a") == instantiate::TargetVendor::amd);
    CHECK_FALSE(instantiate::target_vendor("x86_64"));
#ifdef MOETUNE_TEST_ARCH
    REQUIRE(instantiate::has_kernel_compiler());
    CHECK_FALSE(instantiate::unsupported_target_reason(MOETUNE_TEST_ARCH));
    const std::string other = std::string(MOETUNE_TEST_ARCH).rfind("sm_", 0) == 0 ? "gfx90a" : "sm_90a";
    const auto why = instantiate::unsupported_target_reason(other);
    REQUIRE(why);
    CHECK(why->find("cannot build for " + other) != std::string::npos);
#else
    CHECK_FALSE(instantiate::has_kernel_compiler());
    const auto why = instantiate::unsupported_target_reason("sm_90a");
    REQUIRE(why);
    CHECK(why->find("MOETUNE_GPU=none") != std::string::npos);
#endif
    const auto neither = instantiate::unsupported_target_reason("x86_64");
    REQUIRE(neither);
}

TEST_CASE("time statistics") {
    CHECK_FALSE(instantiate::time_stats({}));
    const auto odd = instantiate::time_stats({3.0, 1.0, 2.0});
    REQUIRE(odd);
    CHECK(odd->count == 3);
    CHECK(odd->mean == 2.0);
    CHECK(odd->median == 2.0);
    CHECK(odd->max == 3.0);
    CHECK(instantiate::time_stats({4.0, 1.0, 2.0, 3.0})->median == 2.5);
}

#ifdef MOETUNE_TEST_ARCH
TEST_CASE("representative candidates compile for the test arch, then load from the cache") {
    test::TempDir dir("instantiate-cache");
    const rtc::KernelCache cache(dir.path());
    std::vector<kernels::KernelConfig> configs;
    for (const std::string& name : kRepresentative) configs.push_back(parse(name));
    // A config without a warp grid fails before reaching the compiler, with the reason.
    configs.push_back(parse("moetune_moe1_afp8_wfp4_bf16_t16x64x128_w4_gui"));

    instantiate::BatchCompileOptions options;
    options.arch = MOETUNE_TEST_ARCH;
    options.cache = &cache;
    // Debian's hipRTC 5.2 corrupts its heap when two threads compile at once (crashes, hangs or
    // spurious errors), so the AMD build compiles one at a time; NVRTC runs two in parallel.
    options.threads = instantiate::target_vendor(MOETUNE_TEST_ARCH) == instantiate::TargetVendor::amd ? 1 : 2;
    std::size_t reported = 0;
    options.on_outcome = [&](const instantiate::KernelOutcome&, std::size_t done, std::size_t total) {
        CHECK(done == ++reported);
        CHECK(total == configs.size());
    };
    const auto first = instantiate::compile_kernels(configs, options);
    REQUIRE(first.size() == configs.size());
    CHECK(reported == configs.size());
    for (std::size_t i = 0; i < kRepresentative.size(); ++i) {
        const instantiate::KernelOutcome& o = first[i];
        INFO(o.name << ": " << o.message);
        CHECK(o.name == kRepresentative[i]);
        CHECK(o.status == CompileStatus::compiled);
        CHECK_FALSE(o.from_cache);
        REQUIRE(o.compile_seconds);
        CHECK(*o.compile_seconds > 0);
        REQUIRE(o.usage);  // the compiler reported registers
        CHECK(o.usage->registers > 0);
        CHECK(o.usage->spill_bytes == 0);
    }
    CHECK(first.back().status == CompileStatus::failed);
    CHECK(first.back().message.find("warps cannot split the tile") != std::string::npos);

    const instantiate::CompileSummary s1 = instantiate::summarize(first);
    CHECK(s1.compiled == kRepresentative.size());
    CHECK(s1.failed == 1);
    CHECK(s1.built_now == kRepresentative.size());
    CHECK_FALSE(s1.cache_hit);

    reported = 0;
    const auto second = instantiate::compile_kernels(configs, options);
    CHECK(reported == configs.size());
    for (std::size_t i = 0; i < kRepresentative.size(); ++i) {
        INFO(second[i].name);
        CHECK(second[i].status == CompileStatus::cache_hit);
        CHECK(second[i].from_cache);
        REQUIRE(second[i].cache_hit_seconds);
        CHECK(second[i].compile_seconds == first[i].compile_seconds);  // kept in the entry
        CHECK(second[i].usage->registers == first[i].usage->registers);
    }
    const instantiate::CompileSummary s2 = instantiate::summarize(second);
    CHECK(s2.cache_hits == kRepresentative.size());
    CHECK(s2.built_now == 0);
    REQUIRE(s2.cache_hit);
    CHECK(s2.cache_hit->count == kRepresentative.size());
}

TEST_CASE("shared-operand representatives compile for the test arch") {
    test::TempDir dir("instantiate-shared-operands");
    const rtc::KernelCache cache(dir.path());
    std::vector<kernels::KernelConfig> configs;
    for (const std::string& name : kSharedOperandRepresentative) configs.push_back(parse(name));
    instantiate::BatchCompileOptions options;
    options.arch = MOETUNE_TEST_ARCH;
    options.cache = &cache;
    options.threads = 1;
    const bool nvidia = instantiate::target_vendor(MOETUNE_TEST_ARCH) == instantiate::TargetVendor::nvidia;
    for (const instantiate::KernelOutcome& o : instantiate::compile_kernels(configs, options)) {
        INFO(o.name << ": " << o.message);
        REQUIRE(o.usage);  // it compiled and the compiler reported registers
        CHECK(o.usage->registers > 0);
        if (nvidia) {
            CHECK(o.status == CompileStatus::compiled);
            CHECK(o.usage->spill_bytes == 0);
        } else {
            CHECK(o.status != CompileStatus::failed);
        }
    }
}

TEST_CASE("an occupancy-bounded kernel compiles on the test arch, and the spill it asks for is not pruned") {
    test::TempDir dir("instantiate-occupancy");
    const rtc::KernelCache cache(dir.path());
    instantiate::BatchCompileOptions options;
    options.arch = MOETUNE_TEST_ARCH;
    options.cache = &cache;
    options.threads = 1;
    // 4 workgroups of 128 threads: 128 registers on NVIDIA, where this tile wants ~158 and spills.
    const auto out = instantiate::compile_kernels(
        {parse("moetune_moe2_afp8_wfp4_bf16_t16x256x128_atomic_w4_occ4_nt_mbf16")}, options);
    REQUIRE(out.size() == 1);
    INFO(out[0].name << ": " << out[0].message);
    CHECK(out[0].status == CompileStatus::compiled);
    REQUIRE(out[0].usage);
    if (instantiate::target_vendor(MOETUNE_TEST_ARCH) == instantiate::TargetVendor::nvidia) {
        CHECK(out[0].usage->registers <= 128);
        CHECK(out[0].usage->spill_bytes > 0);
    }
}

TEST_CASE("the _gemv kernels compile for the test arch") {
    std::vector<kernels::KernelConfig> configs;
    for (const std::string& name : kGemvRepresentative) configs.push_back(parse(name));
    instantiate::BatchCompileOptions options;
    options.arch = MOETUNE_TEST_ARCH;
    options.threads = 2;
    const bool nvidia = instantiate::target_vendor(MOETUNE_TEST_ARCH) == instantiate::TargetVendor::nvidia;
    for (const instantiate::KernelOutcome& o : instantiate::compile_kernels(configs, options)) {
        INFO(o.name << ": " << o.message);
        REQUIRE(o.usage);
        if (nvidia) {
            CHECK(o.status == CompileStatus::compiled);
            UNSCOPED_INFO(o.name << ": " << o.usage->registers << " registers");
            CHECK(o.usage->registers <= 112);
        } else {
            CHECK(o.status != CompileStatus::failed);
        }
    }
}
#endif

#ifdef MOETUNE_TEST_NVIDIA
TEST_CASE("the portable path of both MMA paths compiles for NVIDIA before tensor cores (sm_75)") {
    // sm_75 has neither the e4m3 (sm_89) nor the bf16 (sm_80) mma.sync: every kernel, _mbf16
    // included, takes the lane-shuffle emulation of common/mma_emulation.h (and _wgmma its fallback).
    std::vector<kernels::KernelConfig> configs;
    for (const std::string& name : kPortableRepresentative) {
        INFO(name);
        CHECK((has(kRepresentative, name) || has(kSharedOperandRepresentative, name) || has(kGemvRepresentative, name)));
        configs.push_back(parse(name));
    }
    instantiate::BatchCompileOptions options;
    options.arch = "sm_75";
    options.threads = 2;
    for (const instantiate::KernelOutcome& o : instantiate::compile_kernels(configs, options)) {
        INFO(o.name << ": " << o.message);
        CHECK(o.status != CompileStatus::failed);
    }
}

TEST_CASE("a kernel that spills is pruned after compiling, with the bytes") {
    // 32x64 warp blocks with 2 K chunks in flight: the resource model prunes it before compiling;
    // compiled anyway, ptxas spills (224 bytes with NVCC 13 for sm_90a).
    const kernels::KernelConfig c = parse("moetune_moe1_afp8_wfp4_bf16_t64x128x256_w4_gui_fp8");
    instantiate::BatchCompileOptions options;
    options.arch = MOETUNE_TEST_ARCH;
    const auto outcome = instantiate::compile_kernels({c}, options).front();
    INFO(outcome.message);
    CHECK(outcome.status == CompileStatus::spills);
    REQUIRE(outcome.usage);
    CHECK(outcome.usage->spill_bytes > 0);
    CHECK(outcome.message == "spills " + std::to_string(outcome.usage->spill_bytes) + " bytes at " +
                                 std::to_string(outcome.usage->registers) + " registers");
    CHECK(instantiate::summarize({outcome}).spills == 1);
}
#endif
