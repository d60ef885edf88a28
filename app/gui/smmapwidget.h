#pragma once

#include "slicescope/occupancy/residency.h"

#include <QWidget>

namespace slicescope::gui {

// The GPU's SMs as a grid of cells; each cell shows the warps its resident blocks hold (light)
// and those with work (dark) against the SM's warp slots. A model of residency (first wave,
// blocks handed out round-robin), not a measurement: the caption says so.
class SmMapWidget : public QWidget {
    Q_OBJECT
  public:
    explicit SmMapWidget(QWidget* parent = nullptr);

    void setResidency(const occupancy::Residency& residency);
    const occupancy::Residency& residency() const { return residency_; }

    // Paints a map into rect; shared by the widget and image export.
    static void paint(QPainter& painter, const QRectF& rect, const occupancy::Residency& residency);
    // The SM under a point of a map painted into rect, or -1.
    static int smAt(const QRectF& rect, std::size_t smCount, const QPointF& point);
    static QString summary(const occupancy::Residency& residency);

    QSize sizeHint() const override;
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;

  protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

  private:
    occupancy::Residency residency_;
};

} // namespace slicescope::gui
