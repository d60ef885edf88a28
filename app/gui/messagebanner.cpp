#include "gui/messagebanner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QStyle>
#include <QToolButton>

namespace slicescope::gui {

MessageBanner::MessageBanner(QWidget* parent) : QFrame(parent) {
    setFrameShape(QFrame::StyledPanel);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(10, 6, 6, 6);
    label_ = new QLabel(this);
    label_->setWordWrap(true);
    label_->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::LinksAccessibleByMouse);
    label_->setOpenExternalLinks(false);
    layout->addWidget(label_, 1);
    more_ = new QToolButton(this);
    more_->setObjectName(QStringLiteral("bannerMore"));
    more_->setAutoRaise(true);
    more_->setCheckable(true);
    connect(more_, &QToolButton::toggled, this, &MessageBanner::setDetailsShown);
    layout->addWidget(more_, 0, Qt::AlignTop);
    buttons_ = new QHBoxLayout;
    layout->addLayout(buttons_);
    close_ = new QToolButton(this);
    close_->setText(QStringLiteral("\u2715"));
    close_->setAutoRaise(true);
    close_->setToolTip(tr("Dismiss"));
    connect(close_, &QToolButton::clicked, this, &QWidget::hide);
    layout->addWidget(close_);
    hide();
}

void MessageBanner::show(Kind kind, const QString& text, const QString& details) {
    kind_ = kind;
    QString style;
    switch (kind) {
    case Kind::Info:
        style = QStringLiteral("background:#e8f1fb; border:1px solid #9cc0e6; color:#10233a;");
        break;
    case Kind::Warning:
        style = QStringLiteral("background:#fff6dc; border:1px solid #e3c15a; color:#3a2c00;");
        break;
    case Kind::Error:
        style = QStringLiteral("background:#fde8e8; border:1px solid #e08a8a; color:#4a0d0d;");
        break;
    case Kind::Question:
        style = QStringLiteral("background:#eef7ea; border:1px solid #93c47d; color:#183010;");
        break;
    }
    // Namespaced classes appear in style sheets with "--" for "::".
    setStyleSheet(QStringLiteral("slicescope--gui--MessageBanner{") + style +
                  QStringLiteral("} QLabel{border:none; background:transparent;}"));
    line_ = text;
    details_ = details;
    more_->setVisible(!details.isEmpty());
    setDetailsShown(false);
    QFrame::show();
}

bool MessageBanner::detailsShown() const {
    return more_->isChecked() && !details_.isEmpty();
}

void MessageBanner::setDetailsShown(bool shown) {
    const QSignalBlocker quiet(more_);
    more_->setChecked(shown && !details_.isEmpty());
    more_->setText(more_->isChecked() ? tr("Less") : tr("More\u2026"));
    more_->setToolTip(more_->isChecked() ? tr("Fold the details away") : tr("Show the details"));
    label_->setText(more_->isChecked() ? line_ + QStringLiteral("<br>") + details_ : line_);
}

void MessageBanner::addButton(const QString& text, std::function<void()> action) {
    auto* button = new QPushButton(text, this);
    connect(button, &QPushButton::clicked, this, [action = std::move(action)] { action(); });
    buttons_->addWidget(button);
}

void MessageBanner::clearButtons() {
    while (auto* item = buttons_->takeAt(0)) {
        delete item->widget();
        delete item;
    }
}

QString MessageBanner::text() const {
    return label_->text();
}

} // namespace slicescope::gui
