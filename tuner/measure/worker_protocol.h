#pragma once
// The worker protocol: one JSON object per line each way. The parent writes a MeasureTask line to
// the worker's stdin; the worker answers every task with exactly one MeasureResult line on its stdout
// and nothing else there (its logs go to stderr). EOF on stdin ends the worker.
#include <cstdio>
#include <functional>
#include <istream>
#include <string>
#include <string_view>

#include "measure/measure_task.h"

namespace moetune::measure {

// The task as one line, '\n' included.
std::string encode_task_line(const MeasureTask& task);
// A result line (without '\n'). Throws std::runtime_error saying what is wrong with it.
MeasureResult decode_result_line(std::string_view line);

struct WorkerReply {
    MeasureResult result;
    bool exit_after = false;  // stop serving after this reply (the GPU context is lost)
};

// The worker's loop: reads task lines from `in` until EOF, answers each through `handle` with one
// flushed line on `out`. A line that is not a task is answered too, with an "input" failure (and
// the kernel name when it can be read), so the parent is never left waiting. Returns true when it
// stopped on exit_after, false at EOF.
bool serve_worker(std::istream& in, std::FILE* out, const std::function<WorkerReply(const MeasureTask&)>& handle);

}  // namespace moetune::measure
