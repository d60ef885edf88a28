#include "slicescope/sweep/crossover.h"

#include "slicescope/sweep/sweepplan.h"
#include "slicescope/trace/runsummary.h"

#include <algorithm>
#include <cctype>
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

double timeAt(const Series& s, std::size_t k) {
    return k < s.timesNs.size() ? s.timesNs[k] : NAN;
}

double spreadAt(const Series& s, std::size_t k) {
    return k < s.spreadNs.size() && std::isfinite(s.spreadNs[k]) ? s.spreadNs[k] : 0.0;
}

// The index of the fastest strategy at point i, keeping the previous leader on a tie (within
// noise, or an equal time with Lead::Strict); -1 when no strategy has a time there.
int leaderAt(const std::vector<Series>& series, std::size_t i, int previous, Lead lead) {
    int best = -1;
    for (std::size_t s = 0; s < series.size(); ++s) {
        if (!usable(timeAt(series[s], i))) {
            continue;
        }
        if (best < 0 || series[s].timesNs[i] < series[std::size_t(best)].timesNs[i]) {
            best = int(s);
        }
    }
    if (best < 0 || previous < 0 || !usable(timeAt(series[std::size_t(previous)], i))) {
        return best;
    }
    const Series& kept = series[std::size_t(previous)];
    const bool tie = lead == Lead::BeyondNoise
                         ? withinNoise(kept, series[std::size_t(best)], i)
                         : kept.timesNs[i] <= series[std::size_t(best)].timesNs[i];
    return tie ? previous : best; // a tie keeps the lead
}

// Three significant figures, never an exponent: "1800", "40.5", "0.0123" (the sweep's values
// are sizes and counts a student reads, not "1.8e+03").
std::string formatValue(double value) {
    if (!std::isfinite(value) || value == 0) {
        return value == 0 ? "0" : std::to_string(value);
    }
    const int magnitude = int(std::floor(std::log10(std::fabs(value))));
    const double unit = std::pow(10.0, magnitude - 2);
    const double rounded = std::round(value / unit) * unit;
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", std::max(0, 2 - magnitude), rounded);
    std::string out = text;
    if (out.find('.') != std::string::npos) { // as %g: "10", not "10.0"
        out.erase(out.find_last_not_of('0') + 1);
        if (out.back() == '.') {
            out.pop_back();
        }
    }
    return out;
}

} // namespace

double repetitionSpreadNs(const trace::Run& run) {
    const std::vector<std::int64_t> times = trace::repetitionTimesNs(run);
    if (times.size() < 2) {
        return NAN;
    }
    const auto [low, high] = std::minmax_element(times.begin(), times.end());
    return double(*high - *low);
}

bool withinNoise(const Series& a, const Series& b, std::size_t point) {
    const double ta = timeAt(a, point);
    const double tb = timeAt(b, point);
    if (!usable(ta) || !usable(tb)) {
        return false;
    }
    const double noise =
        std::max({kTieShare * std::min(ta, tb), spreadAt(a, point), spreadAt(b, point)});
    return std::abs(ta - tb) <= noise;
}

