// The host copies of the kernels' argument structs (measure/kernel_args.h) must match the device
// definitions byte for byte, since each kernel takes its struct by value. The compiler checks it:
// each template is compiled with static_asserts on sizeof and every member's offset, generated from
// the host structs. Also compiles the harness kernels and real candidates (no GPU needed).
#include <cstddef>
#include <string>
#include <vector>

#include "kernels/candidates.h"
#include "kernels/device_limits.h"
#include "kernels/kernel_name.h"
#include "data_gpu/data_kernels.h"
#include "measure/candidate_compile.h"
#include "measure/harness_kernels.h"
#include "measure/kernel_args.h"
#include "rtc/compiler.h"
#include "support/catch.hpp"

using namespace moetune;

namespace {

const std::string kArch = MOETUNE_TEST_ARCH;

struct Member {
    const char* name;
    std::size_t offset;
};

std::string layout_asserts(const char* type, std::size_t size, const std::vector<Member>& members) {
    std::string s = "static_assert(sizeof(" + std::string(type) + ") == " + std::to_string(size) + ", \"sizeof(" +
                    type + ") differs from the host's " + std::to_string(size) + "\");\n";
    for (const Member& m : members)
        s += "static_assert(__builtin_offsetof(" + std::string(type) + ", " + m.name + ") == " +
             std::to_string(m.offset) + ", \"" + type + "::" + m.name + " is not at the host's offset " +
             std::to_string(m.offset) + "\");\n";
    return s;
}

// Compiles `template_file` with the asserts appended; throws rtc::CompileError naming the mismatch.
void check_layout(const char* template_file, const std::string& asserts) {
    rtc::CompileRequest r;
    r.source_name = std::string("layout_of_") + template_file;
    r.source = std::string("#include \"") + template_file + "\"\n" + asserts;
    r.arch = kArch;
    INFO(r.source);
    CHECK_NOTHROW(rtc::compile(r));
}

#define MEMBER(type, m) Member{#m, offsetof(type, m)}

kernels::KernelConfig first_candidate(kernels::Stage stage, bool (*pick)(const kernels::KernelConfig&)) {
    const data::MoeShape dsv41{1, 5120, 2304, 96, 5};
    for (const kernels::KernelConfig& c :
         kernels::enumerate_candidates(stage, dsv41, *kernels::device_limits_for_arch("sm_90a")).kept)
        if (pick(c)) return c;
    FAIL("no such candidate");
    return {};
}

}  // namespace

TEST_CASE("the host argument structs match the kernels' own", "[measure][rtc]") {
    using measure::MoeReduceArgs;
    using measure::MoeStage1Args;
    using measure::MoeStage2Args;
    check_layout("moe_stage1.hip",
                 layout_asserts("MoeStage1Args", sizeof(MoeStage1Args),
                                {MEMBER(MoeStage1Args, act), MEMBER(MoeStage1Args, act_scale), MEMBER(MoeStage1Args, w1),
                                 MEMBER(MoeStage1Args, w1_scale), MEMBER(MoeStage1Args, sorted_token_ids),
                                 MEMBER(MoeStage1Args, sorted_expert_ids), MEMBER(MoeStage1Args, num_valid_ids),
                                 MEMBER(MoeStage1Args, out), MEMBER(MoeStage1Args, out_scale),
                                 MEMBER(MoeStage1Args, tokens), MEMBER(MoeStage1Args, topk),
                                 MEMBER(MoeStage1Args, model_dim), MEMBER(MoeStage1Args, inter_dim)}));
    check_layout("moe_stage2.hip",
                 layout_asserts("MoeStage2Args", sizeof(MoeStage2Args),
                                {MEMBER(MoeStage2Args, act), MEMBER(MoeStage2Args, act_scale), MEMBER(MoeStage2Args, w2),
                                 MEMBER(MoeStage2Args, w2_scale), MEMBER(MoeStage2Args, sorted_token_ids),
                                 MEMBER(MoeStage2Args, sorted_weights), MEMBER(MoeStage2Args, sorted_expert_ids),
                                 MEMBER(MoeStage2Args, num_valid_ids), MEMBER(MoeStage2Args, out),
                                 MEMBER(MoeStage2Args, tokens), MEMBER(MoeStage2Args, topk),
                                 MEMBER(MoeStage2Args, model_dim), MEMBER(MoeStage2Args, inter_dim)}));
    check_layout("moe_reduce.hip",
                 layout_asserts("MoeReduceArgs", sizeof(MoeReduceArgs),
                                {MEMBER(MoeReduceArgs, partial), MEMBER(MoeReduceArgs, out),
                                 MEMBER(MoeReduceArgs, tokens), MEMBER(MoeReduceArgs, topk),
                                 MEMBER(MoeReduceArgs, model_dim)}));
}

