#pragma once
// The on-disk cache of compiled kernels. An entry is keyed by a SHA-256 of everything that decides
// the code object (source, included headers, options, arch, compiler and its version), so a hit
// can be used without compiling. Entries are written atomically (temporary file + rename), so any
// number of moetune processes may share a cache directory; a damaged or truncated entry fails its
// checksum and reads as a miss, and the next compile overwrites it.
#include <filesystem>
#include <optional>
#include <string>

#include "rtc/compiled_code.h"

namespace moetune::rtc {

class KernelCache {
public:
    explicit KernelCache(std::filesystem::path dir);
    // $XDG_CACHE_HOME/moetune, else $HOME/.cache/moetune (the default of --cache-dir).
    static std::filesystem::path default_dir();
    // A --cache-dir value (or FusedMoeOptions::cache_dir): that directory, or default_dir() when empty.
    static std::filesystem::path dir_or_default(const std::filesystem::path& dir);

    const std::filesystem::path& dir() const { return dir_; }
    std::filesystem::path entry_path(const std::string& key) const;

    // nullopt on a miss and on an unreadable or corrupt entry.
    std::optional<CompiledCode> load(const std::string& key) const;
    // Throws std::runtime_error naming the path when the entry cannot be written.
    void store(const std::string& key, const CompiledCode& code) const;

private:
    std::filesystem::path dir_;
};

}  // namespace moetune::rtc
