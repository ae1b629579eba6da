#include "support/catch.hpp"

#include "table/row_key.h"
#include "table/schema.h"
#include "table/table_reader.h"
#include "table_fixtures.h"

using namespace moetune::table;
using moetune::test::table_fixture;

TEST_CASE("keys: cells compare as pandas compares the parsed values") {
    CHECK(normalized_cell(col::token, "32.0") == "32");
    CHECK(normalized_cell(col::cu_num, " 256") == "256");
    CHECK(normalized_cell(col::use_g1u1, "True") == "1");
    CHECK(normalized_cell(col::doweight_stage1, "0.0") == "0");
    CHECK(normalized_cell(col::q_dtype_a, "torch.float8_e4m3fnuz") == "torch.float8_e4m3fnuz");
    CHECK(normalized_cell(col::token, "abc") == "abc");  // kept as text: a bad-value, not a crash
}

TEST_CASE("keys: a legacy row without gfx has the dedup key of its gfx-first twin") {
    const Table gfx_first = read_table(table_fixture("dup_key_a.csv"));
    const Table legacy = read_table(table_fixture("dup_key_b.csv"));
    CHECK(effective_gfx(legacy, legacy.rows[1]) == "gfx950");
    CHECK(dedup_key(gfx_first, gfx_first.rows[0]) == dedup_key(legacy, legacy.rows[1]));
    CHECK(dedup_key(gfx_first, gfx_first.rows[0]) != dedup_key(gfx_first, gfx_first.rows[1]));
}

TEST_CASE("keys: an unknown cu_num infers no gfx") {
    const Table legacy = read_table(table_fixture("legacy_no_gfx.csv"));
    CHECK(effective_gfx(legacy, legacy.rows[1]) == "gfx942");
    CHECK(effective_gfx(legacy, legacy.rows[2]).empty());
}

TEST_CASE("keys: a blank gfx cell is inferred from cu_num, as AITER backfills it") {
    const std::string shape = moetune::test::kShapeCells;
    const Table t = parse_table("gfx,cu_num,token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,"
                                "q_type,use_g1u1,doweight_stage1,us\n"
                                "gfx950,256," + shape + ",20.0\n"
                                ",256," + shape + ",19.0\n"
                                " ,128," + shape + ",18.0\n",
                                "blank_gfx.csv");
    CHECK(effective_gfx(t, t.rows[1]) == "gfx950");
    CHECK(dedup_key(t, t.rows[0]) == dedup_key(t, t.rows[1]));
    CHECK(lookup_key_ignoring_act_type(t, t.rows[0], true) == lookup_key_ignoring_act_type(t, t.rows[1], true));
    CHECK(effective_gfx(t, t.rows[2]).empty());  // no arch for 128 CUs: the GPU AITER runs on
}

TEST_CASE("keys: _tag is part of the dedup key, not of the lookup key") {
    const Table t = parse_table(
        "token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,q_type,use_g1u1,doweight_stage1,"
        "cu_num,us,_tag\n"
        "1,7168,512,384,6,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,torch.float4_e2m1fn_x2,"
        "QuantType.per_1x32,1,0,256,10.0,\n"
        "1,7168,512,384,6,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,torch.float4_e2m1fn_x2,"
        "QuantType.per_1x32,True,0,256,11.0,exact\n",
        "tagged.csv");
    CHECK(dedup_key(t, t.rows[0]) != dedup_key(t, t.rows[1]));
    CHECK(lookup_key_ignoring_act_type(t, t.rows[0]) == lookup_key_ignoring_act_type(t, t.rows[1]));
}

TEST_CASE("keys: the act-type-agnostic lookup key ignores act_type only") {
    const Table t = read_table(table_fixture("act_type_twin.csv"));
    CHECK(dedup_key(t, t.rows[0]) != dedup_key(t, t.rows[1]));
    CHECK(lookup_key_ignoring_act_type(t, t.rows[0]) == lookup_key_ignoring_act_type(t, t.rows[1]));
    const Table other = read_table(table_fixture("clean_tuned.csv"));
    CHECK(lookup_key_ignoring_act_type(other, other.rows[0]) != lookup_key_ignoring_act_type(other, other.rows[1]));
}

TEST_CASE("keys: described like AITER's log tuple") {
    const Table t = read_table(table_fixture("legacy_no_gfx.csv"));
    CHECK(describe_key(t, t.rows[0]) ==
          "gfx950, 256, 1, 7168, 512, 384, 6, ActivationType.Silu, torch.bfloat16, torch.float8_e4m3fn, "
          "torch.float4_e2m1fn_x2, QuantType.per_1x32, 1, 0");
    CHECK(describe_key(t, t.rows[2]).substr(0, 12) == "gfx ?, 128, ");
}
