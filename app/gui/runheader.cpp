#include "gui/runheader.h"

#include "models/runnaming.h"
#include "slicescope/trace/traceimport.h"

#include <QRegularExpression>

namespace slicescope::gui {

namespace {

// The first clause of a run's verdict ("copies take 97 % of the run"): what a header line has
// room for; the runs table and the tooltip give the whole verdict.
QString verdictHeadline(const QString& verdict) {
    static const QRegularExpression clauseEnd(QStringLiteral("[:;(]"));
    const qsizetype end = verdict.indexOf(clauseEnd);
    return (end < 0 ? verdict : verdict.left(end)).trimmed();
}

// Where a run's figures come from. A modelled or projected run says so in the header's first
// clause (short), which a slide always keeps; the rest of where it came from follows later.
QString whereText(const trace::Run& run, bool shortForm) {
    switch (run.mode) {
    case trace::RunMode::MeasuredGpu:
        return QStringLiteral("measured on ") + models::toQString(run.device.name);
    case trace::RunMode::MeasuredCpu:
        return QStringLiteral("measured on the CPU");
    case trace::RunMode::Modelled:
        return shortForm ? QStringLiteral("MODELLED for ") + models::toQString(run.device.name)
                         : QStringLiteral("the model's estimate, not measured");
    case trace::RunMode::Recorded:
        return QStringLiteral("recorded");
    case trace::RunMode::Projected:
        if (shortForm) {
            return QStringLiteral("PROJECTED onto ") + models::toQString(run.device.name);
        }
        return (run.projection
                    ? QStringLiteral("from ") + models::toQString(run.projection->sourceRun) +
                          QStringLiteral(" measured on ") +
                          models::toQString(run.projection->sourceDevice) + QStringLiteral(" ")
                    : QString()) +
               QStringLiteral("(not measured)");
    case trace::RunMode::Imported:
        // Another tool measured it: say which, never "measured" (docs/import.md).
        return run.source ? QStringLiteral("imported from ") +
                                models::toQString(trace::describeFormat(run.source->format)) +
                                (run.source->file.empty()
                                     ? QString()
                                     : QStringLiteral(" ") + models::toQString(run.source->file))
                          : QStringLiteral("imported");
    }
    return {};
}

// A run's header line as clauses, what matters first, since a narrow timeline or a slide keeps
// only the first ones: the run and its time, its verdict's first clause, then where it ran, the
// problem and the rest.
} // namespace

QStringList runHeaderClauses(const models::RunEntry& e, bool withName) {
    const trace::Run& run = *e.run;
    const QString what = !e.summary.hasDeviceWork()
                             ? e.summary.hostComputeNs > 0 ? QStringLiteral(" compute") : QString()
                         : e.summary.hostLayoutNs > 0
                             ? QStringLiteral(" copies + kernels + host layout")
                             : QStringLiteral(" copies + kernels");
    // What the time is made of, unless the verdict's first clause says what dominates it. A
    // modelled or projected run's verdict begins with where it was modelled ("projected onto
    // the T4 from …: "), which whereText says already.
    QString verdict = e.verdict;
    if (trace::isPredicted(run.mode) && verdict.contains(QStringLiteral(": "))) {
        verdict = verdict.mid(verdict.indexOf(QStringLiteral(": ")) + 2);
    }
    const QString headline = verdictHeadline(verdict);
    const QString dot = QStringLiteral("  \u00b7  ");
    const bool predicted = trace::isPredicted(run.mode);
    QStringList clauses{(withName ? e.id + dot : QString()) +
                        models::toQString(trace::formatDurationNs(e.summary.perRepetitionNs())) +
                        (headline.isEmpty() ? what : QString()) +
                        (e.summary.repeat > 1 ? QStringLiteral(" per repetition") : QString()) +
                        (predicted ? dot + whereText(run, true) : QString())};
    if (!headline.isEmpty()) {
        clauses << headline;
    }
    clauses << whereText(run, false);
    if (run.problem) {
        clauses << models::toQString(run.problem->describe());
    }
    if (e.summary.warmup > 0) {
        clauses << QStringLiteral("%1 warm-up iteration%2 before it (greyed, not counted)")
                       .arg(e.summary.warmup)
                       .arg(e.summary.warmup == 1 ? QString() : QStringLiteral("s"));
    }
    if (run.chunks > 1) {
        clauses << QStringLiteral("%1 chunks on %2 stream%3")
                       .arg(run.chunks)
                       .arg(run.streams)
                       .arg(run.streams == 1 ? QString() : QStringLiteral("s"));
    }
    return clauses;
}

QString fitClauses(const QStringList& clauses, const QFontMetricsF& metrics, double width,
                   const QString& prefix) {
    const QString dot = QStringLiteral("  \u00b7  ");
    QString text = prefix + clauses.value(0);
    if (metrics.horizontalAdvance(text) > width) {
        return metrics.elidedText(text, Qt::ElideRight, width);
    }
    for (qsizetype i = 1; i < clauses.size(); ++i) {
        const QString longer = text + dot + clauses[i];
        if (metrics.horizontalAdvance(longer) <= width) {
            text = longer;
            continue;
        }
        // Whole clauses only: a clause too long may still give its first part, up to a ", " or
        // " and " outside parentheses ("the kernel takes 97 % of the run"); the rest is in the
        // run's tooltip and the detail pane.
        static const QRegularExpression joint(QStringLiteral(", | and "));
        QString first;
        for (auto it = joint.globalMatch(clauses[i]); it.hasNext();) {
            const QString part = clauses[i].left(it.next().capturedStart());
            if (part.count(QLatin1Char('(')) > part.count(QLatin1Char(')'))) {
                continue; // never "(greyed" of "(greyed, not counted)"
            }
            if (metrics.horizontalAdvance(text + dot + part) > width) {
                break;
            }
            first = part;
        }
        // Or, said short, a share of the run: "the kernel takes 97 % of the run" as "kernel 97 %"
        // ("host layout passes" down to "host layout"), so a narrow header of a long run name
        // still says what dominates it.
        static const QRegularExpression share(
            QStringLiteral("^(?:the )?(.+?) takes? ([0-9.,]+ %) of the run"));
        if (const auto match = share.match(clauses[i]); first.isEmpty() && match.hasMatch()) {
            QStringList subject = match.captured(1).split(QLatin1Char(' '));
            for (; !subject.isEmpty() && first.isEmpty(); subject.removeLast()) {
                const QString brief =
                    subject.join(QLatin1Char(' ')) + QLatin1Char(' ') + match.captured(2);
                if (metrics.horizontalAdvance(text + dot + brief) <= width) {
                    first = brief;
                } else if (subject.size() == 1 &&
                           metrics.horizontalAdvance(text + QStringLiteral(" \u00b7 ") + brief) <=
                               width) {
                    return text + QStringLiteral(" \u00b7 ") + brief; // a narrower joint
                }
            }
        }
        if (!first.isEmpty()) {
            text += dot + first;
        }
        break;
    }
    return text;
}

QString fitRunHeader(const models::RunEntry& e, const QFontMetricsF& metrics, double width,
                     const QString& prefix, bool rowNamesRun) {
    const QStringList named = runHeaderClauses(e);
    const QString fitted = fitClauses(named, metrics, width, prefix);
    const bool verdictLeftOut =
        named.size() > 1 && fitted.size() <= prefix.size() + named[0].size();
    if (!rowNamesRun || !verdictLeftOut || e.verdict.isEmpty()) {
        return fitted;
    }
    return fitClauses(runHeaderClauses(e, false), metrics, width, prefix);
}

} // namespace slicescope::gui
