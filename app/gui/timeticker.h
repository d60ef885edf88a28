#pragma once

#include "gui/qcp.h"

namespace slicescope::gui {

// Tick labels for an axis in nanoseconds, in one unit chosen for the whole visible range:
// "0", "250 µs", "500 µs" or "1.5 s", never "1.5e+09".
class TimeTicker : public QCPAxisTicker {
  public:
    TimeTicker();

    // The unit used for a tick step: divisor in ns and suffix.
    static std::pair<double, QString> unitFor(double stepNs);
    // A label for `ns` in the unit for stepNs, with as many decimals as the step needs.
    static QString label(double ns, double stepNs);

  protected:
    double getTickStep(const QCPRange& range) override;
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar,
                         int precision) override;

  private:
    double stepNs_ = 1;
};

} // namespace slicescope::gui
