#pragma once

#include "gui/exportviews.h"
#include "gui/reportpart.h"
#include "gui/textboxes.h"
#include "gui/timelineplotsetup.h"

#include <QImage>
#include <QObject>
#include <QRectF>
#include <QSize>
#include <QString>
#include <QVector>
#include <memory>
#include <optional>

class QCPPainter;
class QPainter;

namespace slicescope::models {
class Session;
class ViewState;
} // namespace slicescope::models

namespace slicescope::gui {

class OccupancyView;
class TimelineView;

// A headless export's: the session at full range, the state's selected run, its first kernel.
ReportInputs reportInputs(const models::Session& session, const models::ViewState& state);
// The window's: what its timeline shows and the run and kernel its occupancy view shows. Only
// read: the export draws its own plot.
ReportInputs reportInputs(const TimelineView& timeline, const OccupancyView& occupancy);

// An export of the runs `ids` (the Export dialog's choice): where they are not the runs the
// window shows, a copy of the session with only those visible, and the inputs with the timeline's
// runs those, its alignment, selection and expanded runs kept and its time range fitted to them
// (the window's zoom was chosen for other runs). No session where they are the window's runs.
struct ChosenRuns {
    std::unique_ptr<models::Session> session;
    ReportInputs inputs;
};
ChosenRuns chooseRuns(const models::Session& session, ReportInputs inputs, const QStringList& ids);

// A named export size: `--size slide|hd|4k|paper`. slide, hd and 4k are one 16:9 slide
// (1280x720 logical pixels) at 1x, 1.5x and 3x resolution, so text keeps its size on the
// projector; paper is 7 in wide (672 logical pixels), as tall as its content, at print sizes
// (vector PDF/SVG, or a 300 dpi PNG).
struct ExportPreset {
    QString name;
    QSize sizePx;    // height 0: as tall as the content needs
    double dpi = 96; // the layout is sizePx * 96 / dpi logical pixels
};
std::optional<ExportPreset> exportPreset(const QString& name);
QStringList exportPresetNames();

// Paints the report: a title, then the parts of the views chosen (exportViews(), each part with
// its placement, sizes and paint step: gui/reportpart.h) laid out by their placement alone, onto
// any paint device: a PNG of a chosen size and DPI, a PDF or an SVG (both vector). Every font is
// at least 9 pt at the export DPI; what does not fit is left out with a line saying so, never
// drawn over other text.
class ReportRenderer {
  public:
    ReportRenderer(models::Session* session, ReportInputs inputs);

    void setOptions(const ReportOptions& options);
    const ReportOptions& options() const { return options_; }

    // Renders into an image of sizePx; dpi scales the layout (192 dpi draws everything twice as
    // large as 96) and is stored in the image.
    QImage renderImage(const QSize& sizePx, double dpi = 96) const;
    // Writes path by its suffix: .png/.jpg (raster, sizePx at dpi), .pdf or .svg (vector, a page
    // of sizePx at dpi). A height of 0 takes the height the content needs (the paper preset).
    // textBoxes, when given, receives every text item drawn. False with a message on failure.
    bool exportTo(const QString& path, const QSize& sizePx, double dpi, QString* error,
                  QVector<TextBox>* textBoxes = nullptr) const;
    // Every text item an export of sizePx at dpi draws, in output pixels.
    QVector<TextBox> textBoxes(const QSize& sizePx, double dpi = 96) const;
    // sizePx with a height of 0 replaced by the height the content needs at that width.
    QSize resolvedSize(const QSize& sizePx, double dpi) const;
    // Paints the whole report in logical pixels.
    void paint(QCPPainter* painter, const QSizeF& logicalSize) const;
    // How many sweep and roofline panels this renderer has drawn so far: each once, then laid
    // out again for every size asked (the sizing, the paint), until the session or the options
    // change. For tests.
    int sweepPanelsBuilt() const { return sweepPanelsBuilt_; }

  private:
    double contentHeight(double logicalWidth) const;
    // The parts of the views chosen, made once (the sweep panels' plots drawn then) and kept
    // until the session or the options change.
    const ReportParts& parts() const;
    // The title at the top and the footer parts (the timeline's legend) at the bottom; returns
    // the body between.
    QRectF paintTitleAndFooter(QCPPainter* painter, const QSizeF& size,
                               const QVector<const ReportPart*>& footer) const;
    // The bottom parts (the sweep chart and roofline) at the body's bottom, each taking the whole
    // body when rest (a main or side part) is false; returns the body they leave.
    QRectF paintBottom(QCPPainter* painter, const QSizeF& size, QRectF body,
                       const QVector<const ReportPart*>& bottom, bool rest) const;

    models::Session* session_;
    ReportInputs inputs_;
    ReportOptions options_;
    mutable std::unique_ptr<ReportParts> parts_; // parts()'s, null until asked
    mutable int sweepPanelsBuilt_ = 0;
    QObject sessionWatch_; // drops parts_ when the session changes
};

} // namespace slicescope::gui
