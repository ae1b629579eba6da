#include "measure/failure.h"

namespace moetune::measure {

std::string failure_text(std::string_view kind, std::string_view detail, std::size_t max_chars) {
    std::string text = std::string(kind) + ": ";
    bool pending_break = false;
    for (char c : detail) {
        if (c == '\r') continue;
        if (c == '\n') {
            pending_break = true;
            continue;
        }
        if (pending_break) text += " | ";
        pending_break = false;
        text += c;
    }
    if (text.size() > max_chars) text = text.substr(0, max_chars - 3) + "...";
    return text;
}

std::string_view failure_kind(std::string_view failure) {
    std::size_t n = 0;
    while (n < failure.size() && failure[n] >= 'a' && failure[n] <= 'z') ++n;
    return failure.substr(0, n);
}

}  // namespace moetune::measure
