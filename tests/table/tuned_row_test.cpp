#include "support/catch.hpp"

#include <sstream>

#include "common/input_error.h"
#include "table/table_reader.h"
#include "table/tuned_row.h"
#include "table_fixtures.h"

using namespace moetune::table;
using moetune::InputError;
using moetune::test::read_text;
using moetune::test::table_fixture;

namespace {

const char* const kHeader =
    "gfx,cu_num,token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,q_type,use_g1u1,"
    "doweight_stage1,block_m,ksplit,us1,kernelName1,err1,us2,kernelName2,err2,us,run_1stage,xbf16,flat,tflops,bw";

TunedRow a8w4_row(long long token, long long model_dim, long long inter, long long experts, long long topk,
                  const char* act, long long block_m, double us1, const char* k1, double us2, const char* k2,
                  double us) {
    TunedRow r;
    r.gfx = "gfx950";
    r.cu_num = 256;
    r.shape = {token, model_dim, inter, experts, topk, act, "torch.bfloat16", "torch.float8_e4m3fn",
               "torch.float4_e2m1fn_x2", "QuantType.per_1x32", true, false};
    r.block_m = block_m;
    r.us1 = us1;
    r.kernel_name1 = k1;
    r.us2 = us2;
    r.kernel_name2 = k2;
    r.us = us;
    return r;
}

// The three sample rows of reference §1.2, as typed results.
std::vector<TunedRow> sample_rows() {
    return {a8w4_row(1, 7168, 512, 384, 6, "ActivationType.Silu", 32, 12.0719,
                     "flydsl_moe1_afp8_wfp4_bf16_t32x64x256_w4_gui_kw4_fp8", 8.8572,
                     "flydsl_moe2_afp8_wfp4_bf16_t32x256x256_reduce_bnt2_persist", 20.9291),
            a8w4_row(2, 3584, 512, 896, 16, "ActivationType.Situv2", 32, 14.296,
                     "flydsl_moe1_afp8_wfp4_bf16_t32x64x256_w3_gui_kw2_fp8", 12.1925,
                     "flydsl_moe2_layout_afp8_wfp4_bf16_t32x256x256_atomic_nt_sbm32", 26.4885),
            a8w4_row(1024, 3072, 3072, 128, 4, "ActivationType.Swiglu", 64, 235.2077,
                     "flydsl_moe1_afp8_wfp4_bf16_t64x256x256_gui_fp8", 125.5088,
                     "flydsl_moe2_afp8_wfp4_bf16_t64x256x256_atomic_bnt2", 360.7165)};
}

// The sample lines exactly as quoted from AITER's files (they carry an empty trailing _tag).
const std::vector<std::string> kSampleLines = {
    "gfx950,256,1,7168,512,384,6,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,torch.float4_e2m1fn_x2,"
    "QuantType.per_1x32,1,0,32,0,12.0719,flydsl_moe1_afp8_wfp4_bf16_t32x64x256_w4_gui_kw4_fp8,0.0%,8.8572,"
    "flydsl_moe2_afp8_wfp4_bf16_t32x256x256_reduce_bnt2_persist,0.0%,20.9291,0,0,0,6.31,202009.64,",
    "gfx950,256,2,3584,512,896,16,ActivationType.Situv2,torch.bfloat16,torch.float8_e4m3fn,torch.float4_e2m1fn_x2,"
    "QuantType.per_1x32,1,0,32,0,14.296,flydsl_moe1_afp8_wfp4_bf16_t32x64x256_w3_gui_kw2_fp8,0.0%,12.1925,"
    "flydsl_moe2_layout_afp8_wfp4_bf16_t32x256x256_atomic_nt_sbm32,0.0%,26.4885,0,0,0,13.3,186213.75,",
    "gfx950,256,1024,3072,3072,128,4,ActivationType.Swiglu,torch.bfloat16,torch.float8_e4m3fn,"
    "torch.float4_e2m1fn_x2,QuantType.per_1x32,1,0,64,0,235.2077,flydsl_moe1_afp8_wfp4_bf16_t64x256x256_gui_fp8,"
    "0.0%,125.5088,flydsl_moe2_afp8_wfp4_bf16_t64x256x256_atomic_bnt2,0.0%,360.7165,0,0,0,642.97,10072.5,"};

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

}  // namespace

