// The GPU moe_sorting equals moe_sorting_cpu entry for entry: ids, weights, the block -> expert
// table, num_valid_ids, padding and the unused tail. DSv4.1-Flash size at M = 1, 33, 4096 and 16384,
// skewed routing (experts without tokens), more experts than the kernel's threads, inside a graph,
// and into buffers allocated for more tokens -- through both launch paths: one kernel for routing
// of one chunk (M*topk <= 1024), the count + scatter pair above that.
#include <cstdio>
#include <vector>

#include "data/moe_sorting.h"
#include "data/routing_generators.h"
#include "data_gpu/moe_sorting_gpu.h"
#include "data_gpu_fixture.h"
#include "gpu/event.h"
#include "gpu/graph.h"
#include "support/catch.hpp"

using namespace moetune;
using moetune::test::first_difference;

namespace {

void check_same(const data::SortedRouting& cpu, const data::SortedRouting& gpu) {
    CHECK(gpu.block_m == cpu.block_m);
    CHECK(gpu.num_valid_ids[0] == cpu.num_valid_ids[0]);
    CHECK(gpu.num_valid_ids[1] == cpu.num_valid_ids[1]);
    CHECK(first_difference(cpu.sorted_token_ids, gpu.sorted_token_ids, "sorted_token_ids") == "");
    CHECK(first_difference(cpu.sorted_weights, gpu.sorted_weights, "sorted_weights") == "");
    CHECK(first_difference(cpu.sorted_expert_ids, gpu.sorted_expert_ids, "sorted_expert_ids") == "");
}

void check_routing(const data::Routing& routing, int experts, int block_m) {
    INFO("M=" << routing.tokens << " topk=" << routing.topk << " experts=" << experts << " block_m=" << block_m);
    check_same(data::moe_sorting_cpu(routing, experts, block_m),
               data::moe_sorting_gpu(test::data_kernels(), routing, experts, block_m));
}

}  // namespace

TEST_CASE("GPU sort equals the CPU sort at DSv4.1-Flash size", "[gpu][sort]") {
    for (int tokens : {1, 33, 4096, 16384})
        for (int block_m : {32, 64, 128})
            check_routing(data::random_routing(tokens, 96, 5, test::kSeed + tokens), 96, block_m);
}

TEST_CASE("GPU sort equals the CPU sort for skewed routing, many experts and tiny inputs", "[gpu][sort]") {
    // Hot experts far above a chunk (1024 entries), cold ones without any token.
    check_routing(data::skewed_routing(4096, 96, 5, 2.0, test::kSeed), 96, 32);
    // More experts than the scatter kernel's 256 threads: several experts per thread.
    check_routing(data::random_routing(1000, 896, 16, test::kSeed), 896, 32);
    check_routing(data::balanced_routing(3, 8, 2), 8, 16);
    check_routing(data::random_routing(0, 96, 5, test::kSeed), 96, 32);
}

TEST_CASE("GPU sort equals the CPU sort on both sides of one chunk", "[gpu][sort]") {
    check_routing(data::random_routing(256, 96, 4, test::kSeed), 96, 32);  // 1024 entries: one launch
    check_routing(data::random_routing(205, 96, 5, test::kSeed), 96, 32);  // 1025: count + scatter
    check_routing(data::skewed_routing(200, 96, 5, 2.0, test::kSeed), 96, 16);
    check_routing(data::random_routing(60, 896, 16, test::kSeed), 896, 32);  // one chunk, 896 experts
}

TEST_CASE("GPU sort zeroes moe_buf when given one", "[gpu][sort]") {
    for (int tokens : {33, 300}) {  // one launch, count + scatter
        INFO("M=" << tokens);
        const data::Routing routing = data::random_routing(tokens, 96, 5, test::kSeed);
        const data::DeviceRouting device_routing = data::upload(routing);
        data::DeviceSortedRouting sorted = data::allocate_sorted_routing(tokens, 5, 96, 32);
        // A bf16 [M, 5120] output plus 3 bytes: the 16-byte stores and the byte tail are both used.
        gpu::DeviceBuffer<uint8_t> moe_buf(std::size_t(tokens) * 5120 * 2 + 3);
        moe_buf.fill_bytes(0xAB);
        const gpu::Stream stream;
        data::moe_sorting_gpu(test::data_kernels(), device_routing, sorted, stream, moe_buf.data(), moe_buf.bytes());
        stream.synchronize();
        CHECK(first_difference(std::vector<uint8_t>(moe_buf.size(), 0), moe_buf.download(), "moe_buf") == "");
        check_same(data::moe_sorting_cpu(routing, 96, 32), data::download(sorted));
    }
}

