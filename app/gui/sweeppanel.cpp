#include "gui/sweeppanel.h"

#include "gui/sweepparams.h"
#include "models/devicelistmodel.h"
#include "models/runentry.h"
#include "slicescope/strategy/strategy.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

namespace slicescope::gui {

SweepPanel::SweepPanel(models::DeviceListModel* devices, QWidget* parent)
    : QWidget(parent), devices_(devices) {
    auto* form = new QFormLayout;
    param_ = new QComboBox(this);
    param_->setObjectName(QStringLiteral("sweepParam"));
    for (const auto& p : sweepParams()) {
        param_->addItem(sweepParamWords(QString::fromLatin1(p.id)), QString::fromLatin1(p.id));
    }
    form->addRow(tr("Vary"), param_);
    values_ = new QLineEdit(this);
    values_->setObjectName(QStringLiteral("sweepValues"));
    values_->setToolTip(tr("Values separated by commas (32,64,128) or a range START:STOP with a "
                           "step xFACTOR or +STEP (32:1024:x2)"));
    form->addRow(tr("Values"), values_);
    strategies_ = new QListWidget(this);
    strategies_->setObjectName(QStringLiteral("sweepStrategies"));
    for (const auto& info : strategy::allStrategies()) {
        auto* item =
            new QListWidgetItem(models::toQString(strategy::toString(info.id)), strategies_);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Unchecked);
    }
    strategies_->setMinimumHeight(strategies_->sizeHintForRow(0) * 5);
    form->addRow(tr("Strategies"), strategies_);
    device_ = new QComboBox(this);
    device_->setObjectName(QStringLiteral("sweepDevice"));
    device_->setModel(devices_);
    device_->setToolTip(tr("For the GPU strategies: a GPU found here (measured, one worker "
                           "process for the whole sweep) or a preset (modelled). CPU strategies "
                           "are measured on this host either way, and alone need neither."));
    form->addRow(tr("GPU"), device_);
    counters_ = new QCheckBox(tr("Achieved occupancy (counters)"), this);
    counters_->setObjectName(QStringLiteral("sweepCounters"));
    form->addRow(QString(), counters_);
    roofline_ = new QCheckBox(tr("Roofline ceilings"), this);
    roofline_->setObjectName(QStringLiteral("sweepRoofline"));
    roofline_->setToolTip(tr("Measure the device's bandwidths and FMA peak once (or take a "
                             "preset's datasheet figures) for the roofline"));
    form->addRow(QString(), roofline_);

    sweep_ = new QPushButton(tr("Sweep"), this);
    sweep_->setObjectName(QStringLiteral("sweepButton"));
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->setObjectName(QStringLiteral("sweepCancel"));
    cancel_->setToolTip(tr("Stop the sweep and keep the points finished"));
    cancel_->setEnabled(false);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(sweep_);
    buttons->addWidget(cancel_);
    progress_ = new QProgressBar(this);
    progress_->setObjectName(QStringLiteral("sweepProgress"));
    progress_->setRange(0, 1000);
    progress_->setValue(0);
    stage_ = new QLabel(this);
    stage_->setObjectName(QStringLiteral("sweepStage"));
    stage_->setWordWrap(true);
    resetProgress_ = new QTimer(this);
    resetProgress_->setSingleShot(true);
    resetProgress_->setInterval(kProgressResetMs);
    connect(resetProgress_, &QTimer::timeout, this, [this] {
        if (!running_) {
            progress_->setValue(0);
        }
    });

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addLayout(buttons);
    layout->addWidget(progress_);
    layout->addWidget(stage_);
    layout->addStretch(1);

    connect(sweep_, &QPushButton::clicked, this, &SweepPanel::sweepRequested);
    connect(cancel_, &QPushButton::clicked, this, &SweepPanel::cancelRequested);
    connect(param_, &QComboBox::currentIndexChanged, this, &SweepPanel::suggestValues);
    connect(devices_, &QAbstractItemModel::modelReset, this, [this] {
        if (device_->currentIndex() < 0 && devices_->rowCount() > 0) {
            device_->setCurrentIndex(0);
        }
    });
    suggestValues();
}

void SweepPanel::suggestValues() {
    const int i = param_->currentIndex();
    if (i >= 0 && i < int(sweepParams().size())) {
        values_->setText(QString::fromLatin1(sweepParams()[std::size_t(i)].values));
    }
}

models::SweepConfig SweepPanel::config(const models::RunConfig& base) const {
    models::SweepConfig c;
    c.run = base;
    c.param = param_->currentData().toString();
    c.values = values_->text();
    c.run.strategies.clear();
    for (int i = 0; i < strategies_->count(); ++i) {
        if (strategies_->item(i)->checkState() == Qt::Checked) {
            c.run.strategies << strategies_->item(i)->text();
        }
    }
    c.run.counters = counters_->isChecked();
    c.run.sampleOccupancy = false;
    c.run.device = {};
    const int row = device_->currentIndex();
    if (row >= 0 && row < devices_->rowCount()) {
        c.run.device = devices_->at(row);
    }
    c.roofline = roofline_->isChecked();
    return c;
}

void SweepPanel::setParam(const QString& param) {
    param_->setCurrentIndex(std::max(0, param_->findData(param)));
}

void SweepPanel::setValues(const QString& values) {
    values_->setText(values);
}

void SweepPanel::setStrategies(const QStringList& strategies) {
    for (int i = 0; i < strategies_->count(); ++i) {
        auto* item = strategies_->item(i);
        item->setCheckState(strategies.contains(item->text()) ? Qt::Checked : Qt::Unchecked);
    }
}

void SweepPanel::setCounters(bool on) {
    counters_->setChecked(on);
}

bool SweepPanel::selectDevice(const QString& key) {
    const int row = devices_->rowOfKey(key);
    if (row >= 0) {
        device_->setCurrentIndex(row);
    }
    return row >= 0;
}

void SweepPanel::setRunning(bool running, bool cancelled) {
    sweep_->setEnabled(!running);
    cancel_->setEnabled(running);
    running_ = running;
    resetProgress_->stop();
    if (running) {
        progress_->setValue(0);
        stage_->clear();
        return;
    }
    // Done: the bar full, so the end is seen, then empty again for the next sweep. A cancelled
    // run keeps how far it came until then.
    if (!cancelled) {
        progress_->setValue(progress_->maximum());
    }
    stage_->setText(cancelled ? tr("Cancelled: the points finished are kept.") : tr("Finished."));
    resetProgress_->start();
}

void SweepPanel::setProgress(double fraction, const QString& stage) {
    if (!running_) {
        return; // a line read after the run ended would undo its end
    }
    if (fraction >= 0) {
        progress_->setValue(int(fraction * 1000.0));
    }
    stage_->setText(stage);
}

} // namespace slicescope::gui
