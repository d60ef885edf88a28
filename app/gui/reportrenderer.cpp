#include "gui/reportrenderer.h"

#include "gui/breakdownchart.h"
#include "gui/occupancybarsplot.h"
#include "gui/occupancyview.h"
#include "gui/outputfile.h"
#include "gui/qcp.h"
#include "gui/reportstyle.h"
#include "gui/reportsweeps.h"
#include "gui/rowschart.h"
#include "gui/theme.h"
#include "gui/timelineplottable.h"
#include "gui/timelineview.h"
#include "models/session.h"
#include "models/viewstate.h"

#include <QBuffer>
#include <QComboBox>
#include <QFileInfo>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <set>
#include <vector>

namespace slicescope::gui {

using namespace reportstyle;

namespace {

constexpr double kWideLayoutPx = 900; // narrower pages stack the parts
// Timeline rows in an export: never smaller than this (9 pt text and its sub-rows stay apart)...
constexpr double kMinTimelineUnitPx = 22;
// ... nor taller than this (a few runs do not blow up into huge bars).
constexpr double kMaxTimelineUnitPx = 34;
// The smallest font the timeline draws is 8.5 pt: exports scale it to 9 pt.
constexpr double kSmallestTimelinePt = 8.5;

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

std::shared_ptr<const SweepExport> ReportRenderer::sweepExport() const {
    if (!sweeps_) {
        sweeps_ = buildSweepExport(*session_, options_.views, &sweepPanelsBuilt_);
    }
    return sweeps_;
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

ReportInputs reportInputs(const models::Session& session, const models::ViewState& state) {
    return ReportInputs{timelineContent(session, state), state.selectedRun(), -1};
}

ReportInputs reportInputs(const TimelineView& timeline, const OccupancyView& occupancy) {
    return ReportInputs{timeline.content(), occupancy.shownRun(),
                        occupancy.kernelChoice()->currentIndex()};
}

ReportRenderer::ReportRenderer(models::Session* session, ReportInputs inputs)
    : session_(session), inputs_(std::move(inputs)) {
    // The sweep panels are drawn from the session's runs: drawn again after any change.
    QObject::connect(session_, &models::Session::changed, &sessionWatch_,
                     [this] { sweeps_.reset(); });
}

void ReportRenderer::setOptions(const ReportOptions& options) {
    options_ = options;
    sweeps_.reset(); // the views chosen decide the panels
}

QString ReportRenderer::shownRun() const {
    return session_->find(inputs_.selectedRun) ? inputs_.selectedRun : QString();
}

models::OccupancyFacts ReportRenderer::selectedFacts() const {
    const models::RunEntryPtr entry = session_->find(inputs_.selectedRun);
    if (!entry) {
        return {};
    }
    if (entry->kernels.isEmpty()) {
        return models::computeOccupancyFacts(*entry);
    }
    const int kernel = std::clamp(inputs_.kernel, 0, int(entry->kernels.size()) - 1);
    return models::computeOccupancyFacts(*entry, entry->kernels[kernel]);
}

void ReportRenderer::paintTimeline(QCPPainter* painter, const QRectF& rect, bool overview) const {
    // Overview: one row per run; detail: every run expanded to its lanes. Drawn on a plot of its
    // own: the window's timeline is never touched.
    OffscreenTimeline timeline(inputs_.timeline);
    timeline.setAllRunsExpanded(!overview);
    QCustomPlot& plot = timeline.plot();
    const TimelinePlottable& plottable = timeline.plottable();
    const QFontMetricsF fm(textFont(), painter->device());
    const auto& rows = plottable.rows();
    const double content = std::max(1.0, plottable.contentHeight());
    // The x axis below the rows: tick labels and the axis title.
    const double axisPx = 2 * fm.height() + 24;
    double plotPx = rect.height() - axisPx;
    double upper = content;
    const int allRuns = int(plottable.runs().size());
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
    plot.yAxis->setRange(0, upper);
    plot.xAxis->setTickLabelFont(textFont());
    plot.xAxis->setLabelFont(textFont());
    plot.yAxis->setTickLabelFont(textFont());
    // As many time ticks as labels like "100.5 ms" fit side by side with room between them: the
    // window's tick count is for the window's width and font, not the page's.
    const auto ticker = plot.xAxis->ticker();
    const double labelPx = fm.horizontalAdvance(QStringLiteral("000.000 ms")) * 1.6;
    ticker->setTickCount(std::clamp(int(rect.width() / labelPx), 2, ticker->tickCount()));
    // The axis title is the window's; on a narrow page it is elided rather than cut by the edge.
    // It is centred under the plot, which starts right of the lane names.
    const QFontMetricsF pageMetrics(textFont());
    double namesPx = 0;
    for (const auto& entry : plottable.runs()) {
        namesPx = std::max(namesPx, pageMetrics.horizontalAdvance(entry->id));
    }
    plot.xAxis->setLabel(pageMetrics.elidedText(plot.xAxis->label(), Qt::ElideRight,
                                                std::max(10.0, rect.width() - namesPx - 48)));
    painter->save();
    painter->translate(rect.topLeft());
    plot.toPainter(painter, int(rect.width()), int(plotPx + axisPx));
    painter->restore();
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
    const models::OccupancyFacts facts = selectedFacts();
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
    // The runs as the timeline has them open (not as the export opens them).
    const OffscreenTimeline timeline(inputs_.timeline);
    const double content = std::max(1.0, timeline.plottable().contentHeight());
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
    const QString selected = shownRun();
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
    h += sweepExportHeight(*sweepExport(), inner, &probe);
    // paint draws nothing under the title in less than three lines.
    return std::max(h, title.height() + 20 + 3 * fm.height()) + kMargin;
}

namespace {

// The heights of charts stacked in room: each gets what it prefers (want); when they do not all
// fit, each gets its compact height (small: every row on one line) and those that then fit in
// full with what is left get that; when not even the compact ones fit, each its fair share of
// what the smaller ones leave.
QVector<double> stackHeights(const QVector<double>& want, const QVector<double>& small,
                             double room) {
    const double total = std::accumulate(want.begin(), want.end(), 0.0);
    const double totalSmall = std::accumulate(small.begin(), small.end(), 0.0);
    QVector<double> heights(want.size());
    QVector<int> order(want.size());
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
        return heights;
    }
    for (int k = 0; k < order.size(); ++k) {
        const int i = order[k];
        heights[i] = total <= room ? want[i] : std::min(want[i], left / double(order.size() - k));
        left -= heights[i];
    }
    return heights;
}

// The breakdown and occupancy charts a report shows, in the order they stack, and the selected
// run's words under the occupancy chart (paintWords, when asked for).
struct ReportCharts {
    enum class Chart { Breakdown, Occupancy };
    RowsChart breakdown;
    RowsChart occupancy;
    QVector<Chart> shown;
    double wordsH = 0; // the words' height under the occupancy chart; 0: none
    std::function<void(const QRectF& rect)> paintWords;

    const RowsChart& rows(Chart chart) const {
        return chart == Chart::Breakdown ? breakdown : occupancy;
    }
    double words(Chart chart) const { return chart == Chart::Occupancy ? wordsH : 0; }
    double preferred(Chart chart, double width, QPaintDevice* device) const {
        return RowsChartPainter::preferredHeight(rows(chart), width, device) + words(chart);
    }
    double compact(Chart chart, double width, QPaintDevice* device) const {
        return RowsChartPainter::compactHeight(rows(chart), width, device) + words(chart);
    }
    void paint(QPainter& painter, Chart chart, const QRectF& rect) const {
        QRectF chartRect = rect;
        if (words(chart) > 0) {
            const double h = std::min(rect.height() * 0.3, wordsH);
            chartRect.setBottom(rect.bottom() - h - 6);
            paintWords(QRectF(rect.left(), chartRect.bottom() + 6, rect.width(), h));
        }
        RowsChartPainter::paint(painter, chartRect, rows(chart));
    }
    // One under another in area, at the heights stackHeights gives them.
    void stack(QPainter& painter, const QRectF& area) const {
        QVector<double> want;
        QVector<double> small;
        for (Chart chart : shown) {
            want << preferred(chart, area.width(), painter.device());
            small << std::min(want.back(), compact(chart, area.width(), painter.device()));
        }
        const double room = area.height() - kGap * double(std::max<qsizetype>(0, shown.size() - 1));
        const QVector<double> heights = stackHeights(want, small, room);
        double y = area.top();
        for (int i = 0; i < shown.size(); ++i) {
            paint(painter, shown[i], QRectF(area.left(), y, area.width(), heights[i]));
            y += heights[i] + kGap;
        }
    }
};

} // namespace

QRectF ReportRenderer::paintTitleAndLegend(QCPPainter* painter, const QSizeF& size) const {
    const QFontMetricsF titleFm(titleFont(), painter->device());
    painter->setPen(QColor(0x11, 0x11, 0x11));
    painter->setFont(titleFont());
    const double titleH = titleFm.height() + 6;
    const double inner = size.width() - 2 * kMargin;
    painter->drawText(QRectF(kMargin, 2, inner, titleH), Qt::AlignLeft | Qt::AlignVCenter,
                      titleFm.elidedText(titleText(*session_), Qt::ElideRight, inner));
    painter->setPen(QPen(QColor(0xcc, 0xcc, 0xcc), 1));
    painter->drawLine(QPointF(0, titleH + 3), QPointF(size.width(), titleH + 3));

    // The legend of the timeline's colours, at the bottom.
    const auto legend = options_.views.timeline() ? laneLegend(*session_) : QVector<LegendEntry>();
    const double legendH =
        legendLayout(nullptr, legend, QRectF(kMargin, 0, inner, 1), painter->device());
    if (legendH > 0) {
        legendLayout(painter, legend, QRectF(kMargin, size.height() - legendH - 4, inner, legendH),
                     painter->device());
    }
    return QRectF(kMargin, titleH + 10, inner,
                  size.height() - titleH - 10 - legendH - (legendH > 0 ? 8 : 4));
}

double ReportRenderer::paintSweepsAtBottom(QCPPainter* painter, const QSizeF& size,
                                           const QRectF& body) const {
    const std::shared_ptr<const SweepExport> kept = sweepExport();
    const SweepExport& sweeps = *kept;
    if (sweeps.empty()) {
        return 0;
    }
    const ReportViews& v = options_.views;
    const bool rest = v.timeline() || v.breakdown || v.occupancy;
    // The height they need on a page as tall as the content needs (paper), else half the page
    // when there is a rest.
    const bool roomy = size.height() >= contentHeight(size.width()) - 1;
    double sweepH = body.height();
    if (rest) {
        sweepH = roomy ? sweepExportHeight(sweeps, body.width(), painter->device())
                       : std::round(body.height() * 0.5);
        if (sweeps.panels.isEmpty()) {
            sweepH = std::min(sweepH, linesHeight(sweeps.missing, body.width(), painter->device()));
        }
    }
    paintSweepExport(painter, QRectF(body.left(), body.bottom() - sweepH, body.width(), sweepH),
                     sweeps);
    return sweepH;
}

void ReportRenderer::paint(QCPPainter* painter, const QSizeF& size) const {
    const ExportFonts exportFonts;
    painter->fillRect(QRectF(QPointF(0, 0), size), Qt::white);
    const QFontMetricsF fm(textFont(), painter->device());
    const ReportViews& v = options_.views;
    QRectF body = paintTitleAndLegend(painter, size);
    if (body.height() < fm.height() * 3) {
        return;
    }
    // The sweep chart and roofline go under the rest.
    const double sweepH = paintSweepsAtBottom(painter, size, body);
    if (sweepH > 0) {
        if (!(v.timeline() || v.breakdown || v.occupancy)) {
            return;
        }
        body.setBottom(body.bottom() - sweepH - kGap);
    }

    const QString selected = shownRun();
    ReportCharts charts;
    charts.breakdown = BreakdownChart::chartFor(*session_, selected, options_.breakdownLog);
    charts.occupancy = OccupancyBarsPlot::chartFor(*session_, selected);
    if (v.breakdown) {
        charts.shown << ReportCharts::Chart::Breakdown;
    }
    if (v.occupancy) {
        charts.shown << ReportCharts::Chart::Occupancy;
    }
    if (v.selectedRun) {
        charts.wordsH = 6 * fm.height();
        charts.paintWords = [&](const QRectF& rect) { paintSelectedRun(painter, rect); };
    }

    const bool wide = size.width() >= kWideLayoutPx;
    if (v.timeline() && charts.shown.isEmpty()) {
        paintTimeline(painter, body, v.overview);
    } else if (v.timeline() && wide) {
        const double timelineW = std::round(body.width() * 0.6);
        paintTimeline(painter, QRectF(body.left(), body.top(), timelineW, body.height()),
                      v.overview);
        charts.stack(*painter, QRectF(body.left() + timelineW + kGap, body.top(),
                                      body.width() - timelineW - kGap, body.height()));
    } else if (v.timeline()) {
        // Narrow (paper): the timeline above, the charts under it.
        double chartsH = 0;
        for (auto chart : charts.shown) {
            chartsH += charts.preferred(chart, body.width(), painter->device()) + kGap;
        }
        // At least a third of the page, unless the runs need less (the height contentHeight
        // gave them): then the charts keep their full rows.
        const double timelineH =
            std::max(std::min(body.height() * 0.35, timelineNeed(body.width(), fm.height())),
                     body.height() - chartsH);
        paintTimeline(painter, QRectF(body.left(), body.top(), body.width(), timelineH),
                      v.overview);
        charts.stack(*painter, QRectF(body.left(), body.top() + timelineH + kGap, body.width(),
                                      body.height() - timelineH - kGap));
    } else if (wide && charts.shown.size() == 2) {
        const double half = (body.width() - kGap) / 2;
        charts.paint(*painter, charts.shown[0],
                     QRectF(body.left(), body.top(), half, body.height()));
        charts.paint(*painter, charts.shown[1],
                     QRectF(body.left() + half + kGap, body.top(), half, body.height()));
    } else {
        charts.stack(*painter, body);
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
    return image;
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
    // The image is made in memory, then written as every SliceScope output is (writeOutputFile):
    // a regular file is replaced only when the new one is complete, a device written through.
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
    QString writeError;
    if (!writeOutputFile(path, bytes, &writeError)) {
        return failWith(writeError);
    }
    return true;
}

} // namespace slicescope::gui
