#pragma once

#include "gui/qcp.h"

#include <QString>
#include <optional>

namespace slicescope::gui {

// The timeline's range ruler, as Nsight Systems users expect: a Ctrl+drag marks a span of time,
// shaded across every row, with its duration written at the top. The span is held in time, so it
// stays on the same events while the user zooms and pans; Esc (or a click) clears it.
class RangeRuler {
  public:
    explicit RangeRuler(QCustomPlot* plot);

    // A drag starts at timeNs and now reaches timeNs (in either direction).
    void begin(double timeNs);
    void extendTo(double timeNs);
    void clear();

    bool isShown() const { return span_.has_value(); }
    // The marked span, lower bound first; none while cleared.
    std::optional<QCPRange> span() const;
    // "12.5 ms" for the marked span; empty while cleared.
    QString label() const;

  private:
    void place();

    QCustomPlot* plot_;
    QCPItemRect* band_;
    QCPItemText* text_;
    double anchorNs_ = 0;
    std::optional<QCPRange> span_;
};

} // namespace slicescope::gui
