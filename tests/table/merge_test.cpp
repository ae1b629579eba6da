#include "support/catch.hpp"

#include "common/input_error.h"
#include "table/merge.h"
#include "table/schema.h"
#include "table/table_reader.h"
#include "table_fixtures.h"

using namespace moetune::table;
using moetune::InputError;
using moetune::test::table_fixture;

namespace {

std::vector<Table> read_all(std::initializer_list<const char*> names) {
    std::vector<Table> tables;
    for (const char* n : names) tables.push_back(read_table(table_fixture(n)));
    return tables;
}

std::vector<std::string> column_of(const Table& t, std::string_view column) {
    std::vector<std::string> values;
    for (const TableRow& r : t.rows) values.emplace_back(t.cell(r, column));
    return values;
}

}  // namespace

TEST_CASE("merge: columns a later file adds go before tflops; missing cells get AITER's fill") {
    const MergeResult m = merge_tables(read_all({"merge_legacy.csv", "merge_gfx_first.csv"}), DuplicatePolicy::lowest_us);
    const std::vector<std::string> expected_tail = {"us",   "run_1stage", "gfx", "xbf16",
                                                    "flat", "tflops",     "bw",  "_tag"};
    REQUIRE(m.merged.columns.size() == 29);
    CHECK(std::vector<std::string>(m.merged.columns.end() - 8, m.merged.columns.end()) == expected_tail);
    CHECK(m.merged.columns.front() == "cu_num");
    // Legacy rows: gfx inferred from cu_num 256/80, xbf16 and flat 0; the gfx-first row keeps its own.
    CHECK(column_of(m.merged, col::gfx) == std::vector<std::string>{"gfx950", "gfx942", "gfx950"});
    CHECK(column_of(m.merged, col::xbf16) == std::vector<std::string>{"0", "0", "0"});
    CHECK(column_of(m.merged, col::tag) == std::vector<std::string>{"", "", "exact-m4"});
}

TEST_CASE("merge: a blank gfx cell is filled from cu_num and deduplicated as AITER's merge does") {
    const std::string shape = moetune::test::kShapeCells;
    const std::string cols = "gfx,cu_num,token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,"
                             "q_type,use_g1u1,doweight_stage1,us\n";
    const Table a = parse_table(cols + "gfx950,256," + shape + ",20.0\n", "a.csv");
    const Table b = parse_table(cols + ",256," + shape + ",19.0\n,128," + shape + ",18.0\n", "b.csv");
    const MergeResult m = merge_tables({a, b}, DuplicatePolicy::lowest_us);
    REQUIRE(m.merged.rows.size() == 2);
    CHECK(m.dropped.size() == 1);
    CHECK(column_of(m.merged, col::gfx) == std::vector<std::string>{"gfx950", ""});
    CHECK(column_of(m.merged, col::us) == std::vector<std::string>{"19.0", "18.0"});
}

TEST_CASE("merge: without a tflops column, a new column goes before the last one") {
    const std::string shape = moetune::test::kShapeCells;
    const std::string cols = "token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,q_type,"
                             "use_g1u1,doweight_stage1,cu_num";
    const Table a = parse_table(cols + ",us,kernelName1\n" + shape + ",256,10.0,k\n", "a.csv");
    const Table b = parse_table(cols + ",block_m,us\n" + shape + ",80,32,9.0\n", "b.csv");
    const MergeResult m = merge_tables({a, b}, DuplicatePolicy::lowest_us);
    CHECK(m.merged.columns[m.merged.columns.size() - 2] == "block_m");
    CHECK(m.merged.columns.back() == "kernelName1");
    CHECK(column_of(m.merged, col::kernel_name1) == std::vector<std::string>{"k", "0"});  // anything else -> 0
}

