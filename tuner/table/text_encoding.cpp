#include "table/text_encoding.h"

#include <cstdio>

namespace moetune::table {
namespace {

// Length of the UTF-8 sequence starting at text[i], or 0 when it is not valid (overlong forms,
// surrogates and code points above U+10FFFF included, per RFC 3629).
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char b0 = byte(i);
    if (b0 < 0x80) return 1;
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (b0 >= 0xC2 && b0 <= 0xDF) len = 2;
    else if (b0 == 0xE0) len = 3, lo = 0xA0;
    else if ((b0 >= 0xE1 && b0 <= 0xEC) || b0 == 0xEE || b0 == 0xEF) len = 3;
    else if (b0 == 0xED) len = 3, hi = 0x9F;
    else if (b0 == 0xF0) len = 4, lo = 0x90;
    else if (b0 >= 0xF1 && b0 <= 0xF3) len = 4;
    else if (b0 == 0xF4) len = 4, hi = 0x8F;
    else return 0;
    if (i + len > text.size()) return 0;
    if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
    for (std::size_t k = 2; k < len; ++k)
        if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
    return len;
}

}  // namespace

std::optional<BinaryContent> find_binary_content(std::string_view text) {
    std::size_t line = 1;
    for (std::size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (c == '\0') return BinaryContent{line, "a NUL byte"};
        if (c == '\n') ++line;
        const std::size_t len = utf8_sequence_length(text, i);
        if (len == 0) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned char>(c));
            return BinaryContent{line, std::string("invalid UTF-8 (byte ") + hex + ")"};
        }
        i += len;
    }
    return std::nullopt;
}

std::string_view strip_utf8_bom(std::string_view text) {
    constexpr std::string_view bom = "\xEF\xBB\xBF";
    if (text.substr(0, bom.size()) == bom) text.remove_prefix(bom.size());
    return text;
}

}  // namespace moetune::table
