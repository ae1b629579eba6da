#include "support/catch.hpp"

#include "common/input_error.h"
#include "table/missing.h"
#include "table/table_reader.h"
#include "table_fixtures.h"

using namespace moetune::table;
using moetune::test::table_fixture;

namespace {

// "token@model_dim" for each missing pair: enough to tell the two fixture shapes apart.
std::vector<std::string> pairs_of(const MissingReport& r) {
    std::vector<std::string> out;
    for (const TableShape& s : r.missing) out.push_back(std::to_string(s.token) + "@" + std::to_string(s.model_dim));
    return out;
}

MissingReport run(const MissingQuery& q) {
    return find_missing(read_table(table_fixture("missing_shapes.csv")), {read_table(table_fixture("missing_tuned.csv"))},
                        q);
}

}  // namespace

TEST_CASE("missing: the shapes file's own tokens, as the buckets AITER looks up") {
    // Shape 7168 at 1, 2, 3 (-> 4) and 96 (-> 128); shape 3584 at 1. Tuned: 7168 at 1, 4 and (gfx942) 128;
    // 3584 at 1 only as a flydsl_fallback row, which the loader drops.
    const MissingReport r = run({});
    CHECK(r.pairs == 5);
    CHECK(pairs_of(r) == std::vector<std::string>{"1@3584", "2@7168"});
}

TEST_CASE("missing: --gfx / --cu-num restrict which tuned rows cover") {
    MissingQuery q;
    q.gfx = "gfx950";
    CHECK(pairs_of(run(q)) == std::vector<std::string>{"1@3584", "2@7168", "128@7168"});
    MissingQuery cu;
    cu.cu_num = 304;
    CHECK(pairs_of(run(cu)) == std::vector<std::string>{"1@3584", "1@7168", "2@7168", "4@7168"});
}

TEST_CASE("missing: with buckets, every distinct shape at each bucket") {
    MissingQuery q;
    q.buckets = {1, 2, 4};
    const MissingReport r = run(q);
    CHECK(r.pairs == 6);
    CHECK(pairs_of(r) == std::vector<std::string>{"1@3584", "2@3584", "4@3584", "2@7168"});
    CHECK(r.missing.front().act_type == "ActivationType.Situv2");
}

TEST_CASE("missing: no tuned table leaves every pair missing") {
    const MissingReport r = find_missing(read_table(table_fixture("clean_untuned.csv")), {}, {});
    CHECK(r.pairs == 4);
    CHECK(r.missing.size() == 4);
}

TEST_CASE("missing: a row at 32768 covers 131072 too, where AITER retries the smaller tier") {
    const std::string cols = "token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,q_type,use_g1u1,"
                             "doweight_stage1";
    const std::string shape = std::string(moetune::test::kShapeCells).substr(1);  // without the token
    const Table shapes = parse_table(cols + "\n32768" + shape + "\n131072" + shape + "\n", "shapes.csv");
    MissingReport none = find_missing(shapes, {parse_table(cols + ",us\n131072" + shape + ",9.0\n", "t.csv")}, {});
    CHECK(none.missing.size() == 1);  // 32768 itself: a 131072 row does not serve it
    const MissingReport large = find_missing(shapes, {parse_table(cols + ",us\n32768" + shape + ",9.0\n", "t.csv")}, {});
    CHECK(large.pairs == 2);
    CHECK(large.missing.empty());
}

TEST_CASE("missing: a shapes row that is not a shape is an input error") {
    CHECK_THROWS_AS(find_missing(read_table(table_fixture("bad_values.csv")), {}, {}), moetune::InputError);
    CHECK_THROWS_AS(find_missing(read_table(table_fixture("clean_untuned.csv")),
                                 {read_table(table_fixture("missing_column.csv"))}, {}),
                    moetune::InputError);
    // An untuned table as the tuned one would cover every shape it lists.
    CHECK_THROWS_AS(find_missing(read_table(table_fixture("clean_untuned.csv")),
                                 {read_table(table_fixture("clean_untuned.csv"))}, {}),
                    moetune::InputError);
}
