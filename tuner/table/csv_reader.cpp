#include "table/csv_reader.h"

#include "common/input_error.h"

namespace moetune::table {
namespace {

class CsvScanner {
public:
    CsvScanner(std::string_view text, const std::string& file) : text_(text), file_(file) {}

    std::vector<CsvRecord> records() {
        std::vector<CsvRecord> out;
        while (pos_ < text_.size()) {
            if (blank_line()) {  // pandas skips it (its tokenizer's whitespace-line state)
                while (pos_ < text_.size() && !at_line_end()) ++pos_;
                if (pos_ < text_.size()) consume_line_end();
                continue;
            }
            CsvRecord record{line_, {}};
            while (true) {
                record.fields.push_back(field());
                if (pos_ < text_.size() && text_[pos_] == ',') {
                    ++pos_;
                    continue;
                }
                if (pos_ < text_.size()) consume_line_end();
                break;
            }
            out.push_back(std::move(record));
        }
        return out;
    }

private:
    bool at_line_end() const { return text_[pos_] == '\n' || text_[pos_] == '\r'; }

    // Whether the line from pos_ holds nothing but spaces and tabs.
    bool blank_line() const {
        for (std::size_t i = pos_; i < text_.size() && text_[i] != '\n' && text_[i] != '\r'; ++i)
            if (text_[i] != ' ' && text_[i] != '\t') return false;
        return true;
    }

    void consume_line_end() {
        if (text_[pos_] == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n') ++pos_;
        ++pos_;
        ++line_;
    }

    std::string field() {
        std::string value;
        if (pos_ < text_.size() && text_[pos_] == '"') quoted_part(value);
        // Unquoted text, or text after a closing quote (kept, as pandas does).
        while (pos_ < text_.size() && text_[pos_] != ',' && !at_line_end()) value += text_[pos_++];
        return value;
    }

    void quoted_part(std::string& value) {
        const std::size_t opened_on = line_;
        ++pos_;
        while (true) {
            if (pos_ >= text_.size()) throw InputError(file_, opened_on, "quoted field is never closed");
            const char c = text_[pos_];
            if (c == '"') {
                if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '"') {
                    value += '"';
                    pos_ += 2;
                    continue;
                }
                ++pos_;
                return;
            }
            // A line break inside quotes is data, but still a new physical line for messages.
            if (c == '\n' || (c == '\r' && !(pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n'))) ++line_;
            value += c;
            ++pos_;
        }
    }

    std::string_view text_;
    const std::string& file_;
    std::size_t pos_ = 0;
    std::size_t line_ = 1;
};

}  // namespace

std::vector<CsvRecord> parse_csv(std::string_view text, const std::string& file) {
    return CsvScanner(text, file).records();
}

}  // namespace moetune::table
