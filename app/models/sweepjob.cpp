#include "models/sweepjob.h"

#include "models/runentry.h"
#include "slicescope/strategy/strategy.h"
#include "slicescope/sweep/sweepplan.h"

#include <QDir>

namespace slicescope::models {

bool isSweepJob(const CliJob& job) {
    return !job.arguments.isEmpty() && job.arguments.front() == QStringLiteral("sweep");
}

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
    const bool modelled = c.device.kind == DeviceChoice::Kind::Preset;
    if (modelled && !cpu.isEmpty()) {
        plan.error = QStringLiteral("%1 run on the CPU and cannot be modelled on a preset: "
                                    "untick them, or sweep on a detected GPU.")
                         .arg(cpu.join(QStringLiteral(", ")));
        return plan;
    }
    if ((*param == sweep::SweepParam::Block || *param == sweep::SweepParam::Memory) &&
        gpu.isEmpty()) {
        plan.error = QStringLiteral("A %1 sweep needs a GPU strategy.").arg(s.param);
        return plan;
    }
    CliJob job;
    job.modelled = modelled;
    job.strategies = c.strategies;
    job.outputPath = QDir(outputDir).filePath(QStringLiteral("sweep-%1.json").arg(sequence));
    job.arguments = QStringList{QStringLiteral("sweep"), QStringLiteral("--param"), s.param,
                                range ? QStringLiteral("--range") : QStringLiteral("--values"),
                                s.values.trimmed()} +
                    problemArguments(c) +
                    QStringList{QStringLiteral("--strategy"), c.strategies.join(QLatin1Char(',')),
                                QStringLiteral("-q"), QStringLiteral("-o"), job.outputPath};
    if (c.device.kind != DeviceChoice::Kind::None) {
        job.arguments << QStringLiteral("--device")
                      << (modelled ? c.device.presetId : QString::number(c.device.index));
    }
    if (!modelled) {
        job.arguments << warmupArguments(c);
    }
    if (c.counters && !modelled) {
        job.arguments << QStringLiteral("--counters");
    }
    if (s.roofline) {
        job.arguments << QStringLiteral("--roofline");
    }
    job.label = QStringLiteral("sweep of %1 over %2 values%3: %4")
                    .arg(s.param)
                    .arg(parsed->size())
                    .arg(c.device.kind == DeviceChoice::Kind::None
                             ? QString()
                             : (modelled ? QStringLiteral(", modelled on ")
                                         : QStringLiteral(", measured on ")) +
                                   c.device.name)
                    .arg(c.strategies.join(QStringLiteral(", ")));
    plan.jobs << job;
    return plan;
}

} // namespace slicescope::models
