#pragma once
// An error in something the user gave us (a file, a flag value). It carries the file and line so
// every command reports bad input the same way: "FILE:LINE: message".
#include <cstddef>
#include <stdexcept>
#include <string>

namespace moetune {

class InputError : public std::runtime_error {
public:
    InputError(std::string file, std::size_t line, const std::string& message)
        : std::runtime_error(format(file, line, message)), file_(std::move(file)), line_(line) {}

    const std::string& file() const { return file_; }
    std::size_t line() const { return line_; }  // 0 = the file as a whole

private:
    static std::string format(const std::string& file, std::size_t line, const std::string& message) {
        if (file.empty()) return message;
        return line ? file + ":" + std::to_string(line) + ": " + message : file + ": " + message;
    }
    std::string file_;
    std::size_t line_;
};

}  // namespace moetune
