#include "gui/breakdownchart.h"

#include "gui/theme.h"
#include "models/runbreakdown.h"
#include "models/runnaming.h"
#include "models/session.h"
#include "models/viewstate.h"

#include <QCheckBox>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QVBoxLayout>

namespace slicescope::gui {

namespace {

QColor partColor(models::BreakdownPart part) {
    switch (part) {
    case models::BreakdownPart::HtoD:
        return theme::laneColor(models::LaneKind::HtoD);
    case models::BreakdownPart::Kernel:
        return theme::laneColor(models::LaneKind::Kernel);
    case models::BreakdownPart::DtoH:
        return theme::laneColor(models::LaneKind::DtoH);
    case models::BreakdownPart::OtherDevice:
        return theme::laneColor(models::LaneKind::DtoD);
    case models::BreakdownPart::HostLayout:
        return QColor(0xe6, 0x9f, 0x00); // orange
    case models::BreakdownPart::HostCompute:
        return theme::laneColor(models::LaneKind::Host);
    }
    return Qt::gray;
}

QString duration(double ns) {
    return models::toQString(trace::formatDurationNs(std::int64_t(ns + 0.5)));
}

} // namespace

// The painted chart; the log switch sits above it.
class BreakdownCanvas : public QWidget {
  public:
    BreakdownCanvas(models::Session* session, models::ViewState* state, QCheckBox* log,
                    QWidget* parent)
        : QWidget(parent), session_(session), state_(state), log_(log) {
        setObjectName(QStringLiteral("breakdownCanvas"));
        setMouseTracking(true);
        setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    }
    void refresh() {
        chart_ = BreakdownChart::chartFor(*session_, state_->selectedRun(), log_->isChecked());
        ids_.clear();
        for (const auto& row : models::breakdownRows(session_->runs())) {
            ids_ << row.runId;
        }
        setFixedHeight(int(
            std::ceil(RowsChartPainter::preferredHeight(chart_, std::max(width(), 200), this))));
        update();
    }
    const QStringList& ids() const { return ids_; }

  protected:
    void paintEvent(QPaintEvent*) override {
        QPainter painter(this);
        painter.setRenderHint(QPainter::Antialiasing, false);
        rowRects_ = RowsChartPainter::paint(painter, QRectF(rect()).adjusted(2, 2, -2, -2), chart_);
    }
    void resizeEvent(QResizeEvent*) override {
        setFixedHeight(int(
            std::ceil(RowsChartPainter::preferredHeight(chart_, std::max(width(), 200), this))));
    }
    void mousePressEvent(QMouseEvent* event) override {
        const int row = rowAt(event->position());
        if (row >= 0) {
            state_->setSelectedRun(ids_[row]);
        }
    }
    bool event(QEvent* event) override {
        if (event->type() == QEvent::ToolTip) {
            auto* help = static_cast<QHelpEvent*>(event);
            const int row = rowAt(help->pos());
            if (row >= 0) {
                QToolTip::showText(help->globalPos(), chart_.rows[row].tooltip, this);
            } else {
                QToolTip::hideText();
            }
            return true;
        }
        return QWidget::event(event);
    }

  private:
    int rowAt(const QPointF& pos) const {
        for (int i = 0; i < rowRects_.size() && i < ids_.size(); ++i) {
            if (rowRects_[i].contains(pos)) {
                return i;
            }
        }
        return -1;
    }
    models::Session* session_;
    models::ViewState* state_;
    QCheckBox* log_;
    RowsChart chart_;
    QStringList ids_;
    QVector<QRectF> rowRects_;
};

BreakdownChart::BreakdownChart(models::Session* session, models::ViewState* state, QWidget* parent)
    : QWidget(parent), session_(session), state_(state) {
    setObjectName(QStringLiteral("breakdownChart"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    log_ = new QCheckBox(QStringLiteral("Log scale"), this);
    log_->setObjectName(QStringLiteral("breakdownLog"));
    log_->setToolTip(QStringLiteral(
        "A logarithmic time axis, for runs whose times differ by orders of magnitude "
        "(the seed's one-worker kernel against the others)."));
    canvas_ = new BreakdownCanvas(session, state, log_, this);
    layout->addWidget(log_, 0, Qt::AlignRight);
    layout->addWidget(canvas_);
    connect(log_, &QCheckBox::toggled, canvas_, &BreakdownCanvas::refresh);
    connect(session_, &models::Session::changed, canvas_, &BreakdownCanvas::refresh);
    connect(state_, &models::ViewState::selectedRunChanged, canvas_, &BreakdownCanvas::refresh);
    canvas_->refresh();
}

bool BreakdownChart::logScale() const {
    return log_->isChecked();
}
void BreakdownChart::setLogScale(bool log) {
    log_->setChecked(log);
}
QStringList BreakdownChart::runIds() const {
    return canvas_->ids();
}

RowsChart BreakdownChart::chartFor(const models::Session& session, const QString& selectedRun,
                                   bool log) {
    RowsChart chart;
    chart.title = QStringLiteral("Where one repetition's time goes");
    chart.axisLabel = log ? QStringLiteral("time per repetition (log scale)")
                          : QStringLiteral("time per repetition");
    chart.emptyText = QStringLiteral("No runs with timed work yet.");
    chart.log = log;
    chart.tickText = [](double ns) { return duration(ns); };
    const bool withDevice = models::devicesDiffer(session.runs());
    const auto rows = models::breakdownRows(session.runs());
    std::array<bool, models::kBreakdownPartCount> present{};
    bool modelled = false;
    for (const auto& r : rows) {
        ChartRow row;
        row.label = r.runId;
        QStringList sub;
        if (withDevice) {
            sub << r.device;
        }
        if (r.modelled) {
            sub << QStringLiteral("modelled");
        }
        row.subLabel = sub.join(QStringLiteral(" \u00b7 "));
        row.hatched = r.modelled;
        row.selected = r.runId == selectedRun;
        modelled = modelled || r.modelled;
        RowBar bar;
        QString tip =
            QStringLiteral("<b>%1</b> on %2%3, per repetition:<br>")
                .arg(r.runId.toHtmlEscaped(), r.device.toHtmlEscaped(),
                     r.modelled ? QStringLiteral(" (modelled, not measured)") : QString());
        for (int p = 0; p < models::kBreakdownPartCount; ++p) {
            const auto part = models::BreakdownPart(p);
            const double ns = r.part(part);
            if (ns <= 0) {
                continue;
            }
            present[std::size_t(p)] = true;
            bar.segments << RowSegment{ns, partColor(part)};
            tip += QStringLiteral("%1: %2<br>").arg(models::breakdownPartName(part), duration(ns));
        }
        bar.valueText =
            duration(r.totalNs()) + (r.modelled ? QStringLiteral(" modelled") : QString());
        tip += QStringLiteral("total: %1").arg(duration(r.totalNs()));
        row.tooltip = tip;
        row.bars << bar;
        chart.rows << row;
    }
    for (int p = 0; p < models::kBreakdownPartCount; ++p) {
        if (present[std::size_t(p)]) {
            chart.legend << LegendItem{models::breakdownPartName(models::BreakdownPart(p)),
                                       partColor(models::BreakdownPart(p)), false};
        }
    }
    if (modelled) {
        chart.legend << LegendItem{QStringLiteral("hatched: modelled"), QColor(0x88, 0x88, 0x88),
                                   true};
    }
    return chart;
}

} // namespace slicescope::gui
