#pragma once
// Writes a whole file or nothing: the content goes to a temporary file in the same directory,
// is fsync'ed, then renamed over the target. Readers (and a run killed midway) never see a torn
// file, which is what makes `sweep` resumable and `merge -o` safe to point at a tracked table.
#include <filesystem>
#include <string_view>

namespace moetune {

// Throws std::runtime_error naming the path when the directory is not writable or the disk is full.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace moetune
