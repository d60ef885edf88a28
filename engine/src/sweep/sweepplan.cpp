#include "slicescope/sweep/sweepplan.h"

#include "slicescope/strategy/strategy.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <set>

namespace slicescope::sweep {

namespace {

constexpr SweepParam kParams[] = {SweepParam::Block, SweepParam::Rows, SweepParam::Columns,
                                  SweepParam::N,     SweepParam::Work, SweepParam::Dtype,
                                  SweepParam::Memory};

Error invalid(std::string message) {
    return Error{Error::Code::InvalidArgument, std::move(message)};
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && text.front() == ' ') {
        text.remove_prefix(1);
    }
    while (!text.empty() && text.back() == ' ') {
        text.remove_suffix(1);
    }
    return text;
}

std::optional<std::uint64_t> parseWhole(std::string_view text) {
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
        return std::nullopt;
    }
    return value;
}

std::optional<double> parseReal(std::string_view text) {
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() ||
        !std::isfinite(value)) {
        return std::nullopt;
    }
    return value;
}

std::uint64_t maxOf(SweepParam param) {
    switch (param) {
    case SweepParam::Block:
        return 1024;
    case SweepParam::Work:
        return std::numeric_limits<std::uint32_t>::max();
    default:
        return std::numeric_limits<std::uint64_t>::max();
    }
}

} // namespace

std::string_view toString(SweepParam param) {
    switch (param) {
    case SweepParam::Block:
        return "block";
    case SweepParam::Rows:
        return "rows";
    case SweepParam::Columns:
        return "columns";
    case SweepParam::N:
        return "n";
    case SweepParam::Work:
        return "work";
    case SweepParam::Dtype:
        return "dtype";
    case SweepParam::Memory:
        return "memory";
    }
    return "?";
}

Result<SweepParam> parseSweepParam(std::string_view text) {
    for (auto param : kParams) {
        if (toString(param) == text) {
            return param;
        }
    }
    return tl::unexpected(invalid("unknown sweep parameter '" + std::string(text) +
                                  "' (known: block, rows, columns, n, work, dtype, memory)"));
}

bool isNumeric(SweepParam param) {
    return param != SweepParam::Dtype && param != SweepParam::Memory;
}

Result<std::string> checkValue(SweepParam param, std::string_view value) {
    const std::string name(toString(param));
    if (param == SweepParam::Dtype) {
        if (auto dtype = problem::parseDtype(value); !dtype) {
            return tl::unexpected(invalid("--param dtype: " + dtype.error().message));
        }
        return std::string(value);
    }
    if (param == SweepParam::Memory) {
        if (auto memory = backend::parseMemoryMode(value); !memory) {
            return tl::unexpected(invalid("--param memory: " + memory.error().message));
        }
        return std::string(value);
    }
    const auto number = parseWhole(value);
    if (!number || *number < 1 || *number > maxOf(param)) {
        return tl::unexpected(invalid("--param " + name + ": '" + std::string(value) +
                                      "' is not a whole number from 1 to " +
                                      std::to_string(maxOf(param))));
    }
    return std::to_string(*number);
}

Result<std::vector<std::string>> parseValues(SweepParam param, std::string_view list) {
    std::vector<std::string> values;
    std::set<std::string> seen;
    if (trim(list).empty()) {
        return tl::unexpected(invalid("--values is empty: give values such as 32,64,128"));
    }
    for (std::size_t start = 0; start <= list.size();) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        const auto item = trim(list.substr(start, comma - start));
        start = comma + 1;
        if (item.empty()) {
            return tl::unexpected(
                invalid("--values has an empty value in '" + std::string(list) + "'"));
        }
        auto value = checkValue(param, item);
        if (!value) {
            return tl::unexpected(value.error());
        }
        if (!seen.insert(*value).second) {
            return tl::unexpected(invalid("--values names " + *value + " twice"));
        }
        values.push_back(*value);
        if (values.size() > kMaxPoints) {
            return tl::unexpected(
                invalid("a sweep has at most " + std::to_string(kMaxPoints) + " points"));
        }
    }
    return values;
}

