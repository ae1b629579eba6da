// The worker's loop (serve_worker) in this process: one answer line per task line, bad lines
// answered rather than dropped, and the stop after a reply that asks for it.
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "measure/failure.h"
#include "measure/worker_protocol.h"
#include "support/catch.hpp"

using namespace moetune::measure;

namespace {

MeasureTask task_named(const std::string& name) {
    MeasureTask t;
    t.shape = {1, 256, 128, 4, 2};
    t.kernel_name = name;
    return t;
}

// Runs serve_worker over `input`; returns its answer lines and whether it stopped on exit_after.
std::pair<std::vector<std::string>, bool> serve(const std::string& input,
                                                const std::function<WorkerReply(const MeasureTask&)>& handle) {
    std::istringstream in(input);
    std::FILE* out = std::tmpfile();
    REQUIRE(out != nullptr);
    const bool stopped = serve_worker(in, out, handle);
    std::rewind(out);
    std::vector<std::string> lines;
    std::string line;
    for (int c; (c = std::fgetc(out)) != EOF;) {
        if (c == '\n') lines.push_back(std::exchange(line, {}));
        else line += char(c);
    }
    std::fclose(out);
    CHECK(line.empty());  // every answer ends with its newline
    return {lines, stopped};
}

WorkerReply echo(const MeasureTask& t) {
    WorkerReply r;
    r.result.kernel_name = t.kernel_name;
    r.result.ok = true;
    r.result.us = t.shape.tokens;
    return r;
}

}  // namespace

TEST_CASE("the worker answers each task line with one result line, in order", "[measure][protocol]") {
    MeasureTask a = task_named("a"), b = task_named("b");
    b.shape.tokens = 7;
    const auto [lines, stopped] = serve(encode_task_line(a) + "\n" + encode_task_line(b), echo);
    CHECK_FALSE(stopped);
    REQUIRE(lines.size() == 2);  // the blank line is not a task
    CHECK(decode_result_line(lines[0]).kernel_name == "a");
    const MeasureResult second = decode_result_line(lines[1]);
    CHECK(second.kernel_name == "b");
    CHECK(second.us == 7);
}

TEST_CASE("a line that is not a task is answered with an input failure", "[measure][protocol]") {
    int handled = 0;
    auto count = [&](const MeasureTask& t) {
        ++handled;
        return echo(t);
    };
    const std::string not_json = "this is not json\n";
    const std::string no_shape = R"({"kernel_name": "named_but_shapeless"})" "\n";
    const auto [lines, stopped] = serve(not_json + no_shape + encode_task_line(task_named("c")), count);
    CHECK(handled == 1);
    REQUIRE(lines.size() == 3);
    const MeasureResult bad = decode_result_line(lines[0]);
    CHECK_FALSE(bad.ok);
    CHECK(failure_kind(bad.failure) == "input");
    const MeasureResult shapeless = decode_result_line(lines[1]);
    CHECK(shapeless.kernel_name == "named_but_shapeless");  // so the parent can match it
    CHECK(failure_kind(shapeless.failure) == "input");
    CHECK(decode_result_line(lines[2]).ok);
}

TEST_CASE("the worker stops right after a reply asking it to", "[measure][protocol]") {
    auto fault_on_b = [](const MeasureTask& t) {
        WorkerReply r = echo(t);
        if (t.kernel_name == "b") {
            r.result.ok = false;
            r.result.failure = "fault: illegal address";
            r.exit_after = true;
        }
        return r;
    };
    const auto [lines, stopped] = serve(encode_task_line(task_named("a")) + encode_task_line(task_named("b")) +
                                            encode_task_line(task_named("never")),
                                        fault_on_b);
    CHECK(stopped);
    REQUIRE(lines.size() == 2);
    CHECK(decode_result_line(lines[1]).failure == "fault: illegal address");
}

TEST_CASE("decoding a result line that is not one says what it got", "[measure][protocol]") {
    std::string message;
    try {
        decode_result_line("garbage");
    } catch (const std::runtime_error& e) {
        message = e.what();
    }
    CHECK(message.find("not a result line") != std::string::npos);
    CHECK(message.find("'garbage'") != std::string::npos);
    CHECK_THROWS_AS(decode_result_line(R"({"ok": true})"), std::runtime_error);  // no kernel name
    CHECK(decode_result_line(R"({"kernel_name": "k", "ok": false, "failure": "timeout after 1 s"})").failure ==
          "timeout after 1 s");
}