TEST_CASE("a layout mismatch would be caught", "[measure][rtc]") {
    // The check itself must be able to fail: one byte off.
    rtc::CompileRequest r;
    r.source_name = "layout_mismatch.hip";
    r.source = "#include \"moe_reduce.hip\"\n" +
               layout_asserts("MoeReduceArgs", sizeof(measure::MoeReduceArgs) + 1, {});
    r.arch = kArch;
    CHECK_THROWS_AS(rtc::compile(r), rtc::CompileError);
}

TEST_CASE("the harness kernels compile", "[measure][rtc]") {
    for (const rtc::CompileRequest& r : measure::HarnessKernels::requests(kArch)) {
        INFO(r.source_name);
        const rtc::CompiledCode code = rtc::compile(r);
        CHECK_FALSE(code.code.empty());
        CHECK(code.lowered_names.size() == r.name_expressions.size());
    }
    // A worker's support kernels: the data kernels and these, once each.
    CHECK(measure::worker_support_requests(kArch).size() ==
          moetune::data::DataKernels::requests(kArch).size() + measure::HarnessKernels::requests(kArch).size());
}

TEST_CASE("a candidate's request compiles its stage template into an entry point named after it", "[measure][rtc]") {
    const kernels::KernelConfig s1 =
        first_candidate(kernels::Stage::gate_up, [](const kernels::KernelConfig& c) { return c.fused_mxfp8_out; });
    const kernels::KernelConfig s2 = first_candidate(
        kernels::Stage::down, [](const kernels::KernelConfig& c) { return c.mode == kernels::Stage2Mode::reduce; });
    for (const kernels::KernelConfig& c : {s1, s2}) {
        const std::string name = kernels::kernel_name(c);
        INFO(name);
        const rtc::CompileRequest r = measure::candidate_compile_request(c, kArch);
        CHECK(r.source_name == (c.stage == kernels::Stage::gate_up ? "moe_stage1.hip" : "moe_stage2.hip"));
        CHECK(r.options.front() == "-DMOETUNE_KERNEL_NAME=" + name);
        const rtc::CompiledCode code = rtc::compile(r);
        REQUIRE(code.lowered_names.size() == 1);
        CHECK(code.lowered_names[0] == name);  // extern "C": the name is the symbol
    }
}

TEST_CASE("test-break variants are separate kernels; other values are refused", "[measure][rtc]") {
    const kernels::KernelConfig c =
        first_candidate(kernels::Stage::down, [](const kernels::KernelConfig&) { return true; });
    const rtc::CompileRequest plain = measure::candidate_compile_request(c, kArch);
    const rtc::CompileRequest broken = measure::candidate_compile_request(c, kArch, 2);
    CHECK(broken.options.back() == "-DMOETUNE_TEST_BREAK=2");
    for (const std::string& o : plain.options) CHECK(o.find("MOETUNE_TEST_BREAK") == std::string::npos);
    CHECK(rtc::cache_key(plain) != rtc::cache_key(broken));
    CHECK_THROWS_AS(measure::candidate_compile_request(c, kArch, 4), std::invalid_argument);
    CHECK_THROWS_AS(measure::candidate_compile_request(c, kArch, -1), std::invalid_argument);
}
