#include "gui/breakdownchart.h"

#include "gui/theme.h"
#include "models/chartrows.h"
#include "models/runbreakdown.h"
#include "models/runnaming.h"
#include "models/session.h"
#include "models/viewstate.h"

#include <QCheckBox>
#include <QLocale>
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
        return theme::hostLayoutColor();
    case models::BreakdownPart::HostCompute:
        return theme::laneColor(models::LaneKind::Host);
    }
    return Qt::gray;
}

QString duration(double ns) {
    return models::toQString(trace::formatDurationNs(std::int64_t(ns + 0.5)));
}

// A tick of the time axis. Linear: every tick in the unit of the axis's top ("0", "2.5 ms",
// "5 ms"), zero a plain "0". Log: each power of ten in its own unit ("100 ns", "1 µs"); a log
// axis has no zero.
QString axisTickText(double ns, double topNs, bool log) {
    if (ns == 0) {
        return QStringLiteral("0");
    }
    struct Unit {
        double ns;
        const char* name;
    };
    static constexpr Unit kUnits[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "\u00b5s"}, {1, "ns"}};
    const double pick = log ? ns : topNs;
    for (const Unit& unit : kUnits) {
        if (pick >= unit.ns * (1 - 1e-9) || unit.ns == 1) {
            return QLocale::c().toString(ns / unit.ns, 'g', 4) + QLatin1Char(' ') +
                   QString::fromUtf8(unit.name);
        }
    }
    return QString::number(ns);
}

} // namespace

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
    canvas_ = new RowsChartWidget(state, this);
    canvas_->setObjectName(QStringLiteral("breakdownCanvas"));
    layout->addWidget(log_, 0, Qt::AlignRight);
    layout->addWidget(canvas_);
    connect(log_, &QCheckBox::toggled, this, &BreakdownChart::refresh);
    connect(session_, &models::Session::changed, this, &BreakdownChart::refresh);
    connect(state_, &models::ViewState::selectedRunChanged, this, &BreakdownChart::refresh);
    refresh();
}

void BreakdownChart::refresh() {
    canvas_->setChart(chartFor(*session_, state_->selectedRun(), log_->isChecked()));
}

bool BreakdownChart::logScale() const {
    return log_->isChecked();
}
void BreakdownChart::setLogScale(bool log) {
    log_->setChecked(log);
}
QStringList BreakdownChart::runIds() const {
    return canvas_->rowIds();
}
QVector<QRectF> BreakdownChart::rowRects() const {
    QVector<QRectF> rects = canvas_->rowRects();
    for (QRectF& r : rects) {
        r.translate(canvas_->pos());
    }
    return rects;
}

RowsChart BreakdownChart::chartFor(const models::Session& session, const QString& selectedRun,
                                   bool log) {
    RowsChart chart;
    chart.title = QStringLiteral("Where one repetition's time goes");
    chart.axisLabel = log ? QStringLiteral("time per repetition (log scale)")
                          : QStringLiteral("time per repetition");
    chart.emptyText = QStringLiteral("No runs with timed work yet.");
    chart.log = log;
    chart.tickText = [log](double ns, double topNs) { return axisTickText(ns, topNs, log); };
    const bool withDevice = models::devicesDiffer(session.runs());
    qsizetype total = 0;
    const auto rows = models::chartBreakdownRows(session.runs(), selectedRun, total);
    chart.title += models::chartRowsNote(rows.size(), total);
    std::array<bool, models::kBreakdownPartCount> present{};
    QStringList predicted; // the kinds of predicted rows: "modelled", "projected"
    for (const auto& r : rows) {
        ChartRow row;
        row.id = r.runId;
        row.label = r.runId;
        QStringList sub;
        if (withDevice) {
            sub << r.device;
        }
        if (!r.predicted.isEmpty()) {
            sub << r.predicted;
            if (!predicted.contains(r.predicted)) {
                predicted << r.predicted;
            }
        }
        row.subLabel = sub.join(QStringLiteral(" \u00b7 "));
        row.hatched = !r.predicted.isEmpty();
        row.selected = r.runId == selectedRun;
        RowBar bar;
        QString tip = QStringLiteral("<b>%1</b> on %2%3, per repetition:<br>")
                          .arg(r.runId.toHtmlEscaped(), r.device.toHtmlEscaped(),
                               r.predicted.isEmpty()
                                   ? QString()
                                   : QStringLiteral(" (%1, not measured)").arg(r.predicted));
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
        bar.valueText = duration(r.totalNs()) +
                        (r.predicted.isEmpty() ? QString() : QStringLiteral(" ") + r.predicted);
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
    if (!predicted.isEmpty()) {
        chart.legend << hatchedLegend(predicted);
    }
    return chart;
}

} // namespace slicescope::gui
