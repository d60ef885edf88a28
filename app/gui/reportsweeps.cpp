#include "gui/reportsweeps.h"

#include "gui/reportstyle.h"
#include "gui/sweepplot.h"
#include "gui/theme.h"
#include "models/session.h"

#include <QFontMetricsF>
#include <algorithm>
#include <cmath>

namespace slicescope::gui {

using namespace reportstyle;

namespace {

// A sweep panel narrower than this shares no row with another (its ticks and legend need room).
constexpr double kMinSweepPanelPx = 420;
// A plot shorter than this is not drawn: a line says the chart needs more room.
constexpr double kMinSweepPlotPx = 180;
// ... nor one whose axes (the plot less its legend and tick labels) are shorter than this.
constexpr double kMinSweepAxesPx = 110;

QFont panelTitleFont() {
    return theme::plotFont(10, true);
}

double wrappedHeight(const QString& text, double width, QPaintDevice* device) {
    const QFontMetricsF fm(textFont(), device);
    return fm.boundingRect(QRectF(0, 0, std::max(10.0, width), 1e6), Qt::TextWordWrap, text)
        .height();
}

// Draws the lines one under another from area's top while they fit; when one does not, the rest
// are left out and a last line says how many. Returns the height used.
double paintLines(QPainter* painter, const QStringList& lines, const QRectF& area) {
    const QFontMetricsF fm(textFont(), painter->device());
    painter->setFont(textFont());
    painter->setPen(QColor(0x22, 0x22, 0x22));
    double y = area.top();
    for (int i = 0; i < lines.size(); ++i) {
        const double h = wrappedHeight(lines[i], area.width(), painter->device());
        // The last line that fits must leave room for the line that says what was left out.
        const bool last = i == lines.size() - 1;
        if (y + h > area.bottom() + 0.5 ||
            (!last && y + h + 2 + fm.height() > area.bottom() + 0.5 &&
             y + h + 2 + wrappedHeight(lines[i + 1], area.width(), painter->device()) >
                 area.bottom() + 0.5)) {
            const QString more = tr("%1 more %2 not shown: a larger size shows them")
                                     .arg(lines.size() - i)
                                     .arg(lines.size() - i == 1 ? tr("line") : tr("lines"));
            if (y + fm.height() <= area.bottom() + 0.5) {
                painter->setPen(QColor(0x55, 0x55, 0x55));
                painter->drawText(QRectF(area.left(), y, area.width(), fm.height()),
                                  Qt::AlignLeft | Qt::AlignVCenter,
                                  fm.elidedText(more, Qt::ElideRight, area.width()));
                y += fm.height() + 2;
            }
            break;
        }
        painter->drawText(QRectF(area.left(), y, area.width(), h), Qt::TextWordWrap, lines[i]);
        y += h + 2;
    }
    return y - area.top();
}

// The panel's title that fits width: a sweep's file name is left out first, and only a title
// still too wide is cut.
QString panelTitle(const SweepExport& part, const SweepExport::Panel& panel,
                   const QFontMetricsF& metrics, double width) {
    QString title;
    switch (panel.kind) {
    case SweepExport::Kind::Time:
    case SweepExport::Kind::Occupancy: {
        const models::SweepView& sweep = part.sweeps[panel.index];
        const QString heading = panel.kind == SweepExport::Kind::Time
                                    ? tr("Time per repetition: %1")
                                    : tr("Occupancy and time: %1");
        title = heading.arg(sweep.title);
        if (metrics.horizontalAdvance(title) > width && !sweep.source.isEmpty()) {
            title = heading.arg(sweep.title.chopped(sweep.source.size()));
        }
        break;
    }
    case SweepExport::Kind::Roofline:
        title = tr("Roofline with the copies: %1").arg(part.rooflines[panel.index].title);
        break;
    }
    return metrics.elidedText(title, Qt::ElideRight, width);
}

// The panel's chart drawn into plot (set up by sweepplot::setUp); returns its notes.
QStringList drawPanel(QCustomPlot* plot, const SweepExport& part, const SweepExport::Panel& panel) {
    sweepplot::reset(plot);
    switch (panel.kind) {
    case SweepExport::Kind::Time:
        return sweepplot::drawTime(plot, part.sweeps[panel.index]);
    case SweepExport::Kind::Occupancy:
        return sweepplot::drawOccupancy(plot, part.sweeps[panel.index]);
    case SweepExport::Kind::Roofline:
        return sweepplot::drawRoofline(plot, part.rooflines[panel.index]);
    }
    return {};
}

// The height a drawn plot needs at a width for axes of kMinSweepAxesPx: its legend and tick
// labels take the rest, and a roofline's legend of ceilings and runs is tall on a narrow page.
double minPlotHeight(QCustomPlot* plot, double width) {
    const int trial = 600;
    sweepplot::layOut(plot, QSize(int(width), trial));
    return std::max(kMinSweepPlotPx, trial - plot->axisRect()->height() + kMinSweepAxesPx);
}

// The plot's preferred height at a width: a little wider than tall, within reason, and axes of
// at least twice their minimum.
double preferredPlotHeight(QCustomPlot* plot, double width) {
    return std::max(std::clamp(width * 0.6, 260.0, 460.0),
                    minPlotHeight(plot, width) + kMinSweepAxesPx);
}

// How many panels go side by side at a width.
int sweepColumns(int panels, double width) {
    return std::clamp(int((width + kGap) / (kMinSweepPanelPx + kGap)), 1, std::max(1, panels));
}

// One panel: its title, the plot, the plot's notes under it (crossovers, divergences, ceilings).
// Notes that do not fit are left out with a line saying how many; a plot with no room is left
// out with a line saying so, and the notes take its place.
void paintPanel(QCPPainter* painter, const QRectF& rect, const SweepExport& part, int index) {
    const SweepExport::Panel& panel = part.panels[index];
    QCustomPlot& plot = *part.drawn[std::size_t(index)].plot;
    const QStringList& notes = part.drawn[std::size_t(index)].notes;
    const QFontMetricsF titleFm(panelTitleFont(), painter->device());
    const QFontMetricsF fm(textFont(), painter->device());
    painter->setFont(panelTitleFont());
    painter->setPen(QColor(0x11, 0x11, 0x11));
    const double titleH = titleFm.height() + 4;
    painter->drawText(QRectF(rect.left(), rect.top(), rect.width(), titleFm.height()),
                      Qt::AlignLeft | Qt::AlignVCenter,
                      panelTitle(part, panel, titleFm, rect.width()));
    const QRectF below(rect.left(), rect.top() + titleH, rect.width(), rect.height() - titleH);
    const double notesWant = linesHeight(notes, rect.width(), painter->device());
    // The plot gets what the notes leave, but never less than its minimum (axes of
    // kMinSweepAxesPx and its legend) while the notes can be cut down instead.
    const double minPlot = minPlotHeight(&plot, rect.width());
    double plotH = std::max(below.height() - notesWant - 4, minPlot);
    // The first note (the first crossover, the ceilings) and the line saying how many more are
    // left out stay, unless the plot then has less than its minimum.
    if (!notes.isEmpty()) {
        const double first = wrappedHeight(notes.front(), rect.width(), painter->device()) + 2 +
                             (notes.size() > 1 ? fm.height() + 2 : 0);
        plotH = std::min(plotH, std::max(minPlot, below.height() - first - 4));
    }
    plotH = std::min(plotH, below.height() - fm.height() - 6);
    QStringList lines = notes;
    const double plotTop = below.top();
    bool drawn = false;
    if (plotH >= minPlot) {
        const QSize viewport(int(rect.width()), int(plotH));
        sweepplot::layOut(&plot, viewport);
        // The legend (a roofline's ceilings and runs) can leave the axes too little: then the
        // plot is left out rather than drawn with its tick labels over one another.
        if (plot.axisRect()->height() >= kMinSweepAxesPx) {
            painter->save();
            painter->translate(QPointF(std::round(rect.left()), std::round(plotTop)));
            plot.toPainter(painter, viewport.width(), viewport.height());
            painter->restore();
            plotH += 4;
            drawn = true;
        }
    }
    if (!drawn) {
        lines.prepend(tr("The chart needs more room than this size leaves: a larger size, or "
                         "fewer views, shows it."));
        plotH = 0;
    }
    paintLines(painter, lines,
               QRectF(below.left(), plotTop + plotH, below.width(), below.height() - plotH));
}

} // namespace

double linesHeight(const QStringList& lines, double width, QPaintDevice* device) {
    double h = 0;
    for (const QString& line : lines) {
        h += wrappedHeight(line, width, device) + 2;
    }
    return h;
}

std::shared_ptr<SweepExport> buildSweepExport(const models::Session& session, const ReportViews& v,
                                              int* panelsBuilt) {
    auto built = std::make_shared<SweepExport>();
    SweepExport& part = *built;
    if (!v.sweep && !v.roofline && !v.sweepsIfAny) {
        return built;
    }
    const auto& visible = session.runs(); // the collectors leave hidden runs out
    if (v.sweep || v.sweepsIfAny) {
        part.sweeps = models::collectSweeps(visible);
        for (int i = 0; i < part.sweeps.size(); ++i) {
            part.panels.push_back({SweepExport::Kind::Time, i});
            if (part.sweeps[i].param == QStringLiteral("block")) {
                part.panels.push_back({SweepExport::Kind::Occupancy, i});
            }
        }
        if (v.sweep && part.sweeps.isEmpty()) {
            part.missing << tr("Sweep chart: no run here carries a sweep point (slicescope-cli "
                               "sweep writes them), so there is no sweep to draw.");
        }
    }
    if (v.roofline || v.sweepsIfAny) {
        part.rooflines = models::collectRooflines(visible);
        for (int i = 0; i < part.rooflines.size(); ++i) {
            part.panels.push_back({SweepExport::Kind::Roofline, i});
        }
        if (v.roofline && part.rooflines.isEmpty()) {
            part.missing << tr("Roofline: no GPU run here has roofline ceilings (run or sweep "
                               "with --roofline, or model on a preset), so there is no roofline "
                               "to draw.");
        }
    }
    for (const auto& panel : part.panels) {
        SweepExport::Drawn drawn{std::make_unique<QCustomPlot>(), {}};
        sweepplot::setUp(drawn.plot.get());
        drawn.notes = drawPanel(drawn.plot.get(), part, panel);
        part.drawn.push_back(std::move(drawn));
        ++*panelsBuilt;
    }
    return built;
}

double sweepExportHeight(const SweepExport& part, double width, QPaintDevice* device) {
    if (part.empty()) {
        return 0;
    }
    double h = linesHeight(part.missing, width, device);
    const int columns = sweepColumns(int(part.panels.size()), width);
    const double panelW = (width - kGap * (columns - 1)) / columns;
    const QFontMetricsF titleFm(panelTitleFont(), device);
    for (int first = 0; first < part.panels.size(); first += columns) {
        double row = 0;
        for (int i = first; i < std::min<int>(first + columns, int(part.panels.size())); ++i) {
            const SweepExport::Drawn& drawn = part.drawn[std::size_t(i)];
            row =
                std::max(row, titleFm.height() + 4 + preferredPlotHeight(drawn.plot.get(), panelW) +
                                  4 + linesHeight(drawn.notes, panelW, device));
        }
        h += row + kGap;
    }
    return h;
}

void paintSweepExport(QCPPainter* painter, const QRectF& rect, const SweepExport& part) {
    const QFontMetricsF fm(textFont(), painter->device());
    double top = rect.top();
    if (!part.missing.isEmpty()) {
        top += paintLines(painter, part.missing, rect) + 4;
    }
    const int n = int(part.panels.size());
    if (n == 0) {
        return;
    }
    const int columns = sweepColumns(n, rect.width());
    const double panelW = (rect.width() - kGap * (columns - 1)) / columns;
    const int rows = (n + columns - 1) / columns;
    const double room = rect.bottom() - top;
    // As many rows as leave each panel its title, a plot and a line of notes.
    const double minPanelH = fm.height() * 3 + kMinSweepPlotPx + 10;
    int fit = rows;
    while (fit > 0 &&
           (room - kGap * (fit - 1) - (fit < rows ? fm.height() + 4 : 0)) / fit < minPanelH) {
        --fit;
    }
    const int shown = std::min(n, fit * columns);
    double bottom = rect.bottom();
    if (shown < n) {
        const QString more =
            shown == 0 ? tr("The sweep chart and roofline need more room than this size leaves: "
                            "a larger size, or --view sweep or roofline alone, shows them.")
                       : tr("Sweep chart and roofline: %1 of %2 charts shown; a larger size, or "
                            "fewer views, shows the rest.")
                             .arg(shown)
                             .arg(n);
        const double h = wrappedHeight(more, rect.width(), painter->device());
        if (top + h <= rect.bottom() + 0.5) {
            painter->setFont(textFont());
            painter->setPen(QColor(0x55, 0x55, 0x55));
            painter->drawText(QRectF(rect.left(), rect.bottom() - h, rect.width(), h),
                              Qt::TextWordWrap, more);
        }
        bottom -= h + 4;
    }
    if (shown == 0) {
        return;
    }
    const double rowH = (bottom - top - kGap * (fit - 1)) / fit;
    for (int i = 0; i < shown; ++i) {
        const int row = i / columns;
        const int column = i % columns;
        paintPanel(
            painter,
            QRectF(rect.left() + column * (panelW + kGap), top + row * (rowH + kGap), panelW, rowH),
            part, i);
    }
}

} // namespace slicescope::gui
