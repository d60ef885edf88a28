#pragma once

#include "gui/qcp.h"
#include "models/occupancyfacts.h"

namespace slicescope::gui {

// Theoretical occupancy of the selected run's kernel against threads per block (left) and
// against registers per thread (right), from the occupancy calculator for the run's device,
// with the run's own choice marked.
class OccupancyCurvePlot : public QCustomPlot {
    Q_OBJECT
  public:
    explicit OccupancyCurvePlot(QWidget* parent = nullptr);

    void setFacts(const models::OccupancyFacts& facts);
    void applyTheme();
    // The marked point of each chart (x, occupancy 0..1), for tests.
    QPointF blockMarker() const { return blockMarker_; }
    QPointF registerMarker() const { return registerMarker_; }
    // No wider than its axes need: the title wraps to the width it is given (a QCustomPlot is
    // otherwise at least as wide as its title's one line, and the pane around it with it).
    QSize minimumSizeHint() const override;

  protected:
    void resizeEvent(QResizeEvent* event) override;

  private:
    void setTitle(const QString& text);
    void setUpRect(QCPAxisRect* rect, const QString& xLabel, double xMax);
    models::OccupancyFacts facts_;
    void addCurve(QCPAxisRect* rect, const QVector<double>& x, const QVector<double>& y,
                  double markX, double markY, const QString& markText, QPointF& marker);

    QCPAxisRect* byBlock_ = nullptr;
    QCPAxisRect* byRegisters_ = nullptr;
    QCPTextElement* title_ = nullptr;
    QString titleText_; // unwrapped
    QPointF blockMarker_{-1, -1};
    QPointF registerMarker_{-1, -1};
};

} // namespace slicescope::gui
