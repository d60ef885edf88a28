#include "gui/reportrenderer.h"

#include "gui/breakdownchart.h"
#include "gui/occupancybarsplot.h"
#include "gui/occupancyview.h"
#include "gui/qcp.h"
#include "gui/rowschart.h"
#include "gui/sweepplot.h"
#include "gui/theme.h"
#include "gui/timelineplottable.h"
#include "gui/timelineview.h"
#include "models/session.h"
#include "models/sweepdata.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPaintEngine>
#include <QPdfWriter>
#include <QSaveFile>
#include <QScopeGuard>
#include <QSvgGenerator>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <vector>

namespace slicescope::gui {

namespace {

// ReportRenderer is no QObject: its strings are translated in its class's context all the same.
QString tr(const char* text) {
    return QCoreApplication::translate("slicescope::gui::ReportRenderer", text);
}

constexpr double kMargin = 10;
constexpr double kGap = 16;
constexpr double kWideLayoutPx = 900; // narrower pages stack the parts
// Timeline rows in an export: never smaller than this (9 pt text and its sub-rows stay apart)...
constexpr double kMinTimelineUnitPx = 22;
// ... nor taller than this (a few runs do not blow up into huge bars).
constexpr double kMaxTimelineUnitPx = 34;
// The smallest font the timeline draws is 8.5 pt: exports scale it to 9 pt.
constexpr double kSmallestTimelinePt = 8.5;
constexpr double kMinExportPt = 9;

QString titleText(const models::Session& session) {
    std::set<std::string> problems;
    int modelled = 0;
    int runs = 0;
    for (const auto& e : session.runs()) {
        if (!e->visible) {
            continue;
        }
        ++runs;
        if (e->run->problem) {
            problems.insert(e->run->problem->describe());
        }
        modelled += e->isModelled() ? 1 : 0;
    }
    QString text = QStringLiteral("SliceScope");
    if (problems.size() == 1) {
        text += QStringLiteral("  \u00b7  ") + models::toQString(*problems.begin());
    } else if (problems.size() > 1) {
        text += tr("  \u00b7  %1 problems").arg(problems.size());
    }
    text += QStringLiteral("  \u00b7  %1 %2").arg(runs).arg(runs == 1 ? tr("run") : tr("runs"));
    if (modelled > 0) {
        text += tr(" (%1 modelled, hatched)").arg(modelled);
    }
    return text;
}

// A paint device that draws nothing and keeps every text item: where it lies (after the
// painter's transform and clip) and in what font. QCustomPlot draws its labels as text when
// label caching is off (QCPPainter::pmNoCaching).
class TextBoxEngine : public QPaintEngine {
  public:
    TextBoxEngine() : QPaintEngine(QPaintEngine::AllFeatures) {}
    bool begin(QPaintDevice*) override { return true; }
    bool end() override { return true; }
    void updateState(const QPaintEngineState&) override {}
    void drawPixmap(const QRectF&, const QPixmap&, const QRectF&) override {}
    void drawImage(const QRectF&, const QImage&, const QRectF&, Qt::ImageConversionFlags) override {
    }
    void drawTiledPixmap(const QRectF&, const QPixmap&, const QPointF&) override {}
    void drawPath(const QPainterPath&) override {}
    void drawPolygon(const QPointF*, int, PolygonDrawMode) override {}
    void drawPolygon(const QPoint*, int, PolygonDrawMode) override {}
    void drawRects(const QRectF*, int) override {}
    void drawRects(const QRect*, int) override {}
    void drawLines(const QLineF*, int) override {}
    void drawLines(const QLine*, int) override {}
    void drawEllipse(const QRectF&) override {}
    void drawPoints(const QPointF*, int) override {}
    void drawTextItem(const QPointF& p, const QTextItem& item) override {
        const QString text = item.text();
        if (text.trimmed().isEmpty()) {
            return;
        }
        const QTransform transform = painter()->combinedTransform();
        const QRectF whole = transform.mapRect(
            QRectF(p.x(), p.y() - item.ascent(), item.width(), item.ascent() + item.descent()));
        QRectF box = whole;
        if (painter()->hasClipping()) {
            box &= transform.mapRect(painter()->clipBoundingRect());
        }
        if (box.width() <= 0.01 || box.height() <= 0.01) {
            return; // clipped away: not visible
        }
        // Half a pixel of slack: a clip rectangle rounded to whole pixels is no cut label.
        const bool cut = box.width() < whole.width() - 0.5 || box.height() < whole.height() - 0.5;
        boxes.push_back({text, box, item.font().pointSizeF(), cut});
    }
    Type type() const override { return QPaintEngine::User; }

