// Run-time compilation without a GPU: every kernel template, the data kernels with the exact
// instantiations the launchers use, errors, name expressions and the cache key.
// MOETUNE_TEST_ARCH: sm_90a (NVRTC) or gfx90a (Debian's hipRTC 5.2, the AMD target it handles).
#include <string>

#include "data_gpu/data_kernels.h"
#include "rtc/compiler.h"
#include "rtc/kernel_sources.h"
#include "support/catch.hpp"
#include "support/thrown_message.h"

using namespace moetune::rtc;
using moetune::test::contains;

namespace {
const std::string kArch = MOETUNE_TEST_ARCH;
}

TEST_CASE("every kernel template compiles for the test arch", "[rtc][compile]") {
    for (std::string_view path : kernel_source_paths()) {
        if (!path.ends_with(".hip")) continue;
        INFO(path << " for " << kArch);
        CompiledCode code;
        REQUIRE_NOTHROW(code = compile(template_request(path, {}, kArch)));
        CHECK_FALSE(code.code.empty());
        CHECK_FALSE(code.from_cache);
    }
}

TEST_CASE("the data kernels compile with the instantiations their launchers use", "[rtc][compile]") {
    const auto requests = moetune::data::DataKernels::requests(kArch);
    REQUIRE(requests.size() == 6);  // sort, synthetic data, quantisation, widening, rebasing, reference
    for (const CompileRequest& r : requests) {
        INFO(r.source_name);
        const CompiledCode code = compile(r);
        CHECK_FALSE(code.code.empty());
        REQUIRE(code.lowered_names.size() == r.name_expressions.size());
        for (std::size_t i = 0; i < code.lowered_names.size(); ++i) {
            INFO(r.name_expressions[i] << " -> " << code.lowered_names[i]);
            // Itanium mangling of a function template instance.
            CHECK(code.lowered_names[i].starts_with("_Z"));
        }
        CHECK(code.compile_ms > 0.0);
    }
}

TEST_CASE("name expressions instantiate templates and return their lowered names", "[rtc][compile]") {
    CompileRequest r;
    r.source_name = "scale.hip";
    r.source = "template <int F> __global__ void scale(float* x) { x[threadIdx.x] *= F; }\n";
    r.name_expressions = {"scale<2>", "scale<3>"};
    r.arch = kArch;
    const CompiledCode code = compile(r);
    REQUIRE(code.lowered_names.size() == 2);
    CHECK(contains(code.lowered_names[0], "scale"));
    CHECK(code.lowered_names[0] != code.lowered_names[1]);
}

TEST_CASE("a header included under two spellings is compiled once", "[rtc][compile]") {
    CompileRequest r;
    r.source_name = "twice.hip";
    // common/mx_types.h includes "host_device.h": the same file as "common/host_device.h".
    r.source =
        "#include \"common/host_device.h\"\n#include \"common/mx_types.h\"\n"
        "__global__ void twice(float* x) { x[0] = mx_e8m0_to_float(127); }\n";
    r.name_expressions = {"twice"};
    r.arch = kArch;
    CHECK_NOTHROW(compile(r));
}

TEST_CASE("a compile error names the source and carries the compiler's log", "[rtc][compile]") {
    CompileRequest r;
    r.source_name = "broken.hip";
    r.source = "__global__ void k(int* p) { *p = not_declared_anywhere; }\n";
    r.arch = kArch;
    try {
        compile(r);
        FAIL("compiled a broken kernel");
    } catch (const CompileError& e) {
        CHECK(contains(e.what(), "broken.hip for " + kArch));
        CHECK(contains(e.log(), "not_declared_anywhere"));
    }
}

TEST_CASE("compiler_version names the compiler and its version", "[rtc][compile]") {
    const std::string v = compiler_version();
    CHECK((v.starts_with("nvrtc ") || v.starts_with("hiprtc ")));
    CHECK_FALSE(contains(v, "unknown"));
}

TEST_CASE("the cache key changes with everything that changes the code object", "[rtc][cache]") {
    const CompileRequest base = template_request("moe_sort.hip", {"moe_sort_count<256, 4>"}, kArch);
    const std::string key = cache_key(base);
    CHECK(key.size() == 64);
    CHECK(cache_key(base) == key);

    CompileRequest other = base;
    other.arch = kArch == "sm_90a" ? "sm_80" : "gfx908";
    CHECK(cache_key(other) != key);
    other = base;
    other.options.push_back("-DEXTRA=1");
    CHECK(cache_key(other) != key);
    other = base;
    other.exact_float = true;
    CHECK(cache_key(other) != key);
    other = base;
    other.name_expressions = {"moe_sort_count<128, 4>"};
    CHECK(cache_key(other) != key);
    other = base;
    other.source += "\n// a comment\n";
    CHECK(cache_key(other) != key);
    // Same text under another name: the name is part of the compiler's view (diagnostics, #line).
    other = base;
    other.source_name = "moe_sort_copy.hip";
    CHECK(cache_key(other) != key);
}
