#pragma once

// The layout rules every export and chart is held to, on the text boxes it drew
// (gui/reportrenderer.h: recordTextBoxes, ReportRenderer::textBoxes).
#include "gui/reportrenderer.h"

#include <QRectF>
#include <QSize>
#include <QString>
#include <QVector>

namespace testhelpers {

// Empty when every text box lies inside the image, none is cut by a clip, none lies over another
// (1 px of slack for antialiased edges) and each is at least minPt; otherwise what is wrong.
inline QString textLayoutProblem(const QVector<slicescope::gui::TextBox>& boxes, const QSize& size,
                                 double minPt = 9) {
    const QRectF page(-0.5, -0.5, size.width() + 1.0, size.height() + 1.0);
    for (int i = 0; i < boxes.size(); ++i) {
        const auto& a = boxes[i];
        if (!page.contains(a.rect)) {
            return QStringLiteral("'%1' leaves the image").arg(a.text);
        }
        if (a.cut) {
            return QStringLiteral("'%1' is cut by a clip").arg(a.text);
        }
        if (a.pointSize < minPt - 1e-6) {
            return QStringLiteral("'%1' is %2 pt").arg(a.text).arg(a.pointSize);
        }
        for (int j = i + 1; j < boxes.size(); ++j) {
            const QRectF overlap = a.rect.intersected(boxes[j].rect);
            if (overlap.width() > 1 && overlap.height() > 1) {
                return QStringLiteral("'%1' overlaps '%2'").arg(a.text, boxes[j].text);
            }
        }
    }
    return {};
}

} // namespace testhelpers
