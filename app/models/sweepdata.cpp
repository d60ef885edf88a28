#include "models/sweepdata.h"

#include "models/occupancyfacts.h"
#include "models/runnaming.h"
#include "slicescope/backend/cpubackend.h"
#include "slicescope/device/devicespec.h"
#include "slicescope/sweep/crossover.h"

#include <QFileInfo>
#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>

namespace slicescope::models {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// This machine's CPU, as its CPU runs name their device: read once.
const std::string& thisHostCpu() {
    static const std::string name = backend::hostCpuName();
    return name;
}

QString percent(double fraction) {
    return QString::number(std::lround(fraction * 100.0)) + QStringLiteral(" %");
}

// Occupancy that counts at a point: achieved where measured, else theoretical.
double occupancyAt(const SweepLine& line, int i) {
    return std::isfinite(line.achieved.value(i, kNaN)) ? line.achieved[i]
                                                       : line.theoretical.value(i, kNaN);
}

} // namespace

QList<Divergence> findDivergences(const QString& param, const QStringList& values,
                                  const SweepLine& line) {
    QList<Divergence> found;
    int fastest = -1;
    int bestPoint = -1;
    double best = 0;
    for (int i = 0; i < line.timesNs.size(); ++i) {
        if (std::isfinite(line.timesNs[i]) && std::isfinite(occupancyAt(line, i)) &&
            (fastest < 0 || line.timesNs[i] < line.timesNs[fastest])) {
            fastest = i;
        }
        if (std::isfinite(line.timesNs[i]) && std::isfinite(occupancyAt(line, i)) &&
            (bestPoint < 0 || occupancyAt(line, i) > best)) {
            bestPoint = i;
            best = occupancyAt(line, i);
        }
    }
    if (fastest < 0) {
        return found;
    }
    const double fastOccupancy = occupancyAt(line, fastest);
    const QString fastValue = values.value(fastest);
    for (int i = 0; i < line.timesNs.size(); ++i) {
        const double occupancy = occupancyAt(line, i);
        if (i == fastest || !std::isfinite(line.timesNs[i]) || !std::isfinite(occupancy)) {
            continue;
        }
        const double slowdown = line.timesNs[i] / line.timesNs[fastest];
        if (occupancy >= fastOccupancy + kDivergentOccupancy && slowdown >= kDivergentSlowdown) {
            found.append(
                {line.strategy, i, true,
                 QStringLiteral("%1 %2: %3 occupancy, yet %4x slower than %1 %5 at %6: more "
                                "resident warps do not help when memory or copies bound the run")
                     .arg(param, values.value(i), percent(occupancy))
                     .arg(slowdown, 0, 'f', 1)
                     .arg(fastValue, percent(fastOccupancy))});
        }
    }
    // Low and fast only when the best-occupied point is clearly slower: equal times (copies
    // that dominate every point) say nothing about occupancy.
    if (best >= fastOccupancy + kDivergentOccupancy &&
        line.timesNs[bestPoint] >= kDivergentSlowdown * line.timesNs[fastest]) {
        found.append(
            {line.strategy, fastest, false,
             QStringLiteral("%1 %2 is the fastest at only %3 occupancy (best %4): "
                            "occupancy is not what limits %5")
                 .arg(param, fastValue, percent(fastOccupancy), percent(best), line.strategy)});
    }
    return found;
}

