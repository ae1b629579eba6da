#include "rtc/kernel_cache.h"

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "common/atomic_file.h"
#include "rtc/sha256.h"

namespace moetune::rtc {
namespace {

// Entry layout: magic line, then length-prefixed fields (8-byte little-endian lengths), then the
// SHA-256 of everything before it. Bump the magic when the layout changes.
constexpr std::string_view kMagic = "moetune-rtc-cache 1\n";

void put_field(std::string& out, std::string_view field) {
    std::uint64_t n = field.size();
    for (int i = 0; i < 8; ++i) out += static_cast<char>((n >> (8 * i)) & 0xFF);
    out += field;
}

// Reads one field at `pos`; false when the entry ends early.
bool get_field(std::string_view in, std::size_t& pos, std::string& field) {
    if (in.size() - pos < 8) return false;
    std::uint64_t n = 0;
    for (int i = 0; i < 8; ++i) n |= std::uint64_t(static_cast<unsigned char>(in[pos + i])) << (8 * i);
    pos += 8;
    if (in.size() - pos < n) return false;
    field.assign(in.substr(pos, n));
    pos += n;
    return true;
}

std::string digest_bytes(std::string_view payload) {
    const auto d = Sha256().update(payload).digest();
    return std::string(d.begin(), d.end());
}

}  // namespace

KernelCache::KernelCache(std::filesystem::path dir) : dir_(std::move(dir)) {}

std::filesystem::path KernelCache::default_dir() {
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "moetune";
    if (const char* home = std::getenv("HOME"); home && *home)
        return std::filesystem::path(home) / ".cache" / "moetune";
    return std::filesystem::temp_directory_path() / "moetune-cache";
}

std::filesystem::path KernelCache::dir_or_default(const std::filesystem::path& dir) {
    return dir.empty() ? default_dir() : dir;
}

std::filesystem::path KernelCache::entry_path(const std::string& key) const { return dir_ / "rtc" / (key + ".bin"); }

std::optional<CompiledCode> KernelCache::load(const std::string& key) const {
    std::ifstream in(entry_path(key), std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream buffer;
    buffer << in.rdbuf();
    const std::string bytes = buffer.str();
    if (bytes.size() < kMagic.size() + 32 || bytes.compare(0, kMagic.size(), kMagic) != 0) return std::nullopt;
    const std::string_view payload(bytes.data(), bytes.size() - 32);
    if (digest_bytes(payload) != bytes.substr(bytes.size() - 32)) return std::nullopt;

    CompiledCode code;
    std::size_t pos = kMagic.size();
    std::string stored_key, compile_ms, name_count;
    if (!get_field(payload, pos, stored_key) || stored_key != key) return std::nullopt;
    if (!get_field(payload, pos, code.code) || !get_field(payload, pos, code.log)) return std::nullopt;
    if (!get_field(payload, pos, compile_ms) || !get_field(payload, pos, name_count)) return std::nullopt;
    code.compile_ms = std::strtod(compile_ms.c_str(), nullptr);
    for (unsigned long i = 0, n = std::strtoul(name_count.c_str(), nullptr, 10); i < n; ++i) {
        std::string name;
        if (!get_field(payload, pos, name)) return std::nullopt;
        code.lowered_names.push_back(std::move(name));
    }
    if (pos != payload.size()) return std::nullopt;
    code.from_cache = true;
    return code;
}

void KernelCache::store(const std::string& key, const CompiledCode& code) const {
    std::string bytes(kMagic);
    put_field(bytes, key);
    put_field(bytes, code.code);
    put_field(bytes, code.log);
    put_field(bytes, std::to_string(code.compile_ms));
    put_field(bytes, std::to_string(code.lowered_names.size()));
    for (const std::string& name : code.lowered_names) put_field(bytes, name);
    bytes += digest_bytes(bytes);

    const std::filesystem::path path = entry_path(key);
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec)
        throw std::runtime_error("cannot create kernel cache directory " + path.parent_path().string() + ": " +
                                 ec.message());
    write_file_atomically(path, bytes);
}

}  // namespace moetune::rtc
