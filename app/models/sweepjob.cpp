#include "models/sweepjob.h"

#include "models/remotetargets.h"
#include "models/runentry.h"
#include "slicescope/strategy/strategy.h"
#include "slicescope/sweep/sweepplan.h"

#include <QDir>

namespace slicescope::models {

bool isSweepJob(const CliJob& job) {
    return !job.arguments.isEmpty() && job.arguments.front() == QStringLiteral("sweep");
}

namespace {

// Where the sweep's strategies run, for its label: "measured on NVIDIA H200", "modelled on NVIDIA
// H200", "GPU modelled on NVIDIA H200, CPU measured here", "measured on the CPU".
QString sweepWhere(const DeviceChoice& device, bool anyGpu, bool anyCpu) {
    if (!anyGpu) {
        return QStringLiteral("measured on the CPU");
    }
    const bool modelled = device.kind == DeviceChoice::Kind::Preset;
    if (modelled && anyCpu) {
        return QStringLiteral("GPU modelled on %1, CPU measured here").arg(device.name);
    }
    return (modelled ? QStringLiteral("modelled on %1") : QStringLiteral("measured on %1"))
        .arg(device.name);
}

} // namespace

RunPlan planSweep(const SweepConfig& s, const QString& outputDir, int sequence) {
    RunPlan plan;
    const RunConfig& c = s.run;
    const auto param = sweep::parseSweepParam(s.param.toStdString());
    if (!param) {
        plan.error = toQString(param.error().message);
        return plan;
    }
    const std::string values = s.values.trimmed().toStdString();
    const bool range = values.find(':') != std::string::npos;
    const auto parsed =
        range ? sweep::parseRange(*param, values) : sweep::parseValues(*param, values);
    if (!parsed) {
        plan.error = toQString(parsed.error().message);
        return plan;
    }
    QStringList cpu, gpu;
    plan.error = splitStrategies(c, &cpu, &gpu);
    if (!plan.error.isEmpty()) {
        return plan;
    }
    // GPU strategies go to the device chosen: measured on a GPU found here, or modelled on a
    // preset. CPU strategies are measured on this host either way, so a preset and a CPU strategy
    // make a mixed sweep, and CPU strategies alone need no device.
    const bool anyGpu = !gpu.isEmpty();
    const bool modelled = anyGpu && c.device.kind == DeviceChoice::Kind::Preset;
    const bool measuredGpu = anyGpu && c.device.kind == DeviceChoice::Kind::Detected;
    if ((*param == sweep::SweepParam::Block || *param == sweep::SweepParam::Memory) && !anyGpu) {
        plan.error = QStringLiteral("A %1 sweep needs a GPU strategy.").arg(s.param);
        return plan;
    }
    CliJob job;
    job.modelled = modelled && cpu.isEmpty();
    job.strategies = c.strategies;
    job.outputPath = QDir(outputDir).filePath(QStringLiteral("sweep-%1.json").arg(sequence));
    job.arguments = QStringList{QStringLiteral("sweep"), QStringLiteral("--param"), s.param,
                                range ? QStringLiteral("--range") : QStringLiteral("--values"),
                                s.values.trimmed()} +
                    problemArguments(c) +
                    QStringList{QStringLiteral("--strategy"), c.strategies.join(QLatin1Char(',')),
                                QStringLiteral("-q"), QStringLiteral("-o"), job.outputPath};
    if (anyGpu) {
        job.arguments << QStringLiteral("--device")
                      << (modelled ? c.device.presetId : QString::number(c.device.index));
    }
    if (measuredGpu || !cpu.isEmpty()) {
        job.arguments << warmupArguments(c); // measured points warm up; modelled ones need not
    }
    if (c.counters && measuredGpu) {
        job.arguments << QStringLiteral("--counters");
    }
    if (s.roofline) {
        job.arguments << QStringLiteral("--roofline");
    }
    job.arguments << hostArguments(c.host);
    job.label = QStringLiteral("sweep of %1 over %2 values, %3: %4")
                    .arg(s.param)
                    .arg(parsed->size())
                    .arg(sweepWhere(c.device, anyGpu, !cpu.isEmpty()))
                    .arg(c.strategies.join(QStringLiteral(", ")));
    plan.jobs << job;
    return plan;
}

} // namespace slicescope::models
