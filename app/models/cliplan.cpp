#include "models/cliplan.h"

#include "models/remotetargets.h"
#include "models/runentry.h"
#include "models/sweepjob.h"
#include "slicescope/problem/problem.h"
#include "slicescope/strategy/strategy.h"

#include <QDir>

namespace slicescope::models {

QStringList problemArguments(const RunConfig& c) {
    return {QStringLiteral("--shape"),   QStringLiteral("%1x%2x%3").arg(c.r).arg(c.c).arg(c.n),
            QStringLiteral("--dtype"),   c.dtype,
            QStringLiteral("--work"),    QString::number(c.work),
            QStringLiteral("--block"),   c.block,
            QStringLiteral("--memory"),  c.memory,
            QStringLiteral("--repeat"),  QString::number(c.repeat),
            QStringLiteral("--progress")};
}

// Measured runs warm up first; `model` is left at its 0.
QStringList warmupArguments(const RunConfig& c) {
    return {QStringLiteral("--warmup"), QString::number(c.warmup)};
}

namespace {

// GPU jobs only: CPU strategies have no chunks.
QStringList pipelineArguments(const RunConfig& c) {
    return {QStringLiteral("--chunks"), QString::number(c.chunks), QStringLiteral("--streams"),
            QString::number(c.streams)};
}

} // namespace

QString splitStrategies(const RunConfig& c, QStringList* cpu, QStringList* gpu) {
    if (c.strategies.isEmpty()) {
        return QStringLiteral("Choose at least one strategy.");
    }
    for (const QString& name : c.strategies) {
        const auto id = strategy::parseStrategy(name.toStdString());
        if (!id) {
            return toQString(id.error().message);
        }
        *(strategy::isGpu(*id) ? gpu : cpu) << name;
    }
    if (!gpu->isEmpty() && c.device.kind == DeviceChoice::Kind::None) {
        return QStringLiteral("GPU strategies (%1) need a device: no GPU was found here, so choose "
                              "a preset to model them, or untick them.")
            .arg(gpu->join(QStringLiteral(", ")));
    }
    return {};
}

RunPlan planRun(const RunConfig& c, const QString& outputDir, int sequence) {
    RunPlan plan;
    if (c.strategies.isEmpty()) {
        plan.error = QStringLiteral("Choose at least one strategy.");
        return plan;
    }
    const auto dtype = problem::parseDtype(c.dtype.toStdString());
    if (!dtype) {
        plan.error = toQString(dtype.error().message);
        return plan;
    }
    const auto problem = problem::makeProblem({c.r, c.c, c.n}, *dtype, c.work);
    if (!problem) {
        plan.error = toQString(problem.error().message);
        return plan;
    }
    QStringList cpu, gpu;
    plan.error = splitStrategies(c, &cpu, &gpu);
    if (!plan.error.isEmpty()) {
        return plan;
    }
    const QString stem = QDir(outputDir).filePath(QStringLiteral("run-%1").arg(sequence));
    if (!gpu.isEmpty() && c.device.kind == DeviceChoice::Kind::Detected) {
        CliJob job;
        job.strategies = gpu;
        job.outputPath = stem + QStringLiteral("-gpu.json");
        job.arguments = QStringList{QStringLiteral("run")} + problemArguments(c) +
                        warmupArguments(c) + pipelineArguments(c) +
                        QStringList{QStringLiteral("--strategy"), gpu.join(QLatin1Char(',')),
                                    QStringLiteral("-o"),         job.outputPath,
                                    QStringLiteral("--device"),   QString::number(c.device.index)};
        if (c.counters) {
            job.arguments << QStringLiteral("--counters");
        }
        if (c.sampleOccupancy) {
            job.arguments << QStringLiteral("--sample-occupancy");
        }
        job.label =
            QStringLiteral("measured on %1: %2").arg(c.device.name, gpu.join(QStringLiteral(", ")));
        plan.jobs << job;
    }
    // Each CPU strategy alone: its run reaches the session (and the autosave) as soon as it is
    // measured, not when the last strategy of the request is.
    for (const QString& name : cpu) {
        CliJob job;
        job.strategies = {name};
        job.outputPath = stem + QLatin1Char('-') + name + QStringLiteral(".json");
        job.arguments =
            QStringList{QStringLiteral("run")} + problemArguments(c) + warmupArguments(c) +
            QStringList{QStringLiteral("--strategy"), name, QStringLiteral("-o"), job.outputPath};
        job.label = QStringLiteral("measured on the CPU: %1").arg(name);
        plan.jobs << job;
    }
    if (!gpu.isEmpty() && c.device.kind == DeviceChoice::Kind::Preset) {
        CliJob job;
        job.strategies = gpu;
        job.modelled = true;
        job.outputPath = stem + QStringLiteral("-modelled.json");
        job.arguments = QStringList{QStringLiteral("model")} + problemArguments(c) +
                        pipelineArguments(c) +
                        QStringList{QStringLiteral("--strategy"), gpu.join(QLatin1Char(',')),
                                    QStringLiteral("--device"),   c.device.presetId,
                                    QStringLiteral("-o"),         job.outputPath};
        job.label =
            QStringLiteral("modelled on %1: %2").arg(c.device.name, gpu.join(QStringLiteral(", ")));
        plan.jobs << job;
    }
    for (CliJob& job : plan.jobs) {
        job.arguments << hostArguments(c.host);
    }
    return plan;
}

} // namespace slicescope::models
