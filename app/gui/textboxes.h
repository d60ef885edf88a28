#pragma once

#include <QByteArray>
#include <QRectF>
#include <QSize>
#include <QString>
#include <QVector>
#include <functional>

class QCPPainter;

namespace slicescope::gui {

// One text item as drawn, in output pixels (the image's, or the page's at the export DPI).
struct TextBox {
    QString text;
    QRectF rect;          // the part drawn: the text's extent less what a clip hid
    double pointSize = 0; // at the export DPI
    bool cut = false;     // a clip (a plot's area, a cell) hid part of it: a cut label
};
// `[{"text", "x", "y", "w", "h"}, ...]`, and `"cut": true` on a box a clip cut.
QByteArray textBoxesJson(const QVector<TextBox>& boxes);
// Every text item that paint draws on a page of sizePx logical pixels, in those pixels. Text a
// clip hides entirely is not drawn and not listed. QCustomPlot labels are drawn as text
// (QCPPainter::pmNoCaching), not as cached pixmaps.
QVector<TextBox> recordTextBoxes(const QSize& sizePx,
                                 const std::function<void(QCPPainter& painter)>& paint);

} // namespace slicescope::gui
