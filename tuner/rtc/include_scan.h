#pragma once
// The in-memory headers a kernel source needs: its quoted #includes, followed recursively through
// the embedded kernel templates. They are handed to NVRTC/hipRTC by the exact name written in the
// #include (that is how both compilers match them), and their text is part of the cache key, so
// editing a header recompiles every kernel that includes it and nothing else.
// <angle> includes are left to the compiler's include path (cuda_fp8.h and the like).
#include <string>
#include <string_view>
#include <vector>

namespace moetune::rtc {

struct Header {
    std::string include_name;  // as spelled: "common/mx_types.h", or "host_device.h" from inside common/
    std::string path;          // the embedded template it resolves to: "common/mx_types.h"
    std::string text;          // the template's text, wrapped as described below
};

// NVRTC and hipRTC know an in-memory header only by its include name, so one file included as
// "common/host_device.h" and as "host_device.h" would be two files to them, and `#pragma once`
// would not stop the second copy. Each header's text is therefore wrapped in an include guard
// derived from its resolved path, with a #line directive so diagnostics keep the file's own lines.
std::string guarded_header_text(const std::string& path, std::string_view text);

// Throws std::invalid_argument naming the including file when a quoted include is not an embedded
// template. Sorted by include_name, each name once.
std::vector<Header> resolve_includes(const std::string& source_name, const std::string& source);

}  // namespace moetune::rtc
