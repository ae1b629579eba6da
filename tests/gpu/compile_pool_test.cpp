// The compile pool: parallel compilation through futures, errors delivered through them, and a
// prompt shutdown with work still queued.
#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "data_gpu/data_kernels.h"
#include "rtc/compile_pool.h"
#include "support/catch.hpp"
#include "support/test_env.h"

using namespace moetune::rtc;

namespace {
const std::string kArch = MOETUNE_TEST_ARCH;
}

TEST_CASE("the pool compiles a batch in parallel and fills the cache", "[rtc][pool]") {
    moetune::test::TempDir dir("rtc-pool");
    const KernelCache cache(dir.path());
    const auto requests = moetune::data::DataKernels::requests(kArch);
    {
        CompilePool pool(&cache, 2);
        CHECK(pool.threads() == 2);
        std::vector<std::future<CompiledCode>> results;
        for (const CompileRequest& r : requests) results.push_back(pool.submit(r));
        for (std::size_t i = 0; i < results.size(); ++i) {
            const CompiledCode code = results[i].get();
            CHECK(code.lowered_names.size() == requests[i].name_expressions.size());
            CHECK_FALSE(code.from_cache);
        }
    }
    CompilePool again(&cache, 1);
    for (const CompileRequest& r : requests) CHECK(again.submit(r).get().from_cache);
}

TEST_CASE("the default pool has one thread per hardware thread", "[rtc][pool]") {
    CompilePool pool(nullptr);
    CHECK(pool.threads() == std::max(1u, std::thread::hardware_concurrency()));
}

TEST_CASE("a failing job reports its error through its future", "[rtc][pool]") {
    CompilePool pool(nullptr, 1);
    CompileRequest bad;
    bad.source_name = "bad.hip";
    bad.source = "__global__ void k() { this is not C++ }\n";
    bad.arch = kArch;
    auto f = pool.submit(bad);
    CHECK_THROWS_AS(f.get(), CompileError);
}

TEST_CASE("destroying the pool drops queued jobs instead of compiling them", "[rtc][pool]") {
    std::vector<std::future<CompiledCode>> results;
    {
        CompilePool pool(nullptr, 1);
        for (int i = 0; i < 50; ++i)
            results.push_back(
                pool.submit(template_request("reference_moe.hip", {}, kArch, {"-DJOB=" + std::to_string(i)})));
    }
    int dropped = 0;
    for (auto& f : results) {
        REQUIRE(f.wait_for(std::chrono::seconds(0)) == std::future_status::ready);
        try {
            f.get();
        } catch (const std::future_error& e) {
            CHECK(e.code() == std::future_errc::broken_promise);
            ++dropped;
        }
    }
    // The one worker picks up at most a job or two before the destructor empties the queue.
    CHECK(dropped >= 45);
}
