#pragma once

#include "gui/exportviews.h"
#include "gui/timelineplotsetup.h"

#include <QRectF>
#include <QString>
#include <memory>
#include <vector>

class QCPPainter;
class QPaintDevice;

namespace slicescope::models {
class Session;
} // namespace slicescope::models

namespace slicescope::gui {

// What a report draws besides the session's runs, as plain data: the timeline's content and the
// run (and its kernel) that the charts highlight and the selected-run words describe.
struct ReportInputs {
    TimelineContent timeline;
    QString selectedRun;
    int kernel = -1; // the run's kernel group (RunEntry::kernels); -1: the first
};

struct ReportOptions {
    ReportViews views;
    bool breakdownLog = false;
};

// What the parts of a report are drawn from: the session's models, the inputs and the views
// chosen. Never a live widget.
struct ReportContext {
    const models::Session& session;
    const ReportInputs& inputs;
    const ReportOptions& options;
    // Counts the plots a part draws once when it is made (the sweep panels), for tests; may be
    // null.
    int* plotsBuilt = nullptr;
};

// The run the charts highlight: the selected one while the session draws it, else none.
QString shownRun(const ReportContext& context);

// One part of an exported report (the timeline, a chart, the sweep panels): how much height it
// wants at a width, where on the page it goes, and how it paints itself into the rectangle it is
// given. ReportRenderer lays the parts out by their placement and sizes alone; a part paints
// nothing outside its rectangle. Heights and rectangles are in logical pixels; device gives the
// font metrics.
class ReportPart {
  public:
    enum class Placement {
        Main,   // the timeline: the body less the side parts, or 60% of a wide page beside them
        Side,   // the charts: one under another, beside the main part on a wide page and under
                // it on a narrow one; with no main part, two side by side on a wide page
        Bottom, // under the rest, the page's width: its preferred height on a page as tall as the
                // content, else half the body (at most its maximum height)
        Footer, // at the foot of the page, under everything: the timeline's legend
    };

    ReportPart() = default;
    ReportPart(const ReportPart&) = delete;
    ReportPart& operator=(const ReportPart&) = delete;
    virtual ~ReportPart() = default;

    virtual Placement placement() const = 0;
    // The height that shows everything in full at width.
    virtual double preferredHeight(double width, QPaintDevice* device) const = 0;
    // The height that shows everything compact (rows on one line) at width; the preferred height
    // for a part with no compact form.
    virtual double compactHeight(double width, QPaintDevice* device) const;
    // The most height the part can use at width (a part of text lines: their height); unbounded
    // for a part that stretches to what it is given.
    virtual double maximumHeight(double width, QPaintDevice* device) const;
    // Paints the part into rect; what does not fit is left out with a line saying so.
    virtual void paint(QCPPainter& painter, const QRectF& rect) const = 0;
};

using ReportParts = std::vector<std::unique_ptr<ReportPart>>;

// The parts of the export views' registry (exportViews(), each row naming its factory): what each
// draws for the views the context chooses, nothing where it draws none.
// The timeline (overview or every lane, `overview` and `detail`) and its legend.
ReportParts timelineParts(const ReportContext& context);
// Where one repetition's time goes, per run (`breakdown`).
ReportParts breakdownParts(const ReportContext& context);
// Occupancy per run, with the selected run's launch in words under it (`occupancy`, `all`).
ReportParts occupancyParts(const ReportContext& context);
// The sweep charts and rooflines in one grid of panels (`sweep`, `roofline`, `all`).
ReportParts sweepParts(const ReportContext& context);

} // namespace slicescope::gui
