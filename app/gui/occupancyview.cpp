#include "gui/occupancyview.h"

#include "gui/breakdownchart.h"
#include "gui/occupancychart.h"
#include "gui/occupancycurveplot.h"
#include "gui/qcp.h"
#include "gui/smmapwidget.h"
#include "gui/theme.h"
#include "models/session.h"
#include "models/viewstate.h"
#include "slicescope/trace/runsummary.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QStandardItemModel>
#include <QVBoxLayout>
#include <algorithm>

namespace slicescope::gui {

namespace {

QString kernelChoiceTip() {
    return OccupancyView::tr(
        "The run's kernels, one entry per kernel and launch configuration. Selecting a "
        "kernel on the timeline "
        "selects it here too.");
}

QLabel* makeLabel(QWidget* parent, double pointSize, bool bold, const QString& name) {
    auto* label = new QLabel(parent);
    label->setObjectName(name);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setFont(theme::plotFont(pointSize, bold));
    label->setProperty("basePointSize", pointSize);
    label->setProperty("baseBold", bold);
    return label;
}

// text with a break opportunity (a zero-width space) after the punctuation of any word too long to
// be sure of a line of its own (a kernel's name, "__main__::__gufunc_whole_array[abi:v2]..."): a
// word-wrapped label is otherwise at least as wide as its longest word, and the pane with it.
QString breakable(const QString& text) {
    constexpr qsizetype kLongWord = 24;
    static const QString kAfter = QStringLiteral(":,;([<>)]/_.\u2026");
    QStringList words = text.split(QLatin1Char(' '));
    for (QString& word : words) {
        if (word.size() <= kLongWord) {
            continue;
        }
        QString out;
        for (const QChar c : word) {
            out += c;
            if (kAfter.contains(c)) {
                out += QChar(0x200b);
            }
        }
        word = out;
    }
    return words.join(QLatin1Char(' '));
}

// Sets a label's text, long words breakable (breakable()).
void setBreakableText(QLabel* label, const QString& text) {
    label->setText(breakable(text));
}

const QString kSmCaption = QStringLiteral(
    "Model of residency, not a measurement: the first wave of blocks handed to the SMs "
    "round-robin. "
    "Dark: warps with work; light: resident warps without work; grey: free warp slots. "
    "The number is the blocks an SM holds.");

} // namespace

OccupancyView::OccupancyView(models::Session* session, models::ViewState* state, QWidget* parent)
    : QWidget(parent), session_(session), state_(state) {
    setObjectName(QStringLiteral("occupancyView"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->setSpacing(6);
    breakdown_ = new BreakdownChart(session, state, this);
    bars_ = new OccupancyChart(session, state, this);

    title_ = makeLabel(this, 11, true, QStringLiteral("occupancyTitle"));
    kernelChoice_ = new QComboBox(this);
    kernelChoice_->setObjectName(QStringLiteral("kernelChoice"));
    kernelChoice_->setToolTip(kernelChoiceTip());
    kernelChoice_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    kernelChoice_->setMinimumContentsLength(20);
    kernelChoice_->setVisible(false);
    // The headline: the launch's own share of the GPU, then CUDA's per-SM limit.
    headline_ = makeLabel(this, 11, true, QStringLiteral("launchOccupancyHeadline"));
    headline_->setToolTip(
        tr("Launch occupancy: the share of the whole GPU's warp slots this launch fills, given "
           "its grid. The per-SM limit (CUDA's theoretical occupancy) says how full each SM "
           "could be; a launch of too few blocks leaves most SMs empty however high it is."));
    launch_ = makeLabel(this, 11, false, QStringLiteral("launchWords"));
    launch_->setToolTip(
        tr("The launch in plain words: how many blocks and threads it starts, how many "
           "of those threads have work, and how many SMs get nothing to do."));
    limiter_ = makeLabel(this, 9.5, false, QStringLiteral("limiterWords"));
    limiter_->setToolTip(QStringLiteral(
        "The <b>limiter</b> is the SM resource that runs out first and so caps how many blocks of "
        "this kernel "
        "an SM can hold at once: warp slots, block slots, registers or shared memory."));
    launchChoice_ = makeLabel(this, 9.5, false, QStringLiteral("launchChoiceWords"));
    launchChoice_->setToolTip(tr("How the framework that launched this kernel chose its grid, "
                                 "read from the kernel's name, argument types and launch"));
    smMap_ = new SmMapWidget(this);
    smMap_->setToolTip(kSmCaption);
    // Another run's SM map beside the selected run's, each under its name and launch occupancy.
    besideChoice_ = new QComboBox(this);
    besideChoice_->setObjectName(QStringLiteral("besideChoice"));
    besideChoice_->setToolTip(tr("Put another GPU run's SM map beside this one's"));
    // Sized by its longest run name it would widen the pane past the splitter and clip the words.
    besideChoice_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    besideChoice_->setMinimumContentsLength(8);
    auto* maps = new QWidget(this);
    auto* mapsRow = new QHBoxLayout(maps);
    mapsRow->setContentsMargins(0, 0, 0, 0);
    auto* mainColumn = new QVBoxLayout;
    mapTitle_ = makeLabel(maps, 9, true, QStringLiteral("mapTitle"));
    mainColumn->addWidget(mapTitle_);
    mainColumn->addWidget(smMap_);
    mapsRow->addLayout(mainColumn, 1);
    besideColumn_ = new QWidget(maps);
    auto* besideLayout = new QVBoxLayout(besideColumn_);
    besideLayout->setContentsMargins(0, 0, 0, 0);
    besideTitle_ = makeLabel(besideColumn_, 9, true, QStringLiteral("besideTitle"));
    besideMap_ = new SmMapWidget(besideColumn_);
    besideMap_->setObjectName(QStringLiteral("besideMap"));
    besideMap_->setToolTip(kSmCaption);
    besideLayout->addWidget(besideTitle_);
    besideLayout->addWidget(besideMap_);
    mapsRow->addWidget(besideColumn_, 1);
    besideColumn_->setVisible(false);
    auto* besideRow = new QHBoxLayout;
    besideRow->addWidget(new QLabel(tr("Beside it:"), this));
    besideRow->addWidget(besideChoice_, 1);
    smCaption_ = makeLabel(this, 8.5, false, QStringLiteral("smCaption"));
    curves_ = new OccupancyCurvePlot(this);
    series_ = new QCustomPlot(this);
    series_->setObjectName(QStringLiteral("occupancySeries"));
    series_->setMinimumHeight(140);
    series_->plotLayout()->insertRow(0);
    series_->plotLayout()->addElement(
        0, 0,
        new QCPTextElement(series_, tr("Achieved occupancy over time (PM sampling)"),
                           theme::plotFont(10, true)));
    series_->yAxis->setRange(0, 105);
    series_->yAxis->setLabel(tr("occupancy %"));
    series_->xAxis->setLabel(tr("ms since the run's first activity"));
    noSeries_ = makeLabel(this, 8.5, false, QStringLiteral("noSeries"));
    noSeries_->setStyleSheet(QStringLiteral("color: #666"));

    // The plain-words headline and the SM map first, so both show in a short window; the
    // launch's details, then the charts across runs, after them.
    for (QWidget* w : {static_cast<QWidget*>(title_), static_cast<QWidget*>(kernelChoice_),
                       static_cast<QWidget*>(headline_), maps}) {
        layout->addWidget(w);
    }
    layout->addLayout(besideRow);
    for (QWidget* w : {static_cast<QWidget*>(smCaption_), static_cast<QWidget*>(launch_),
                       static_cast<QWidget*>(limiter_), static_cast<QWidget*>(launchChoice_),
                       static_cast<QWidget*>(breakdown_), static_cast<QWidget*>(bars_),
                       static_cast<QWidget*>(curves_), static_cast<QWidget*>(series_),
                       static_cast<QWidget*>(noSeries_)}) {
        layout->addWidget(w);
    }
    layout->addStretch(1);

    connect(state_, &models::ViewState::selectedRunChanged, this, &OccupancyView::showRun);
    connect(state_, &models::ViewState::selectedActivityChanged, this,
            &OccupancyView::followSelectedActivity);
    connect(kernelChoice_, &QComboBox::currentIndexChanged, this, &OccupancyView::showKernel);
    connect(besideChoice_, &QComboBox::currentIndexChanged, this, &OccupancyView::showBeside);
    connect(session_, &models::Session::changed, this, [this] {
        shownRun_.clear(); // the run may have been replaced or renamed
        showRun(state_->selectedRun());
    });
    showRun(state_->selectedRun());
}

void OccupancyView::applyTheme() {
    for (QLabel* label : findChildren<QLabel*>()) {
        if (label->property("basePointSize").isValid()) {
            label->setFont(theme::plotFont(label->property("basePointSize").toDouble(),
                                           label->property("baseBold").toBool()));
        }
    }
    if (auto* title = qobject_cast<QCPTextElement*>(series_->plotLayout()->element(0, 0))) {
        title->setFont(theme::plotFont(10, true));
    }
    bars_->rebuild();
    curves_->applyTheme();
    series_->replot(QCustomPlot::rpQueuedReplot);
}

void OccupancyView::showRun(const QString& runId) {
    const models::RunEntryPtr entry = session_->find(runId);
    shownRun_ = entry ? runId : QString();
    updateBesideChoices();
    kernels_.clear();
    {
        const QSignalBlocker block(kernelChoice_);
        kernelChoice_->clear();
    }
    kernelChoice_->setVisible(false);
    if (!entry) {
        facts_ = {};
        title_->setText(session_->isEmpty() ? QString()
                                            : tr("Select a run to see how it fills the GPU."));
        headline_->clear();
        launchChoice_->clear();
        launch_->clear();
        limiter_->clear();
        smMap_->setResidency({});
        smMap_->setVisible(false);
        smCaption_->clear();
        curves_->setFacts(facts_);
        curves_->setVisible(false);
        updateSeries(nullptr);
        return;
    }
    // Built with the entry, off the GUI thread (at most the models::kMaxKernelGroups longest).
    kernels_ = entry->kernels;
    kernelChoice_->setToolTip(kernelChoiceTip() +
                              (entry->kernelConfigurations > kernels_.size()
                                   ? tr(" The run has %1 kernel configurations: the %2 "
                                        "that took the most time are listed.")
                                         .arg(entry->kernelConfigurations)
                                         .arg(kernels_.size())
                                   : QString()));
    if (!kernels_.isEmpty()) {
        {
            const QSignalBlocker block(kernelChoice_);
            for (const auto& kernel : kernels_) {
                kernelChoice_->addItem(kernel.label());
            }
        }
        kernelChoice_->setVisible(true);
        const auto& selected = state_->selectedActivity();
        const int group = selected.runId == runId
                              ? models::groupOfActivity(kernels_, *entry->run, selected.index)
                              : -1;
        const QSignalBlocker block(kernelChoice_);
        kernelChoice_->setCurrentIndex(std::max(0, group));
        facts_ = models::computeOccupancyFacts(*entry, kernels_[kernelChoice_->currentIndex()]);
    } else {
        facts_ = models::computeOccupancyFacts(*entry);
    }
    showFacts(*entry);
}

void OccupancyView::showKernel(int group) {
    const models::RunEntryPtr entry = session_->find(shownRun_);
    if (!entry || group < 0 || group >= kernels_.size()) {
        return;
    }
    facts_ = models::computeOccupancyFacts(*entry, kernels_[group]);
    showFacts(*entry);
}

void OccupancyView::followSelectedActivity() {
    const auto& selected = state_->selectedActivity();
    const models::RunEntryPtr entry = session_->find(shownRun_);
    if (kernels_.isEmpty() || !entry || selected.runId != shownRun_) {
        return;
    }
    const int group = models::groupOfActivity(kernels_, *entry->run, selected.index);
    if (group >= 0 && group != kernelChoice_->currentIndex()) {
        kernelChoice_->setCurrentIndex(group); // showKernel follows
    }
}

void OccupancyView::showFacts(const models::RunEntry& entry) {
    setBreakableText(title_, facts_.title);
    setBreakableText(headline_, facts_.launchOccupancyWords);
    setBreakableText(launchChoice_, facts_.launchChoiceWords);
    launchChoice_->setVisible(!facts_.launchChoiceWords.isEmpty());
    if (!facts_.hasLaunch) {
        setBreakableText(launch_, facts_.problem);
        limiter_->clear();
        smMap_->setResidency({});
        smMap_->setVisible(false);
        smCaption_->clear();
        curves_->setVisible(false);
        updateSeries(&entry);
        return;
    }
    setBreakableText(launch_, facts_.launchWords.isEmpty() ? QString()
                                                           : facts_.launchWords + QLatin1Char('.'));
    setBreakableText(limiter_, facts_.limiterWords);
    smMap_->setResidency(facts_.residency);
    smMap_->setVisible(true);
    showBeside();
    smCaption_->setText(SmMapWidget::summary(facts_.residency) + QLatin1Char(' ') + kSmCaption);
    curves_->setVisible(true);
    curves_->setFacts(facts_);
    updateSeries(&entry);
}

void OccupancyView::updateBesideChoices() {
    const QString kept = besideChoice_->currentData().toString();
    const QSignalBlocker block(besideChoice_);
    besideChoice_->clear();
    besideChoice_->addItem(tr("no other run"), QString());
    // Made whole and inserted at once, as QComboBox::insertItems does: one item at a time, each
    // insertion told to the list, held the GUI thread at 50,000 GPU runs.
    auto* model = qobject_cast<QStandardItemModel*>(besideChoice_->model()); // the combo's own
    QList<QStandardItem*> items;
    for (const auto& entry : session_->runs()) {
        if (entry->id == shownRun_ || !entry->visible || !entry->run->launch) {
            continue;
        }
        if (!model) {
            besideChoice_->addItem(entry->id, entry->id);
            continue;
        }
        auto* item = new QStandardItem(entry->id);
        item->setData(entry->id, Qt::UserRole);
        items << item;
    }
    if (model) {
        model->invisibleRootItem()->insertRows(1, items);
    }
    besideChoice_->setCurrentIndex(std::max(0, besideChoice_->findData(kept)));
    besideChoice_->setEnabled(besideChoice_->count() > 1);
}

void OccupancyView::showBeside() {
    const models::RunEntryPtr other = session_->find(besideChoice_->currentData().toString());
    const bool shown = other && facts_.hasLaunch;
    besideColumn_->setVisible(shown);
    mapTitle_->setVisible(shown);
    if (!shown) {
        besideMap_->setResidency({});
        return;
    }
    const models::OccupancyFacts facts = models::computeOccupancyFacts(*other);
    // "one-worker: 0.024% of the GPU": the run's name and its launch occupancy.
    const auto title = [](const QString& id, const trace::Run& run) {
        const auto launch = trace::launchOccupancyOf(run);
        return launch ? tr("%1: %2 of the GPU")
                            .arg(id, models::toQString(trace::formatPercent(launch->occupancy)))
                      : id;
    };
    const models::RunEntryPtr current = session_->find(shownRun_);
    mapTitle_->setText(current ? title(shownRun_, *current->run) : shownRun_);
    besideTitle_->setText(title(other->id, *other->run));
    besideMap_->setResidency(facts.residency);
}

void OccupancyView::updateSeries(const models::RunEntry* entry) {
    series_->clearGraphs();
    const bool has = entry && !entry->run->occupancySeries.empty();
    series_->setVisible(has);
    if (!entry || !facts_.hasLaunch) {
        noSeries_->clear();
    } else if (!has) {
        noSeries_->setText(tr("No occupancy-over-time samples in this run: measure on "
                              "a GPU with \"sample occupancy\" ticked."));
    } else {
        noSeries_->clear();
        auto* graph = series_->addGraph();
        QVector<double> x, y;
        const std::int64_t origin = entry->lanes->beginNs;
        for (const auto& sample : entry->run->occupancySeries) {
            x << double(sample.timeNs - origin) / 1e6;
            y << double(sample.value) * 100;
        }
        graph->setData(x, y, true);
        graph->setPen(QPen(theme::achievedColor(), 1.5));
        graph->setBrush(QColor(0x00, 0x9e, 0x73, 40));
        graph->setLineStyle(QCPGraph::lsStepLeft);
        series_->xAxis->rescale();
    }
    series_->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace slicescope::gui
