// TunedTables on fixture tables (tests/fixtures/runtime): AITER's bucket rule and tiers, the exact
// key (act_type aside, as AITER's runtime matches), the lowest-us merge across files, rows AITER's
// loader drops, and errors that name the file and line.
#include <fstream>
#include <string>

#include "moetune/tuned_tables.h"
#include "runtime_fixtures.h"
#include "support/catch.hpp"
#include "support/test_env.h"
#include "support/thrown_message.h"

using moetune::KernelPlan;
using moetune::MoeShapeKey;
using moetune::TableError;
using moetune::TunedTables;
using moetune::test::contains;
using moetune::test::dsv41_flash_key;
using moetune::test::runtime_fixture;

namespace {

std::optional<KernelPlan> on_h200(const TunedTables& t, long long tokens,
                                  const MoeShapeKey& shape = dsv41_flash_key()) {
    return t.lookup(shape, tokens, "sm_90", 132);
}

// The message of the TableError loading `paths` throws.
std::string load_error(const std::vector<std::string>& paths) {
    CHECK_THROWS_AS(TunedTables::load(paths), TableError);
    return moetune::test::thrown_message([&] { TunedTables::load(paths); });
}

}  // namespace

TEST_CASE("lookup uses AITER's bucket: the next power of two below 32768, then the 32768 and 131072 tiers") {
    const TunedTables t = TunedTables::load({runtime_fixture("sm90_a.csv")});
    const auto three = on_h200(t, 3);
    REQUIRE(three);
    CHECK(three->bucket == 4);
    CHECK(three->source == runtime_fixture("sm90_a.csv") + ":3");
    CHECK(three->tuned);
    CHECK(three->block_m == 16);

    const auto m20000 = on_h200(t, 20000);
    REQUIRE(m20000);
    CHECK(m20000->bucket == 32768);
    CHECK(m20000->source == runtime_fixture("sm90_a.csv") + ":7");

    const auto m40000 = on_h200(t, 40000);  // 32768 <= M < 131072: the 32768 tier
    REQUIRE(m40000);
    CHECK(m40000->bucket == 32768);
    CHECK(m40000->source == runtime_fixture("sm90_a.csv") + ":7");

    // M >= 131072: the 131072 tier, which has no row here, so AITER retries the 32768 tier.
    const auto huge = on_h200(t, 200000);
    REQUIRE(huge);
    CHECK(huge->bucket == 131072);
    CHECK(huge->source == runtime_fixture("sm90_a.csv") + ":7");
    CHECK(huge->kernel_name1 == "moetune_moe1_afp8_wfp4_bf16_t128x64x128_gui_fp8");

    CHECK_FALSE(on_h200(t, 2));  // no row at 2 and no downward fallback (AITER issue #5125)
    CHECK_FALSE(on_h200(t, 16384));
    CHECK_THROWS_AS(on_h200(t, 0), std::invalid_argument);
}

TEST_CASE("lookup matches gfx, cu_num and the shape exactly, and passes over act_type as AITER does") {
    const TunedTables t = TunedTables::load({runtime_fixture("sm90_a.csv")});
    REQUIRE(on_h200(t, 1));
    CHECK_FALSE(t.lookup(dsv41_flash_key(), 1, "sm_100", 132));
    CHECK_FALSE(t.lookup(dsv41_flash_key(), 1, "sm_90", 114));
    CHECK_FALSE(t.lookup(dsv41_flash_key(), 128, "sm_90", 132));  // the 128 row is gfx950's
    REQUIRE(t.lookup(dsv41_flash_key(), 128, "gfx950", 256));
    MoeShapeKey other = dsv41_flash_key();
    other.topk = 6;
    CHECK_FALSE(on_h200(t, 1, other));
    other = dsv41_flash_key();
    other.q_dtype_a = "torch.float8_e4m3fnuz";
    CHECK_FALSE(on_h200(t, 1, other));
    other = dsv41_flash_key();
    other.doweight_stage1 = true;
    CHECK_FALSE(on_h200(t, 1, other));

    // Rows that differ only in act_type: the first in merged order wins for every activation.
    const auto silu = on_h200(t, 64);
    REQUIRE(silu);
    CHECK(silu->source == runtime_fixture("sm90_a.csv") + ":5");
    CHECK(silu->kernel_name2 == "moetune_moe2_afp8_wfp4_bf16_t32x128x256_reduce");
    other = dsv41_flash_key();
    other.act_type = "ActivationType.Swiglu";
    REQUIRE(on_h200(t, 64, other));
    CHECK(on_h200(t, 64, other)->source == silu->source);
}

TEST_CASE("a blank gfx cell is the arch AITER infers from cu_num, or, where it infers none, any GPU's") {
    const moetune::test::TempDir dir("runtime_blank_gfx");
    const std::string path = (dir / "blank_gfx.csv").string();
    std::string text = moetune::test::read_text(runtime_fixture("sm90_a.csv"));
    const auto blank = [&](const std::string& from, const std::string& to) { text.replace(text.find(from), from.size(), to); };
    blank("\nsm_90,132,1,", "\n,132,1,");  // 132 CUs: no arch inferred, the row serves the GPU it runs on
    blank("\nsm_90,132,4,", "\n,256,4,");  // 256 CUs: gfx950's row
    std::ofstream(path) << text;
    const TunedTables t = TunedTables::load({path});
    CHECK(on_h200(t, 1));
    CHECK(t.lookup(dsv41_flash_key(), 1, "gfx1250", 132));
    CHECK(t.lookup(dsv41_flash_key(), 4, "gfx950", 256));
    CHECK_FALSE(t.lookup(dsv41_flash_key(), 4, "gfx1250", 256));
}