TEST_CASE("GPU sort captured in a graph gives the same result on every replay", "[gpu][sort]") {
    for (int tokens : {1, 16384}) {  // one launch, count + scatter
        INFO("M=" << tokens);
        const data::Routing routing = data::random_routing(tokens, 96, 5, test::kSeed);
        const data::DeviceRouting device_routing = data::upload(routing);
        data::DeviceSortedRouting sorted = data::allocate_sorted_routing(tokens, 5, 96, 64);
        gpu::DeviceBuffer<uint8_t> moe_buf(std::size_t(tokens) * 5120 * 2);
        const gpu::Stream stream;
        const gpu::Graph graph = gpu::Graph::capture(stream, [&] {
            sorted.sorted_token_ids.fill_bytes_async(0xFF, stream);  // proves each replay rewrites everything
            data::moe_sorting_gpu(test::data_kernels(), device_routing, sorted, stream, moe_buf.data(),
                                  moe_buf.bytes());
        });
        constexpr int kReplays = 20;
        gpu::Event start, stop;
        start.record(stream);
        graph.replay(stream, kReplays);
        stop.record(stream);
        const float ms = gpu::Event::elapsed_ms(start, stop);
        std::printf("moe_sorting_gpu M=%d topk=5 E=96 block_m=64 (+ zeroing a %zu KB moe_buf, + a fill): %.1f us per "
                    "replay\n",
                    tokens, moe_buf.bytes() >> 10, 1000.0 * ms / kReplays);
        check_same(data::moe_sorting_cpu(routing, 96, 64), data::download(sorted));
    }
}

TEST_CASE("GPU sort into buffers allocated for more tokens equals the CPU sort", "[gpu][sort]") {
    // libmoetune sorts every token count up to its prepared maximum into one allocation.
    const data::Routing routing = data::random_routing(33, 96, 5, test::kSeed);
    const data::DeviceRouting device_routing = data::upload(routing);
    data::DeviceSortedRouting sorted = data::allocate_sorted_routing(1000, 5, 96, 32);
    const gpu::Stream stream;
    data::moe_sorting_gpu(test::data_kernels(), device_routing, sorted, stream);
    stream.synchronize();
    // Compared over the lengths a sort of 33 tokens has; the rest of the larger buffers is not read.
    const data::SortedRouting cpu = data::moe_sorting_cpu(routing, 96, 32);
    data::SortedRouting gpu = data::download(sorted);
    gpu.sorted_token_ids.resize(cpu.sorted_token_ids.size());
    gpu.sorted_weights.resize(cpu.sorted_weights.size());
    gpu.sorted_expert_ids.resize(cpu.sorted_expert_ids.size());
    check_same(cpu, gpu);
}

TEST_CASE("GPU sort rejects an output too small for the routing", "[gpu][sort]") {
    const data::DeviceRouting routing = data::upload(data::random_routing(9, 96, 5, test::kSeed));
    data::DeviceSortedRouting fewer_tokens = data::allocate_sorted_routing(8, 5, 96, 32);
    data::DeviceSortedRouting other_topk = data::allocate_sorted_routing(9, 4, 96, 32);
    const gpu::Stream stream;
    CHECK_THROWS_AS(data::moe_sorting_gpu(test::data_kernels(), routing, fewer_tokens, stream), std::invalid_argument);
    CHECK_THROWS_AS(data::moe_sorting_gpu(test::data_kernels(), routing, other_topk, stream), std::invalid_argument);
    CHECK_THROWS_AS(data::allocate_sorted_routing(8, 256, 96, 32), std::invalid_argument);
    // The sort's shared memory (24 bytes per expert) within 48 KB.
    CHECK_NOTHROW(data::allocate_sorted_routing(8, 5, 2048, 32));
    CHECK_THROWS_WITH(data::allocate_sorted_routing(8, 5, 2049, 32), "moe_sorting_gpu: at most 2048 experts");
}