QList<SweepView> collectSweeps(const std::vector<RunEntryPtr>& runs) {
    // key -> the sweep's runs, in session order
    std::map<QString, std::vector<const RunEntry*>> groups;
    std::vector<QString> order;
    for (const auto& entry : runs) {
        if (!entry->visible || !entry->run->sweep) {
            continue;
        }
        // The batch, not the file it was loaded from: restored runs all come from the session
        // file, yet each sweep keeps its own batch (runnaming.h).
        const QString key =
            batchOf(*entry) + QLatin1Char('|') + toQString(entry->run->sweep->param);
        if (groups.find(key) == groups.end()) {
            order.push_back(key);
        }
        groups[key].push_back(entry.get());
    }
    QList<SweepView> views;
    for (const QString& key : order) {
        const auto& members = groups[key];
        SweepView view;
        view.key = key;
        view.param = toQString(members.front()->run->sweep->param);
        // Values by their index in the sweep; a value seen at no index keeps its first place.
        std::map<std::uint32_t, QString> byIndex;
        for (const RunEntry* e : members) {
            byIndex.emplace(e->run->sweep->index, toQString(e->run->sweep->value));
        }
        for (const auto& [index, value] : byIndex) {
            if (!view.values.contains(value)) {
                view.values << value;
            }
        }
        bool numeric = true;
        QVector<double> numbers;
        for (const QString& value : view.values) {
            bool ok = false;
            const double number = value.toDouble(&ok);
            numeric = numeric && ok && number > 0;
            numbers << number;
        }
        if (numeric) {
            view.numbers = numbers;
        }
        QStringList strategies;
        for (const RunEntry* e : members) {
            const QString strategy = toQString(e->run->strategy);
            int k = strategies.indexOf(strategy);
            if (k < 0) {
                strategies << strategy;
                SweepLine line;
                line.strategy = strategy;
                line.predicted = e->predictedWord();
                line.timesNs.fill(kNaN, view.values.size());
                line.spreadNs.fill(kNaN, view.values.size());
                line.theoretical.fill(kNaN, view.values.size());
                line.achieved.fill(kNaN, view.values.size());
                if (view.param == QStringLiteral("block") && e->run->launch) {
                    const OccupancyFacts facts = computeOccupancyFacts(*e);
                    line.curveBlockSizes = facts.blockSizes;
                    line.curveOccupancy = facts.occupancyByBlockSize;
                }
                view.lines << line;
                k = int(view.lines.size()) - 1;
            }
            SweepLine& line = view.lines[k];
            const int i = int(view.values.indexOf(toQString(e->run->sweep->value)));
            line.timesNs[i] = double(e->summary.perRepetitionNs());
            line.spreadNs[i] = sweep::repetitionSpreadNs(*e->run);
            if (const auto& occupancy = e->run->occupancy) {
                line.theoretical[i] = occupancy->theoretical;
                if (occupancy->achieved) {
                    line.achieved[i] = *occupancy->achieved;
                    view.hasAchieved = true;
                }
            }
        }
        std::vector<sweep::Series> series;
        std::vector<std::string> values;
        for (const QString& v : view.values) {
            values.push_back(v.toStdString());
        }
        for (const SweepLine& line : view.lines) {
            series.push_back({line.strategy.toStdString(),
                              std::vector<double>(line.timesNs.begin(), line.timesNs.end()),
                              std::vector<double>(line.spreadNs.begin(), line.spreadNs.end()),
                              // Projected times keep the measured repetitions' spread.
                              line.predicted == QStringLiteral("modelled")});
        }
        std::vector<const trace::Run*> memberRuns;
        for (const RunEntry* e : members) {
            memberRuns.push_back(e->run.get());
        }
        view.basis = toQString(sweep::sweepBasis(memberRuns, thisHostCpu()));
        auto verdict = sweep::judgeSweep(view.param.toStdString(), values, series, view.isNumeric(),
                                         view.basis.toStdString());
        view.crossovers = std::move(verdict.crossovers);
        view.withinNoise = std::move(verdict.withinNoise);
        view.winner = toQString(verdict.winner);
        for (const auto& line : verdict.lines) {
            view.verdict << toQString(line);
        }
        if (view.param == QStringLiteral("block")) {
            for (const SweepLine& line : view.lines) {
                view.divergences << findDivergences(view.param, view.values, line);
            }
        }
        const QString file = QFileInfo(batchOf(*members.front())).fileName();
        view.source = file.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(file);
        view.title = QStringLiteral("%1 sweep of %2%3%4")
                         .arg(view.param, strategies.join(QStringLiteral(", ")),
                              view.basis.isEmpty() ? QString() : QStringLiteral(": ") + view.basis,
                              view.source);
        views << view;
    }
    return views;
}

QList<RooflineView> collectRooflines(const std::vector<RunEntryPtr>& runs) {
    QList<RooflineView> views;
    // Each view's marks gathered in a vector, which grows by moving them, and handed over once:
    // a session of 50,000 GPU runs spent most of this in the list's growth.
    std::vector<std::vector<RooflineMark>> marks;
    for (const auto& entry : runs) {
        if (!entry->visible) {
            continue;
        }
        const trace::Run& run = *entry->run;
        const std::optional<trace::Ceilings> ceilings = sweep::ceilingsOf(run);
        if (!ceilings) {
            continue;
        }
        auto roof = sweep::runRoofline(run, entry->summary, *ceilings);
        if (!roof) {
            continue;
        }
        const bool fp32 = run.problem && run.problem->dtype == problem::Dtype::F32;
        const QString title = QStringLiteral("%1: %2 ceilings")
                                  .arg(toQString(run.device.name), toQString(ceilings->source));
        auto it = std::find_if(views.begin(), views.end(), [&](const RooflineView& v) {
            return v.title == title && v.ceilings == *ceilings && v.fp32 == fp32;
        });
        if (it == views.end()) {
            views.append({title, *ceilings, fp32, {}});
            marks.emplace_back();
            it = views.end() - 1;
        }
        marks[std::size_t(it - views.begin())].push_back(
            {entry->id, toQString(run.strategy), entry->predictedWord(), std::move(*roof)});
    }
    for (qsizetype i = 0; i < views.size(); ++i) {
        auto& from = marks[std::size_t(i)];
        views[i].marks.reserve(qsizetype(from.size()));
        std::move(from.begin(), from.end(), std::back_inserter(views[i].marks));
    }
    return views;
}

} // namespace slicescope::models
