#include "models/runnaming.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSet>
#include <algorithm>

namespace slicescope::models {

QString programName(const std::string& command) {
    const QStringList words = toQString(command).split(QLatin1Char(' '), Qt::SkipEmptyParts);
    QString program;
    for (const QString& word : words) {
        const QString base = QFileInfo(word).fileName();
        // An interpreter or launcher runs the program named after it.
        static const QRegularExpression launcher(
            QStringLiteral("^(python[0-9.]*|env|bash|sh|time|nice|numactl|taskset)$"));
        if (base.startsWith(QLatin1Char('-')) || base.contains(QLatin1Char('='))) {
            continue;
        }
        program = base;
        if (!launcher.match(base).hasMatch()) {
            break;
        }
    }
    const QString stem = QFileInfo(program).completeBaseName();
    return stem.isEmpty() ? program : stem;
}

namespace {

QString tagOfName(const std::string& deviceName) {
    QString name = toQString(deviceName).toLower();
    static const QRegularExpression noise(
        QStringLiteral("\\((r|tm)\\)|\\b(nvidia|geforce|quadro|tesla|processor|cpu)\\b|@.*$"));
    name.replace(noise, QStringLiteral(" "));
    static const QRegularExpression separators(QStringLiteral("[^a-z0-9]+"));
    name.replace(separators, QStringLiteral("-"));
    while (name.startsWith(QLatin1Char('-'))) {
        name.remove(0, 1);
    }
    while (name.endsWith(QLatin1Char('-'))) {
        name.chop(1);
    }
    return name;
}

} // namespace

QString deviceTag(const device::DeviceSpec& device) {
    if (!device.id.empty()) {
        return toQString(device.id);
    }
    // The last name's tag, remembered on this thread: the runs of a trace share a few devices,
    // and the regular expressions took a tenth of building each entry.
    thread_local std::string lastName;
    thread_local QString lastTag;
    if (device.name != lastName || lastTag.isNull()) {
        lastTag = tagOfName(device.name);
        lastName = device.name;
    }
    return lastTag;
}

QString shortDeviceName(const device::DeviceSpec& device) {
    QString name = toQString(device.name);
    static const QRegularExpression noise(
        QStringLiteral("\\((R|TM|r|tm)\\)|\\b(NVIDIA|GeForce|Intel|Processor|CPU)\\b|@.*$"));
    name.replace(noise, QStringLiteral(" "));
    name = name.simplified();
    return name.isEmpty() ? toQString(device.name) : name;
}

namespace {

// The name a run asks for: its id, or a recorded run's program.
QString wantedName(const trace::Run& run, const QString& id) {
    QString wanted = id;
    if (run.mode == trace::RunMode::Recorded && (id.isEmpty() || id == toQString(run.strategy))) {
        const QString program = programName(run.command);
        if (!program.isEmpty()) {
            wanted = program;
        }
    }
    return wanted.isEmpty() ? QStringLiteral("run") : wanted;
}

} // namespace

RunNameRequest nameRequest(const trace::Run& run, const QString& id) {
    return {wantedName(run, id), deviceTag(run.device), runSettings(run)};
}

RunNameRequest nameRequest(const RunEntry& entry) {
    return {wantedName(*entry.run, entry.id), entry.deviceTag, entry.settings};
}

QStringList runSettings(const trace::Run& run) {
    QStringList settings;
    settings.reserve(7);
    if (run.problem) {
        const problem::Shape& s = run.problem->shape;
        settings << QString::number(s.r) + QLatin1Char('x') + QString::number(s.c) +
                        QLatin1Char('x') + QString::number(s.n)
                 << toQString(problem::toString(run.problem->dtype))
                 << QStringLiteral("work ") + QString::number(run.problem->workPerElement);
    } else {
        settings << QString() << QString() << QString();
    }
    settings << toQString(run.memoryMode)
             << QLatin1Char('k') + QString::number(run.chunks) + QStringLiteral("\u00d7s") +
                    QString::number(run.streams);
    QString block;
    if (run.launch) {
        const auto& b = run.launch->block;
        block = QStringLiteral("block ") + QString::number(std::uint64_t(b.x) * b.y * b.z);
    }
    settings << block;
    // A measured GPU run with counters (achieved occupancy) or without: the Run panel's Counters.
    QString counters;
    if (run.mode == trace::RunMode::MeasuredGpu && run.occupancy) {
        counters =
            run.occupancy->achieved ? QStringLiteral("counters") : QStringLiteral("no counters");
    }
    settings << counters;
    return settings;
}

namespace {

// "(k16×s4)", "(block 256, f32)": the settings in which a run differs from the name's holder;
// empty when none does.
QString differences(const QStringList& mine, const QStringList& holders) {
    QStringList differ;
    for (qsizetype i = 0; i < mine.size() && i < holders.size(); ++i) {
        if (!mine[i].isEmpty() && mine[i] != holders[i]) {
            differ << mine[i];
        }
    }
    return differ.isEmpty()
               ? QString()
               : QStringLiteral(" (") + differ.join(QStringLiteral(", ")) + QLatin1Char(')');
}

} // namespace

QStringList RunNaming::nameBatch(const QList<RunNameRequest>& batch) {
    QStringList names(batch.size());
    QSet<QString> taken;          // given to an earlier run of this batch
    QHash<QString, Holder> given; // the same, with the run it went to
    // Sized once: 100,000 runs arrive in one batch when a large trace opens.
    taken.reserve(batch.size());
    given.reserve(batch.size());
    issued_.reserve(issued_.size() + batch.size());
    auto isFree = [&](const QString& name) {
        return !issued_.contains(name) && !taken.contains(name);
    };
    QList<int> needSuffix;
    QStringList stems(batch.size());
    for (int i = 0; i < batch.size(); ++i) {
        const RunNameRequest& r = batch[i];
        if (isFree(r.wanted)) {
            names[i] = r.wanted;
            taken.insert(names[i]);
            given.insert(names[i], Holder{r.deviceTag, r.settings});
            continue;
        }
        QString stem = r.wanted;
        // The run that first had the name: of an earlier batch, or earlier in this one.
        const auto holder = issued_.constFind(r.wanted);
        const Holder* first = holder != issued_.constEnd()
                                  ? &holder.value()
                                  : (given.contains(r.wanted) ? &given[r.wanted] : nullptr);
        if (first && !r.deviceTag.isEmpty() && first->deviceTag != r.deviceTag) {
            stem = r.wanted + QLatin1Char('@') + r.deviceTag;
            if (isFree(stem)) {
                names[i] = stem;
                taken.insert(stem);
                continue;
            }
        } else if (first) {
            const QString told = differences(r.settings, first->settings);
            if (!told.isEmpty()) {
                stem = r.wanted + told;
                if (isFree(stem)) {
                    names[i] = stem;
                    taken.insert(stem);
                    continue;
                }
            }
        }
        stems[i] = stem;
        needSuffix << i;
    }
    // One suffix for the whole batch: the smallest that is free for every run needing one. Runs
    // of the batch that share a stem take it and the numbers after it, in order.
    QList<int> occurrence(batch.size(), 0);
    {
        QHash<QString, int> seen;
        for (int i : needSuffix) {
            occurrence[i] = seen[stems[i]]++;
        }
    }
    auto nameWith = [&](int i, int suffix) -> QString {
        return QStringLiteral("%1-%2").arg(stems[i]).arg(suffix + occurrence[i]);
    };
    int suffix = 2;
    while (std::any_of(needSuffix.begin(), needSuffix.end(),
                       [&](int i) { return !isFree(nameWith(i, suffix)); })) {
        ++suffix;
    }
    for (int i : needSuffix) {
        names[i] = nameWith(i, suffix);
    }
    for (int i = 0; i < batch.size(); ++i) {
        issued_.insert(names[i], Holder{batch[i].deviceTag, batch[i].settings});
    }
    return names;
}

namespace {

// The batch of the runs of a file (batchOf), by its path.
QString fileBatchOf(const QString& source) {
    const QFileInfo file(source);
    static const QRegularExpression request(QStringLiteral("^(run-\\d+)-.+\\.json$"));
    const auto match = request.match(file.fileName());
    if (match.hasMatch()) {
        return file.absolutePath() + QLatin1Char('/') + match.captured(1);
    }
    return file.absoluteFilePath();
}

// fileBatchOf, remembered for the last absolute path asked on this thread: the runs of a file
// come one after another, and batchOf is asked for every run at every change (100,000 runs of
// one file spent a tenth of a second per pass). A relative path, which depends on the working
// folder, is worked out each time.
QString fileBatch(const QString& source) {
    if (!QDir::isAbsolutePath(source)) {
        return fileBatchOf(source);
    }
    thread_local QString lastSource;
    thread_local QString lastBatch;
    if (source != lastSource) {
        lastBatch = fileBatchOf(source);
        lastSource = source;
    }
    return lastBatch;
}

} // namespace

QString batchOf(const RunEntry& entry) {
    if (!entry.run->batch.empty()) {
        return toQString(entry.run->batch);
    }
    if (entry.source.isEmpty()) {
        return entry.run->createdAt.empty()
                   ? QString()
                   : QStringLiteral("created ") + toQString(entry.run->createdAt);
    }
    if (entry.origin == RunOrigin::Restored) {
        return QFileInfo(entry.source).absoluteFilePath() + QStringLiteral(" created ") +
               toQString(entry.run->createdAt);
    }
    return fileBatch(entry.source);
}

bool devicesDiffer(const std::vector<RunEntryPtr>& runs) {
    const std::string* first = nullptr; // no text made per run: charts ask at every change
    for (const auto& entry : runs) {
        if (!entry->visible) {
            continue;
        }
        const std::string& name = entry->run->device.name;
        if (first && name != *first) {
            return true;
        }
        first = &name;
    }
    return false;
}

} // namespace slicescope::models