    QVector<TextBox> boxes;
};

class TextBoxDevice : public QPaintDevice {
  public:
    explicit TextBoxDevice(const QSize& size) : size_(size) {}
    QPaintEngine* paintEngine() const override { return &engine_; }
    TextBoxEngine& engine() const { return engine_; }

  protected:
    int metric(PaintDeviceMetric metric) const override {
        switch (metric) {
        case PdmWidth:
            return size_.width();
        case PdmHeight:
            return size_.height();
        case PdmWidthMM:
            return int(size_.width() * 25.4 / 96);
        case PdmHeightMM:
            return int(size_.height() * 25.4 / 96);
        case PdmNumColors:
            return 0x7fffffff;
        case PdmDepth:
            return 32;
        case PdmDpiX:
        case PdmDpiY:
        case PdmPhysicalDpiX:
        case PdmPhysicalDpiY:
            return 96; // as a QImage: fonts resolve to the same pixels
        case PdmDevicePixelRatio:
            return 1;
        case PdmDevicePixelRatioScaled:
            return int(QPaintDevice::devicePixelRatioFScale());
        default:
            return 0;
        }
    }

  private:
    QSize size_;
    mutable TextBoxEngine engine_;
};

// Raises the presentation scale so the timeline's smallest font is 9 pt, for one export.
class ExportFonts {
  public:
    ExportFonts() : saved_(theme::presentationScale()) {
        theme::setPresentationScale(std::max(saved_, kMinExportPt / kSmallestTimelinePt));
    }
    ~ExportFonts() { theme::setPresentationScale(saved_); }
    ExportFonts(const ExportFonts&) = delete;
    ExportFonts& operator=(const ExportFonts&) = delete;

  private:
    double saved_;
};

QFont titleFont() {
    return theme::plotFont(12, true);
}
QFont textFont() {
    return theme::plotFont(kMinExportPt);
}

struct LegendEntry {
    QColor color;
    bool hatched = false;
    QString text;
};

QVector<LegendEntry> laneLegend(const models::Session& session) {
    std::set<models::LaneKind> kinds;
    bool modelled = false;
    for (const auto& e : session.runs()) {
        if (!e->visible) {
            continue;
        }
        modelled = modelled || e->isModelled();
        for (const auto& lane : e->lanes->lanes) {
            kinds.insert(lane.kind);
        }
    }
    QVector<LegendEntry> out;
    for (auto kind : kinds) {
        out << LegendEntry{theme::laneColor(kind), false,
                           models::toQString(models::laneKindName(kind)) + QStringLiteral(": ") +
                               theme::laneDescription(kind)};
    }
    if (modelled) {
        out << LegendEntry{theme::laneColor(models::LaneKind::Kernel), true,
                           QStringLiteral("hatched: modelled, not measured")};
    }
    return out;
}

// Lays the legend out in lines across the area; returns the height, and paints when painter is
// set.
double legendLayout(QPainter* painter, const QVector<LegendEntry>& entries, const QRectF& area,
                    QPaintDevice* device) {
    if (entries.isEmpty()) {
        return 0;
    }
    const QFontMetricsF fm(textFont(), device);
    const double lineH = fm.height();
    const double swatch = lineH * 0.9;
    double x = area.left();
    double y = area.top();
    if (painter) {
        painter->setFont(textFont());
    }
    for (const auto& entry : entries) {
        const QString text =
            fm.elidedText(entry.text, Qt::ElideRight, std::max(10.0, area.width() - swatch - 4));
        const double w = swatch + 4 + fm.horizontalAdvance(text) + 1;
        if (x > area.left() && x + w > area.right()) {
            x = area.left();
            y += lineH + 2;
        }
        if (painter) {
            fillHatched(*painter, QRectF(x, y + lineH * 0.15, swatch, lineH * 0.7), entry.color,
                        entry.hatched);
            painter->setPen(QColor(0x33, 0x33, 0x33));
            painter->drawText(QRectF(x + swatch + 4, y, w - swatch - 4, lineH),
                              Qt::AlignLeft | Qt::AlignVCenter, text);
        }
        x += w + 16;
    }
    return y - area.top() + lineH;
}

} // namespace

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

double linesHeight(const QStringList& lines, double width, QPaintDevice* device) {
    double h = 0;
    for (const QString& line : lines) {
        h += wrappedHeight(line, width, device) + 2;
    }
    return h;
}

QString panelTitle(const SweepExport& part, const SweepExport::Panel& panel) {
    switch (panel.kind) {
    case SweepExport::Kind::Time:
        return tr("Time per repetition: %1").arg(part.sweeps[panel.index].title);
    case SweepExport::Kind::Occupancy:
        return tr("Occupancy and time: %1").arg(part.sweeps[panel.index].title);
    case SweepExport::Kind::Roofline:
        return tr("Roofline with the copies: %1").arg(part.rooflines[panel.index].title);
    }
    return {};
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
                      titleFm.elidedText(panelTitle(part, panel), Qt::ElideRight, rect.width()));
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

std::shared_ptr<const SweepExport> ReportRenderer::sweepExport() const {
    if (sweeps_) {
        return sweeps_;
    }
    sweeps_ = std::make_shared<SweepExport>();
    SweepExport& part = *sweeps_;
    const ReportViews& v = options_.views;
    if (!v.sweep && !v.roofline && !v.sweepsIfAny) {
        return sweeps_;
    }
    const auto& visible = session_->runs(); // the collectors leave hidden runs out
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
        ++sweepPanelsBuilt_;
    }
    return sweeps_;
}

