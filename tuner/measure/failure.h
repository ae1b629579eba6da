#pragma once
// The failure text of a MeasureResult: "<kind>: <detail>" (or "timeout after N s"), one line. The
// kind comes first so reports and tests can group failures without parsing the detail:
//   config    the kernel name does not parse into a config
//   input     the task's shape, routing or metric is not usable
//   compile   the compiler rejected the candidate
//   launch    the runtime refused to load or launch it (resources, geometry); the GPU is fine
//   fault     the GPU faulted while it ran (the context is lost), or the worker process died
//   nan       its output holds NaN/Inf (unwritten elements are NaN-filled beforehand)
//   wrong     its output is finite but fails the error gate
//   timeout   it did not finish within the task timeout (the worker was killed)
//   internal  anything else (a bug in the harness)
#include <string>
#include <string_view>

namespace moetune::measure {

// kind + ": " + detail, with line breaks in detail replaced by " | " and the whole cut to
// max_chars (compiler logs are long; the report needs the first error).
std::string failure_text(std::string_view kind, std::string_view detail, std::size_t max_chars = 400);

// The kind of a failure text: its leading lowercase word ("" for "").
std::string_view failure_kind(std::string_view failure);

}  // namespace moetune::measure
