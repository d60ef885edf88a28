#include "gui/reportrenderer.h"

#include "gui/occupancyview.h"
#include "gui/qcp.h"
#include "gui/theme.h"
#include "gui/timelineplottable.h"
#include "gui/timelineview.h"
#include "models/session.h"

#include <QBuffer>
#include <QFileInfo>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <set>

namespace slicescope::gui {

namespace {

constexpr double kHeaderHeight = 34;
constexpr double kLegendHeight = 26;

QString titleText(const models::Session& session) {
    std::set<std::string> problems;
    int modelled = 0;
    for (const auto& e : session.runs()) {
        if (!e->visible) {
            continue;
        }
        if (e->run->problem) {
            problems.insert(e->run->problem->describe());
        }
        modelled += e->isModelled() ? 1 : 0;
    }
    QString text = QStringLiteral("SliceScope");
    if (problems.size() == 1) {
        text += QStringLiteral("  \u00b7  ") + models::toQString(*problems.begin());
    } else if (problems.size() > 1) {
        text += QStringLiteral("  \u00b7  %1 problems").arg(problems.size());
    }
    const int runs = int(std::count_if(session.runs().begin(), session.runs().end(),
                                       [](const models::RunEntryPtr& e) { return e->visible; }));
    text += QStringLiteral("  \u00b7  %1 %2")
                .arg(runs)
                .arg(runs == 1 ? QStringLiteral("run") : QStringLiteral("runs"));
    if (modelled > 0) {
        text += QStringLiteral(" (%1 modelled, hatched)").arg(modelled);
    }
    return text;
}

} // namespace

ReportRenderer::ReportRenderer(TimelineView* timeline, OccupancyView* occupancy,
                               models::Session* session)
    : timeline_(timeline), occupancy_(occupancy), session_(session) {}

void ReportRenderer::paint(QCPPainter* painter, const QSizeF& size) const {
    painter->fillRect(QRectF(QPointF(0, 0), size), Qt::white);
    // Title.
    painter->setPen(QColor(0x11, 0x11, 0x11));
    painter->setFont(theme::plotFont(13, true));
    painter->drawText(QRectF(12, 0, size.width() - 24, kHeaderHeight),
                      Qt::AlignLeft | Qt::AlignVCenter, titleText(*session_));
    painter->setPen(QPen(QColor(0xcc, 0xcc, 0xcc), 1));
    painter->drawLine(QPointF(0, kHeaderHeight), QPointF(size.width(), kHeaderHeight));

    const double bodyTop = kHeaderHeight + 4;
    const double bodyHeight = size.height() - bodyTop - kLegendHeight;
    const double timelineWidth = size.width() * 0.64;

    // Timeline: every lane of every visible run, at the window's zoom.
    {
        const QCPRange keepRows = timeline_->yAxis->range();
        timeline_->yAxis->blockSignals(true);
        timeline_->yAxis->setRange(0, timeline_->rowsForExport(int(bodyHeight) - 40));
        painter->save();
        painter->translate(0, bodyTop);
        timeline_->toPainter(painter, int(timelineWidth), int(bodyHeight));
        painter->restore();
        timeline_->yAxis->setRange(keepRows);
        timeline_->yAxis->blockSignals(false);
    }
    // Occupancy.
    painter->save();
    occupancy_->render(
        painter, QRectF(timelineWidth + 8, bodyTop, size.width() - timelineWidth - 16, bodyHeight));
    painter->restore();

    // Legend: the lane colours present, and what hatching means.
    std::set<models::LaneKind> kinds;
    bool modelled = false;
    for (const auto& e : session_->runs()) {
        if (!e->visible) {
            continue;
        }
        modelled = modelled || e->isModelled();
        for (const auto& lane : e->lanes->lanes) {
            kinds.insert(lane.kind);
        }
    }
    double x = 12;
    const double y = size.height() - kLegendHeight + 6;
    painter->setFont(theme::plotFont(8.5));
    const QFontMetricsF metrics(painter->font());
    for (auto kind : kinds) {
        painter->fillRect(QRectF(x, y + 2, 14, 12), theme::laneColor(kind));
        x += 18;
        const QString text = models::toQString(models::laneKindName(kind)) + QStringLiteral(": ") +
                             theme::laneDescription(kind);
        painter->setPen(QColor(0x33, 0x33, 0x33));
        painter->drawText(QPointF(x, y + 12), text);
        x += metrics.horizontalAdvance(text) + 18;
    }
    if (modelled) {
        painter->fillRect(QRectF(x, y + 2, 14, 12),
                          theme::laneColor(models::LaneKind::Kernel).lighter(150));
        painter->fillRect(QRectF(x, y + 2, 14, 12), theme::modelledBrush(models::LaneKind::Kernel));
        x += 18;
        painter->drawText(QPointF(x, y + 12), QStringLiteral("hatched: modelled, not measured"));
    }
}

QImage ReportRenderer::renderImage(const QSize& sizePx, double dpi) const {
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

bool ReportRenderer::exportTo(const QString& path, const QSize& sizePx, double dpi,
                              QString* error) const {
    auto failWith = [error](const QString& message) {
        if (error) {
            *error = message;
        }
        return false;
    };
    if (sizePx.width() < 200 || sizePx.height() < 150 || sizePx.width() > 20000 ||
        sizePx.height() > 20000) {
        return failWith(QStringLiteral("image size %1x%2 is outside 200x150 .. 20000x20000")
                            .arg(sizePx.width())
                            .arg(sizePx.height()));
    }
    if (dpi < 24 || dpi > 1200) {
        return failWith(QStringLiteral("DPI %1 is outside 24 .. 1200").arg(dpi));
    }
    const QString suffix = QFileInfo(path).suffix().toLower();
    const bool raster = suffix == QStringLiteral("png") || suffix == QStringLiteral("jpg") ||
                        suffix == QStringLiteral("jpeg");
    if (suffix != QStringLiteral("pdf") && suffix != QStringLiteral("svg") && !raster) {
        return failWith(
            QStringLiteral("unknown image format '%1': use .png, .pdf or .svg").arg(suffix));
    }
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
            writer.setPageSize(QPageSize(QSizeF(sizePx) / 96.0, QPageSize::Inch));
            writer.setPageMargins(QMarginsF(0, 0, 0, 0));
            writer.setCreator(QStringLiteral("SliceScope"));
            QCPPainter painter;
            if (!painter.begin(&writer)) {
                return failWith(QStringLiteral("cannot write %1").arg(path));
            }
            painter.setMode(QCPPainter::pmVectorized);
            painter.setMode(QCPPainter::pmNoCaching);
            paint(&painter, QSizeF(sizePx));
            painter.end(); // the PDF is complete now
        } else if (suffix == QStringLiteral("svg")) {
            QSvgGenerator generator;
            generator.setOutputDevice(&buffer);
            generator.setSize(sizePx);
            generator.setViewBox(QRect(QPoint(0, 0), sizePx));
            generator.setResolution(96);
            generator.setTitle(QStringLiteral("SliceScope"));
            QCPPainter painter;
            if (!painter.begin(&generator)) {
                return failWith(QStringLiteral("cannot write %1").arg(path));
            }
            painter.setMode(QCPPainter::pmVectorized);
            painter.setMode(QCPPainter::pmNoCaching);
            paint(&painter, QSizeF(sizePx));
            painter.end();
        } else if (!renderImage(sizePx, dpi)
                        .save(&buffer, suffix == QStringLiteral("png") ? "PNG" : "JPG")) {
            return failWith(QStringLiteral("cannot encode the image for %1").arg(path));
        }
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        return failWith(QStringLiteral("cannot write %1: %2").arg(path, file.errorString()));
    }
    if (file.write(bytes) != bytes.size() || !file.flush()) {
        file.cancelWriting(); // commit() below then removes the temporary and fails
    }
    if (!file.commit()) {
        timeline_->replot(QCustomPlot::rpQueuedReplot);
        return failWith(QStringLiteral("cannot write %1: %2")
                            .arg(path, file.error() != QFileDevice::NoError
                                           ? file.errorString()
                                           : QStringLiteral("the disk may be full")));
    }
    timeline_->replot(QCustomPlot::rpQueuedReplot);
    return true;
}

} // namespace slicescope::gui