TEST_CASE("tuned rows: the current 28-column header and AITER's formatting reproduce its sample rows") {
    const auto lines = lines_of(format_tuned_table(sample_rows()));
    REQUIRE(lines.size() == 4);
    CHECK(lines[0] == kHeader);
    for (std::size_t i = 0; i < 3; ++i) {
        const std::string& sample = kSampleLines[i];
        CHECK(lines[i + 1] == sample.substr(0, sample.size() - 1));  // no _tag column: no trailing comma
    }
}

TEST_CASE("tuned rows: _tag is written when a row has a non-empty tag, and only then") {
    std::vector<TunedRow> rows = sample_rows();
    rows[0].tag = "";
    CHECK(lines_of(format_tuned_table(rows))[0] == kHeader);

    TunedRow tagged = rows[0];
    tagged.tag = "exact-m4096-a";
    rows.push_back(tagged);
    const auto lines = lines_of(format_tuned_table(rows));
    CHECK(lines[0] == std::string(kHeader) + ",_tag");
    for (std::size_t i = 0; i < 3; ++i) CHECK(lines[i + 1] == kSampleLines[i]);
    CHECK(lines[4] == kSampleLines[0] + "exact-m4096-a");
}

TEST_CASE("tuned rows: err, 1-stage slots and flags are written as AITER writes them") {
    TunedRow r = sample_rows()[0];
    r.err1 = 0.053;
    r.us2 = 0;
    r.kernel_name2 = "Null";
    r.run_1stage = true;
    r.xbf16 = true;
    r.ksplit = -1;
    const std::string line = lines_of(format_tuned_table({r}))[1];
    CHECK(line.find(",32,-1,12.0719,flydsl_moe1_afp8_wfp4_bf16_t32x64x256_w4_gui_kw4_fp8,5.3%,0.0,Null,0.0%,20.9291,1,1,0,") !=
          std::string::npos);
}

TEST_CASE("tuned rows: reading a written table gives the same rows back") {
    const std::string text = format_tuned_table(sample_rows());
    const Table t = parse_table(text, "written.csv");
    std::vector<TunedRow> again;
    for (const TableRow& r : t.rows) again.push_back(read_tuned_row(t, r));
    CHECK(format_tuned_table(again) == text);
    CHECK(again[1].shape.act_type == "ActivationType.Situv2");
    CHECK(again[2].us == 360.7165);
}

TEST_CASE("tuned rows: the typed reader of a fixture is the inverse of the writer") {
    const Table t = read_table(table_fixture("clean_tuned.csv"));
    std::vector<TunedRow> rows;
    for (const TableRow& r : t.rows) rows.push_back(read_tuned_row(t, r));
    CHECK(format_tuned_table(rows) == read_text(table_fixture("clean_tuned.csv")));
}

TEST_CASE("tuned rows: older generations read with AITER's fill") {
    const Table legacy = read_table(table_fixture("legacy_no_gfx.csv"));
    const TunedRow first = read_tuned_row(legacy, legacy.rows[0]);
    CHECK(first.gfx == "gfx950");
    CHECK_FALSE(first.xbf16);
    CHECK_FALSE(first.flat);
    CHECK_THROWS_AS(read_tuned_row(legacy, legacy.rows[2]), InputError);  // cu_num 128: no gfx to infer

    const Table quirks = read_table(table_fixture("true_false_null.csv"));
    const TunedRow q = read_tuned_row(quirks, quirks.rows[0]);
    CHECK(q.shape.use_g1u1);
    CHECK_FALSE(q.shape.doweight_stage1);
    CHECK(q.run_1stage);
    CHECK(q.us == 131.81310000000002);
    CHECK(q.err2 == 0.0);
    CHECK(q.kernel_name2 == "Null");
}

TEST_CASE("tuned rows: a blank timing or a bad value is an error naming file and line") {
    const Table blank = read_table(table_fixture("blank_timing.csv"));
    try {
        read_tuned_row(blank, blank.rows[0]);
        FAIL("a blank us1 is not a time");
    } catch (const InputError& e) {
        CHECK(e.line() == 2);
        CHECK(std::string(e.what()).find("us1 is blank") != std::string::npos);
    }
    const Table bad = read_table(table_fixture("bad_values.csv"));
    CHECK_THROWS_AS(read_tuned_row(bad, bad.rows[4]), InputError);  // us 'fast'
}
