#pragma once

#include <cstdint>

namespace slicescope::models {

// time<->pixel for the timeline: the visible time window [startNs, endNs) spread over
// [leftPx, leftPx + widthPx). Times are nanoseconds on the timeline's axis (relative to the
// timeline's origin, so doubles keep nanosecond precision).
class TimeMapping {
  public:
    TimeMapping() = default;
    TimeMapping(double startNs, double endNs, double leftPx, double widthPx);

    double startNs() const { return startNs_; }
    double endNs() const { return endNs_; }
    double leftPx() const { return leftPx_; }
    double widthPx() const { return widthPx_; }
    double spanNs() const { return endNs_ - startNs_; }
    // A window with no time span or no pixels maps nothing.
    bool isValid() const { return endNs_ > startNs_ && widthPx_ > 0; }

    double toPixel(double timeNs) const;
    double toTime(double px) const;
    double nsPerPixel() const;

    // The same pixels showing a window `factor` times as long (factor < 1 zooms in), with the
    // time under anchorPx staying under it.
    TimeMapping zoomed(double factor, double anchorPx) const;
    // The window moved so that what was at pixel x is now at x + dxPx.
    TimeMapping panned(double dxPx) const;
    // The window showing [fromPx, toPx) of this one on the same pixels (box zoom).
    TimeMapping zoomedTo(double fromPx, double toPx) const;

    friend bool operator==(const TimeMapping&, const TimeMapping&) = default;

  private:
    double startNs_ = 0;
    double endNs_ = 0;
    double leftPx_ = 0;
    double widthPx_ = 0;
};

} // namespace slicescope::models