Result<std::vector<std::string>> parseRange(SweepParam param, std::string_view range) {
    const std::string name(toString(param));
    if (!isNumeric(param)) {
        return tl::unexpected(invalid("--range needs a numeric parameter; give --param " + name +
                                      " its values with --values"));
    }
    const auto usage = [&](const std::string& why) {
        return tl::unexpected(invalid("--range '" + std::string(range) + "': " + why +
                                      " (expected START:STOP[:xFACTOR|:+STEP], e.g. 32:1024:x2)"));
    };
    std::vector<std::string_view> parts;
    for (std::size_t start = 0; start <= range.size();) {
        const std::size_t colon = std::min(range.find(':', start), range.size());
        parts.push_back(trim(range.substr(start, colon - start)));
        start = colon + 1;
    }
    if (parts.size() < 2 || parts.size() > 3) {
        return usage("needs two or three parts");
    }
    auto start = checkValue(param, parts[0]);
    if (!start) {
        return tl::unexpected(start.error());
    }
    auto stop = checkValue(param, parts[1]);
    if (!stop) {
        return tl::unexpected(stop.error());
    }
    const std::uint64_t first = *parseWhole(*start);
    const std::uint64_t last = *parseWhole(*stop);
    if (first > last) {
        return usage("START is above STOP");
    }
    double factor = 2;
    std::uint64_t step = 0;
    if (parts.size() == 3) {
        const auto s = parts[2];
        if (s.starts_with('x')) {
            const auto f = parseReal(s.substr(1));
            if (!f || *f <= 1) {
                return usage("the factor must be a number above 1, so the range ends");
            }
            factor = *f;
        } else if (s.starts_with('+')) {
            const auto n = parseWhole(s.substr(1));
            if (!n || *n < 1) {
                return usage("the step must be a whole number of at least 1, so the range ends");
            }
            step = *n;
        } else {
            return usage("the step must be xFACTOR or +STEP");
        }
    }
    std::vector<std::string> values;
    long double x = (long double)first;
    std::uint64_t previous = 0;
    for (std::uint64_t v = first; v <= last;) {
        if (v != previous || values.empty()) {
            values.push_back(std::to_string(v));
            previous = v;
        }
        if (values.size() > kMaxPoints) {
            return usage("it has more than " + std::to_string(kMaxPoints) + " points");
        }
        if (step > 0) {
            if (step > last - v) {
                break;
            }
            v += step;
        } else {
            // Rounded to whole values; a factor so small that rounding repeats a value moves on
            // to the next whole number.
            x *= (long double)factor;
            if (x > (long double)last) {
                break;
            }
            const auto next = std::uint64_t(std::llround(x));
            v = next > v ? next : v + 1;
        }
    }
    return values;
}

Result<backend::RunRequest> applyValue(SweepParam param, std::string_view value,
                                       const backend::RunRequest& base) {
    auto checked = checkValue(param, value);
    if (!checked) {
        return tl::unexpected(checked.error());
    }
    backend::RunRequest request = base;
    auto shape = base.problem.shape;
    auto dtype = base.problem.dtype;
    std::int64_t work = base.problem.workPerElement;
    const auto number = isNumeric(param) ? *parseWhole(*checked) : 0;
    switch (param) {
    case SweepParam::Block:
        request.block =
            strategy::BlockOption{strategy::BlockOption::Mode::Explicit, std::uint32_t(number)};
        return request;
    case SweepParam::Memory:
        request.memory = *backend::parseMemoryMode(*checked);
        return request;
    case SweepParam::Rows:
        shape.r = number;
        break;
    case SweepParam::Columns:
        shape.c = number;
        break;
    case SweepParam::N:
        shape.n = number;
        break;
    case SweepParam::Work:
        work = std::int64_t(number);
        break;
    case SweepParam::Dtype:
        dtype = *problem::parseDtype(*checked);
        break;
    }
    auto problem = problem::makeProblem(shape, dtype, work);
    if (!problem) {
        return tl::unexpected(invalid(std::string(toString(param)) + " " + *checked + ": " +
                                      problem.error().message));
    }
    request.problem = *problem;
    return request;
}

bool changesWorkOf(std::string_view param, std::string_view strategy) {
    const auto p = parseSweepParam(param);
    const auto s = strategy::parseStrategy(strategy);
    if (!p || !s || (*p != SweepParam::Block && *p != SweepParam::Memory)) {
        return true;
    }
    return strategy::isGpu(*s);
}

std::string pointRunId(std::string_view strategy, std::string_view param, std::string_view value) {
    return std::string(strategy) + "@" + std::string(param) + "=" + std::string(value);
}

} // namespace slicescope::sweep
