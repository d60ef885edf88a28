#include "gui/gputracepanel.h"

#include "gui/tableutil.h"
#include "models/gputracemodel.h"
#include "models/gputraceproxy.h"
#include "models/session.h"
#include "models/viewstate.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTableView>
#include <QVBoxLayout>

namespace slicescope::gui {

GpuTracePanel::GpuTracePanel(models::Session* session, models::ViewState* state, QWidget* parent)
    : QWidget(parent), session_(session), state_(state) {
    setObjectName(QStringLiteral("gpuTracePanel"));
    model_ = new models::GpuTraceModel(this);
    proxy_ = new models::GpuTraceProxy(this);
    proxy_->setSourceModel(model_);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* captionRow = new QHBoxLayout;
    caption_ = new QLabel(this);
    caption_->setObjectName(QStringLiteral("traceCaption"));
    showAll_ = new QCheckBox(tr("API and host rows too"), this);
    showAll_->setObjectName(QStringLiteral("traceShowAll"));
    captionRow->addWidget(caption_, 1);
    captionRow->addWidget(showAll_);
    layout->addLayout(captionRow);
    table_ = newRowTable(QStringLiteral("gpuTraceTable"), proxy_, this);
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    // Size columns by the rows in view only (Qt's default looks at 1,000 rows per column: tens of
    // milliseconds of text layout on every run change).
    table_->horizontalHeader()->setResizeContentsPrecision(0);
    table_->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(table_, 1);

    connect(showAll_, &QCheckBox::toggled, proxy_, &models::GpuTraceProxy::setShowAll);
    connect(showAll_, &QCheckBox::toggled, this, &GpuTracePanel::showSelectedRun);
    // Big runs' rows are filtered and sorted on a worker: say so meanwhile; when they arrive,
    // count them and put the selected activity's row back.
    connect(proxy_, &models::GpuTraceProxy::busyChanged, this, [this](bool busy) {
        updateCaption();
        if (!busy) {
            showSelectedActivity();
        }
    });
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (!current.isValid() || !model_->run()) {
                    return;
                }
                const int activity = current.data(models::GpuTraceModel::ActivityIndexRole).toInt();
                state_->setSelectedActivity({model_->run()->id, activity});
            });
    connect(state_, &models::ViewState::selectedRunChanged, this, &GpuTracePanel::showSelectedRun);
    connect(state_, &models::ViewState::selectedActivityChanged, this,
            &GpuTracePanel::showSelectedActivity);
    // A run removed, or the session cleared: the table must not keep showing it.
    connect(session_, &models::Session::changed, this, &GpuTracePanel::showSelectedRun);
    updateCaption();
}

QString GpuTracePanel::caption() const {
    return caption_->text();
}

void GpuTracePanel::showSelectedRun() {
    const models::RunEntryPtr entry = session_->find(state_->selectedRun());
    if (model_->run() != entry) {
        model_->setRun(entry);
    }
    if (entry && table_->isVisible()) {
        table_->resizeColumnsToContents(); // looks at the rows in view, not all of them
    }
    updateCaption();
}

void GpuTracePanel::updateCaption() {
    const models::ConstRunEntryPtr& entry = model_->run();
    if (!entry) {
        caption_->setText(tr("No run selected."));
        return;
    }
    const bool deviceRows = model_->hasDeviceActivities() && !proxy_->showAll();
    const QString what =
        deviceRows ? tr("device activities (nvprof --print-gpu-trace)") : tr("activities");
    const QString count =
        proxy_->isBusy()
            ? tr("%1 %2, sorting\u2026")
                  .arg(QLocale().toString(qulonglong(deviceRows ? entry->deviceActivities
                                                                : entry->run->activities.size())),
                       what)
            : QStringLiteral("%1 %2").arg(proxy_->rowCount()).arg(what);
    const QString warmup =
        entry->warmupDeviceActivities > 0
            ? tr(", %1 of the device activities from warm-up (greyed, not counted)")
                  .arg(QLocale().toString(qulonglong(entry->warmupDeviceActivities)))
            : QString();
    caption_->setText(QStringLiteral("<b>%1</b>%2: %3%4")
                          .arg(entry->id.toHtmlEscaped(),
                               entry->isPredicted()
                                   ? QStringLiteral(" (<i>%1</i>)").arg(entry->predictedWord())
                                   : QString(),
                               count, warmup));
}

void GpuTracePanel::showSelectedActivity() {
    const auto& activity = state_->selectedActivity();
    if (!activity.isValid() || !model_->run() || model_->run()->id != activity.runId) {
        return;
    }
    int row = proxy_->rowOfActivity(activity.index);
    if (row < 0 && !showAll_->isChecked()) {
        showAll_->setChecked(true); // an API or host event: show those rows
        row = proxy_->rowOfActivity(activity.index);
    }
    if (row >= 0 && table_->currentIndex().row() != row) {
        const QModelIndex index = proxy_->index(row, 0);
        table_->setCurrentIndex(index);
        table_->scrollTo(index, QAbstractItemView::PositionAtCenter);
    }
}

} // namespace slicescope::gui
