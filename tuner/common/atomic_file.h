#pragma once
// Writes a whole file or nothing: the content goes to a temporary file in the same directory,
// is fsync'ed, then renamed over the target. Readers (and a run killed midway) never see a torn
// file, which is what makes `sweep` resumable and `merge -o` safe to point at a tracked table.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace moetune {

// Throws std::runtime_error naming the path when the directory is not writable or the disk is full.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

// Why write_file_atomically could not write `path` (it is a directory; its directory is missing,
// not a directory or not writable), found by creating and removing a probe file beside it; nullopt
// when it could. Commands call it before long work, so that hours of tuning or measuring are not
// lost at the end to a typo in an output path. Touches nothing else.
std::optional<std::string> unwritable_reason(const std::filesystem::path& path);

}  // namespace moetune
