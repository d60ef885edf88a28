#pragma once
// A run's header line in the timeline (window and exports): clauses, what matters first, and the
// whole clauses that fit a width.

#include "models/runentry.h"

#include <QFontMetricsF>
#include <QString>
#include <QStringList>

namespace slicescope::gui {

// The run (unless !withName) and its time per repetition (and, modelled or projected, that it is:
// "PROJECTED onto Tesla T4"), its verdict's first clause, where it ran, the problem, warm-up and
// chunks.
QStringList runHeaderClauses(const models::RunEntry& e, bool withName = true);

// The clauses, joined by " · ", that fit width after prefix: whole clauses from the first, never
// a word cut; the first that does not fit may give its part up to a ", " or " and " (outside
// parentheses), or, where it says "X takes P % of the run", its short form "X P %". Only a first
// clause wider than width alone is cut with "…". Run headers use it.
QString fitClauses(const QStringList& clauses, const QFontMetricsF& metrics, double width,
                   const QString& prefix = {});

// A run's header fitted to width after prefix. A collapsed run's one row is labelled with its
// name beside the plot (rowNamesRun): where the name would leave no room for the verdict's first
// clause, the header leaves the name to that label and says the time and the verdict.
QString fitRunHeader(const models::RunEntry& e, const QFontMetricsF& metrics, double width,
                     const QString& prefix, bool rowNamesRun);

} // namespace slicescope::gui
