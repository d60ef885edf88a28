#include "csvreader.h"

namespace slicescope::trace {

std::string_view CsvReader::peekLine() const {
    if (atEnd()) {
        return {};
    }
    const std::size_t end = text_.find('\n', at_);
    std::string_view line = text_.substr(at_, end == std::string_view::npos ? end : end - at_);
    if (line.ends_with('\r')) {
        line.remove_suffix(1);
    }
    return line;
}

void CsvReader::skipLine() {
    const std::size_t end = text_.find('\n', at_);
    at_ = end == std::string_view::npos ? text_.size() : end + 1;
    ++line_;
}

void CsvReader::skipTo(std::size_t offset) {
    while (!atEnd() && at_ < offset) {
        skipLine();
    }
}

bool CsvReader::fail(std::size_t line, const std::string& message) {
    if (!error_) {
        error_ = Error{Error::Code::Parse, "line " + std::to_string(line) + ": " + message};
    }
    at_ = text_.size();
    return false;
}

bool CsvReader::next(std::vector<std::string_view>& fields) {
    fields.clear();
    spans_.clear();
    unquoted_.clear();
    if (atEnd() || error_) {
        return false;
    }
    const std::size_t recordLine = line_;
    for (;;) {
        if (spans_.size() >= kMaxFields) {
            return fail(recordLine,
                        "a record of more than " + std::to_string(kMaxFields) + " fields");
        }
        Span span;
        if (at_ < text_.size() && text_[at_] == '"') {
            // A quoted field: up to the quote that is not doubled.
            const std::size_t fieldLine = line_;
            std::size_t from = ++at_;
            bool doubled = false;
            for (;;) {
                const std::size_t quote = text_.find('"', at_);
                if (quote == std::string_view::npos) {
                    return fail(fieldLine, "a quoted field that never ends");
                }
                for (std::size_t i = at_; i < quote; ++i) {
                    line_ += text_[i] == '\n' ? 1 : 0;
                }
                if (quote + 1 < text_.size() && text_[quote + 1] == '"') {
                    if (!doubled) {
                        span.inUnquoted = true;
                        span.start = unquoted_.size();
                        doubled = true;
                    }
                    unquoted_.append(text_.substr(from, quote + 1 - from));
                    at_ = from = quote + 2;
                    continue;
                }
                if (doubled) {
                    unquoted_.append(text_.substr(from, quote - from));
                    span.size = unquoted_.size() - span.start;
                } else {
                    span.start = from;
                    span.size = quote - from;
                }
                at_ = quote + 1;
                break;
            }
        } else {
            const std::size_t end = std::min(text_.find_first_of(",\n\"", at_), text_.size());
            if (end < text_.size() && text_[end] == '"') {
                return fail(line_, "a quote inside an unquoted field");
            }
            span.start = at_;
            span.size = end - at_;
            if (span.size > 0 && end <= text_.size() && text_[end - 1] == '\r' &&
                (end == text_.size() || text_[end] == '\n')) {
                --span.size; // CRLF
            }
            at_ = end;
        }
        spans_.push_back(span);
        if (at_ >= text_.size()) {
            break;
        }
        const char after = text_[at_];
        if (after == ',') {
            ++at_;
            continue;
        }
        if (after == '\r' && at_ + 1 < text_.size() && text_[at_ + 1] == '\n') {
            ++at_;
        }
        if (text_[at_] != '\n') {
            return fail(line_, "text after a quoted field");
        }
        ++at_;
        ++line_;
        break;
    }
    for (const Span& s : spans_) {
        fields.push_back(s.inUnquoted ? std::string_view(unquoted_).substr(s.start, s.size)
                                      : text_.substr(s.start, s.size));
    }
    return true;
}

} // namespace slicescope::trace
