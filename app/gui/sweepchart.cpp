#include "gui/sweepchart.h"

#include "gui/sweepplot.h"
#include "models/session.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QSet>
#include <QToolTip>
#include <QVBoxLayout>

namespace slicescope::gui {

SweepChart::SweepChart(models::Session* session, QWidget* parent)
    : QWidget(parent), session_(session) {
    view_ = new QComboBox(this);
    view_->setObjectName(QStringLiteral("sweepChartView"));
    view_->addItem(tr("Time per repetition"), int(View::Time));
    view_->addItem(tr("Occupancy and time (block sweeps)"), int(View::Occupancy));
    view_->addItem(tr("Roofline with the copies"), int(View::Roofline));
    which_ = new QComboBox(this);
    which_->setObjectName(QStringLiteral("sweepChartWhich"));
    which_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    plot_ = new QCustomPlot(this);
    plot_->setObjectName(QStringLiteral("sweepPlot"));
    plot_->setMinimumHeight(320); // room for the right axis title of the occupancy view
    sweepplot::setUp(plot_);
    plot_->installEventFilter(this); // crossover labels and legend laid out anew on resize
    // Each point says what it is under the mouse (sweepplot::pointTip).
    plot_->setMouseTracking(true);
    connect(plot_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) {
        const QString tip = sweepplot::pointTip(plot_, event->position());
        if (tip.isEmpty()) {
            QToolTip::hideText();
        } else {
            QToolTip::showText(event->globalPosition().toPoint(), tip, plot_);
        }
    });
    notes_ = new QLabel(this);
    notes_->setObjectName(QStringLiteral("sweepNotes"));
    notes_->setWordWrap(true);
    notes_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* top = new QHBoxLayout;
    top->addWidget(view_);
    top->addWidget(which_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(plot_, 1);
    layout->addWidget(notes_);
    connect(view_, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
    connect(which_, &QComboBox::activated, this, [this] {
        if (view() != View::Roofline) {
            chosenSweep_ = which_->currentData().toString(); // the user's choice holds
        }
        draw();
    });
    connect(session_, &models::Session::changed, this, &SweepChart::refresh);
    refresh();
}

void SweepChart::setView(View view) {
    view_->setCurrentIndex(std::max(0, view_->findData(int(view))));
}

SweepChart::View SweepChart::view() const {
    return View(view_->currentData().toInt());
}

QString SweepChart::notes() const {
    return notes_->text();
}

void SweepChart::refresh() {
    QSet<QString> known;
    for (const auto& s : sweeps_) {
        known.insert(s.key);
    }
    sweeps_ = models::collectSweeps(session_->runs());
    rooflines_ = models::collectRooflines(session_->runs());
    // A sweep that just arrived (finished, opened or restored) is the one shown: the last of them.
    for (const auto& s : sweeps_) {
        if (!known.contains(s.key)) {
            chosenSweep_ = s.key;
        }
    }
    const QString current = which_->currentText();
    which_->blockSignals(true);
    which_->clear();
    int chosen = -1;
    if (view() == View::Roofline) {
        for (const auto& r : rooflines_) {
            which_->addItem(r.title);
        }
    } else {
        for (const auto& s : sweeps_) {
            if (view() == View::Time || s.param == QStringLiteral("block")) {
                which_->addItem(s.title, s.key);
            }
        }
        chosen = which_->findData(chosenSweep_);
    }
    which_->setCurrentIndex(chosen >= 0 ? chosen : std::max(0, which_->findText(current)));
    which_->blockSignals(false);
    draw();
}

QString SweepChart::currentSweepKey() const {
    return view() == View::Roofline ? QString() : which_->currentData().toString();
}

void SweepChart::draw() {
    sweepplot::reset(plot_);
    const int index = which_->currentIndex();
    QStringList notes;
    if (view() == View::Roofline) {
        if (index < 0 || index >= rooflines_.size()) {
            drawEmpty(tr("No GPU run with roofline ceilings: sweep or run with \"Roofline "
                         "ceilings\", or model on a preset."));
            plot_->replot(QCustomPlot::rpQueuedReplot);
            return;
        }
        notes = sweepplot::drawRoofline(plot_, rooflines_[index]);
    } else {
        const QString key = which_->currentData().toString();
        const auto it = std::find_if(sweeps_.begin(), sweeps_.end(),
                                     [&](const models::SweepView& s) { return s.key == key; });
        if (it == sweeps_.end()) {
            drawEmpty(view() == View::Time
                          ? tr("No sweep in the session: run one from the Sweep panel, or open a "
                               "sweep trace.")
                          : tr("No block sweep in the session."));
            plot_->replot(QCustomPlot::rpQueuedReplot);
            return;
        }
        notes = view() == View::Time ? sweepplot::drawTime(plot_, *it)
                                     : sweepplot::drawOccupancy(plot_, *it);
    }
    notes_->setText(notes.join(QLatin1Char('\n')));
    sweepplot::layOut(plot_, plot_->size());
    // Once, at the next event loop turn: a view change and new sweeps arriving together paint
    // once, and layOut itself only measured.
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

bool SweepChart::eventFilter(QObject* watched, QEvent* event) {
    if (watched == plot_ && event->type() == QEvent::Resize) {
        sweepplot::layOut(plot_, plot_->size());
    }
    return QWidget::eventFilter(watched, event);
}

void SweepChart::drawEmpty(const QString& why) {
    plot_->legend->setVisible(false);
    plot_->axisRect()->setVisible(false); // no axes around nothing: the note says why
    notes_->setText(why);
}

} // namespace slicescope::gui