TEST_CASE("rows tagged flydsl_fallback are dropped as AITER's loader drops them") {
    const TunedTables t = TunedTables::load({runtime_fixture("sm90_a.csv")});
    CHECK_FALSE(on_h200(t, 8));
    CHECK(t.rows() == 7);
}

TEST_CASE("several tables merge as AITER merges them: per dedup key the lowest us") {
    for (const auto& order : {std::vector<std::string>{runtime_fixture("sm90_a.csv"), runtime_fixture("sm90_b.csv")},
                              std::vector<std::string>{runtime_fixture("sm90_b.csv"), runtime_fixture("sm90_a.csv")}}) {
        const TunedTables t = TunedTables::load(order);
        const auto four = on_h200(t, 4);  // us 30 in b beats 45 in a
        REQUIRE(four);
        CHECK(four->source == runtime_fixture("sm90_b.csv") + ":2");
        CHECK(four->block_m == 32);
        CHECK(four->kernel_name2 == "moetune_moe2_afp8_wfp4_bf16_t16x128x512_atomic_w4_nt_sbm32");
        const auto one = on_h200(t, 1);  // us 40 in a beats 50 in b
        REQUIRE(one);
        CHECK(one->source == runtime_fixture("sm90_a.csv") + ":2");
        CHECK(t.rows() == 7);
    }
}

TEST_CASE("one table is used as it is: of two rows with one key the first is looked up, whatever its us") {
    // AITER merges only several files; a single file's lookup dict keeps the first row of a key.
    const moetune::test::TempDir dir("runtime_tables");
    const std::string path = (dir / "twice.csv").string();
    const std::string text = moetune::test::read_text(runtime_fixture("sm90_b.csv"));
    std::string again = text.substr(text.find('\n') + 1);  // the rows once more
    again.replace(again.find(",30.0,"), 6, ",10.0,");      // the token-4 row's us, now the lowest
    std::ofstream(path) << text << again;
    const auto four = on_h200(TunedTables::load({path}), 4);
    REQUIRE(four);
    CHECK(four->source == path + ":2");
}

TEST_CASE("an empty TunedTables misses every lookup") {
    const TunedTables none;
    CHECK(none.rows() == 0);
    CHECK_FALSE(on_h200(none, 1));
    CHECK(TunedTables::load({}).rows() == 0);
}

TEST_CASE("tables that cannot be served fail with the file and line") {
    const std::string bad = runtime_fixture("bad_kernel_name.csv");
    CHECK(contains(load_error({bad}), bad + ":3: kernelName1 'moetune_moe1_afp8_wfp4_bf16_t16x128x128_w2_nt_fp8' is "
                                            "not a moetune kernel"));
    // The error names the file it is in, also when it is not the first one.
    CHECK(contains(load_error({runtime_fixture("sm90_a.csv"), bad}), bad + ":3: "));
    CHECK(contains(load_error({runtime_fixture("missing.csv")}), runtime_fixture("missing.csv")));
    const std::string untuned = (moetune::test::fixtures_dir() / "tables" / "clean_untuned.csv").string();
    CHECK(contains(load_error({untuned}), untuned + ":1: not a tuned table"));

    // A row edited by hand, one field at a time.
    const moetune::test::TempDir dir("runtime_bad_rows");
    const std::string path = (dir / "edited.csv").string();
    const std::string stage1 = "moetune_moe1_afp8_wfp4_bf16_t32x128x128_w4_gui_fp8";
    const std::string stage2 = "moetune_moe2_afp8_wfp4_bf16_t16x128x512_atomic_w4_nt_sbm32";
    const auto error_after = [&](const std::string& from, const std::string& to) {
        std::string text = moetune::test::read_text(runtime_fixture("sm90_b.csv"));
        text.replace(text.find(from), from.size(), to);  // in the first row, line 2
        std::ofstream(path) << text;
        return load_error({path});
    };
    CHECK(contains(error_after(stage1, stage2), path + ":2: kernelName1 '" + stage2 + "' is a stage-2 kernel"));
    CHECK(contains(error_after("QuantType.per_1x32,1,0,32", "QuantType.per_1x32,1,0,64"),
                   path + ":2: kernelName1 '" + stage1 + "' walks sort blocks of 32 rows, the row's block_m is 64"));
    CHECK(contains(error_after(stage1, "fancy_moe1_t32"),
                   path + ":2: kernelName1 'fancy_moe1_t32' is not a kernel name of moetune or of an AITER"));
    CHECK(contains(error_after(stage2, "flydsl_moe2_afp8_wfp4_bf16_t32x256x256_atomic"),
                   path + ":2: a moetune kernel runs only with a moetune kernel in the other stage"));
    CHECK(contains(error_after("sm_90,132,4,5120", "sm_90,132,4,51x20"),
                   path + ":2: model_dim '51x20' is not a whole number"));
}
