#pragma once
// SHA-256, for the compile cache key: the key names a code object on disk that is loaded without
// further checks, so a collision would run the wrong kernel. A cryptographic hash makes that a
// non-event; the project has no crypto library, and this is ~100 lines.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace moetune::rtc {

class Sha256 {
public:
    Sha256();
    Sha256& update(std::string_view bytes);
    // Finishes the hash; the object must not be updated afterwards.
    std::array<std::uint8_t, 32> digest();
    std::string hex_digest();

private:
    void process_block(const std::uint8_t* block);
    std::array<std::uint32_t, 8> state_;
    std::array<std::uint8_t, 64> buffer_{};
    std::size_t buffered_ = 0;
    std::uint64_t total_bytes_ = 0;
};

}  // namespace moetune::rtc
