#include "models/recordplan.h"

#include "models/remotetargets.h"
#include "slicescope/core/progressline.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

namespace slicescope::models {

RecordPlan planRecord(const RecordConfig& config, const QString& outputDir, int sequence) {
    RecordPlan plan;
    const QString program = config.program.trimmed();
    if (program.isEmpty()) {
        plan.error = QStringLiteral("Choose the program to record.");
        return plan;
    }
    for (const QString& entry : config.environment) {
        const qsizetype eq = entry.indexOf(QLatin1Char('='));
        if (eq <= 0) {
            plan.error =
                QStringLiteral("Environment entries are NAME=VALUE; \"%1\" is not.").arg(entry);
            return plan;
        }
    }
    // A remote working directory is checked there, by the remote slicescope-cli.
    if (config.host.isEmpty() && !config.workingDirectory.isEmpty() &&
        !QFileInfo(config.workingDirectory).isDir()) {
        plan.error =
            QStringLiteral("The working directory %1 does not exist.").arg(config.workingDirectory);
        return plan;
    }
    CliJob& job = plan.job;
    job.recording = true;
    job.label = QStringLiteral("recording %1").arg(QFileInfo(program).fileName());
    job.outputPath = QDir(outputDir).filePath(QStringLiteral("record-%1.json").arg(sequence));
    job.arguments = {QStringLiteral("record"), QStringLiteral("--progress"), QStringLiteral("-o"),
                     job.outputPath};
    if (config.counters) {
        job.arguments << QStringLiteral("--counters");
    }
    job.arguments << hostArguments(config.host);
    if (!config.workingDirectory.isEmpty()) {
        job.arguments << QStringLiteral("--cwd") << config.workingDirectory;
    }
    for (const QString& entry : config.environment) {
        job.arguments << QStringLiteral("--env") << entry;
    }
    job.arguments << QStringLiteral("--") << program << config.arguments;
    return plan;
}

QStringList parseEnvironment(const QString& text, QString* error) {
    QStringList entries;
    for (const QString& raw : text.split(QLatin1Char('\n'))) {
        const QString line = raw.trimmed();
        if (line.isEmpty()) {
            continue;
        }
        if (line.indexOf(QLatin1Char('=')) <= 0) {
            if (error) {
                *error = QStringLiteral("\"%1\" is not NAME=VALUE").arg(line);
            }
            return {};
        }
        entries << line;
    }
    if (error) {
        error->clear();
    }
    return entries;
}

QString recordProgressText(const QByteArray& json) {
    // A line that cannot be read shows as no progress yet.
    const auto p =
        core::parseRecordProgressLine(std::string_view(json.constData(), std::size_t(json.size())))
            .value_or(core::RecordProgressLine{});
    const QString stage = QString::fromStdString(p.stage);
    const QString what = stage == QStringLiteral("counters")
                             ? QStringLiteral("counting (second run)")
                         : stage == QStringLiteral("convert") ? QStringLiteral("writing the trace")
                                                              : QStringLiteral("recording");
    QString text = QStringLiteral("%1: %2 kernels, %3 copies, %4 API calls")
                       .arg(what)
                       .arg(p.kernels)
                       .arg(p.copies)
                       .arg(p.apiCalls);
    if (p.droppedRecords > 0) {
        text += QStringLiteral(", %1 records dropped").arg(p.droppedRecords);
    }
    return text + QStringLiteral(" (%1 s)").arg(p.elapsedS, 0, 'f', 1);
}

} // namespace slicescope::models
