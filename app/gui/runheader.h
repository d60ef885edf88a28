#pragma once
// A run's header line in the timeline (window and exports): clauses, what matters first, and the
// whole clauses that fit a width.

#include "models/runentry.h"

#include <QFontMetricsF>
#include <QString>
#include <QStringList>

namespace slicescope::gui {

// The run and its time per repetition (and, modelled or projected, that it is: "PROJECTED onto
// Tesla T4"), its verdict's first clause, where it ran, the problem, warm-up and chunks.
QStringList runHeaderClauses(const models::RunEntry& e);

// The clauses, joined by " · ", that fit width after prefix: whole clauses from the first, never
// a word cut; the first that does not fit may give its part up to a ", " or " and ", or, where it
// says "X takes P % of the run", its short form "X P %". Only a first clause wider than width
// alone is cut with "…". Run headers use it.
QString fitClauses(const QStringList& clauses, const QFontMetricsF& metrics, double width,
                   const QString& prefix = {});

} // namespace slicescope::gui
