#pragma once

#include "gui/qcp.h"

namespace slicescope::gui {

// Tick labels for an axis in nanoseconds, in one unit chosen for the whole visible range:
// "0", "250 µs", "500 µs" or "1.5 s", never "1.5e+09". Given its axis, it puts no more ticks on it
// than labels like "100.5 ms" fit side by side, with room between them (tickCount() is the most),
// so a narrow timeline never reads "10 ms20 ms".
class TimeTicker : public QCPAxisTicker {
  public:
    explicit TimeTicker(const QCPAxis* axis = nullptr);

    // The unit used for a tick step: divisor in ns and suffix.
    static std::pair<double, QString> unitFor(double stepNs);
    // A label for `ns` in the unit for stepNs, with as many decimals as the step needs
    // (a step of 0.25 s labels 1.25 s "1.25 s", not "1.3 s").
    static QString label(double ns, double stepNs);
    // The most ticks that labels in font fit side by side in widthPx.
    static int ticksThatFit(double widthPx, const QFont& font);

  protected:
    double getTickStep(const QCPRange& range) override;
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar,
                         int precision) override;

  private:
    const QCPAxis* axis_;
    double stepNs_ = 1;
};

} // namespace slicescope::gui