std::vector<trace::Crossover> findCrossovers(const std::string& param,
                                             const std::vector<std::string>& values,
                                             const std::vector<Series>& series, bool logScale,
                                             Lead lead) {
    std::vector<trace::Crossover> crossovers;
    int leader = -1;
    std::size_t leaderPoint = 0; // the last point where the leader led
    std::size_t leadStart = 0;   // the first point of its lead
    for (std::size_t i = 0; i < values.size(); ++i) {
        const int now = leaderAt(series, i, leader, lead);
        if (now < 0) {
            continue; // no strategy ran here: the lead carries over the gap
        }
        if (leader >= 0 && now != leader) {
            const auto& a = series[std::size_t(leader)];
            const auto& b = series[std::size_t(now)];
            // The lead changed at point i; the times themselves crossed between the last point
            // where A was no slower than B and the next point where both ran (a tie within
            // noise may have kept A's lead past that).
            const auto at = timeAt;
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

namespace {

// "≈ 174" or "between f64 and f32", with the strategy ahead after it when more than two ran.
std::string crossingWords(const trace::Crossover& c, bool name) {
    std::string words =
        c.interpolated ? "≈ " + formatValue(c.at) : "between " + c.lowValue + " and " + c.highValue;
    return name ? words + " (" + c.to + " ahead)" : words;
}

// "a", "a and b", "a, b and c".
std::string joinWords(const std::vector<std::string>& words) {
    std::string text;
    for (std::size_t i = 0; i < words.size(); ++i) {
        text += (i == 0 ? "" : i + 1 == words.size() ? " and " : ", ") + words[i];
    }
    return text;
}

std::string times(std::size_t n) {
    return n == 1 ? "once" : n == 2 ? "twice" : std::to_string(n) + " times";
}

// Whether no other strategy is faster than s beyond noise at any point where one ran, s running
// at each of them.
bool neverBeaten(const std::vector<Series>& series, std::size_t s, std::size_t points) {
    for (std::size_t i = 0; i < points; ++i) {
        bool anyRan = false;
        for (std::size_t t = 0; t < series.size(); ++t) {
            const double other = timeAt(series[t], i);
            anyRan = anyRan || usable(other);
            if (t != s && usable(other) && usable(timeAt(series[s], i)) &&
                other < series[s].timesNs[i] && !withinNoise(series[s], series[t], i)) {
                return false;
            }
        }
        if (anyRan && !usable(timeAt(series[s], i))) {
            return false;
        }
    }
    return true;
}

bool anySpread(const std::vector<Series>& series) {
    return std::any_of(series.begin(), series.end(), [](const Series& s) {
        return std::any_of(s.spreadNs.begin(), s.spreadNs.end(),
                           [](double v) { return std::isfinite(v); });
    });
}

// "within noise (5 % of the faster time, or ...)", for the lines of the verdict.
std::string withinNoiseWords(const std::vector<Series>& series) {
    const std::string floor = std::to_string(int(std::lround(kTieShare * 100)));
    return "within noise (" + floor + " % of the faster time" +
           (anySpread(series) ? ", or the spread of a run's repetitions where larger)" : ")");
}

// Measured lines, none of them repeated: their noise was not measured.
bool noiseUnmeasured(const std::vector<Series>& series) {
    return !anySpread(series) &&
           std::any_of(series.begin(), series.end(), [](const Series& s) { return !s.modelled; });
}

const char* const kRepeatAdvice = "No measured run repeated, so its noise was not measured: "
                                  "sweep with --repeat 3 or more to measure it.";

// The strategy that wins a sweep with no crossover, or that none does, in v.lines.
void nameTheWinner(SweepVerdict& v, const std::vector<Series>& series, std::size_t points,
                   const std::vector<std::size_t>& fastestAt) {
    const auto most =
        std::size_t(std::max_element(fastestAt.begin(), fastestAt.end()) - fastestAt.begin());
    if (v.withinNoise.empty()) {
        v.winner = series[most].strategy;
        v.winnerPoints = fastestAt[most];
        v.lines.push_back("No crossover: " + v.winner + " is the fastest at every value.");
        return;
    }
    std::vector<std::string> unbeaten;
    std::size_t first = series.size();
    for (std::size_t s = 0; s < series.size(); ++s) {
        if (neverBeaten(series, s, points)) {
            unbeaten.push_back(series[s].strategy);
            first = std::min(first, s);
        }
    }
    if (unbeaten.size() > 1) {
        v.lines.push_back("No strategy wins beyond noise: " + joinWords(unbeaten) +
                          " are each within noise of the fastest at every value.");
        return;
    }
    const std::size_t w = unbeaten.empty() ? most : first;
    v.winner = series[w].strategy;
    v.winnerPoints = fastestAt[w];
    const std::string count =
        std::to_string(v.winnerPoints) + " of " + std::to_string(v.points) + ")";
    v.lines.push_back(unbeaten.empty()
                          ? v.winner + " is the fastest at the most values (" + count + "."
                          : v.winner + " wins: no strategy is faster beyond noise at any value (" +
                                v.winner + " is the fastest at " + count + ".");
}

// The series with each measured line whose work the parameter does not change given its times'
// range across the sweep as its noise at every point; steady gets a line for each such series
// ("cpu-parallel does the same work at every block: its times span 41 µs (8.3 %), counted as its
// noise.").
std::vector<Series> withSteadyNoise(const std::string& param, std::vector<Series> series,
                                    std::vector<std::string>& steady) {
    for (Series& s : series) {
        if (s.modelled || changesWorkOf(param, s.strategy)) {
            continue;
        }
        std::vector<double> times;
        for (double t : s.timesNs) {
            if (usable(t)) {
                times.push_back(t);
            }
        }
        if (times.size() < 2) {
            continue;
        }
        const auto [low, high] = std::minmax_element(times.begin(), times.end());
        const double range = *high - *low;
        s.spreadNs.resize(s.timesNs.size(), NAN);
        for (double& spread : s.spreadNs) {
            spread = std::isfinite(spread) ? std::max(spread, range) : range;
        }
        steady.push_back(s.strategy + " does the same work at every " + param +
                         ": its times span " + trace::formatDurationNs(std::llround(range)) + " (" +
                         trace::formatPercent(*low > 0 ? range / *low : 0) +
                         "), counted as its noise.");
    }
    return series;
}

} // namespace

SweepVerdict judgeSweep(const std::string& param, const std::vector<std::string>& values,
                        const std::vector<Series>& measured, bool logScale,
                        const std::string& basis) {
    SweepVerdict v;
    std::vector<std::string> steady;
    const std::vector<Series> series = withSteadyNoise(param, measured, steady);
    v.crossovers = findCrossovers(param, values, series, logScale, Lead::BeyondNoise);
    const auto strict = findCrossovers(param, values, series, logScale, Lead::Strict);
    std::vector<std::string> crossings; // every one, in sweep order
    for (const auto& c : strict) {
        const bool isCrossover =
            std::any_of(v.crossovers.begin(), v.crossovers.end(), [&c](const auto& k) {
                return k.lowValue == c.lowValue && k.highValue == c.highValue;
            });
        if (!isCrossover) {
            v.withinNoise.push_back(c);
        }
        crossings.push_back(crossingWords(c, series.size() > 2));
    }
    // The strictly fastest at each point (the first in series order on an equal time).
    std::vector<std::size_t> fastestAt(series.size(), 0);
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (const int best = leaderAt(series, i, -1, Lead::Strict); best >= 0) {
            ++fastestAt[std::size_t(best)];
            ++v.points;
        }
    }
    if (!basis.empty()) {
        std::string first = basis;
        first[0] = char(std::toupper(static_cast<unsigned char>(first[0])));
        v.lines.push_back(first + ".");
    }
    v.lines.insert(v.lines.end(), steady.begin(), steady.end());
    if (series.size() < 2 || v.points == 0) {
        v.winner = series.size() == 1 && v.points > 0 ? series.front().strategy : std::string();
        v.winnerPoints = v.points;
        v.lines.push_back(series.size() == 1 ? "No crossover: " + series.front().strategy +
                                                   " is the only strategy."
                                             : "No crossover: no strategy ran.");
        return v;
    }
    const std::string where = param + " " + joinWords(crossings);
    if (v.crossovers.empty()) {
        if (!v.withinNoise.empty()) {
            v.lines.push_back("No crossover beyond noise: the lines cross " +
                              times(crossings.size()) + ", at " + where + ", each time " +
                              withinNoiseWords(series) + ".");
        }
        nameTheWinner(v, series, values.size(), fastestAt);
    } else if (v.withinNoise.empty()) {
        if (v.crossovers.size() > 1) {
            v.lines.push_back("The fastest strategy changes " + times(v.crossovers.size()) + ":");
        }
        for (const auto& c : v.crossovers) {
            v.lines.push_back("Crossover: " + c.text + ".");
        }
    } else {
        v.lines.push_back("The lines cross " + times(crossings.size()) + ", at " + where + "; " +
                          times(v.crossovers.size()) + " beyond noise:");
        for (const auto& c : v.crossovers) {
            v.lines.push_back("Crossover: " + c.text + ".");
        }
        const std::size_t others = v.withinNoise.size();
        v.lines.push_back((others == 1 ? std::string("The other is ")
                                       : "The other " + std::to_string(others) + " are ") +
                          withinNoiseWords(series) + ".");
    }
    if (!v.withinNoise.empty() && noiseUnmeasured(series)) {
        v.lines.push_back(kRepeatAdvice);
    }
    return v;
}

std::string sweepBasis(const std::vector<const trace::Run*>& runs, const std::string& thisHostCpu) {
    const trace::Run* gpu = nullptr;
    const trace::Run* cpu = nullptr;
    for (const trace::Run* run : runs) {
        if (run != nullptr && trace::isPredicted(run->mode) && gpu == nullptr) {
            gpu = run;
        }
        if (run != nullptr && run->mode == trace::RunMode::MeasuredCpu && cpu == nullptr) {
            cpu = run;
        }
    }
    if (gpu == nullptr || cpu == nullptr) {
        return {};
    }
    const std::string& host = cpu->device.name;
    const std::string gpuName = gpu->device.name.empty() ? gpu->device.id : gpu->device.name;
    return std::string(trace::predictedWord(gpu->mode)) + " GPU (" + gpuName +
           ") vs measured CPU " +
           (host == thisHostCpu ? std::string("on this host")
            : host.empty()      ? std::string("on an unnamed host")
                                : "on " + host);
}

} // namespace slicescope::sweep
