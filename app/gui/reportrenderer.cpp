#include "gui/reportrenderer.h"

#include "gui/occupancyview.h"
#include "gui/outputfile.h"
#include "gui/qcp.h"
#include "gui/reportstyle.h"
#include "gui/theme.h"
#include "gui/timelineview.h"
#include "models/session.h"
#include "models/viewstate.h"

#include <QBuffer>
#include <QComboBox>
#include <QFileInfo>
#include <QHash>
#include <QPdfWriter>
#include <QSet>
#include <QSvgGenerator>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

namespace slicescope::gui {

using namespace reportstyle;

namespace {

constexpr double kWideLayoutPx = 900; // narrower pages stack the parts
// The smallest font the timeline draws is 8.5 pt: exports scale it to 9 pt.
constexpr double kSmallestTimelinePt = 8.5;

QString titleText(const models::Session& session) {
    std::set<std::string> problems;
    int modelled = 0, projected = 0;
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
        projected += e->run->mode == trace::RunMode::Projected ? 1 : 0;
    }
    QString text = QStringLiteral("SliceScope");
    if (problems.size() == 1) {
        text += QStringLiteral("  \u00b7  ") + models::toQString(*problems.begin());
    } else if (problems.size() > 1) {
        text += tr("  \u00b7  %1 problems").arg(problems.size());
    }
    text += QStringLiteral("  \u00b7  %1 %2").arg(runs).arg(runs == 1 ? tr("run") : tr("runs"));
    if (modelled > 0 || projected > 0) {
        QStringList kinds;
        if (modelled > 0) {
            kinds << tr("%1 modelled").arg(modelled);
        }
        if (projected > 0) {
            kinds << tr("%1 projected").arg(projected);
        }
        text += QStringLiteral(" (") + kinds.join(QStringLiteral(", ")) + tr(", hatched)");
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

// The parts by placement, in the registry's order.
struct PlacedParts {
    const ReportPart* main = nullptr; // one at most: the timeline
    QVector<const ReportPart*> side;
    QVector<const ReportPart*> bottom;
    QVector<const ReportPart*> footer;
};

PlacedParts placeParts(const ReportParts& parts) {
    PlacedParts placed;
    for (const auto& part : parts) {
        switch (part->placement()) {
        case ReportPart::Placement::Main:
            Q_ASSERT(!placed.main); // a second main part would need a layout of its own
            placed.main = placed.main ? placed.main : part.get();
            break;
        case ReportPart::Placement::Side:
            placed.side << part.get();
            break;
        case ReportPart::Placement::Bottom:
            placed.bottom << part.get();
            break;
        case ReportPart::Placement::Footer:
            placed.footer << part.get();
            break;
        }
    }
    return placed;
}

// The room content height keeps after a part of this placement.
double spacingAfter(ReportPart::Placement placement) {
    switch (placement) {
    case ReportPart::Placement::Main:
    case ReportPart::Placement::Side:
        return kGap;
    case ReportPart::Placement::Bottom:
        return 0;
    case ReportPart::Placement::Footer:
        return 8;
    }
    return 0;
}

// The heights of parts stacked in room: each gets what it prefers (want); when they do not all
// fit, each gets its compact height (small: every row on one line) and those that then fit in
// full with what is left get that, the last part what is still left (up to what it prefers);
// when not even the compact ones fit, each its fair share of what the smaller ones leave.
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
        // The last part, at the bottom, takes the room still left, up to what it prefers: a part
        // that draws its rows compact leaves it empty under them as before, one with words under
        // its chart shows them.
        heights.back() += std::min(left, want.back() - heights.back());
        return heights;
    }
    for (int k = 0; k < order.size(); ++k) {
        const int i = order[k];
        heights[i] = total <= room ? want[i] : std::min(want[i], left / double(order.size() - k));
        left -= heights[i];
    }
    return heights;
}

// The parts one under another in area, at the heights stackHeights gives them.
void stackParts(QCPPainter& painter, const QVector<const ReportPart*>& parts, const QRectF& area) {
    QVector<double> want;
    QVector<double> small;
    for (const ReportPart* part : parts) {
        want << part->preferredHeight(area.width(), painter.device());
        small << std::min(want.back(), part->compactHeight(area.width(), painter.device()));
    }
    const double room = area.height() - kGap * double(std::max<qsizetype>(0, parts.size() - 1));
    const QVector<double> heights = stackHeights(want, small, room);
    double y = area.top();
    for (int i = 0; i < parts.size(); ++i) {
        parts[i]->paint(painter, QRectF(area.left(), y, area.width(), heights[i]));
        y += heights[i] + kGap;
    }
}

// A main part that needs little height (at most 40 % of the body: a timeline of up to four
// runs) on a wide page: it takes the page's width at the top, no taller than it can use, and the
// side parts sit side by side under it, each as tall as the tallest prefers (at most 60 % of the
// body) or what the main part leaves.
void layOutShortMain(QCPPainter& painter, const PlacedParts& parts, const QRectF& body) {
    QPaintDevice* device = painter.device();
    const auto columns = double(parts.side.size());
    const double columnW = (body.width() - kGap * (columns - 1)) / columns;
    double sideH = 0;
    for (const ReportPart* part : parts.side) {
        sideH = std::max(sideH, part->preferredHeight(columnW, device));
    }
    sideH = std::min(sideH, body.height() * 0.6);
    const double mainH =
        std::min(parts.main->maximumHeight(body.width(), device), body.height() - sideH - kGap);
    parts.main->paint(painter, QRectF(body.left(), body.top(), body.width(), mainH));
    const double top = body.top() + mainH + kGap;
    for (int i = 0; i < parts.side.size(); ++i) {
        parts.side[i]->paint(
            painter, QRectF(body.left() + i * (columnW + kGap), top, columnW, body.bottom() - top));
    }
}

// The main part and the side parts in body: the main part alone fills it; on a wide page it
// takes 60% of the width with the side parts stacked beside it (or, needing little height, the
// top: layOutShortMain), on a narrow one the top with the side parts under it. With no main
// part, two side parts go side by side on a wide page, others one under another.
void layOutMainAndSide(QCPPainter& painter, const PlacedParts& parts, const QRectF& body,
                       bool wide) {
    const ReportPart* main = parts.main;
    if (main && parts.side.isEmpty()) {
        main->paint(painter, body);
    } else if (main && wide &&
               main->preferredHeight(body.width(), painter.device()) <= body.height() * 0.4) {
        layOutShortMain(painter, parts, body);
    } else if (main && wide) {
        const double mainW = std::round(body.width() * 0.6);
        main->paint(painter, QRectF(body.left(), body.top(), mainW, body.height()));
        stackParts(painter, parts.side,
                   QRectF(body.left() + mainW + kGap, body.top(), body.width() - mainW - kGap,
                          body.height()));
    } else if (main) {
        double sideH = 0;
        for (const ReportPart* part : parts.side) {
            sideH += part->preferredHeight(body.width(), painter.device()) + kGap;
        }
        // At least a third of the page, unless the main part needs less (the height contentHeight
        // gave it): then the side parts keep their full rows.
        const double mainH = std::max(
            std::min(body.height() * 0.35, main->preferredHeight(body.width(), painter.device())),
            body.height() - sideH);
        main->paint(painter, QRectF(body.left(), body.top(), body.width(), mainH));
        stackParts(painter, parts.side,
                   QRectF(body.left(), body.top() + mainH + kGap, body.width(),
                          body.height() - mainH - kGap));
    } else if (wide && parts.side.size() == 2) {
        const double half = (body.width() - kGap) / 2;
        parts.side[0]->paint(painter, QRectF(body.left(), body.top(), half, body.height()));
        parts.side[1]->paint(painter,
                             QRectF(body.left() + half + kGap, body.top(), half, body.height()));
    } else {
        stackParts(painter, parts.side, body);
    }
}

} // namespace

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

