#pragma once

#include "gui/exportviews.h"
#include "gui/qcp.h"
#include "models/sweepdata.h"

#include <QList>
#include <QStringList>
#include <QVector>
#include <memory>
#include <vector>

namespace slicescope::models {
class Session;
}

namespace slicescope::gui {

// What the sweep part of an export shows: the sweeps and rooflines of the visible runs, one
// panel per chart, and the lines saying what was asked for and is not there.
struct SweepExport {
    enum class Kind { Time, Occupancy, Roofline };
    struct Panel {
        Kind kind;
        int index; // into sweeps or rooflines
    };
    QList<models::SweepView> sweeps;
    QList<models::RooflineView> rooflines;
    QVector<Panel> panels;
    QStringList missing;
    // Each panel's plot as drawn, and its notes: one per panel. sweepplot::layOut lays a plot out
    // again for each size (the sizing's trial, the panel's own), so it is drawn only once.
    struct Drawn {
        std::unique_ptr<QCustomPlot> plot;
        QStringList notes;
    };
    std::vector<Drawn> drawn;
    bool empty() const { return panels.isEmpty() && missing.isEmpty(); }
};

// The sweep charts and rooflines of the session's visible runs that views ask for, each panel's
// plot drawn (panelsBuilt counts them), or the lines saying there are none.
std::shared_ptr<SweepExport> buildSweepExport(const models::Session& session,
                                              const ReportViews& views, int* panelsBuilt);
// The height the part needs at a width: every panel at its preferred height, in rows.
double sweepExportHeight(const SweepExport& part, double width, QPaintDevice* device);
// Paints the part into rect: its lines, then as many rows of panels as fit, and a line for the
// rest.
void paintSweepExport(QCPPainter* painter, const QRectF& rect, const SweepExport& part);
// The height of lines of report text wrapped at a width, one under another.
double linesHeight(const QStringList& lines, double width, QPaintDevice* device);

} // namespace slicescope::gui
