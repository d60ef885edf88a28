#include "gui/timeticker.h"

#include <cmath>

namespace slicescope::gui {

TimeTicker::TimeTicker() {
    setTickCount(8);
}

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
    const int decimals = step >= 1 ? 0 : std::min(6, int(std::ceil(-std::log10(step) - 1e-9)));
    return QString::number(value, 'f', decimals) + QLatin1Char(' ') + suffix;
}

double TimeTicker::getTickStep(const QCPRange& range) {
    stepNs_ = QCPAxisTicker::getTickStep(range);
    return stepNs_;
}

QString TimeTicker::getTickLabel(double tick, const QLocale&, QChar, int) {
    return label(tick, stepNs_);
}

} // namespace slicescope::gui