ChosenRuns chooseRuns(const models::Session& session, ReportInputs inputs, const QStringList& ids) {
    const QSet<QString> chosen(ids.cbegin(), ids.cend());
    QSet<QString> shown;
    for (const auto& entry : inputs.timeline.runs) {
        shown.insert(entry->id);
    }
    if (chosen == shown) {
        return {nullptr, std::move(inputs)};
    }
    ChosenRuns result{session.copyShowing(chosen), std::move(inputs)};
    TimelineContent& timeline = result.inputs.timeline;
    // A lane opened by a selection is named by its run's place among the runs drawn.
    QHash<QString, int> oldPlace;
    for (int i = 0; i < int(timeline.runs.size()); ++i) {
        oldPlace.insert(timeline.runs[std::size_t(i)]->id, i);
    }
    std::set<std::pair<int, int>> shownLanes;
    timeline.runs.clear();
    for (const auto& entry : result.session->runs()) {
        if (!entry->visible) {
            continue;
        }
        const int place = int(timeline.runs.size());
        if (const auto old = oldPlace.constFind(entry->id); old != oldPlace.cend()) {
            for (const auto& [run, lane] : result.inputs.timeline.shownLanes) {
                if (run == *old) {
                    shownLanes.insert({place, lane});
                }
            }
        }
        timeline.runs.push_back(entry);
    }
    timeline.shownLanes = std::move(shownLanes);
    timeline.timeRange.reset();
    return result;
}

