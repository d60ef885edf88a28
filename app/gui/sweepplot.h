#pragma once

#include "gui/qcp.h"
#include "models/sweepdata.h"

#include <QColor>
#include <QSize>
#include <QString>
#include <QStringList>

// The sweep chart's plots, built into any QCustomPlot: the window's SweepChart and the report's
// export (ReportRenderer, `--view sweep,roofline`) draw through these functions, so both show
// the same chart and the same notes. Each draw function returns the notes the chart lists under
// the plot (crossovers, divergence reasons, ceilings), one line each.
namespace slicescope::gui::sweepplot {

// Once per plot: the legend in a row of its own under the axis rect (over the plot it would
// hide the lines).
void setUp(QCustomPlot* plot);
// Before each draw: no graphs or items, linear axes, the right axis hidden, the chart's fonts.
void reset(QCustomPlot* plot);

// Time per repetition against the swept parameter, one line per strategy (modelled, or measured
// in a mixed sweep, in its name), log axes for numeric parameters; each crossover a dashed line
// and a label ("≈ 19.7 (interpolated)", or "between a and b" for categories), each crossing
// within noise a dotted line keyed once in the legend. Its notes are the sweep's verdict.
QStringList drawTime(QCustomPlot* plot, const models::SweepView& sweep);
// Block sweeps: each strategy's theoretical occupancy curve, its points (achieved with counters,
// else theoretical) and its time on the right axis; the points where occupancy and time disagree
// ringed.
QStringList drawOccupancy(QCustomPlot* plot, const models::SweepView& sweep);
// Each GPU run's kernel and whole-run point under the DRAM, pinned and pageable link roofs and
// the FMA peak; the legend names each ceiling with its figure and whether it was measured, keys
// the two marks, and names the colours (each run's, or a sweep's strategies').
QStringList drawRoofline(QCustomPlot* plot, const models::RooflineView& roofline);

// The words for the drawn point nearest pos (pixels in the plot) within kTipRadiusPx, or empty:
// each point of the time view (strategy, value, time, its repetitions' spread) and of the
// roofline (run, which point, intensity, achieved and attainable, bound) carries them. The
// window's chart shows them as a tooltip under the mouse.
inline constexpr double kTipRadiusPx = 8;
QString pointTip(QCustomPlot* plot, const QPointF& pos);

// The colour of the i-th line (a strategy, a run): Okabe-Ito, as the rest of the views, told
// apart on a projector.
QColor lineColor(int i);

// A log axis labelled in plain numbers ("1,000", "0.01"), at 1, 2 and 5 of each decade where
// powers of ten alone would leave the drawn points far from any label, fewer where they crowd.
void useLogAxis(QCPAxis* axis);

// Lays the drawn plot out for a viewport of size pixels: as many legend columns as fit across,
// x tick labels thinned until none touches the next, and the crossover labels on rows under one
// another so that none covers another, each turned to the left of its line where it would pass
// the plot's right edge. Returns how many crossover labels had no room (hidden; the notes still
// say them). Call again after the plot is resized.
int layOut(QCustomPlot* plot, const QSize& size);

} // namespace slicescope::gui::sweepplot