double ReportRenderer::sweepNeed(const SweepExport& part, double width,
                                 QPaintDevice* device) const {
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

void ReportRenderer::paintSweeps(QCPPainter* painter, const QRectF& rect,
                                 const SweepExport& part) const {
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

std::optional<ExportPreset> exportPreset(const QString& name) {
    const QString key = name.trimmed().toLower();
    if (key == QStringLiteral("slide")) {
        return ExportPreset{key, QSize(1280, 720), 96};
    }
    if (key == QStringLiteral("hd")) {
        return ExportPreset{key, QSize(1920, 1080), 144};
    }
    if (key == QStringLiteral("4k")) {
        return ExportPreset{key, QSize(3840, 2160), 288};
    }
    if (key == QStringLiteral("paper")) {
        return ExportPreset{key, QSize(7 * 300, 0), 300}; // 7 in at 300 dpi; vector for PDF/SVG
    }
    return std::nullopt;
}

QStringList exportPresetNames() {
    return {QStringLiteral("slide"), QStringLiteral("hd"), QStringLiteral("4k"),
            QStringLiteral("paper")};
}

QByteArray textBoxesJson(const QVector<TextBox>& boxes) {
    QJsonArray array;
    for (const auto& box : boxes) {
        QJsonObject o;
        o.insert(QStringLiteral("text"), box.text);
        o.insert(QStringLiteral("x"), std::round(box.rect.x() * 100) / 100);
        o.insert(QStringLiteral("y"), std::round(box.rect.y() * 100) / 100);
        o.insert(QStringLiteral("w"), std::round(box.rect.width() * 100) / 100);
        o.insert(QStringLiteral("h"), std::round(box.rect.height() * 100) / 100);
        if (box.cut) {
            o.insert(QStringLiteral("cut"), true);
        }
        array.append(o);
    }
    return QJsonDocument(array).toJson(QJsonDocument::Indented);
}

ReportRenderer::ReportRenderer(TimelineView* timeline, OccupancyView* occupancy,
                               models::Session* session)
    : timeline_(timeline), occupancy_(occupancy), session_(session) {
    // The sweep panels are drawn from the session's runs: drawn again after any change.
    QObject::connect(session_, &models::Session::changed, &sessionWatch_,
                     [this] { sweeps_.reset(); });
}

void ReportRenderer::setOptions(const ReportOptions& options) {
    options_ = options;
    sweeps_.reset(); // the views chosen decide the panels
}

void ReportRenderer::paintTimeline(QCPPainter* painter, const QRectF& rect, bool overview) const {
    // Overview: one row per run; detail: every run expanded to its lanes. The window's own
    // choice of expanded runs comes back afterwards.
    QStringList expandedInWindow;
    for (const auto& entry : timeline_->plottable()->runs()) {
        if (timeline_->isRunExpanded(entry->id)) {
            expandedInWindow << entry->id;
        }
    }
    timeline_->setAllRunsExpanded(!overview);
    const auto restoreExpanded = qScopeGuard([this, expandedInWindow] {
        timeline_->setAllRunsExpanded(false);
        for (const QString& id : expandedInWindow) {
            timeline_->setRunExpanded(id, true);
        }
    });
    const QFontMetricsF fm(textFont(), painter->device());
    const auto& rows = timeline_->plottable()->rows();
    const double content = std::max(1.0, timeline_->plottable()->contentHeight());
    // The x axis below the rows: tick labels and the axis title.
    const double axisPx = 2 * fm.height() + 24;
    double plotPx = rect.height() - axisPx;
    double upper = content;
    const int allRuns = int(timeline_->plottable()->runs().size());
    int shownRuns = allRuns;
    if (content * kMinTimelineUnitPx > plotPx) {
        // Whole runs where one fits, else the first run's lanes that fit, at the smallest row
        // height; a line says what is left out.
        plotPx -= fm.height() + 2;
        const double fit = plotPx / kMinTimelineUnitPx;
        std::vector<double> runEnd(std::size_t(allRuns), 0.0);
        for (const auto& row : rows) {
            runEnd[std::size_t(row.run)] =
                std::max(runEnd[std::size_t(row.run)], row.top + row.height);
        }
        upper = 0;
        shownRuns = 0;
        for (int r = 0; r < allRuns && runEnd[std::size_t(r)] <= fit + 1e-9; ++r) {
            upper = runEnd[std::size_t(r)];
            shownRuns = r + 1;
        }
        if (shownRuns == 0) {
            for (const auto& row : rows) {
                if (row.top + row.height > fit + 1e-9) {
                    break;
                }
                if (row.type == TimelinePlottable::Row::Type::Lane) {
                    upper = row.top + row.height;
                    shownRuns = 1;
                }
            }
        }
    } else {
        // A few runs: rows at their largest height and the axis right under them, not a tall
        // empty frame.
        plotPx = std::min(plotPx, content * kMaxTimelineUnitPx);
        upper = content;
    }
    painter->setFont(textFont());
    painter->setPen(QColor(0x55, 0x55, 0x55));
    if (upper <= 0) {
        painter->drawText(
            QRectF(rect.left(), rect.top(), rect.width(), fm.height()), Qt::AlignLeft,
            fm.elidedText(QStringLiteral("Timeline: too little room; export a larger size"),
                          Qt::ElideRight, rect.width()));
        return;
    }
    const QCPRange keepRows = timeline_->yAxis->range();
    const QFont keepXTicks = timeline_->xAxis->tickLabelFont();
    const QFont keepXLabel = timeline_->xAxis->labelFont();
    const QFont keepYTicks = timeline_->yAxis->tickLabelFont();
    timeline_->yAxis->blockSignals(true);
    timeline_->yAxis->setRange(0, upper);
    timeline_->xAxis->setTickLabelFont(textFont());
    timeline_->xAxis->setLabelFont(textFont());
    timeline_->yAxis->setTickLabelFont(textFont());
    // As many time ticks as labels like "100.5 ms" fit side by side with room between them: the
    // window's tick count is for the window's width and font, not the page's.
    const auto ticker = timeline_->xAxis->ticker();
    const int keepTickCount = ticker->tickCount();
    const double labelPx = fm.horizontalAdvance(QStringLiteral("000.000 ms")) * 1.6;
    ticker->setTickCount(std::clamp(int(rect.width() / labelPx), 2, keepTickCount));
    // The axis title is the window's; on a narrow page it is elided rather than cut by the edge.
    // It is centred under the plot, which starts right of the lane names.
    const QString keepAxisLabel = timeline_->xAxis->label();
    const QFontMetricsF pageMetrics(textFont());
    double namesPx = 0;
    for (const auto& entry : timeline_->plottable()->runs()) {
        namesPx = std::max(namesPx, pageMetrics.horizontalAdvance(entry->id));
    }
    timeline_->xAxis->setLabel(pageMetrics.elidedText(keepAxisLabel, Qt::ElideRight,
                                                      std::max(10.0, rect.width() - namesPx - 48)));
    painter->save();
    painter->translate(rect.topLeft());
    timeline_->toPainter(painter, int(rect.width()), int(plotPx + axisPx));
    painter->restore();
    ticker->setTickCount(keepTickCount);
    timeline_->xAxis->setLabel(keepAxisLabel);
    timeline_->xAxis->setTickLabelFont(keepXTicks);
    timeline_->xAxis->setLabelFont(keepXLabel);
    timeline_->yAxis->setTickLabelFont(keepYTicks);
    timeline_->yAxis->setRange(keepRows);
    timeline_->yAxis->blockSignals(false);
    if (shownRuns < allRuns) {
        painter->setFont(textFont());
        painter->setPen(QColor(0x55, 0x55, 0x55));
        const QString more =
            QStringLiteral("Timeline: the first %1 of %2 runs; a larger size or the "
                           "timeline alone shows more")
                .arg(shownRuns)
                .arg(allRuns);
        painter->drawText(
            QRectF(rect.left(), rect.top() + plotPx + axisPx + 2, rect.width(), fm.height()),
            Qt::AlignLeft | Qt::AlignVCenter, fm.elidedText(more, Qt::ElideRight, rect.width()));
    }
}

void ReportRenderer::paintSelectedRun(QPainter* painter, const QRectF& rect) const {
    const auto& facts = occupancy_->facts();
    QRectF area = rect;
    painter->setPen(QColor(0x22, 0x22, 0x22));
    const QStringList texts = {facts.title, facts.hasLaunch ? facts.launchWords : facts.problem,
                               facts.limiterWords};
    for (int i = 0; i < texts.size(); ++i) {
        if (texts[i].isEmpty()) {
            continue;
        }
        painter->setFont(i == 0 ? theme::plotFont(10, true) : textFont());
        const QRectF need = painter->boundingRect(
            QRectF(area.left(), area.top(), area.width(), 1e6), Qt::TextWordWrap, texts[i]);
        if (need.height() > area.height()) {
            break; // the rest does not fit: leave it out rather than cut it
        }
        painter->drawText(QRectF(area.left(), area.top(), area.width(), need.height()),
                          Qt::TextWordWrap, texts[i]);
        area.setTop(area.top() + need.height() + 4);
    }
}

double ReportRenderer::timelineNeed(double width, double lineH) const {
    const double content = std::max(1.0, timeline_->plottable()->contentHeight());
    return std::min(content * kMinTimelineUnitPx, width * 0.75) + 3 * lineH + 26;
}

double ReportRenderer::contentHeight(double width) const {
    QImage probe(1, 1, QImage::Format_ARGB32_Premultiplied);
    const QFontMetricsF title(titleFont(), &probe);
    const QFontMetricsF fm(textFont(), &probe);
    const ReportViews& v = options_.views;
    double h = title.height() + 10;
    const double inner = width - 2 * kMargin;
    if (v.timeline()) {
        h += timelineNeed(inner, fm.height()) + kGap;
        h += legendLayout(nullptr, laneLegend(*session_), QRectF(0, 0, inner, 1), &probe) + 8;
    }
    const QString selected = occupancy_->shownRun();
    if (v.breakdown) {
        h += RowsChartPainter::preferredHeight(
                 BreakdownChart::chartFor(*session_, selected, options_.breakdownLog), inner,
                 &probe) +
             kGap;
    }
    if (v.occupancy) {
        h += RowsChartPainter::preferredHeight(OccupancyBarsPlot::chartFor(*session_, selected),
                                               inner, &probe) +
             kGap;
    }
    if (v.selectedRun) {
        h += 6 * fm.height();
    }
    h += sweepNeed(*sweepExport(), inner, &probe);
    // paint draws nothing under the title in less than three lines.
    return std::max(h, title.height() + 20 + 3 * fm.height()) + kMargin;
}

void ReportRenderer::paint(QCPPainter* painter, const QSizeF& size) const {
    const ExportFonts exportFonts;
    painter->fillRect(QRectF(QPointF(0, 0), size), Qt::white);
    const QFontMetricsF titleFm(titleFont(), painter->device());
    const QFontMetricsF fm(textFont(), painter->device());
    const ReportViews& v = options_.views;

    // Title.
    painter->setPen(QColor(0x11, 0x11, 0x11));
    painter->setFont(titleFont());
    const double titleH = titleFm.height() + 6;
    const double inner = size.width() - 2 * kMargin;
    painter->drawText(QRectF(kMargin, 2, inner, titleH), Qt::AlignLeft | Qt::AlignVCenter,
                      titleFm.elidedText(titleText(*session_), Qt::ElideRight, inner));
    painter->setPen(QPen(QColor(0xcc, 0xcc, 0xcc), 1));
    painter->drawLine(QPointF(0, titleH + 3), QPointF(size.width(), titleH + 3));

    // The legend of the timeline's colours, at the bottom.
    const auto legend = v.timeline() ? laneLegend(*session_) : QVector<LegendEntry>();
    const double legendH =
        legendLayout(nullptr, legend, QRectF(kMargin, 0, inner, 1), painter->device());
    QRectF body(kMargin, titleH + 10, inner,
                size.height() - titleH - 10 - legendH - (legendH > 0 ? 8 : 4));
    if (legendH > 0) {
        legendLayout(painter, legend, QRectF(kMargin, size.height() - legendH - 4, inner, legendH),
                     painter->device());
    }
    if (body.height() < fm.height() * 3) {
        return;
    }

    // The sweep chart and roofline go under the rest: the height they need on a page as tall as
    // the content needs (paper), else half the page when there is a rest.
    const std::shared_ptr<const SweepExport> kept = sweepExport();
    const SweepExport& sweeps = *kept;
    const bool rest = v.timeline() || v.breakdown || v.occupancy;
    if (!sweeps.empty()) {
        const bool roomy = size.height() >= contentHeight(size.width()) - 1;
        double sweepH = body.height();
        if (rest) {
            sweepH = roomy ? sweepNeed(sweeps, body.width(), painter->device())
                           : std::round(body.height() * 0.5);
            if (sweeps.panels.isEmpty()) {
                sweepH =
                    std::min(sweepH, linesHeight(sweeps.missing, body.width(), painter->device()));
            }
        }
        paintSweeps(painter, QRectF(body.left(), body.bottom() - sweepH, body.width(), sweepH),
                    sweeps);
        if (!rest) {
            return;
        }
        body.setBottom(body.bottom() - sweepH - kGap);
    }

    const QString selected = occupancy_->shownRun();
    const RowsChart breakdown =
        BreakdownChart::chartFor(*session_, selected, options_.breakdownLog);
    const RowsChart occupancy = OccupancyBarsPlot::chartFor(*session_, selected);
    QVector<int> charts; // 0 breakdown, 1 occupancy
    if (v.breakdown) {
        charts << 0;
    }
    if (v.occupancy) {
        charts << 1;
    }
    const double wordsH = v.selectedRun ? 6 * fm.height() : 0;
    auto preferred = [&](int chart, double width) {
        return RowsChartPainter::preferredHeight(chart == 0 ? breakdown : occupancy, width,
                                                 painter->device()) +
               (chart == 1 ? wordsH : 0);
    };
    auto paintChart = [&](int chart, const QRectF& rect) {
        if (chart == 0) {
            RowsChartPainter::paint(*painter, rect, breakdown);
            return;
        }
        QRectF chartRect = rect;
        if (v.selectedRun) {
            const double words = std::min(rect.height() * 0.3, wordsH);
            chartRect.setBottom(rect.bottom() - words - 6);
            paintSelectedRun(painter,
                             QRectF(rect.left(), chartRect.bottom() + 6, rect.width(), words));
        }
        RowsChartPainter::paint(*painter, chartRect, occupancy);
    };
    auto compact = [&](int chart, double width) {
        return RowsChartPainter::compactHeight(chart == 0 ? breakdown : occupancy, width,
                                               painter->device()) +
               (chart == 1 ? wordsH : 0);
    };
    // Stacked charts: each gets what it prefers; when they do not all fit, each gets its compact
    // height (every row on one line) and those that then fit in full with what is left get that;
    // when not even the compact ones fit, each its fair share of what the smaller ones leave.
    auto stack = [&](const QRectF& area) {
        QVector<double> want;
        QVector<double> small;
        double total = 0;
        double totalSmall = 0;
        for (int c : charts) {
            want << preferred(c, area.width());
            small << std::min(want.back(), compact(c, area.width()));
            total += want.back();
            totalSmall += small.back();
        }
        const double room =
            area.height() - kGap * double(std::max<qsizetype>(0, charts.size() - 1));
        QVector<double> heights(charts.size());
        QVector<int> order(charts.size());
        std::iota(order.begin(), order.end(), 0);
        std::sort(order.begin(), order.end(), [&](int a, int b) { return want[a] < want[b]; });
        double left = room;
        if (total > room && totalSmall <= room) {
            heights = small;
            left = room - totalSmall;
            for (int i : order) {
                if (want[i] - small[i] <= left) {
                    left -= want[i] - small[i];
                    heights[i] = want[i];
                }
            }
        } else {
            for (int k = 0; k < order.size(); ++k) {
                const int i = order[k];
                heights[i] =
                    total <= room ? want[i] : std::min(want[i], left / double(order.size() - k));
                left -= heights[i];
            }
        }
        double y = area.top();
        for (int i = 0; i < charts.size(); ++i) {
            paintChart(charts[i], QRectF(area.left(), y, area.width(), heights[i]));
            y += heights[i] + kGap;
        }
    };

    const bool wide = size.width() >= kWideLayoutPx;
    if (v.timeline() && charts.isEmpty()) {
        paintTimeline(painter, body, v.overview);
    } else if (v.timeline() && wide) {
        const double timelineW = std::round(body.width() * 0.6);
        paintTimeline(painter, QRectF(body.left(), body.top(), timelineW, body.height()),
                      v.overview);
        stack(QRectF(body.left() + timelineW + kGap, body.top(), body.width() - timelineW - kGap,
                     body.height()));
    } else if (v.timeline()) {
        // Narrow (paper): the timeline above, the charts under it.
        double chartsH = 0;
        for (int c : charts) {
            chartsH += preferred(c, body.width()) + kGap;
        }
        // At least a third of the page, unless the runs need less (the height contentHeight
        // gave them): then the charts keep their full rows.
        const double timelineH =
            std::max(std::min(body.height() * 0.35, timelineNeed(body.width(), fm.height())),
                     body.height() - chartsH);
        paintTimeline(painter, QRectF(body.left(), body.top(), body.width(), timelineH),
                      v.overview);
        stack(QRectF(body.left(), body.top() + timelineH + kGap, body.width(),
                     body.height() - timelineH - kGap));
    } else if (wide && charts.size() == 2) {
        const double half = (body.width() - kGap) / 2;
        paintChart(0, QRectF(body.left(), body.top(), half, body.height()));
        paintChart(1, QRectF(body.left() + half + kGap, body.top(), half, body.height()));
    } else {
        stack(body);
    }
}

QSize ReportRenderer::resolvedSize(const QSize& sizePx, double dpi) const {
    if (sizePx.height() > 0) {
        return sizePx;
    }
    const double scale = std::max(0.1, dpi / 96.0);
    const ExportFonts exportFonts;
    const double logical = contentHeight(sizePx.width() / scale);
    return QSize(sizePx.width(), std::min(20000, int(std::ceil(logical * scale))));
}

QImage ReportRenderer::renderImage(const QSize& requested, double dpi) const {
    const QSize sizePx = resolvedSize(requested, dpi);
    QImage image(sizePx, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    const double scale = std::max(0.1, dpi / 96.0);
    {
        QCPPainter painter(&image);
        painter.setRenderHint(QPainter::TextAntialiasing);
        if (scale != 1.0) {
            painter.setMode(QCPPainter::pmNonCosmetic); // lines scale with the layout
        }
        painter.scale(scale, scale);
        paint(&painter, QSizeF(sizePx.width() / scale, sizePx.height() / scale));
    }
    const int dotsPerMeter = int(dpi / 0.0254 + 0.5);
    image.setDotsPerMeterX(dotsPerMeter);
    image.setDotsPerMeterY(dotsPerMeter);
    // Redraw the live charts at their own size: toPainter left their layout at the export's.
    timeline_->replot(QCustomPlot::rpQueuedReplot);
    return image;
}

QVector<TextBox> recordTextBoxes(const QSize& sizePx,
                                 const std::function<void(QCPPainter& painter)>& paint) {
    TextBoxDevice device(sizePx);
    {
        QCPPainter painter(&device);
        painter.setMode(QCPPainter::pmNoCaching); // labels as text, not cached pixmaps
        paint(painter);
    }
    return device.engine().boxes;
}

QVector<TextBox> ReportRenderer::textBoxes(const QSize& requested, double dpi) const {
    const QSize sizePx = resolvedSize(requested, dpi);
    const double scale = std::max(0.1, dpi / 96.0);
    QVector<TextBox> boxes = recordTextBoxes(sizePx, [&](QCPPainter& painter) {
        if (scale != 1.0) {
            painter.setMode(QCPPainter::pmNonCosmetic);
        }
        painter.scale(scale, scale);
        paint(&painter, QSizeF(sizePx.width() / scale, sizePx.height() / scale));
    });
    timeline_->replot(QCustomPlot::rpQueuedReplot);
    return boxes;
}

bool ReportRenderer::exportTo(const QString& path, const QSize& requested, double dpi,
                              QString* error, QVector<TextBox>* boxes) const {
    auto failWith = [error](const QString& message) {
        if (error) {
            *error = message;
        }
        return false;
    };
    if (dpi < 24 || dpi > 1200) {
        return failWith(tr("DPI %1 is outside 24 .. 1200").arg(dpi));
    }
    if (requested.width() < 200 || requested.width() > 20000 ||
        (requested.height() != 0 && (requested.height() < 150 || requested.height() > 20000))) {
        return failWith(tr("image size %1x%2 is outside 200x150 .. 20000x20000")
                            .arg(requested.width())
                            .arg(requested.height()));
    }
    const QSize sizePx = resolvedSize(requested, dpi);
    const QString suffix = QFileInfo(path).suffix().toLower();
    const bool raster = suffix == QStringLiteral("png") || suffix == QStringLiteral("jpg") ||
                        suffix == QStringLiteral("jpeg");
    if (suffix != QStringLiteral("pdf") && suffix != QStringLiteral("svg") && !raster) {
        return failWith(
            QStringLiteral("unknown image format '%1': use .png, .pdf or .svg").arg(suffix));
    }
    // A vector page has the raster image's size at its DPI and the same layout: sizePx * 96 / dpi
    // logical pixels, at 96 units per inch.
    const double scale = std::max(0.1, dpi / 96.0);
    const QSizeF logical(sizePx.width() / scale, sizePx.height() / scale);
    // The image is made in memory, then written to a temporary file beside the target and renamed
    // over it only when complete (QSaveFile): a failed or interrupted export never leaves half an
    // image in its place. One write whose length is checked: QSaveFile takes a short write (a
    // full disk) for success, so the painters must not write to it piecemeal.
    QByteArray bytes;
    {
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        if (suffix == QStringLiteral("pdf")) {
            QPdfWriter writer(&buffer);
            writer.setResolution(96);
            writer.setPageSize(QPageSize(logical / 96.0, QPageSize::Inch));
            writer.setPageMargins(QMarginsF(0, 0, 0, 0));
            writer.setCreator(QStringLiteral("SliceScope"));
            QCPPainter painter;
            if (!painter.begin(&writer)) {
                return failWith(tr("cannot write %1").arg(path));
            }
            painter.setMode(QCPPainter::pmVectorized);
            painter.setMode(QCPPainter::pmNoCaching);
            paint(&painter, logical);
            painter.end(); // the PDF is complete now
        } else if (suffix == QStringLiteral("svg")) {
            QSvgGenerator generator;
            generator.setOutputDevice(&buffer);
            generator.setSize(logical.toSize());
            generator.setViewBox(QRectF(QPointF(0, 0), logical));
            generator.setResolution(96);
            generator.setTitle(QStringLiteral("SliceScope"));
            QCPPainter painter;
            if (!painter.begin(&generator)) {
                return failWith(tr("cannot write %1").arg(path));
            }
            painter.setMode(QCPPainter::pmVectorized);
            painter.setMode(QCPPainter::pmNoCaching);
            paint(&painter, logical);
            painter.end();
        } else if (!renderImage(sizePx, dpi)
                        .save(&buffer, suffix == QStringLiteral("png") ? "PNG" : "JPG")) {
            return failWith(tr("cannot encode the image for %1").arg(path));
        }
    }
    if (boxes) {
        *boxes = textBoxes(sizePx, dpi);
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        return failWith(tr("cannot write %1: %2").arg(path, file.errorString()));
    }
    if (file.write(bytes) != bytes.size() || !file.flush()) {
        file.cancelWriting(); // commit() below then removes the temporary and fails
    }
    if (!file.commit()) {
        timeline_->replot(QCustomPlot::rpQueuedReplot);
        return failWith(tr("cannot write %1: %2")
                            .arg(path, file.error() != QFileDevice::NoError
                                           ? file.errorString()
                                           : tr("the disk may be full")));
    }
    timeline_->replot(QCustomPlot::rpQueuedReplot);
    return true;
}

} // namespace slicescope::gui
