// The hand-over to the kernel templates: the template of the config's stage, exactly the
// definitions it reads (kernel_templates/moe_stage1.hip, moe_stage2.hip; the _gemv templates at least
// what their entry points use), the entry point.
#include <fstream>
#include <cctype>
#include <map>
#include <sstream>
#include <string>

#include "kernels/compile_definitions.h"
#include "kernels/kernel_name.h"
#include "kernels/resource_model.h"
#include "parsed_config.h"
#include "support/catch.hpp"
#include "support/test_env.h"

using namespace moetune::kernels;
using moetune::test::parse;

namespace {
std::map<std::string, std::string> definitions(const KernelConfig& c) {
    std::map<std::string, std::string> m;
    for (const Definition& d : compile_definitions(c)) CHECK(m.emplace(d.name, d.value).second);
    return m;
}

std::string template_text(const std::string& path) {
    const auto file = moetune::test::fixtures_dir().parent_path().parent_path() / "kernel_templates" / path;
    std::ifstream in(file);
    REQUIRE(in);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}
}  // namespace

TEST_CASE("stage-1 definitions") {
    const std::string name = "moetune_moe1_afp8_wfp4_bf16_t32x128x256_w4_nt_gui_fp8";
    const auto d = definitions(parse(name));
    const std::map<std::string, std::string> expected = {
        {"MOETUNE_KERNEL_NAME", name},        {"MOETUNE_TILE_M", "32"},   {"MOETUNE_TILE_N", "128"},
        {"MOETUNE_TILE_K", "256"},            {"MOETUNE_WARPS", "4"},     {"MOETUNE_MIN_WORKGROUPS", "0"},
        {"MOETUNE_WARPS_M", "2"},
        {"MOETUNE_WARPS_N", "2"},             {"MOETUNE_WARPS_K", "1"},   {"MOETUNE_NONTEMPORAL_WEIGHTS", "1"},
        {"MOETUNE_MMA_PATH", "0"},            {"MOETUNE_FUSED_MXFP8_OUT", "1"},
        {"MOETUNE_SHARED_OPERANDS", "0"},     {"MOETUNE_WGMMA", "0"},   {"MOETUNE_WARP_SPECIALISED", "0"},
        {"MOETUNE_FP4_WEIGHTS", "0"},         {"MOETUNE_WEIGHTS_READ_ONCE", "0"}, {"MOETUNE_MX_ROWS", "0"},
        {"MOETUNE_EIGHT_ROWS", "0"},
    };
    CHECK(d == expected);
}

TEST_CASE("_ro reaches the templates as MOETUNE_WEIGHTS_READ_ONCE") {
    CHECK(definitions(parse("moetune_moe2_afp8_wfp4_bf16_t128x256x128_atomic_w12_smem_wgmma_ws_ro"))
              .at("MOETUNE_WEIGHTS_READ_ONCE") == "1");
    CHECK(definitions(parse("moetune_moe2_afp8_wfp4_bf16_t128x256x128_atomic_w12_smem_wgmma_ws"))
              .at("MOETUNE_WEIGHTS_READ_ONCE") == "0");
}

TEST_CASE("_mxr reaches the templates as MOETUNE_MX_ROWS") {
    CHECK(definitions(parse("moetune_moe2_afp8_wfp4_bf16_t16x128x256_atomic_nt_wgmma_mxr")).at("MOETUNE_MX_ROWS") == "1");
    CHECK(definitions(parse("moetune_moe2_afp8_wfp4_bf16_t16x128x256_atomic_nt_wgmma")).at("MOETUNE_MX_ROWS") == "0");
}

TEST_CASE("_r8 reaches the templates as MOETUNE_EIGHT_ROWS") {
    CHECK(definitions(parse("moetune_moe1_afp8_wfp4_bf16_t16x64x512_w4_nt_wgmma_r8_gui")).at("MOETUNE_EIGHT_ROWS") == "1");
    CHECK(definitions(parse("moetune_moe2_afp8_wfp4_bf16_t16x128x256_atomic_nt_wgmma_r8")).at("MOETUNE_EIGHT_ROWS") == "1");
    CHECK(definitions(parse("moetune_moe2_afp8_wfp4_bf16_t16x128x256_atomic_nt_wgmma")).at("MOETUNE_EIGHT_ROWS") == "0");
}

TEST_CASE("_mbf16 selects MMA path 1 in both templates, and nothing else changes") {
    for (const std::string fp8 : {"moetune_moe1_afp8_wfp4_bf16_t32x128x256_w4_nt_gui_fp8",
                                  "moetune_moe2_afp8_wfp4_bf16_t32x256x128_reduce_sbm64"}) {
        KernelConfig c = parse(fp8);
        auto expected = definitions(c);
        c.mma = MmaPath::bf16;
        const auto d = definitions(c);
        CHECK(d.at("MOETUNE_MMA_PATH") == "1");
        expected["MOETUNE_MMA_PATH"] = "1";
        expected["MOETUNE_KERNEL_NAME"] = kernel_name(c);
        CHECK(d == expected);
    }
}

TEST_CASE("_occ{n} reaches the templates as MOETUNE_MIN_WORKGROUPS") {
    CHECK(definitions(parse("moetune_moe2_afp8_wfp4_bf16_t16x256x128_atomic_w4_occ4_nt_mbf16"))
              .at("MOETUNE_MIN_WORKGROUPS") == "4");
}

