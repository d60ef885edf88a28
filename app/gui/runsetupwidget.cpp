#include "gui/runsetupwidget.h"

#include "gui/strategydelegate.h"
#include "gui/targetbox.h"
#include "models/devicelistmodel.h"
#include "models/runentry.h"
#include "models/strategylistmodel.h"
#include "slicescope/problem/problem.h"
#include "slicescope/strategy/pipeline.h"
#include "slicescope/trace/runsummary.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QListView>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>

namespace slicescope::gui {

namespace {

QSpinBox* dimensionBox(QWidget* parent, int value, const QString& name, const QString& tip) {
    auto* box = new QSpinBox(parent);
    box->setObjectName(name);
    box->setRange(1, 100'000'000);
    box->setMinimumWidth(40);
    box->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    box->setValue(value);
    box->setGroupSeparatorShown(true);
    box->setToolTip(tip);
    box->setAccelerated(true);
    return box;
}

const QStringList kSeedStory = {
    QStringLiteral("one-worker"),   QStringLiteral("slice-outer"),
    QStringLiteral("slice-middle"), QStringLiteral("elementwise-broadcast"),
    QStringLiteral("cpu-serial"),   QStringLiteral("cpu-parallel")};

} // namespace

RunSetupWidget::RunSetupWidget(models::StrategyListModel* strategies,
                               models::DeviceListModel* devices, QWidget* parent)
    : QWidget(parent), strategies_(strategies), devices_(devices) {
    setObjectName(QStringLiteral("runSetup"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);

    layout->addWidget(buildProblemBox());
    layout->addWidget(buildStrategyBox(), 1);
    layout->addWidget(buildLaunchBox());
    layout->addLayout(buildRunButtons());
    for (QSpinBox* box : {r_, c_, n_, work_}) {
        connect(box, &QSpinBox::valueChanged, this, &RunSetupWidget::updateProblemSummary);
    }
    connect(dtype_, &QComboBox::currentIndexChanged, this, &RunSetupWidget::updateProblemSummary);
    connect(devices_, &QAbstractItemModel::modelReset, this, &RunSetupWidget::onDevicesReset);
    updateBlockMode();
    updateProblemSummary();
}

QGroupBox* RunSetupWidget::buildProblemBox() {
    auto* problemBox = new QGroupBox(tr("Problem"), this);
    auto* problemForm = new QFormLayout(problemBox);
    auto* formula =
        new QLabel(tr("cv[r][c][n] = multBy[c][n] \u00d7 discount[r][c][n]"), problemBox);
    formula->setWordWrap(true);
    formula->setToolTip(QStringLiteral(
        "The seed's computation: each element of discount multiplied by the matching "
        "element of multBy, broadcast over r."));
    problemForm->addRow(formula);
    r_ = dimensionBox(problemBox, 100, QStringLiteral("shapeR"),
                      tr("R: the outer dimension (the seed's 100)"));
    c_ = dimensionBox(problemBox, 4000, QStringLiteral("shapeC"),
                      tr("C: the middle dimension (the seed's 4000)"));
    n_ = dimensionBox(problemBox, 5, QStringLiteral("shapeN"),
                      tr("N: the inner dimension (the seed's 5)"));
    auto* shapeRow = new QHBoxLayout;
    shapeRow->addWidget(r_);
    shapeRow->addWidget(new QLabel(QStringLiteral("\u00d7"), problemBox));
    shapeRow->addWidget(c_);
    shapeRow->addWidget(new QLabel(QStringLiteral("\u00d7"), problemBox));
    shapeRow->addWidget(n_);
    problemForm->addRow(tr("Shape R\u00d7C\u00d7N"), shapeRow);
    dtype_ = new QComboBox(problemBox);
    dtype_->setObjectName(QStringLiteral("dtype"));
    dtype_->addItem(tr("f64 (the seed's)"), QStringLiteral("f64"));
    dtype_->addItem(tr("f32 (float)"), QStringLiteral("f32"));
    problemForm->addRow(tr("Element type"), dtype_);
    work_ = new QSpinBox(problemBox);
    work_->setObjectName(QStringLiteral("work"));
    work_->setRange(1, 1'000'000);
    work_->setValue(1);
    work_->setToolTip(QStringLiteral(
        "Work per element k: 1 is the seed's single multiply; each extra unit adds a dependent "
        "multiply-add. "
        "Raise it to raise the arithmetic intensity and watch the GPU overtake the CPU."));
    problemForm->addRow(tr("Work per element"), work_);
    summary_ = new QLabel(problemBox);
    summary_->setObjectName(QStringLiteral("problemSummary"));
    summary_->setWordWrap(true);
    summary_->setToolTip(QStringLiteral("<b>Arithmetic intensity</b>: floating-point operations "
                                        "per byte moved between host and device. "
                                        "Below about 1 flop/byte the copies dominate and the CPU, "
                                        "which needs no copies, usually wins."));
    problemForm->addRow(summary_);
    return problemBox;
}

QGroupBox* RunSetupWidget::buildStrategyBox() {
    auto* strategyBox = new QGroupBox(tr("Strategies"), this);
    strategyBox->setToolTip(
        tr("How the work is cut into workers and launched. Tick several to compare."));
    auto* strategyLayout = new QVBoxLayout(strategyBox);
    strategyView_ = new QListView(strategyBox);
    strategyView_->setObjectName(QStringLiteral("strategies"));
    strategyView_->setModel(strategies_);
    strategyView_->setItemDelegate(new StrategyDelegate(strategyView_));
    strategyView_->setUniformItemSizes(false);
    strategyView_->setWordWrap(true);
    strategyView_->setResizeMode(QListView::Adjust);
    strategyView_->setMinimumHeight(160);
    strategyLayout->addWidget(strategyView_);
    auto* presetRow = new QHBoxLayout;
    auto* story = new QPushButton(tr("The seed's story"), strategyBox);
    story->setObjectName(QStringLiteral("seedStory"));
    story->setToolTip(
        tr("one-worker, slice-outer, slice-middle, elementwise-broadcast and both CPU "
           "strategies on the seed's 100\u00d74000\u00d75 f64 problem"));
    connect(story, &QPushButton::clicked, this, &RunSetupWidget::checkSeedStory);
    auto* allGpu = new QPushButton(tr("All"), strategyBox);
    connect(allGpu, &QPushButton::clicked, this, [this] {
        QStringList all;
        for (int i = 0; i < strategies_->rowCount(); ++i) {
            all << strategies_->index(i).data(models::StrategyListModel::NameRole).toString();
        }
        strategies_->setCheckedNames(all);
    });
    auto* none = new QPushButton(tr("None"), strategyBox);
    connect(none, &QPushButton::clicked, this, [this] { strategies_->setCheckedNames({}); });
    presetRow->addWidget(story);
    presetRow->addWidget(allGpu);
    presetRow->addWidget(none);
    strategyLayout->addLayout(presetRow);
    return strategyBox;
}

QGroupBox* RunSetupWidget::buildLaunchBox() {
    auto* launchBox = new QGroupBox(tr("Launch"), this);
    auto* launchForm = new QFormLayout(launchBox);
    blockMode_ = new QComboBox(launchBox);
    blockMode_->setObjectName(QStringLiteral("blockMode"));
    blockMode_->addItem(tr("numba: 64"), QStringLiteral("numba"));
    blockMode_->addItem(tr("numba-cuda: largest"), QStringLiteral("numba-cuda"));
    blockMode_->addItem(tr("explicit"), QStringLiteral("explicit"));
    blockMode_->setToolTip(
        tr("Threads per block: numba 0.38 launched gufuncs with 64; numba-cuda today "
           "takes the largest block the kernel allows; or choose."));
    blockThreads_ = new QSpinBox(launchBox);
    blockThreads_->setObjectName(QStringLiteral("blockThreads"));
    blockThreads_->setRange(1, 1024);
    blockThreads_->setValue(256);
    auto* blockRow = new QHBoxLayout;
    blockRow->addWidget(blockMode_, 1);
    blockRow->addWidget(blockThreads_);
    launchForm->addRow(tr("Block size"), blockRow);
    connect(blockMode_, &QComboBox::currentIndexChanged, this, &RunSetupWidget::updateBlockMode);
    memory_ = new QComboBox(launchBox);
    memory_->setObjectName(QStringLiteral("memory"));
    memory_->addItem(tr("pageable (the seed's)"), QStringLiteral("pageable"));
    memory_->addItem(tr("pinned"), QStringLiteral("pinned"));
    memory_->addItem(tr("managed"), QStringLiteral("managed"));
    memory_->addItem(tr("mapped (zero-copy)"), QStringLiteral("mapped"));
    memory_->setToolTip(
        tr("Host memory the copies go through. Pageable memory is staged by the driver "
           "and copies slowest; pinned copies at full link speed."));
    launchForm->addRow(tr("Host memory"), memory_);
    repeat_ = new QSpinBox(launchBox);
    repeat_->setObjectName(QStringLiteral("repeat"));
    repeat_->setRange(1, 10000);
    repeat_->setToolTip(tr("Repetitions of the copy / compute / copy sequence"));
    launchForm->addRow(tr("Repeat"), repeat_);
    warmup_ = new QSpinBox(launchBox);
    warmup_->setObjectName(QStringLiteral("warmup"));
    warmup_->setRange(0, 10000);
    warmup_->setValue(1);
    warmup_->setToolTip(
        tr("Warm-up iterations before the measured repetitions, in the same process: the first "
           "launch, the OpenMP pool and the first touch of memory are paid there. They are drawn "
           "greyed and never counted. A modelled run has no warm-up."));
    launchForm->addRow(tr("Warm-up"), warmup_);
    // Pipelines (docs/gpu-backend.md, "Pipelines"); the limits are the CLI's.
    const QString pipelineTip =
        tr("Cut the array into chunks and give each its own copy in, kernel and copy out, spread "
           "over several streams. While one chunk is computed, the next is already being copied "
           "in and the previous one copied out, so copying and computing happen at the same "
           "time instead of one after the other. It pays with pinned host memory; with pageable "
           "memory the driver copies through its own buffer and nothing overlaps. 1 chunk is "
           "the usual copy, compute, copy.");
    chunks_ = new QSpinBox(launchBox);
    chunks_->setObjectName(QStringLiteral("chunks"));
    chunks_->setRange(1, int(strategy::kMaxChunks));
    chunks_->setToolTip(pipelineTip);
    launchForm->addRow(tr("Chunks"), chunks_);
    streams_ = new QSpinBox(launchBox);
    streams_->setObjectName(QStringLiteral("streams"));
    streams_->setRange(1, int(strategy::kMaxStreams));
    streams_->setToolTip(pipelineTip + QLatin1Char(' ') +
                         tr("Chunk i goes on stream i mod streams; more streams than chunks "
                            "act as one per chunk."));
    launchForm->addRow(tr("Streams"), streams_);
    counters_ = new QCheckBox(tr("achieved occupancy"), launchBox);
    counters_->setObjectName(QStringLiteral("counters"));
    counters_->setToolTip(
        tr("Measure achieved occupancy with CUPTI counters (GPU only; replays each "
           "kernel, so the run takes longer)."));
    sampleOccupancy_ = new QCheckBox(tr("occupancy over time"), launchBox);
    sampleOccupancy_->setObjectName(QStringLiteral("sampleOccupancy"));
    sampleOccupancy_->setToolTip(
        tr("Sample achieved occupancy over time with CUPTI PM sampling (GPU only)."));
    launchForm->addRow(tr("Counters"), counters_);
    launchForm->addRow(QString(), sampleOccupancy_);
    target_ = new TargetBox(launchBox);
    launchForm->addRow(tr("Target"), target_);
    connect(target_, &TargetBox::hostChosen, this, [this](const QString& host) {
        showDevicesPending(host);
        emit targetChanged(host);
    });
    device_ = new QComboBox(launchBox);
    device_->setObjectName(QStringLiteral("device"));
    device_->setModel(devices_);
    device_->setToolTip(tr("Where GPU strategies run: a GPU found here (measured), or a preset "
                           "(modelled: predicted, never measured, drawn hatched)."));
    launchForm->addRow(tr("GPU"), device_);
    deviceNote_ = new QLabel(tr("asking slicescope-cli for devices\u2026"), launchBox);
    deviceNote_->setWordWrap(true);
    deviceNote_->setStyleSheet(QStringLiteral("color:#555"));
    launchForm->addRow(deviceNote_);
    return launchBox;
}

QHBoxLayout* RunSetupWidget::buildRunButtons() {
    auto* buttons = new QHBoxLayout;
    run_ = new QPushButton(tr("Run"), this);
    run_->setObjectName(QStringLiteral("runButton"));
    run_->setDefault(true);
    run_->setToolTip(tr("Run the checked strategies (F5)"));
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->setObjectName(QStringLiteral("cancelButton"));
    cancel_->setEnabled(false);
    cancel_->setToolTip(tr("Stop the run now (Esc)"));
    buttons->addWidget(run_, 2);
    buttons->addWidget(cancel_, 1);
    connect(run_, &QPushButton::clicked, this, &RunSetupWidget::runRequested);
    connect(cancel_, &QPushButton::clicked, this, &RunSetupWidget::cancelRequested);
    return buttons;
}

void RunSetupWidget::checkSeedStory() {
    r_->setValue(100);
    c_->setValue(4000);
    n_->setValue(5);
    dtype_->setCurrentIndex(0);
    work_->setValue(1);
    blockMode_->setCurrentIndex(0);
    memory_->setCurrentIndex(0);
    strategies_->setCheckedNames(kSeedStory);
}

void RunSetupWidget::updateBlockMode() {
    blockThreads_->setEnabled(blockMode_->currentData().toString() == QStringLiteral("explicit"));
}

QString RunSetupWidget::problemSummary() const {
    return summary_->text();
}

void RunSetupWidget::updateProblemSummary() {
    const auto dtype = problem::parseDtype(dtype_->currentData().toString().toStdString());
    const auto p =
        problem::makeProblem({quint64(r_->value()), quint64(c_->value()), quint64(n_->value())},
                             dtype ? *dtype : problem::Dtype::F64, work_->value());
    if (!p) {
        summary_->setText(QStringLiteral("<span style=\"color:#b00020\">%1</span>")
                              .arg(models::toQString(p.error().message).toHtmlEscaped()));
        return;
    }
    const std::uint64_t in = p->arrayBytes() + p->multByBytes();
    const std::uint64_t out = p->arrayBytes();
    summary_->setText(
        QStringLiteral("<b>%1</b> elements \u00b7 <b>%2</b> moved (%3 in, %4 out) \u00b7 "
                       "<b>%5</b> flop/byte")
            .arg(models::toQString(trace::formatCount(p->elements())),
                 models::toQString(trace::formatBytes(in + out)),
                 models::toQString(trace::formatBytes(in)),
                 models::toQString(trace::formatBytes(out)),
                 QString::number(p->arithmeticIntensity(), 'g', 3)));
}

void RunSetupWidget::onDevicesReset() {
    if (devices_->rowCount() == 0) {
        deviceNote_->setText(tr("No GPU and no presets: only the CPU strategies can run."));
    } else if (devices_->detectedCount() == 0) {
        deviceNote_->setText(
            target_->host().isEmpty()
                ? tr("No GPU here: GPU strategies are modelled on the chosen preset.")
                : tr("No GPU on %1: GPU strategies are modelled on the chosen preset.")
                      .arg(target_->host()));
    } else {
        deviceNote_->setText(QString());
    }
    deviceNote_->setVisible(!deviceNote_->text().isEmpty());
    if (!pendingDeviceKey_.isEmpty() && selectDevice(pendingDeviceKey_)) {
        pendingDeviceKey_.clear();
    } else if (device_->currentIndex() < 0 && devices_->rowCount() > 0) {
        device_->setCurrentIndex(0);
    }
}

bool RunSetupWidget::selectDevice(const QString& key) {
    int row = devices_->rowOfKey(key);
    if (row < 0 && !key.contains(QLatin1Char(':'))) {
        row = devices_->rowOfKey(QStringLiteral("preset:") + key);
    }
    if (row < 0) {
        pendingDeviceKey_ = key; // the list may not have arrived yet
        return false;
    }
    device_->setCurrentIndex(row);
    return true;
}

models::RunConfig RunSetupWidget::config() const {
    models::RunConfig c;
    c.r = quint64(r_->value());
    c.c = quint64(c_->value());
    c.n = quint64(n_->value());
    c.dtype = dtype_->currentData().toString();
    c.work = work_->value();
    c.strategies = strategies_->checkedNames();
    const QString mode = blockMode_->currentData().toString();
    c.block = mode == QStringLiteral("explicit") ? QString::number(blockThreads_->value()) : mode;
    c.memory = memory_->currentData().toString();
    c.repeat = repeat_->value();
    c.warmup = warmup_->value();
    c.chunks = chunks_->value();
    c.streams = streams_->value();
    c.counters = counters_->isChecked();
    c.sampleOccupancy = sampleOccupancy_->isChecked();
    const int row = device_->currentIndex();
    if (row >= 0 && row < devices_->rowCount()) {
        c.device = devices_->at(row);
    }
    c.host = target_->host();
    return c;
}

void RunSetupWidget::setConfig(const models::RunConfig& c) {
    r_->setValue(int(std::min<quint64>(c.r, 100'000'000)));
    c_->setValue(int(std::min<quint64>(c.c, 100'000'000)));
    n_->setValue(int(std::min<quint64>(c.n, 100'000'000)));
    dtype_->setCurrentIndex(std::max(0, dtype_->findData(c.dtype)));
    work_->setValue(c.work);
    strategies_->setCheckedNames(c.strategies);
    bool number = false;
    const int threads = c.block.toInt(&number);
    if (number) {
        blockMode_->setCurrentIndex(blockMode_->findData(QStringLiteral("explicit")));
        blockThreads_->setValue(threads);
    } else {
        blockMode_->setCurrentIndex(std::max(0, blockMode_->findData(c.block)));
    }
    memory_->setCurrentIndex(std::max(0, memory_->findData(c.memory)));
    repeat_->setValue(c.repeat);
    warmup_->setValue(c.warmup);
    chunks_->setValue(c.chunks);
    streams_->setValue(c.streams);
    counters_->setChecked(c.counters);
    sampleOccupancy_->setChecked(c.sampleOccupancy);
    if (c.device.kind != models::DeviceChoice::Kind::None) {
        selectDevice(models::DeviceListModel::keyOf(c.device));
    }
}

void RunSetupWidget::saveSettings(QSettings& s) const {
    const models::RunConfig c = config();
    s.setValue(QStringLiteral("run/r"), c.r);
    s.setValue(QStringLiteral("run/c"), c.c);
    s.setValue(QStringLiteral("run/n"), c.n);
    s.setValue(QStringLiteral("run/dtype"), c.dtype);
    s.setValue(QStringLiteral("run/work"), c.work);
    s.setValue(QStringLiteral("run/strategies"), c.strategies);
    s.setValue(QStringLiteral("run/block"), c.block);
    s.setValue(QStringLiteral("run/memory"), c.memory);
    s.setValue(QStringLiteral("run/repeat"), c.repeat);
    s.setValue(QStringLiteral("run/warmup"), c.warmup);
    s.setValue(QStringLiteral("run/chunks"), c.chunks);
    s.setValue(QStringLiteral("run/streams"), c.streams);
    s.setValue(QStringLiteral("run/counters"), c.counters);
    s.setValue(QStringLiteral("run/sampleOccupancy"), c.sampleOccupancy);
    const QString key = c.device.kind == models::DeviceChoice::Kind::None
                            ? pendingDeviceKey_
                            : models::DeviceListModel::keyOf(c.device);
    s.setValue(QStringLiteral("run/device"), key);
    target_->saveSettings(s);
}

void RunSetupWidget::restoreSettings(const QSettings& s) {
    target_->restoreSettings(s);
    if (!s.contains(QStringLiteral("run/r"))) {
        strategies_->setCheckedNames(kSeedStory);
        return;
    }
    models::RunConfig c;
    c.r = s.value(QStringLiteral("run/r"), c.r).toULongLong();
    c.c = s.value(QStringLiteral("run/c"), c.c).toULongLong();
    c.n = s.value(QStringLiteral("run/n"), c.n).toULongLong();
    c.dtype = s.value(QStringLiteral("run/dtype"), c.dtype).toString();
    c.work = s.value(QStringLiteral("run/work"), c.work).toInt();
    c.strategies = s.value(QStringLiteral("run/strategies")).toStringList();
    c.block = s.value(QStringLiteral("run/block"), c.block).toString();
    c.memory = s.value(QStringLiteral("run/memory"), c.memory).toString();
    c.repeat = s.value(QStringLiteral("run/repeat"), c.repeat).toInt();
    c.warmup = s.value(QStringLiteral("run/warmup"), c.warmup).toInt();
    c.chunks = s.value(QStringLiteral("run/chunks"), c.chunks).toInt();
    c.streams = s.value(QStringLiteral("run/streams"), c.streams).toInt();
    c.counters = s.value(QStringLiteral("run/counters")).toBool();
    c.sampleOccupancy = s.value(QStringLiteral("run/sampleOccupancy")).toBool();
    setConfig(c);
    const QString device = s.value(QStringLiteral("run/device")).toString();
    if (!device.isEmpty()) {
        selectDevice(device);
    }
}

void RunSetupWidget::showDevicesPending(const QString& host) {
    deviceNote_->setText(host.isEmpty() ? tr("asking slicescope-cli for devices\u2026")
                                        : tr("asking %1 for its devices (ssh)\u2026").arg(host));
    deviceNote_->show();
}

void RunSetupWidget::setRunning(bool running) {
    run_->setEnabled(!running);
    cancel_->setEnabled(running);
}

} // namespace slicescope::gui
