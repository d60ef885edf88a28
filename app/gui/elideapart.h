#pragma once

#include <QFontMetricsF>
#include <QHash>
#include <QString>
#include <QStringList>

namespace slicescope::gui {

// Labels of one chart cut to a width so that labels which differ stay apart: each is cut in the
// middle (long kernel names keep their start and end), and where two different labels would then
// read the same ("slice-m…x5)" for "slice-middle (400x16000x5)" and
// "slice-middle-strided (400x16000x5)"), that group is cut at its end, at its start, or around
// the part that tells them apart, whichever first makes them differ.
class ElideApart {
  public:
    ElideApart(QStringList labels, const QFontMetricsF& metrics);
    // label (one of the labels) cut to width. Computed for every label at once, per width.
    QString elided(const QString& label, double width);

  private:
    QHash<QString, QString> elideAll(double width) const;

    QStringList labels_;
    QFontMetricsF metrics_;
    QHash<double, QHash<QString, QString>> byWidth_;
};

} // namespace slicescope::gui
