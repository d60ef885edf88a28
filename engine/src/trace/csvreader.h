#pragma once

// A forward-only reader of CSV records (RFC 4180: fields separated by commas, quoted with ",
// a quote inside a quoted field written twice, records ended by LF or CRLF) for the Nsight Compute
// import (engine-internal). It faces hostile text as the JSON cursor does: every read is bounded,
// a record holds at most kMaxFields fields, and the first problem is kept as an
// Error::Code::Parse naming the line.
#include "slicescope/core/result.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slicescope::trace {

class CsvReader {
  public:
    static constexpr std::size_t kMaxFields = 65536;

    explicit CsvReader(std::string_view text) : text_(text) {}

    bool atEnd() const { return at_ >= text_.size(); }
    // The line the next record starts on, 1-based.
    std::size_t line() const { return line_; }
    // The rest of the line the next record starts on, unread.
    std::string_view peekLine() const;
    void skipLine();
    // Moves to the start of `offset` (counting the lines passed), which must lie ahead.
    void skipTo(std::size_t offset);

    // Reads the next record into fields, which stay valid until the next call. False at the end
    // of the text or on an error (error() says which).
    bool next(std::vector<std::string_view>& fields);
    const std::optional<Error>& error() const { return error_; }
    double fraction() const { return text_.empty() ? 1.0 : double(at_) / double(text_.size()); }

  private:
    bool fail(std::size_t line, const std::string& message);

    std::string_view text_;
    std::size_t at_ = 0;
    std::size_t line_ = 1;
    std::string unquoted_; // the text of fields that held doubled quotes, one after another
    struct Span {
        bool inUnquoted = false;
        std::size_t start = 0;
        std::size_t size = 0;
    };
    std::vector<Span> spans_;
    std::optional<Error> error_;
};

} // namespace slicescope::trace