ReportRenderer::ReportRenderer(models::Session* session, ReportInputs inputs)
    : session_(session), inputs_(std::move(inputs)) {
    // The parts are drawn from the session's runs: made again after any change.
    QObject::connect(session_, &models::Session::changed, &sessionWatch_,
                     [this] { parts_.reset(); });
}

void ReportRenderer::setOptions(const ReportOptions& options) {
    options_ = options;
    parts_.reset(); // the views chosen decide the parts
}

const ReportParts& ReportRenderer::parts() const {
    if (!parts_) {
        parts_ = std::make_unique<ReportParts>(
            reportParts(ReportContext{*session_, inputs_, options_, &sweepPanelsBuilt_}));
    }
    return *parts_;
}

double ReportRenderer::contentHeight(double width) const {
    QImage probe(1, 1, QImage::Format_ARGB32_Premultiplied);
    const QFontMetricsF title(titleFont(), &probe);
    const QFontMetricsF fm(textFont(), &probe);
    double h = title.height() + 10;
    const double inner = width - 2 * kMargin;
    for (const auto& part : parts()) {
        h += part->preferredHeight(inner, &probe) + spacingAfter(part->placement());
    }
    // paint draws nothing under the title in less than three lines.
    return std::max(h, title.height() + 20 + 3 * fm.height()) + kMargin;
}

QRectF ReportRenderer::paintTitleAndFooter(QCPPainter* painter, const QSizeF& size,
                                           const QVector<const ReportPart*>& footer) const {
    const QFontMetricsF titleFm(titleFont(), painter->device());
    painter->setPen(QColor(0x11, 0x11, 0x11));
    painter->setFont(titleFont());
    const double titleH = titleFm.height() + 6;
    const double inner = size.width() - 2 * kMargin;
    painter->drawText(QRectF(kMargin, 2, inner, titleH), Qt::AlignLeft | Qt::AlignVCenter,
                      titleFm.elidedText(titleText(*session_), Qt::ElideRight, inner));
    painter->setPen(QPen(QColor(0xcc, 0xcc, 0xcc), 1));
    painter->drawLine(QPointF(0, titleH + 3), QPointF(size.width(), titleH + 3));

    // The footer parts at the bottom, the first on top, 4 apart.
    QVector<double> heights;
    double footerH = 0;
    for (const ReportPart* part : footer) {
        heights << part->preferredHeight(inner, painter->device());
        footerH += heights.back() > 0 ? heights.back() + (footerH > 0 ? 4 : 0) : 0;
    }
    double y = size.height() - footerH - 4;
    for (int i = 0; i < footer.size(); ++i) {
        if (heights[i] > 0) {
            footer[i]->paint(*painter, QRectF(kMargin, y, inner, heights[i]));
            y += heights[i] + 4;
        }
    }
    return QRectF(kMargin, titleH + 10, inner,
                  size.height() - titleH - 10 - footerH - (footerH > 0 ? 8 : 4));
}

QRectF ReportRenderer::paintBottom(QCPPainter* painter, const QSizeF& size, QRectF body,
                                   const QVector<const ReportPart*>& bottom, bool rest) const {
    for (const ReportPart* part : bottom) {
        // With the rest: the height it prefers on a page as tall as the content needs (paper),
        // else half the body, or less when it can use no more. Alone: the whole body.
        double h = body.height();
        if (rest) {
            const bool roomy = size.height() >= contentHeight(size.width()) - 1;
            h = roomy ? part->preferredHeight(body.width(), painter->device())
                      : std::min(std::round(body.height() * 0.5),
                                 part->maximumHeight(body.width(), painter->device()));
        }
        part->paint(*painter, QRectF(body.left(), body.bottom() - h, body.width(), h));
        body.setBottom(body.bottom() - h - kGap);
    }
    return body;
}

void ReportRenderer::paint(QCPPainter* painter, const QSizeF& size) const {
    const ExportFonts exportFonts;
    painter->fillRect(QRectF(QPointF(0, 0), size), Qt::white);
    const QFontMetricsF fm(textFont(), painter->device());
    const PlacedParts placed = placeParts(parts());
    QRectF body = paintTitleAndFooter(painter, size, placed.footer);
    if (body.height() < fm.height() * 3) {
        return;
    }
    const bool rest = placed.main || !placed.side.isEmpty();
    body = paintBottom(painter, size, body, placed.bottom, rest);
    if (rest) {
        layOutMainAndSide(*painter, placed, body, size.width() >= kWideLayoutPx);
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
