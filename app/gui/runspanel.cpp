#include "gui/runspanel.h"

#include "gui/tableutil.h"
#include "models/runlistmodel.h"
#include "models/session.h"
#include "models/viewstate.h"

#include <QApplication>
#include <QCheckBox>
#include <QHeaderView>
#include <QLabel>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

namespace slicescope::gui {

namespace {
constexpr double kVerdictScale = 1.2;
const QString kShowSamplesKey = QStringLiteral("runs/showSamples");
} // namespace

RunsPanel::RunsPanel(models::Session* session, models::ViewState* state, QWidget* parent)
    : QWidget(parent), session_(session), state_(state) {
    setObjectName(QStringLiteral("runsPanel"));
    model_ = new models::RunListModel(session, this);
    proxy_ = new QSortFilterProxyModel(this);
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(models::RunListModel::SortRole);
    proxy_->setFilterRole(models::RunListModel::IsSampleRole);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    showSamples_ = new QCheckBox(this);
    showSamples_->setObjectName(QStringLiteral("showSamples"));
    showSamples_->setToolTip(tr("The traces shipped with SliceScope (File > Open sample): shown "
                                "beside your runs, or hidden from the table, the timeline and "
                                "the charts"));
    showSamples_->setChecked(QSettings().value(kShowSamplesKey, true).toBool());
    connect(showSamples_, &QCheckBox::toggled, this, &RunsPanel::setSamplesShown);
    layout->addWidget(showSamples_);
    table_ = newRowTable(QStringLiteral("runTable"), proxy_, this);
    table_->horizontalHeader()->setStretchLastSection(true);
    for (int column = 0; column < models::RunListModel::VerdictColumn; ++column) {
        table_->horizontalHeader()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    }
    table_->setContextMenuPolicy(Qt::ActionsContextMenu);
    table_->setWordWrap(false);
    layout->addWidget(table_, 1);
    verdict_ = new QLabel(this);
    verdict_->setObjectName(QStringLiteral("verdict"));
    verdict_->setWordWrap(true);
    verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    applyTheme();
    layout->addWidget(verdict_);

    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (current.isValid()) {
                    state_->setSelectedRun(
                        current.data(models::RunListModel::RunIdRole).toString());
                }
            });
    connect(session_, &models::Session::runsAdded, this, [this](int first, int last) {
        for (int i = first; i <= last && !showSamples_->isChecked(); ++i) {
            if (session_->at(i)->origin == models::RunOrigin::Sample) {
                session_->setVisible(i, false);
            }
        }
        selectNewRun(first, last);
    });
    connect(session_, &models::Session::changed, this, &RunsPanel::updateSamplesChoice);
    setSamplesShown(showSamples_->isChecked());
    connect(session_, &models::Session::changed, this, [this] {
        // The selected run was removed: the first one left takes its place.
        if (!state_->selectedRun().isEmpty() && session_->indexOf(state_->selectedRun()) < 0) {
            state_->setSelectedRun(session_->isEmpty() ? QString() : session_->at(0)->id);
        }
    });
    connect(state_, &models::ViewState::selectedRunChanged, this, &RunsPanel::showSelectedRun);
    // Verdicts compare runs of one problem: any change of the session may change this one's, and
    // those of a large session arrive later (runsUpdated).
    connect(session_, &models::Session::changed, this, &RunsPanel::showSelectedRun);
    connect(session_, &models::Session::runsUpdated, this, &RunsPanel::showVerdict);
}

QString RunsPanel::verdictText() const {
    return verdict_->text();
}

void RunsPanel::applyTheme() {
    QFont font = QApplication::font();
    font.setPointSizeF(font.pointSizeF() * kVerdictScale);
    verdict_->setFont(font);
}

void RunsPanel::updateSamplesChoice() {
    const auto samples = std::count_if(
        session_->runs().begin(), session_->runs().end(),
        [](const models::RunEntryPtr& e) { return e->origin == models::RunOrigin::Sample; });
    showSamples_->setText(samples == 1 ? tr("Show the shipped sample (1 run)")
                                       : tr("Show the shipped samples (%1 runs)").arg(samples));
    showSamples_->setVisible(samples > 0);
}

void RunsPanel::setSamplesShown(bool shown) {
    QSettings().setValue(kShowSamplesKey, shown);
    proxy_->setFilterRegularExpression(shown ? QString() : QStringLiteral("^user$"));
    for (int i = 0; i < session_->count(); ++i) {
        if (session_->at(i)->origin == models::RunOrigin::Sample) {
            session_->setVisible(i, shown);
        }
    }
    updateSamplesChoice();
}

void RunsPanel::selectNewRun(int first, int last) {
    // The first GPU run among the new ones: its occupancy is what there is to see. Samples do not
    // take the selection from a run the user chose.
    QString pick;
    for (int i = first; i <= last && pick.isEmpty(); ++i) {
        if (session_->at(i)->isGpu()) {
            pick = session_->at(i)->id;
        }
    }
    const bool newGpuRun = !pick.isEmpty();
    if (pick.isEmpty()) {
        pick = session_->at(first)->id;
    }
    if (state_->selectedRun().isEmpty() ||
        (newGpuRun && session_->at(first)->origin != models::RunOrigin::Sample)) {
        state_->setSelectedRun(pick);
    }
}

void RunsPanel::showVerdict() {
    const models::RunEntryPtr entry = session_->find(state_->selectedRun());
    verdict_->setText(entry ? QStringLiteral("<b>%1</b>: %2")
                                  .arg(entry->id.toHtmlEscaped(), entry->verdict.toHtmlEscaped())
                            : QString());
}

void RunsPanel::showSelectedRun() {
    const QString& runId = state_->selectedRun();
    showVerdict();
    // Keep the table's current row on the selected run.
    for (int row = 0; row < proxy_->rowCount(); ++row) {
        const QModelIndex index = proxy_->index(row, 0);
        if (index.data(models::RunListModel::RunIdRole).toString() == runId) {
            if (table_->currentIndex().row() != row) {
                table_->setCurrentIndex(index);
            }
            break;
        }
    }
}

} // namespace slicescope::gui
