#include "gui/rangeruler.h"

#include "gui/theme.h"
#include "models/runentry.h"

#include <cmath>
#include <slicescope/trace/runsummary.h>

namespace slicescope::gui {

RangeRuler::RangeRuler(QCustomPlot* plot)
    : plot_(plot), band_(new QCPItemRect(plot)), text_(new QCPItemText(plot)) {
    // x follows time, y spans the axis rect whatever rows are scrolled into view.
    for (auto* position : {band_->topLeft, band_->bottomRight}) {
        position->setTypeX(QCPItemPosition::ptPlotCoords);
        position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    }
    QColor fill = theme::selectionColor();
    fill.setAlpha(40);
    QColor edge = theme::selectionColor();
    band_->setBrush(fill);
    band_->setPen(QPen(edge, 1, Qt::DashLine));
    band_->setSelectable(false);
    text_->position->setTypeX(QCPItemPosition::ptPlotCoords);
    text_->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    text_->setPositionAlignment(Qt::AlignHCenter | Qt::AlignTop);
    text_->setPadding(QMargins(4, 2, 4, 2));
    text_->setBrush(QColor(255, 255, 255, 230));
    text_->setPen(QPen(edge));
    text_->setColor(Qt::black);
    text_->setSelectable(false);
    clear();
}

void RangeRuler::begin(double timeNs) {
    anchorNs_ = timeNs;
    extendTo(timeNs);
}

void RangeRuler::extendTo(double timeNs) {
    span_ = QCPRange(std::min(anchorNs_, timeNs), std::max(anchorNs_, timeNs));
    place();
}

void RangeRuler::clear() {
    span_.reset();
    band_->setVisible(false);
    text_->setVisible(false);
}

std::optional<QCPRange> RangeRuler::span() const {
    return span_;
}

QString RangeRuler::label() const {
    if (!span_) {
        return {};
    }
    return models::toQString(trace::formatDurationNs(std::llround(span_->size())));
}

void RangeRuler::place() {
    band_->topLeft->setCoords(span_->lower, 0);
    band_->bottomRight->setCoords(span_->upper, 1);
    text_->position->setCoords(span_->center(), 0);
    text_->setFont(plot_->xAxis->tickLabelFont());
    text_->setText(label());
    band_->setVisible(true);
    text_->setVisible(true);
}

} // namespace slicescope::gui
