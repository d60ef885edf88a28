#pragma once

#include "models/timelinelanes.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QString>

// Colours and fonts shared by every view and by exports, chosen to stay apart on a projector
// and for the common colour-vision deficiencies (Okabe-Ito palette).
namespace slicescope::gui::theme {

QColor laneColor(models::LaneKind kind);
QColor laneTextColor(models::LaneKind kind);    // legible on laneColor
QString laneDescription(models::LaneKind kind); // for the legend and tooltips
// Fill for modelled runs: the lane colour, hatched, so a modelled bar never passes for a
// measured one (also in greyscale prints).
QBrush modelledBrush(models::LaneKind kind);
QBrush modelledBrush(const QColor& color);
// Warm-up iterations: the lane colour greyed (a hint of its hue kept, so the kind still shows)
// under a light forward hatch, apart from the flat grey of set-up and checks and from the
// backward hatch of modelled runs.
QColor warmupColor(models::LaneKind kind);
QColor warmupColor(const QColor& color);
// A GPU run's host layout passes (transposes, expanded inputs: models::isHostLayoutPass), in the
// timeline's host lane and in the breakdown alike, apart from host compute's colour.
QColor hostLayoutColor();
inline const QString kHostLayoutLegend = QStringLiteral("layout: host layout passes");
QBrush warmupBrush();

// The launch's own share of the GPU (its grid), beside CUDA's per-SM theoretical occupancy.
QColor launchColor();
QColor theoreticalColor();
QColor achievedColor();
QColor slotsBusyColor();
QColor busyWarpColor();
QColor idleWarpColor();
QColor freeSlotColor();
QColor headerBandColor();
QColor selectionColor();

// The smallest text a chart draws, in points at the DPI it is drawn at (the screen's or an
// export's): smaller labels are unreadable on a projector or in print.
inline constexpr double kMinPlotPt = 9;
// A plot font of pointSize points, scaled by the presentation factor.
QFont plotFont(double pointSize, bool bold = false);
// 1.0 normally; larger in presentation mode (View > Presentation mode) for projectors.
double presentationScale();
void setPresentationScale(double scale);

} // namespace slicescope::gui::theme
