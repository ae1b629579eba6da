// Routing files captured from a server: both line forms, and errors that name the file and line.
#include <fstream>
#include <functional>
#include <string>

#include "common/input_error.h"
#include "data/routing.h"
#include "data/routing_file.h"
#include "support/catch.hpp"
#include "support/test_env.h"

using namespace moetune::data;
using moetune::InputError;

namespace {

std::string error_of(const std::string& text, int experts = 8, int topk = 3) {
    try {
        parse_routing_text(text, "routes.txt", experts, topk);
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no InputError)";
}

}  // namespace

TEST_CASE("routing text and JSON lines parse into one routing", "[data][routing-file]") {
    const std::string text =
        "# captured from server X, layer 3\n"
        "\n"
        "3 1 7 ; 0.5 0.3 0.2\n"
        "  0,2,  4;0.25, 0.25,0.5  \r\n"
        "{\"topk_ids\": [6, 5, 0], \"topk_weights\": [0.7, 0.2, 0.1]}\n"
        "1 0 2 ; 1 0 0";  // no final newline
    const Routing r = parse_routing_text(text, "routes.txt", 8, 3);
    CHECK(r.tokens == 4);
    CHECK(r.topk == 3);
    CHECK(r.ids == std::vector<int32_t>{3, 1, 7, 0, 2, 4, 6, 5, 0, 1, 0, 2});
    CHECK(r.weights == std::vector<float>{0.5f, 0.3f, 0.2f, 0.25f, 0.25f, 0.5f, 0.7f, 0.2f, 0.1f, 1, 0, 0});
}

TEST_CASE("invalid routing rows are rejected with file and line", "[data][routing-file]") {
    CHECK(error_of("0 1 2 ; 1 1 1\n0 1 9 ; 1 1 1\n") == "routes.txt:2: expert id 9 out of range [0, 8)");
    CHECK(error_of("# header\n0 1 1 ; 1 1 1\n") == "routes.txt:2: expert 1 appears twice (slots 1 and 2)");
    CHECK(error_of("0 1 ; 1 1\n") == "routes.txt:1: expected topk=3 expert ids, found 2");
    CHECK(error_of("0 1 2 3 ; 1 1 1 1\n") == "routes.txt:1: expected topk=3 expert ids, found 4");
    CHECK(error_of("0 1 2 ; 1 1\n") == "routes.txt:1: 3 expert ids but 2 weights");
    CHECK(error_of("0 1 2\n") == "routes.txt:1: expected 'expert ids ; weights' (exactly one ';')");
    CHECK(error_of("0 1 x ; 1 1 1\n") == "routes.txt:1: 'x' is not an expert id");
    CHECK(error_of("0 1 2 ; 1 1 nan\n") == "routes.txt:1: weight of slot 2 is not finite");
    CHECK(error_of("0 1 2 ; 1 1 w\n") == "routes.txt:1: 'w' is not a weight");
    CHECK(error_of("\n\n{\"topk_ids\": [1, 2, 8], \"topk_weights\": [1, 1, 1]}\n") ==
          "routes.txt:3: expert id 8 out of range [0, 8)");
    CHECK(error_of("{\"topk_ids\": [1, 2, 3]}\n") ==
          "routes.txt:1: a JSON row needs the arrays \"topk_ids\" and \"topk_weights\"");
    CHECK(error_of("{\"topk_ids\": [1, 2.5, 3], \"topk_weights\": [1, 1, 1]}\n") ==
          "routes.txt:1: topk_ids holds a non-integer: 2.5");
    CHECK(error_of("{not json\n") == "routes.txt:1: invalid JSON object");
    CHECK(error_of("# only comments\n\n") == "routes.txt: no routing rows (one line per token expected)");
}

TEST_CASE("file routing is read from disk and repeated over the token count", "[data][routing-file]") {
    moetune::test::TempDir dir("routing-file");
    const auto path = dir / "capture.txt";
    std::ofstream(path) << "0 1 ; 0.6 0.4\n2 3 ; 0.9 0.1\n1 2 ; 0.5 0.5\n";
    const MoeShape shape{.tokens = 7, .model_dim = 64, .inter_dim = 32, .experts = 4, .topk = 2};
    const Routing r = make_routing(parse_routing_spec("file:" + path.string()), shape, 0);
    CHECK(r.tokens == 7);
    CHECK(r.ids == std::vector<int32_t>{0, 1, 2, 3, 1, 2, 0, 1, 2, 3, 1, 2, 0, 1});
    CHECK(r.weights[12] == 0.6f);

    MoeShape one = shape;
    one.tokens = 1;
    CHECK(make_routing(parse_routing_spec("file:" + path.string()), one, 0).ids == std::vector<int32_t>{0, 1});

    MoeShape fewer_experts = shape;
    fewer_experts.experts = 3;
    try {
        make_routing(parse_routing_spec("file:" + path.string()), fewer_experts, 0);
        FAIL("expected an InputError");
    } catch (const InputError& e) {
        CHECK(e.file() == path.string());
        CHECK(e.line() == 2);
    }
    CHECK_THROWS_AS(read_routing_file(dir / "missing.txt", 4, 2), InputError);
}
