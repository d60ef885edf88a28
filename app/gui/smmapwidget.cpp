#include "gui/smmapwidget.h"

#include "gui/theme.h"
#include "models/runentry.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <cmath>

namespace slicescope::gui {

namespace {

struct Grid {
    int columns = 1;
    int rows = 1;
    double cell = 0;
    QPointF origin;
};

Grid gridFor(const QRectF& rect, std::size_t count) {
    Grid g;
    if (count == 0 || rect.width() <= 0 || rect.height() <= 0) {
        return g;
    }
    // The most columns whose square cells still let every SM fit in the rectangle.
    double best = 0;
    for (int columns = 1; columns <= int(count); ++columns) {
        const int rows = int((count + std::size_t(columns) - 1) / std::size_t(columns));
        const double cell = std::min(rect.width() / columns, rect.height() / rows);
        if (cell > best) {
            best = cell;
            g.columns = columns;
            g.rows = rows;
        }
    }
    g.cell = best;
    g.origin = QPointF(rect.left() + (rect.width() - g.columns * best) / 2, rect.top());
    return g;
}

} // namespace

SmMapWidget::SmMapWidget(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("smMap"));
    setMinimumHeight(90);
    QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
}

void SmMapWidget::setResidency(const occupancy::Residency& residency) {
    residency_ = residency;
    updateGeometry();
    update();
}

QSize SmMapWidget::sizeHint() const {
    return QSize(360, heightForWidth(360));
}

int SmMapWidget::heightForWidth(int width) const {
    const std::size_t n = std::max<std::size_t>(1, residency_.sms.size());
    const int columns = std::max(1, int(std::ceil(std::sqrt(double(n) * 2.2))));
    const int rows = int((n + std::size_t(columns) - 1) / std::size_t(columns));
    return std::max(90, int(double(width) / columns * rows) + 4);
}

void SmMapWidget::paint(QPainter& painter, const QRectF& rect, const occupancy::Residency& r) {
    painter.save();
    if (r.sms.empty()) {
        painter.setPen(QColor(0x66, 0x66, 0x66));
        painter.drawText(rect, Qt::AlignCenter | Qt::TextWordWrap, tr("No SM map for this run."));
        painter.restore();
        return;
    }
    const Grid g = gridFor(rect, r.sms.size());
    const double pad = std::max(1.0, g.cell * 0.08);
    const double maxWarps = std::max<std::uint32_t>(1, r.maxWarpsPerSm);
    QFont font = theme::plotFont(std::clamp(g.cell * 0.28, 5.0, 9.0));
    painter.setFont(font);
    for (std::size_t i = 0; i < r.sms.size(); ++i) {
        const auto& sm = r.sms[i];
        const int col = int(i) % g.columns;
        const int row = int(i) / g.columns;
        const QRectF cell(g.origin.x() + col * g.cell + pad / 2,
                          g.origin.y() + row * g.cell + pad / 2, g.cell - pad, g.cell - pad);
        painter.fillRect(cell, theme::freeSlotColor());
        // Never thinner than 2 px when non-zero: one busy warp of 64 must still show.
        auto barHeight = [&cell, maxWarps](double warps) {
            return warps <= 0 ? 0.0
                              : std::max(2.0, cell.height() * std::min(1.0, warps / maxWarps));
        };
        const double residentH = barHeight(sm.warps);
        const double busyH = barHeight(sm.busyWarps);
        painter.fillRect(QRectF(cell.left(), cell.bottom() - residentH, cell.width(), residentH),
                         theme::idleWarpColor());
        if (!r.workKnown) {
            // Resident, but whether they work is not known: hatched, neither busy nor idle.
            painter.fillRect(
                QRectF(cell.left(), cell.bottom() - residentH, cell.width(), residentH),
                QBrush(theme::busyWarpColor(), Qt::BDiagPattern));
        }
        painter.fillRect(QRectF(cell.left(), cell.bottom() - busyH, cell.width(), busyH),
                         theme::busyWarpColor());
        // SMs that hold blocks get a strong outline: on a mostly idle GPU they are what to see.
        painter.setPen(sm.blocks > 0 ? QPen(theme::busyWarpColor().darker(140), 2)
                                     : QPen(QColor(0x9a, 0x9a, 0x9a), 0.8));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(cell);
        if (sm.blocks > 0 && g.cell >= 18) {
            painter.setPen(busyH > cell.height() * 0.5 ? Qt::white : QColor(0x11, 0x11, 0x11));
            painter.drawText(cell, Qt::AlignCenter, QString::number(sm.blocks));
        }
    }
    painter.restore();
}

int SmMapWidget::smAt(const QRectF& rect, std::size_t smCount, const QPointF& point) {
    const Grid g = gridFor(rect, smCount);
    if (g.cell <= 0) {
        return -1;
    }
    const int col = int(std::floor((point.x() - g.origin.x()) / g.cell));
    const int row = int(std::floor((point.y() - g.origin.y()) / g.cell));
    if (col < 0 || col >= g.columns || row < 0) {
        return -1;
    }
    const int index = row * g.columns + col;
    return index < int(smCount) ? index : -1;
}

QString SmMapWidget::summary(const occupancy::Residency& r) {
    if (r.sms.empty()) {
        return {};
    }
    const std::size_t busySms = r.sms.size() - r.idleSms;
    QString text = tr("%1 of %2 SMs hold a block").arg(busySms).arg(r.sms.size());
    text += r.idleSms > 0 ? tr(", %1 idle").arg(r.idleSms) : tr(", none idle");
    if (r.waves > 1) {
        text += tr("; the grid needs %1 waves of resident blocks")
                    .arg(models::toQString(trace::formatCount(r.waves)));
    }
    if (!r.workKnown) {
        text += tr("; which warps work is unknown (hatched): record with --counters to measure it");
    }
    return text + QLatin1Char('.');
}

void SmMapWidget::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing, false);
    paint(painter, QRectF(rect()).adjusted(2, 2, -2, -2), residency_);
}

bool SmMapWidget::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int sm =
            smAt(QRectF(rect()).adjusted(2, 2, -2, -2), residency_.sms.size(), help->pos());
        if (sm < 0) {
            QToolTip::showText(help->globalPos(), toolTip(), this);
            return true;
        }
        const auto& load = residency_.sms[std::size_t(sm)];
        if (!residency_.workKnown) {
            QToolTip::showText(help->globalPos(),
                               tr("<b>SM %1</b> (model)<br>%2 resident blocks<br>%3 of %4 warp "
                                  "slots filled<br>warps and threads with work: unknown without "
                                  "counters")
                                   .arg(sm)
                                   .arg(load.blocks)
                                   .arg(load.warps)
                                   .arg(residency_.maxWarpsPerSm),
                               this);
            return true;
        }
        QToolTip::showText(
            help->globalPos(),
            QStringLiteral("<b>SM %1</b> (model)<br>%2 resident blocks<br>%3 of %4 warp slots "
                           "filled<br>%5 warps with work<br>%6 threads with work")
                .arg(sm)
                .arg(load.blocks)
                .arg(load.warps)
                .arg(residency_.maxWarpsPerSm)
                .arg(load.busyWarps)
                .arg(models::toQString(trace::formatCount(load.busyThreads))),
            this);
        return true;
    }
    return QWidget::event(event);
}

} // namespace slicescope::gui
