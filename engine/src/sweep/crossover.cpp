#include "slicescope/sweep/crossover.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>

namespace slicescope::sweep {

namespace {

std::optional<double> number(const std::string& text) {
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
        return std::nullopt;
    }
    return value;
}

bool usable(double t) {
    return std::isfinite(t) && t >= 0;
}

// The index of the fastest strategy at point i, keeping the previous leader on a tie;
// -1 when no strategy has a time there.
int leaderAt(const std::vector<Series>& series, std::size_t i, int previous) {
    int best = -1;
    for (std::size_t s = 0; s < series.size(); ++s) {
        if (i >= series[s].timesNs.size() || !usable(series[s].timesNs[i])) {
            continue;
        }
        const double t = series[s].timesNs[i];
        if (best < 0 || t < series[std::size_t(best)].timesNs[i]) {
            best = int(s);
        }
    }
    if (best >= 0 && previous >= 0 && i < series[std::size_t(previous)].timesNs.size() &&
        usable(series[std::size_t(previous)].timesNs[i]) &&
        series[std::size_t(previous)].timesNs[i] <= series[std::size_t(best)].timesNs[i]) {
        return previous; // a tie keeps the lead
    }
    return best;
}

std::string formatValue(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", value);
    return text;
}

} // namespace

std::vector<trace::Crossover> findCrossovers(const std::string& param,
                                             const std::vector<std::string>& values,
                                             const std::vector<Series>& series, bool logScale) {
    std::vector<trace::Crossover> crossovers;
    int leader = -1;
    std::size_t leaderPoint = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
        const int now = leaderAt(series, i, leader);
        if (now < 0) {
            continue; // no strategy ran here: the lead carries over the gap
        }
        if (leader >= 0 && now != leader) {
            const auto& a = series[std::size_t(leader)];
            const auto& b = series[std::size_t(now)];
            trace::Crossover c;
            c.from = a.strategy;
            c.to = b.strategy;
            c.lowValue = values[leaderPoint];
            c.highValue = values[i];
            const auto x0 = number(c.lowValue);
            const auto x1 = number(c.highValue);
            const double a0 = a.timesNs[leaderPoint];
            const double b0 = leaderPoint < b.timesNs.size() ? b.timesNs[leaderPoint] : NAN;
            const double a1 = i < a.timesNs.size() ? a.timesNs[i] : NAN;
            const double b1 = b.timesNs[i];
            const bool logOk = !logScale || (x0 && x1 && *x0 > 0 && *x1 > 0 && a0 > 0 && b0 > 0 &&
                                             a1 > 0 && b1 > 0);
            if (x0 && x1 && usable(b0) && usable(a1) && logOk) {
                // d = time(A) - time(B) on the chart's axes: <= 0 at x0, > 0 at x1.
                const auto axis = [logScale](double v) { return logScale ? std::log(v) : v; };
                const double d0 = axis(a0) - axis(b0);
                const double d1 = axis(a1) - axis(b1);
                const double f = d1 != d0 ? d0 / (d0 - d1) : 0.5;
                const double u = axis(*x0) + f * (axis(*x1) - axis(*x0));
                c.at = logScale ? std::exp(u) : u;
                c.interpolated = true;
                c.text = "from " + param + " ≈ " + formatValue(c.at) + " " + c.to + " beats " +
                         c.from + " (interpolated between " + c.lowValue + " and " + c.highValue +
                         ")";
            } else {
                c.text = "between " + param + " " + c.lowValue + " and " + c.highValue + " " +
                         c.to + " overtakes " + c.from + " (not interpolated)";
            }
            crossovers.push_back(std::move(c));
        }
        leader = now;
        leaderPoint = i;
    }
    return crossovers;
}

} // namespace slicescope::sweep