TEST_CASE("stage-2 definitions carry the mode and the sort block") {
    const KernelConfig c = parse("moetune_moe2_afp8_wfp4_bf16_t32x256x128_reduce_sbm64");
    const auto d = definitions(c);
    CHECK(d.at("MOETUNE_STAGE2_MODE") == "1");
    CHECK(d.at("MOETUNE_SORT_BLOCK_M") == "64");
    CHECK(d.at("MOETUNE_TILE_M") == "32");
    CHECK(d.at("MOETUNE_WARPS") == "8");
    CHECK(d.at("MOETUNE_WARPS_M") == std::to_string(warp_grid(c)->warps_m));
    CHECK(d.at("MOETUNE_WARPS_N") == std::to_string(warp_grid(c)->warps_n));
    CHECK(d.count("MOETUNE_FUSED_MXFP8_OUT") == 0);
    CHECK(definitions(parse("moetune_moe2_afp8_wfp4_bf16_t32x256x128_atomic")).at("MOETUNE_SORT_BLOCK_M") == "32");
}

namespace {
// Every MOETUNE_ identifier in the template's entry point (from `#ifdef MOETUNE_KERNEL_NAME` on) is one of the
// source's definitions.
void check_entry_uses_given(const KernelSource& src, const std::string& text) {
    const std::string entry = text.substr(text.find("#ifdef MOETUNE_KERNEL_NAME"));
    for (std::size_t at = entry.find("MOETUNE_"); at != std::string::npos; at = entry.find("MOETUNE_", at + 1)) {
        std::size_t end = at;
        while (end < entry.size() && (std::isupper(static_cast<unsigned char>(entry[end])) || entry[end] == '_' ||
                                      std::isdigit(static_cast<unsigned char>(entry[end]))))
            ++end;
        const std::string used = entry.substr(at, end - at);
        INFO(src.template_path << "'s entry point uses " << used);
        bool given = false;
        for (const Definition& d : src.definitions) given |= d.name == used;
        CHECK(given);
        at = end;
    }
}
}  // namespace

TEST_CASE("kernel_source: the stage's template, the name as entry point, definitions the template reads") {
    for (const char* name : {"moetune_moe1_afp8_wfp4_bf16_t16x64x512_w2_nt_gui",
                             "moetune_moe2_afp8_wfp4_bf16_t64x128x256_reduce_w4_nt_sbm128",
                             "moetune_moe1_afp8_wfp4_bf16_t16x64x512_w2_nt_mbf16_gui",
                             "moetune_moe2_afp8_wfp4_bf16_t16x256x128_atomic_w4_occ4_nt_mbf16"}) {
        const KernelConfig c = parse(name);
        const KernelSource src = kernel_source(c);
        CHECK(src.template_path == (c.stage == Stage::gate_up ? "moe_stage1.hip" : "moe_stage2.hip"));
        CHECK(src.entry_point == name);
        // Every definition is used by the template (no knob the kernel ignores) ...
        const std::string text = template_text(src.template_path);
        for (const Definition& d : src.definitions) {
            INFO(src.template_path << " reads " << d.name);
            CHECK(text.find(d.name) != std::string::npos);
        }
        // ... and every MOETUNE_ definition the entry point uses is given.
        check_entry_uses_given(src, text);
    }
}

// The _gemv templates read a few of the definitions (the tile, the warps, _occ, _smem, stage 2's mode);
// whatever their entry points use is given.
TEST_CASE("kernel_source: the _gemv templates, their entry points given what they use") {
    for (const char* name : {"moetune_moe1_afp8_wfp4_bf16_t16x64x256_w16_occ2_nt_smem_gemv_gui",
                             "moetune_moe2_afp8_wfp4_bf16_t16x32x128_atomic_w4_nt_gemv"}) {
        const KernelConfig c = parse(name);
        const KernelSource src = kernel_source(c);
        CHECK(src.template_path == (c.stage == Stage::gate_up ? "moe_gemv_stage1.hip" : "moe_gemv_stage2.hip"));
        CHECK(src.entry_point == name);
        check_entry_uses_given(src, template_text(src.template_path));
    }
}

TEST_CASE("a config the warps cannot split has no definitions") {
    CHECK_THROWS_AS(compile_definitions(parse("moetune_moe1_afp8_wfp4_bf16_t16x64x128_w4_gui")), std::invalid_argument);
    CHECK_THROWS_AS(kernel_source(parse("moetune_moe1_afp8_wfp4_bf16_t16x64x128_w4_gui")), std::invalid_argument);
}

// The host's side of MxBf16Mma::kWideActivations and MxMoeSharedGemm::kWideActivations: which
// kernels the launch must hand widened activations (the bf16 path's register-fed and wgmma loops).
TEST_CASE("the bf16 path's register-fed and wgmma kernels read wide activations, the others MXFP8") {
    CHECK(reads_wide_activations(parse("moetune_moe1_afp8_wfp4_bf16_t16x256x128_w4_nt_mbf16_gui_fp8")));
    CHECK(reads_wide_activations(parse("moetune_moe2_afp8_wfp4_bf16_t16x128x128_atomic_w4_mbf16_kw2")));
    CHECK_FALSE(reads_wide_activations(parse("moetune_moe1_afp8_wfp4_bf16_t16x256x128_w4_nt_gui_fp8")));
    CHECK(reads_wide_activations(parse("moetune_moe2_afp8_wfp4_bf16_t128x128x128_reduce_smem_wgmma_mbf16")));
    CHECK_FALSE(reads_wide_activations(parse("moetune_moe2_afp8_wfp4_bf16_t64x128x128_atomic_w4_smem_mbf16")));
}
