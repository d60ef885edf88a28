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
        series[std::size_t(previous)].timesNs[i] <=
            series[std::size_t(best)].timesNs[i] * (1 + kTieShare)) {
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
    std::size_t leaderPoint = 0; // the last point where the leader led
    std::size_t leadStart = 0;   // the first point of its lead
    for (std::size_t i = 0; i < values.size(); ++i) {
        const int now = leaderAt(series, i, leader);
        if (now < 0) {
            continue; // no strategy ran here: the lead carries over the gap
        }
        if (leader >= 0 && now != leader) {
            const auto& a = series[std::size_t(leader)];
            const auto& b = series[std::size_t(now)];
            // The lead changed at point i; the times themselves crossed between the last point
            // where A was no slower than B and the next point where both ran (a tie within
            // kTieShare may have kept A's lead past that).
            const auto at = [](const Series& s, std::size_t k) {
                return k < s.timesNs.size() ? s.timesNs[k] : NAN;
            };
            std::size_t low = leaderPoint;
            for (std::size_t k = i; k-- > leadStart;) {
                if (usable(at(a, k)) && usable(at(b, k)) && at(a, k) <= at(b, k)) {
                    low = k;
                    break;
                }
            }
            std::size_t high = i;
            for (std::size_t k = low + 1; k < i; ++k) {
                if (usable(at(a, k)) && usable(at(b, k))) {
                    high = k;
                    break;
                }
            }
            trace::Crossover c;
            c.from = a.strategy;
            c.to = b.strategy;
            c.lowValue = values[low];
            c.highValue = values[high];
            const auto x0 = number(c.lowValue);
            const auto x1 = number(c.highValue);
            const double a0 = at(a, low);
            const double b0 = at(b, low);
            const double a1 = at(a, high);
            const double b1 = at(b, high);
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
        if (now != leader) {
            leadStart = i;
        }
        leader = now;
        leaderPoint = i;
    }
    return crossovers;
}

} // namespace slicescope::sweep
