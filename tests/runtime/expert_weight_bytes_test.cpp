// kernels::expert_bytes, where a stage-1 kernel finds stage 2's weights of an expert to ask L2 for
// (launch::stage2_weights): for every weight copy, the experts' shares add up to the tensors the
// library sizes for its caller (FusedMoe::weight_bytes and its siblings), so a share never reaches
// past its expert's weights.
#include "kernels/kernel_config.h"
#include "moetune/fused_moe.h"
#include "runtime_fixtures.h"
#include "support/catch.hpp"

using namespace moetune;
using kernels::WeightCopy;

TEST_CASE("an expert's bytes of each weight copy are the library's weight tensors split among the experts") {
    const MoeShapeKey key = test::dsv41_flash_key();
    const ExpertWeightBytes coded = FusedMoe::weight_bytes(key);
    const RebasedWeightBytes rebased = FusedMoe::rebased_weight_bytes(key);
    const Fp4WeightBlockBytes blocks = FusedMoe::fp4_weight_block_bytes(key);
    struct Tensors {
        long long rows;
        int K;
        std::size_t coded, scales, rebased, bases, blocks;
    };
    for (const Tensors& t : {Tensors{2LL * key.inter_dim, key.model_dim, coded.w1, coded.w1_scale, rebased.w1,
                                     rebased.w1_base, blocks.w1},
                             Tensors{key.model_dim, key.inter_dim, coded.w2, coded.w2_scale, rebased.w2,
                                     rebased.w2_base, blocks.w2}}) {
        INFO("rows " << t.rows << ", K " << t.K);
        const auto total = [&](WeightCopy copy) {
            const kernels::WeightCopyBytes e = kernels::expert_bytes(copy, t.rows, t.K);
            return std::pair{std::size_t(e.values) * key.experts, std::size_t(e.scales) * key.experts};
        };
        CHECK(total(WeightCopy::coded_fp4) == std::pair{t.coded, t.scales});
        CHECK(total(WeightCopy::e4m3_coded_fp4) == std::pair{t.coded, t.scales});
        CHECK(total(WeightCopy::rebased_e4m3) == std::pair{t.rebased, t.bases});
        CHECK(total(WeightCopy::fp4_blocks) == std::pair{t.blocks, t.bases});
    }
}

// Counted by hand, so that the sizes above (which measure:: now derives from expert_bytes too) stay
// pinned to the layouts: DSv4.1's W1 is 4608 rows of K = 5120, W2 5120 rows of K = 2304; FP4 codes
// are K / 2 bytes a row, e8m0 scales K / 32, rebased e4m3 K, bases 1, FP4 blocks 68 a 128-wide chunk.
TEST_CASE("an expert's bytes of each weight copy, counted by hand for DSv4.1") {
    using kernels::WeightCopyBytes;
    const auto bytes = [](WeightCopy copy, long long rows, int K) {
        const WeightCopyBytes e = kernels::expert_bytes(copy, rows, K);
        return std::pair{e.values, e.scales};
    };
    CHECK(bytes(WeightCopy::coded_fp4, 4608, 5120) == std::pair{11'796'480LL, 737'280LL});
    CHECK(bytes(WeightCopy::e4m3_coded_fp4, 4608, 5120) == std::pair{11'796'480LL, 737'280LL});
    CHECK(bytes(WeightCopy::rebased_e4m3, 4608, 5120) == std::pair{23'592'960LL, 4'608LL});
    CHECK(bytes(WeightCopy::fp4_blocks, 4608, 5120) == std::pair{12'533'760LL, 4'608LL});
    CHECK(bytes(WeightCopy::coded_fp4, 5120, 2304) == std::pair{5'898'240LL, 368'640LL});
    CHECK(bytes(WeightCopy::rebased_e4m3, 5120, 2304) == std::pair{11'796'480LL, 5'120LL});
    CHECK(bytes(WeightCopy::fp4_blocks, 5120, 2304) == std::pair{6'266'880LL, 5'120LL});
}
