#include "models/occupancyfacts.h"

#include "models/chartrows.h"
#include "models/runnaming.h"
#include "slicescope/explain/numbalaunch.h"
#include "slicescope/occupancy/launchoccupancy.h"
#include "slicescope/occupancy/occupancycalculator.h"
#include "slicescope/strategy/strategy.h"
#include "slicescope/trace/runsummary.h"

#include <QHash>
#include <QRegularExpression>
#include <algorithm>

namespace slicescope::models {

QString limiterInPlainWords(const std::string& limiter, const device::DeviceSpec& d,
                            std::uint32_t blocksPerSm, std::uint32_t blockSize) {
    const QString blocks =
        blocksPerSm == 1 ? QStringLiteral("1 block") : QStringLiteral("%1 blocks").arg(blocksPerSm);
    if (limiter == "warps") {
        return QStringLiteral(
                   "Per-SM limiter: warps. Each SM runs at most %1 warps (%2 threads); blocks "
                   "of %3 threads "
                   "fill that with %4.")
            .arg(d.maxWarpsPerSm)
            .arg(d.maxThreadsPerSm)
            .arg(blockSize)
            .arg(blocks);
    }
    if (limiter == "blocks") {
        return QStringLiteral("Per-SM limiter: blocks. Each SM holds at most %1 blocks, and blocks "
                              "of %2 threads are "
                              "too small to fill its warp slots with that many: use bigger blocks.")
            .arg(d.maxBlocksPerSm)
            .arg(blockSize);
    }
    if (limiter == "registers") {
        return QStringLiteral(
                   "Per-SM limiter: registers. The SM's %1 registers run out after %2; fewer "
                   "registers per "
                   "thread would fit more.")
            .arg(QString::number(d.registersPerSm), blocks);
    }
    if (limiter == "shared-memory") {
        return QStringLiteral(
                   "Per-SM limiter: shared memory. The SM's shared memory runs out after %1.")
            .arg(blocks);
    }
    return limiter.empty() ? QString()
                           : QStringLiteral("Per-SM limiter: %1.").arg(toQString(limiter));
}

namespace {

// The facts of one launch configuration on one device; `occupancyInfo` is what the trace gives.
void fillFromLaunch(OccupancyFacts& f, const trace::LaunchInfo& l, const device::DeviceSpec& d,
                    const std::optional<trace::OccupancyInfo>& occupancyInfo) {
    f.blockSize = std::uint32_t(l.block.count());
    f.registersPerThread = l.registersPerThread;
    f.registersKnown = l.registersPerThread > 0;
    f.sharedBytes = std::uint64_t(l.staticSharedBytes) + l.dynamicSharedBytes;

    // A launch that used more shared memory than the default limit must have opted in.
    const bool optIn = f.sharedBytes > d.sharedMemoryPerBlockBytes;
    occupancy::KernelResources kernel{f.blockSize, f.registersPerThread, f.sharedBytes, optIn};
    std::string limiter;
    if (occupancyInfo) {
        f.theoretical = occupancyInfo->theoretical;
        f.achieved = occupancyInfo->achieved;
        f.threadSlotsBusy = occupancyInfo->threadSlotsBusy;
        f.activeBlocksPerSm = occupancyInfo->activeBlocksPerSm;
        limiter = occupancyInfo->limiter;
    }
    if (f.activeBlocksPerSm == 0 || limiter.empty()) {
        if (auto calc = occupancy::calculate(d, kernel)) {
            f.activeBlocksPerSm =
                f.activeBlocksPerSm ? f.activeBlocksPerSm : calc->activeBlocksPerSm;
            limiter = limiter.empty() ? std::string(occupancy::toString(calc->limiter)) : limiter;
            if (!occupancyInfo) {
                f.theoretical = calc->occupancy;
            }
        }
    }
    f.limiter = limiter;
    f.limiterWords = limiterInPlainWords(limiter, d, f.activeBlocksPerSm, f.blockSize);
    if (occupancyInfo && !occupancyInfo->explanation.empty()) {
        // The calculator's own sentence, with its exact figures, after the plain-words one.
        // Traces written before 2026-12-06 end it "N % occupancy.": said as the per-SM limit it
        // is, since a launch of too few blocks fills far less of the GPU (the headline).
        static const QRegularExpression bare(QStringLiteral(", ([0-9.]+) % occupancy\\.$"));
        f.limiterWords +=
            QLatin1Char(' ') +
            toQString(occupancyInfo->explanation)
                .replace(bare, QStringLiteral(", a per-SM limit of \\1 % (CUDA's theoretical "
                                              "occupancy)."));
    }
    const std::uint64_t launched = l.grid.count() * l.block.count();
    f.residency = occupancy::modelResidency(d, l.grid, l.block, std::min(l.workers, launched),
                                            f.activeBlocksPerSm);

    const std::uint32_t maxBlock =
        std::max<std::uint32_t>(32, std::min<std::uint32_t>(1024, d.maxThreadsPerBlock));
    for (std::uint32_t bs = 32; bs <= maxBlock; bs += 32) {
        auto r = occupancy::calculate(d, {bs, f.registersPerThread, f.sharedBytes, optIn});
        if (!r) {
            f.curveError = toQString(r.error().message);
            f.blockSizes.clear();
            f.occupancyByBlockSize.clear();
            break;
        }
        f.blockSizes << bs;
        f.occupancyByBlockSize << r->occupancy;
    }
    const std::uint32_t maxRegs =
        std::max<std::uint32_t>(1, std::min<std::uint32_t>(255, d.maxRegistersPerThread));
    for (std::uint32_t regs = 0; regs <= maxRegs && f.curveError.isEmpty(); ++regs) {
        auto r = occupancy::calculate(d, {f.blockSize, regs, f.sharedBytes, optIn});
        if (!r) {
            f.curveError = toQString(r.error().message);
            f.registers.clear();
            f.occupancyByRegisters.clear();
            break;
        }
        f.registers << regs;
        f.occupancyByRegisters << r->occupancy;
    }
}

occupancy::KernelResources resourcesOf(const KernelGroup& kernel, const device::DeviceSpec& d) {
    const std::uint64_t sharedBytes =
        std::uint64_t(kernel.staticSharedBytes) + kernel.dynamicSharedBytes;
    // A launch that used more shared memory than the default limit must have opted in.
    return {std::uint32_t(kernel.block.count()), kernel.registersPerThread, sharedBytes,
            sharedBytes > d.sharedMemoryPerBlockBytes};
}

// Which of a recorded program's threads work is known only from counters. The share of lanes
// active per executed warp instruction, times the launched threads, is how many threads' worth
// of work there was if every warp ran as long as the others. A warp that finds no work exits
// after a handful of instructions and weighs nothing in that mean: numba's whole-array gufunc
// launches 32 warps, one of which runs, on one lane. In a grid of one wave, achieved occupancy
// says how many warps stayed resident, and those did the work (1 warp, 1 thread); in more waves
// the exited warps' slots are refilled, so the launched threads count.
struct Workers {
    std::uint64_t threads = 0;
    std::optional<double> stayedWarps; // where achieved occupancy bounded the estimate
};

Workers workersOf(const KernelGroup& kernel, const device::DeviceSpec& d) {
    const std::uint64_t launched = kernel.grid.count() * kernel.block.count();
    if (!kernel.activeLaneShare) {
        return {launched, std::nullopt};
    }
    const double share = *kernel.activeLaneShare;
    Workers w{std::max<std::uint64_t>(1, std::uint64_t(std::llround(double(launched) * share))),
              std::nullopt};
    const auto calc = occupancy::calculate(d, resourcesOf(kernel, d));
    const std::uint64_t blocks = kernel.grid.count();
    if (!kernel.achieved || !calc || d.smCount == 0 ||
        blocks > std::uint64_t(calc->activeBlocksPerSm) * d.smCount) {
        return w;
    }
    const double stayed =
        *kernel.achieved * d.maxWarpsPerSm * double(std::min<std::uint64_t>(blocks, d.smCount));
    const auto stayedThreads =
        std::max<std::uint64_t>(1, std::uint64_t(std::llround(stayed * d.warpSize * share)));
    if (stayedThreads < w.threads) {
        w = {stayedThreads, stayed};
    }
    return w;
}

} // namespace

std::optional<double> kernelThreadSlotsBusy(const device::DeviceSpec& d,
                                            const KernelGroup& kernel) {
    if (!kernel.activeLaneShare) {
        return std::nullopt;
    }
    const auto calc = occupancy::calculate(d, resourcesOf(kernel, d));
    if (!calc) {
        return std::nullopt;
    }
    strategy::LaunchGeometry geometry;
    geometry.grid = kernel.grid;
    geometry.block = kernel.block;
    geometry.busyThreads = workersOf(kernel, d).threads;
    return strategy::threadSlotsBusy(geometry, calc->activeBlocksPerSm, d.smCount,
                                     d.maxThreadsPerSm);
}

std::optional<double> kernelLaunchOccupancy(const device::DeviceSpec& d,
                                            const KernelGroup& kernel) {
    const auto calc = occupancy::calculate(d, resourcesOf(kernel, d));
    if (!calc || d.smCount == 0) {
        return std::nullopt;
    }
    return occupancy::launchOccupancy(*calc, kernel.grid.count(), d.smCount).occupancy;
}

QString launchOccupancyInWords(const trace::Run& run) {
    const auto launch = trace::launchOccupancyOf(run);
    if (!launch || !run.occupancy) {
        return {};
    }
    const QString limiter =
        launch->limiter == "grid"
            ? QStringLiteral("the grid")
            : QStringLiteral("the per-SM limit (%1)").arg(toQString(launch->limiter));
    QString words = QStringLiteral("This launch fills %1 of the GPU's warp slots, limited by %2.")
                        .arg(toQString(trace::formatPercent(launch->occupancy)), limiter);
    if (!launch->explanation.empty()) {
        // The explanation ends by giving the share again, for where it stands alone (the CLI, the
        // Runs table's tooltip); the headline has just said it.
        static const QRegularExpression again(
            QStringLiteral("; it fills [^)]* of the GPU's warp slots"));
        words += QLatin1Char(' ') + toQString(launch->explanation).remove(again) + QLatin1Char('.');
    }
    return words + QStringLiteral(" Per-SM limit (CUDA's theoretical occupancy): %1.")
                       .arg(toQString(trace::formatPercent(run.occupancy->theoretical)));
}

OccupancyFacts computeOccupancyFacts(const RunEntry& entry) {
    OccupancyFacts f;
    const trace::Run& run = *entry.run;
    f.title =
        entry.id + QStringLiteral(" on ") + toQString(run.device.name) +
        (entry.isPredicted() ? QStringLiteral(" (") + entry.predictedWord() + QStringLiteral(")")
                             : QString());
    if (run.mode == trace::RunMode::MeasuredCpu) {
        f.problem = QStringLiteral(
                        "%1 ran on the CPU: occupancy describes how a GPU launch fills the SMs, so "
                        "there is none to show. Select a GPU run.")
                        .arg(entry.id);
        return f;
    }
    if (!run.launch) {
        f.problem =
            QStringLiteral(
                "%1 carries no launch geometry (grid and block), so its occupancy cannot be shown.")
                .arg(entry.id);
        return f;
    }
    f.hasLaunch = true;
    f.launchWords = entry.launchWords;
    fillFromLaunch(f, *run.launch, run.device, run.occupancy);
    f.launchOccupancyWords = launchOccupancyInWords(run);
    return f;
}

OccupancyFacts computeOccupancyFacts(const RunEntry& entry, const KernelGroup& kernel) {
    OccupancyFacts f;
    const trace::Run& run = *entry.run;
    // A mangled name has no spaces to wrap at: cut in the middle, so the panel never scrolls.
    f.title = elideMiddle(kernel.name, 60) + QStringLiteral(" in ") + entry.id +
              QStringLiteral(" on ") + toQString(run.device.name);
    trace::LaunchInfo l;
    l.grid = kernel.grid;
    l.block = kernel.block;
    const Workers workers = workersOf(kernel, run.device);
    l.workers = workers.threads;
    l.registersPerThread = kernel.registersPerThread;
    l.staticSharedBytes = kernel.staticSharedBytes;
    l.dynamicSharedBytes = kernel.dynamicSharedBytes;
    std::optional<trace::OccupancyInfo> info;
    if (kernel.theoretical) {
        info.emplace();
        info->theoretical = *kernel.theoretical;
        info->achieved = kernel.achieved;
    }
    f.hasLaunch = true;
    const auto plural = [](std::uint64_t count, const QString& one, const QString& many) {
        return QStringLiteral("%1 %2").arg(toQString(trace::formatCount(count)),
                                           count == 1 ? one : many);
    };
    f.launchWords =
        QStringLiteral("%1 of %2, %3 per thread, %4 B shared memory per block; %5")
            .arg(plural(kernel.grid.count(), QStringLiteral("block"), QStringLiteral("blocks")),
                 plural(kernel.block.count(), QStringLiteral("thread"), QStringLiteral("threads")),
                 plural(kernel.registersPerThread, QStringLiteral("register"),
                        QStringLiteral("registers")),
                 QString::number(quint64(kernel.staticSharedBytes) + kernel.dynamicSharedBytes),
                 plural(std::uint64_t(kernel.launches), QStringLiteral("launch"),
                        QStringLiteral("launches")));
    fillFromLaunch(f, l, run.device, info);
    // The kernel's own share of the GPU, as a strategy's run has it (its theoretical occupancy is
    // the trace's, or the calculator's where the trace has none).
    trace::Run launch;
    launch.device = run.device;
    launch.launch = l;
    launch.occupancy = info.value_or(trace::OccupancyInfo{});
    launch.occupancy->theoretical = info ? info->theoretical : f.theoretical;
    launch.occupancy->limiter = f.limiter;
    launch.occupancy->activeBlocksPerSm = f.activeBlocksPerSm;
    f.launchOccupancyWords = launchOccupancyInWords(launch);
    if (const auto numba = explain::explainNumbaLaunch(kernel.name.toStdString(), kernel.grid,
                                                       kernel.block, kernel.activeLaneShare)) {
        f.launchChoiceWords = toQString(numba->explanation);
    }
    if (kernel.estimated) {
        f.launchWords += QStringLiteral("; the profiler's estimate of achieved occupancy: %1 "
                                        "(worked out from the launch, not measured)")
                             .arg(toQString(trace::formatPercent(*kernel.estimated)));
    }
    if (kernel.activeLaneShare) {
        f.launchWords +=
            QStringLiteral("; measured: %1 of %2 threads active per warp instruction on average")
                .arg(QString::number(*kernel.activeLaneShare * run.device.warpSize, 'f', 1))
                .arg(run.device.warpSize);
        if (workers.stayedWarps) {
            f.launchWords +=
                QStringLiteral(" and %1 achieved occupancy (about %2 warps stayed resident)")
                    .arg(toQString(trace::formatPercent(*kernel.achieved)))
                    .arg(QString::number(*workers.stayedWarps, 'f', 1));
        }
        f.launchWords += l.workers == 1 ? QStringLiteral(", about 1 thread's worth of work")
                                        : QStringLiteral(", about %1 threads' worth of work")
                                              .arg(toQString(trace::formatCount(l.workers)));
        f.threadSlotsBusy = kernelThreadSlotsBusy(run.device, kernel).value_or(0);
    } else {
        f.launchWords += run.mode == trace::RunMode::Imported
                             ? QStringLiteral("; which threads work is unknown (the file does "
                                              "not say)")
                             : QStringLiteral("; which threads work is unknown (record with "
                                              "--counters to measure it)");
        f.threadSlotsBusyKnown = false;
        f.threadSlotsBusy = 0;
        f.residency.workKnown = false;
        for (auto& sm : f.residency.sms) {
            sm.busyWarps = 0;
            sm.busyThreads = 0;
        }
        f.residency.smsWithWork = 0;
    }
    return f;
}

QString shortKernelName(const QString& name) {
    // "(anonymous namespace)::" is a namespace, not the parameters that follow a name.
    QString text = name;
    text.remove(QStringLiteral("(anonymous namespace)::"));
    // The part before the parameters, with bracketed tags left out, at template depth 0.
    QString head;
    int angle = 0;
    int square = 0;
    for (const QChar c : text) {
        if (c == QLatin1Char('(') && angle == 0 && square == 0 && !head.trimmed().isEmpty()) {
            break;
        }
        if (c == QLatin1Char('[') && angle == 0) {
            ++square;
            continue;
        }
        if (c == QLatin1Char(']') && angle == 0 && square > 0) {
            --square;
            continue;
        }
        if (square > 0) {
            continue;
        }
        angle += c == QLatin1Char('<') ? 1 : c == QLatin1Char('>') ? -1 : 0;
        angle = std::max(angle, 0);
        head += c;
    }
    head = head.trimmed();
    // The last word at depth 0 (drops a return type), then its last "::" part at depth 0.
    int cut = 0;
    int depth = 0;
    for (int i = 0; i < head.size(); ++i) {
        const QChar c = head[i];
        depth += c == QLatin1Char('<') ? 1 : c == QLatin1Char('>') ? -1 : 0;
        if (depth != 0) {
            continue;
        }
        if (c == QLatin1Char(' ')) {
            cut = i + 1;
        } else if (c == QLatin1Char(':') && i + 1 < head.size() &&
                   head[i + 1] == QLatin1Char(':')) {
            cut = i + 2;
        }
    }
    const QString shortName = head.mid(cut).trimmed();
    return shortName.isEmpty() ? name : shortName;
}

QString elideMiddle(const QString& text, int maxChars) {
    if (text.size() <= maxChars || maxChars < 5) {
        return text;
    }
    const int keep = maxChars - 1;
    const int head = (keep + 1) / 2;
    return text.left(head) + QChar(0x2026) + text.right(keep - head);
}

QVector<OccupancyRow> occupancyRowsOf(const RunEntry& entry) {
    if (!entry.visible || (!entry.run->occupancy && entry.kernels.isEmpty())) {
        return {}; // hidden, or a CPU run: nothing to build (nor its device's name)
    }
    const trace::Run& run = *entry.run;
    OccupancyRow base;
    base.runId = entry.id;
    base.device = shortDeviceName(run.device);
    base.predicted = entry.predictedWord();
    if (run.occupancy) {
        OccupancyRow row = base;
        row.theoretical = run.occupancy->theoretical;
        if (const auto launch = trace::launchOccupancyOf(run)) {
            row.launch = launch->occupancy;
        }
        row.achieved = run.occupancy->achieved;
        row.threadSlotsBusy = run.occupancy->threadSlotsBusy;
        return {row};
    }
    // A run without a launch of its own: one row per kernel name, its configurations weighted by
    // the time they took.
    struct Sum {
        int group = -1;
        double theoreticalNs = 0, theoreticalWeight = 0;
        double achievedNs = 0, achievedWeight = 0;
        double busyNs = 0, busyWeight = 0;
        double launchNs = 0, launchWeight = 0;
    };
    QVector<QString> order;
    QHash<QString, Sum> sums;
    for (int g = 0; g < entry.kernels.size(); ++g) {
        const KernelGroup& k = entry.kernels[g];
        if (!sums.contains(k.name)) {
            order << k.name;
            sums[k.name].group = g;
        }
        Sum& sum = sums[k.name];
        const double weight = double(std::max<std::int64_t>(1, k.totalNs));
        if (k.theoretical) {
            sum.theoreticalNs += *k.theoretical * weight;
            sum.theoreticalWeight += weight;
        }
        if (k.achieved) {
            sum.achievedNs += *k.achieved * weight;
            sum.achievedWeight += weight;
        }
        if (const auto busy = kernelThreadSlotsBusy(run.device, k)) {
            sum.busyNs += *busy * weight;
            sum.busyWeight += weight;
        }
        if (const auto launch = kernelLaunchOccupancy(run.device, k)) {
            sum.launchNs += *launch * weight;
            sum.launchWeight += weight;
        }
    }
    QVector<OccupancyRow> rows;
    for (const QString& name : order) {
        const Sum& sum = sums[name];
        if (sum.theoreticalWeight <= 0 && sum.achievedWeight <= 0) {
            continue; // nothing the trace says about this kernel's occupancy
        }
        OccupancyRow row = base;
        row.kernel = name;
        row.kernelGroup = sum.group;
        row.theoretical = sum.theoreticalWeight > 0 ? sum.theoreticalNs / sum.theoreticalWeight : 0;
        if (sum.achievedWeight > 0) {
            row.achieved = sum.achievedNs / sum.achievedWeight;
        }
        if (sum.busyWeight > 0) {
            row.threadSlotsBusy = sum.busyNs / sum.busyWeight;
        }
        if (sum.launchWeight > 0) {
            row.launch = sum.launchNs / sum.launchWeight;
        }
        rows << row;
    }
    return rows;
}

qsizetype occupancyRowCount(const RunEntry& entry) {
    if (!entry.visible || (!entry.run->occupancy && entry.kernels.isEmpty())) {
        return 0;
    }
    return entry.run->occupancy ? 1 : occupancyRowsOf(entry).size();
}

QVector<OccupancyRow> occupancyRows(const std::vector<RunEntryPtr>& runs) {
    QVector<OccupancyRow> rows;
    for (const auto& entry : runs) {
        rows += occupancyRowsOf(*entry);
    }
    return rows;
}

QVector<OccupancyRow> chartOccupancyRows(const std::vector<RunEntryPtr>& runs,
                                         const QString& selectedRun, qsizetype& total) {
    return chartRowsOf(runs, selectedRun, &occupancyRowsOf, &occupancyRowCount, total);
}

} // namespace slicescope::models
