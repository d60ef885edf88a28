#pragma once

#include <QImage>
#include <QSize>
#include <QString>

class QCPPainter;

namespace slicescope::models {
class Session;
}

namespace slicescope::gui {

class OccupancyView;
class TimelineView;

// Paints the timeline and the occupancy view side by side, with a title and a legend, onto any
// paint device: a PNG of a chosen size and DPI, a PDF or an SVG (both vector). The same chart
// objects as on screen are drawn through QCustomPlot::toPainter, so an export shows exactly
// what the window shows, at any resolution.
class ReportRenderer {
  public:
    ReportRenderer(TimelineView* timeline, OccupancyView* occupancy, models::Session* session);

    // Renders into an image of sizePx; dpi scales the layout (192 dpi draws everything twice as
    // large as 96) and is stored in the image.
    QImage renderImage(const QSize& sizePx, double dpi = 96) const;
    // Writes path by its suffix: .png/.jpg (raster, sizePx at dpi), .pdf or .svg (vector, page of
    // sizePx at 96 dpi). False with a message on failure.
    bool exportTo(const QString& path, const QSize& sizePx, double dpi, QString* error) const;
    // Paints the whole report in logical pixels.
    void paint(QCPPainter* painter, const QSizeF& logicalSize) const;

  private:
    TimelineView* timeline_;
    OccupancyView* occupancy_;
    models::Session* session_;
};

} // namespace slicescope::gui
