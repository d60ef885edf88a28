#include "models/timemapping.h"

#include <algorithm>
#include <utility>

namespace slicescope::models {

TimeMapping::TimeMapping(double startNs, double endNs, double leftPx, double widthPx)
    : startNs_(startNs), endNs_(endNs), leftPx_(leftPx), widthPx_(widthPx) {}

double TimeMapping::toPixel(double timeNs) const {
    if (!isValid()) {
        return leftPx_;
    }
    return leftPx_ + (timeNs - startNs_) * widthPx_ / spanNs();
}

double TimeMapping::toTime(double px) const {
    if (!isValid()) {
        return startNs_;
    }
    return startNs_ + (px - leftPx_) * spanNs() / widthPx_;
}

double TimeMapping::nsPerPixel() const {
    return isValid() ? spanNs() / widthPx_ : 0.0;
}

TimeMapping TimeMapping::zoomed(double factor, double anchorPx) const {
    if (!isValid() || !(factor > 0)) {
        return *this;
    }
    const double anchorNs = toTime(anchorPx);
    return TimeMapping(anchorNs - (anchorNs - startNs_) * factor,
                       anchorNs + (endNs_ - anchorNs) * factor, leftPx_, widthPx_);
}

TimeMapping TimeMapping::panned(double dxPx) const {
    const double shiftNs = dxPx * nsPerPixel();
    return TimeMapping(startNs_ - shiftNs, endNs_ - shiftNs, leftPx_, widthPx_);
}

TimeMapping TimeMapping::zoomedTo(double fromPx, double toPx) const {
    if (fromPx > toPx) {
        std::swap(fromPx, toPx);
    }
    if (!isValid() || toPx - fromPx <= 0) {
        return *this;
    }
    return TimeMapping(toTime(fromPx), toTime(toPx), leftPx_, widthPx_);
}

} // namespace slicescope::models
