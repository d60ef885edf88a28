#include "gui/statusindicator.h"

#include <QLabel>
#include <QProgressBar>
#include <QStatusBar>
#include <QToolButton>

namespace slicescope::gui {

namespace {
constexpr int kSteps = 1000;
}

StatusIndicator::StatusIndicator(QStatusBar* bar, QAction* cancel) : QObject(bar) {
    progress_ = new QProgressBar(bar);
    progress_->setObjectName(QStringLiteral("runProgress"));
    progress_->setRange(0, kSteps);
    progress_->setMaximumWidth(260);
    progress_->setVisible(false);
    cancel_ = new QToolButton(bar);
    cancel_->setDefaultAction(cancel);
    cancel_->setVisible(false);
    message_ = new QLabel(bar);
    message_->setObjectName(QStringLiteral("statusMessage"));
    bar->addWidget(message_, 1);
    bar->addPermanentWidget(progress_);
    bar->addPermanentWidget(cancel_);
}

void StatusIndicator::showMessage(const QString& text) {
    message_->setText(text);
}

void StatusIndicator::setBusy(bool busy, const QString& text) {
    progress_->setVisible(busy);
    cancel_->setVisible(busy);
    progress_->setRange(0, kSteps);
    if (busy) {
        progress_->setValue(0);
    }
    if (!text.isEmpty()) {
        message_->setText(text);
    }
}

void StatusIndicator::setProgress(double fraction) {
    if (fraction < 0) {
        progress_->setRange(0, 0); // no known end: a busy bar
        return;
    }
    progress_->setRange(0, kSteps);
    progress_->setValue(int(fraction * kSteps));
}

} // namespace slicescope::gui