TEST_CASE("merge: lowest us wins, ties go to the earlier row, rows stay in file order") {
    const MergeResult m = merge_tables(read_all({"dup_key_a.csv", "dup_key_b.csv"}), DuplicatePolicy::lowest_us);
    CHECK(column_of(m.merged, col::token) == std::vector<std::string>{"1", "2"});
    CHECK(column_of(m.merged, col::us) == std::vector<std::string>{"20.9291", "22.0"});
    CHECK(m.row_files == std::vector<std::string>{table_fixture("dup_key_a.csv"), table_fixture("dup_key_b.csv")});
    CHECK(m.merged.rows[0].line == 2);
    CHECK(m.merged.rows[1].line == 2);
    REQUIRE(m.dropped.size() == 2);
    CHECK(m.dropped[0].file == table_fixture("dup_key_a.csv"));
    CHECK(m.dropped[0].line == 3);
    CHECK(m.dropped[0].kept_file == table_fixture("dup_key_b.csv"));
    CHECK(m.dropped[0].kept_line == 2);
    CHECK(m.dropped[0].reason == "us 24.4433 is higher than the kept row's 22.0");
    CHECK(m.dropped[1].file == table_fixture("dup_key_b.csv"));
    CHECK(m.dropped[1].line == 3);
    CHECK(m.dropped[1].kept_line == 2);
    CHECK(m.dropped[1].reason == "same us as the kept row (20.9291); the earlier row is kept");
    CHECK(m.dropped[1].key.find("gfx950, 256, 1, 7168") == 0);
}

TEST_CASE("merge: a blank us loses to a timed row, wherever it is") {
    const MergeResult m = merge_tables(read_all({"blank_timing.csv", "clean_tuned.csv"}), DuplicatePolicy::lowest_us);
    REQUIRE(m.dropped.size() == 1);
    CHECK(m.dropped[0].file == table_fixture("blank_timing.csv"));
    CHECK(m.dropped[0].reason == "no us value; the kept row has us 20.9291");
    CHECK(m.merged.rows.size() == 3);
}

TEST_CASE("merge: first, last and error policies") {
    const auto inputs = read_all({"dup_key_a.csv", "dup_key_b.csv"});
    const MergeResult first = merge_tables(inputs, DuplicatePolicy::first);
    CHECK(column_of(first.merged, col::us) == std::vector<std::string>{"20.9291", "24.4433"});
    const MergeResult last = merge_tables(inputs, DuplicatePolicy::last);
    CHECK(column_of(last.merged, col::us) == std::vector<std::string>{"22.0", "20.9291"});
    CHECK(last.dropped.front().reason == "--on-duplicate last keeps the latest row");
    const MergeResult error = merge_tables(inputs, DuplicatePolicy::error);
    REQUIRE(error.dropped.size() == 2);
    CHECK(error.dropped[0].reason == "duplicate key (--on-duplicate error)");
}

TEST_CASE("merge: a single file is deduplicated too, and clean inputs drop nothing") {
    const MergeResult one = merge_tables(read_all({"dup_key_in_file.csv"}), DuplicatePolicy::lowest_us);
    REQUIRE(one.dropped.size() == 1);
    CHECK(one.dropped[0].line == 2);
    CHECK(one.dropped[0].kept_line == 4);
    const MergeResult clean = merge_tables(read_all({"clean_tuned.csv", "act_type_twin_other_file.csv"}),
                                           DuplicatePolicy::lowest_us);
    CHECK(clean.dropped.empty());
    CHECK(clean.merged.rows.size() == 4);
}

TEST_CASE("merge: inputs AITER could not merge are refused with file and line") {
    CHECK_THROWS_AS(merge_tables(read_all({"clean_untuned.csv"}), DuplicatePolicy::lowest_us), InputError);
    CHECK_THROWS_AS(merge_tables(read_all({"missing_column.csv"}), DuplicatePolicy::lowest_us), InputError);
    try {
        merge_tables(read_all({"clean_tuned.csv", "extra_fields.csv"}), DuplicatePolicy::lowest_us);
        FAIL("a row with extra fields cannot be merged");
    } catch (const InputError& e) {
        CHECK(e.file() == table_fixture("extra_fields.csv"));
        CHECK(e.line() == 3);
    }
    // A cell that is not what its column holds (check's bad-value), in any column.
    const std::string cols = "gfx,cu_num,token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,"
                             "q_type,use_g1u1,doweight_stage1,us\n";
    const std::string row = std::string("gfx950,256,") + moetune::test::kShapeCells + ",20.0\n";
    for (const auto& [from, to] : {std::pair{"gfx950,256,1,", "gfx950,256,1x,"}, std::pair{",20.0", ",abc"}}) {
        std::string bad = row;
        bad.replace(bad.find(from), std::string(from).size(), to);
        try {
            merge_tables({parse_table(cols + row + bad, "bad.csv")}, DuplicatePolicy::lowest_us);
            FAIL("a malformed cell cannot be merged: " << to);
        } catch (const InputError& e) {
            CHECK(e.file() == "bad.csv");
            CHECK(e.line() == 3);
        }
    }
}
