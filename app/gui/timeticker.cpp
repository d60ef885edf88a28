#include "gui/timeticker.h"

#include <QFontMetricsF>
#include <algorithm>
#include <cmath>

namespace slicescope::gui {

TimeTicker::TimeTicker(const QCPAxis* axis) : axis_(axis) {
    setTickCount(8);
}

int TimeTicker::ticksThatFit(double widthPx, const QFont& font) {
    const double labelPx =
        QFontMetricsF(font).horizontalAdvance(QStringLiteral("000.000 ms")) * 1.6;
    return std::max(2, int(widthPx / labelPx));
}

namespace {

// The decimals that write the step exactly (0.25: 2, 0.5: 1, 2: 0), at most 6.
int decimalsOf(double step) {
    for (int decimals = 0; decimals < 6; ++decimals) {
        const double scaled = step * std::pow(10.0, decimals);
        if (std::fabs(scaled - std::round(scaled)) < 1e-6 * std::max(1.0, scaled)) {
            return decimals;
        }
    }
    return 6;
}

} // namespace

std::pair<double, QString> TimeTicker::unitFor(double stepNs) {
    if (stepNs >= 1e8) {
        return {1e9, QStringLiteral("s")};
    }
    if (stepNs >= 1e5) {
        return {1e6, QStringLiteral("ms")};
    }
    if (stepNs >= 1e2) {
        return {1e3, QStringLiteral("\u00b5s")};
    }
    return {1, QStringLiteral("ns")};
}

QString TimeTicker::label(double ns, double stepNs) {
    const auto [divisor, suffix] = unitFor(stepNs);
    const double value = ns / divisor;
    if (std::fabs(value) < 1e-9 * std::max(1.0, std::fabs(stepNs / divisor))) {
        return QStringLiteral("0");
    }
    const double step = stepNs / divisor;
    const int decimals = decimalsOf(step);
    return QString::number(value, 'f', decimals) + QLatin1Char(' ') + suffix;
}

double TimeTicker::getTickStep(const QCPRange& range) {
    const int most = tickCount();
    if (axis_ && axis_->axisRect()) {
        // Ticks are set up before the layout: the viewport has its new size already, the axis
        // rect not yet (an export at another size, the first paint), so its margins are used.
        const QCPAxisRect* rect = axis_->axisRect();
        const double widthPx = rect->parentPlot()->viewport().width() - rect->margins().left() -
                               rect->margins().right();
        mTickCount = std::min(most, ticksThatFit(widthPx, axis_->tickLabelFont()));
    }
    stepNs_ = QCPAxisTicker::getTickStep(range);
    mTickCount = most;
    return stepNs_;
}

QString TimeTicker::getTickLabel(double tick, const QLocale&, QChar, int) {
    return label(tick, stepNs_);
}

} // namespace slicescope::gui
