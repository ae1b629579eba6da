// OUT as the sweep keeps it: rows put in place or appended, foreign rows kept byte for byte, and
// files it cannot add rows to refused before anything runs.
#include <fstream>

#include "common/input_error.h"
#include "support/catch.hpp"
#include "support/test_env.h"
#include "sweep/output_paths.h"
#include "sweep/plan_key.h"
#include "sweep/profile_log.h"
#include "sweep/tuned_output.h"
#include "table/schema.h"
#include "table/table_reader.h"

using namespace moetune;
using namespace moetune::sweep;
using moetune::test::read_text;
using moetune::test::TempDir;

namespace {

table::TunedRow row_at(long long token, double us, const std::string& gfx = "gfx950") {
    table::TunedRow r;
    r.gfx = gfx;
    r.cu_num = 256;
    r.shape = {token, 5120, 2304, 96, 5, "ActivationType.Silu", "torch.bfloat16", "torch.float8_e4m3fn",
               "torch.float4_e2m1fn_x2", "QuantType.per_1x32", true, false};
    r.block_m = 32;
    r.us1 = us / 2;
    r.us2 = us / 2;
    r.us = us;
    r.kernel_name1 = "moetune_moe1_afp8_wfp4_bf16_t32x128x256";
    r.kernel_name2 = "moetune_moe2_afp8_wfp4_bf16_t32x128x256_atomic";
    return r;
}

void write(const std::filesystem::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

}  // namespace

TEST_CASE("output: a file that does not exist yet is an empty table with AITER's 28 columns") {
    TempDir dir("out");
    const TunedOutput out = TunedOutput::read(dir / "absent.csv");
    CHECK(out.table().rows.empty());
    CHECK(out.table().columns == std::vector<std::string>(table::kTunedColumns.begin(), table::kTunedColumns.end()));
    CHECK_FALSE(std::filesystem::exists(dir / "absent.csv"));  // reading creates nothing
}

TEST_CASE("output: put appends new keys and replaces a key in place") {
    TempDir dir("out");
    const auto path = dir / "out.csv";
    TunedOutput out = TunedOutput::read(path);
    out.put(row_at(1, 40));
    out.put(row_at(2, 50));
    out.put(row_at(4, 60));
    out.write(path);
    out = TunedOutput::read(path);
    out.put(row_at(2, 45.5));
    out.write(path);

    const table::Table t = table::read_table(path);
    REQUIRE(t.rows.size() == 3);
    CHECK(t.cell(t.rows[0], table::col::token) == "1");
    CHECK(t.cell(t.rows[1], table::col::token) == "2");
    CHECK(t.cell(t.rows[1], table::col::us) == "45.5");
    CHECK(t.cell(t.rows[2], table::col::token) == "4");
    const TunedOutput again = TunedOutput::read(path);
    CHECK(again.contains(plan_key(row_at(2, 0).shape, "gfx950", 256)));
    CHECK(again.us(plan_key(row_at(2, 0).shape, "gfx950", 256)) == 45.5);
    CHECK_FALSE(again.contains(plan_key(row_at(8, 0).shape, "gfx950", 256)));
    CHECK_FALSE(again.contains(plan_key(row_at(1, 0).shape, "gfx942", 256)));  // another GPU's key
}

TEST_CASE("output: rows it did not write are kept exactly, and its rows fit the file's columns") {
    TempDir dir("out");
    const auto path = dir / "out.csv";
    // A hand-made row (blank timing, ksplit -1), a 131.81310000000002-style float and a _tag column.
    const std::string header =
        "gfx,cu_num,token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,q_type,use_g1u1,"
        "doweight_stage1,block_m,ksplit,us1,kernelName1,err1,us2,kernelName2,err2,us,run_1stage,xbf16,flat,tflops,"
        "bw,_tag\n";
    const std::string foreign =
        "gfx950,256,1,7168,512,384,6,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,torch.float4_e2m1fn_x2,"
        "QuantType.per_1x32,1,0,32,-1,,flydsl_moe1_afp8_wfp4_bf16_t32x64x256_w4_gui_kw4_fp8,,,flydsl_moe2_afp8_wfp4_"
        "bf16_t32x256x256_reduce_bnt2_persist,,131.81310000000002,0,0,0,0.0,0.0,hand\n";
    write(path, header + foreign);
    TunedOutput out = TunedOutput::read(path);
    CHECK(out.us(plan_key(row_at(1, 0).shape, "gfx950", 256)) == std::nullopt);  // another shape
    out.put(row_at(1, 40));
    out.write(path);
    const std::string text = read_text(path);
    CHECK(text.rfind(header + foreign, 0) == 0);
    const table::Table t = table::read_table(path);
    REQUIRE(t.rows.size() == 2);
    CHECK(t.cell(t.rows[1], table::col::tag) == "");
    CHECK(t.cell(t.rows[1], table::col::us) == "40.0");
    CHECK(t.cell(t.rows[1], table::col::err1) == "0.0%");
}

TEST_CASE("output: a file sweep cannot add rows to is refused with file and line") {
    TempDir dir("out");
    const auto message = [&](const std::string& text) {
        write(dir / "bad.csv", text);
        try {
            TunedOutput::read(dir / "bad.csv");
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const std::string bad = (dir / "bad.csv").string();
    CHECK(message("token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,q_type,use_g1u1,"
                  "doweight_stage1\n") ==
          bad + ":1: the output is an untuned table (no result columns); give -o a tuned table or a new file");
    // Legacy header: no gfx column.
    CHECK(message("cu_num,token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,q_type,use_g1u1,"
                  "doweight_stage1,block_m,ksplit,us1,kernelName1,err1,us2,kernelName2,err2,us,run_1stage,tflops,bw,"
                  "_tag\n")
              .rfind(bad + ":1: the output has no gfx column", 0) == 0);
    CHECK(message("a,b\n1,2\n").rfind(bad + ":", 0) == 0);
    CHECK(message("").rfind(bad + ":", 0) == 0);
    // Rows it would keep byte for byte into every later table: one AITER cannot load (a field more
    // than the header) and one with a cell that is not what its column holds.
    const std::string header = table::format_tuned_table({});
    const std::string good = table::format_tuned_table({row_at(4, 2.0)}).substr(header.size());
    CHECK(message(header + good).rfind("no error", 0) == 0);
    CHECK(message(header + good.substr(0, good.size() - 1) + ",extra\n").rfind(bad + ":2: 29 fields", 0) == 0);
    std::string bad_cell = good;
    bad_cell.replace(bad_cell.find(",5120,"), 6, ",51x0,");
    CHECK(message(header + bad_cell).rfind(bad + ":2: model_dim '51x0'", 0) == 0);
}

TEST_CASE("profile: a file sweep would append to is refused unless it is a whole sweep profile") {
    TempDir dir("profile");
    const std::filesystem::path path = dir / "profile.csv";
    append_profile(path, "gfx950", 256, row_at(4, 2.0).shape, {}, 0.05);  // the header alone
    CHECK_NOTHROW(check_profile_file(path));
    std::ofstream(path, std::ios::app) << "gfx950,256,\"an open quote\n";
    CHECK_THROWS_AS(check_profile_file(path), InputError);  // the rows appended next would sit inside it
    write(path, "something,else\n");
    CHECK_THROWS_AS(check_profile_file(path), InputError);
}

TEST_CASE("output paths: the default") {
    CHECK(default_output_path("shapes/dsv41_flash_ep4_a8w4.csv") == "output/dsv41_flash_ep4_a8w4_tuned.csv");
}
