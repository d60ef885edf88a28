#pragma once
// Answering the questions the window asks (QMessageBox), for tests that trigger what asks first.

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QMessageBox>
#include <QString>
#include <QTimer>
#include <QWidget>

namespace testhelpers {

// Triggers action; the question it asks, if any, is answered `answer`. Returns the question's
// text, empty when none was asked. Without it a test that triggers File > New session waits in
// the modal question forever (tst_livegpu did, until QtTest's 300 s limit).
inline QString triggerAnswering(QWidget& window, QAction* action,
                                QMessageBox::StandardButton answer) {
    QString asked;
    QTimer::singleShot(0, &window, [&asked, answer] {
        for (QWidget* widget : QApplication::topLevelWidgets()) {
            if (auto* box = qobject_cast<QMessageBox*>(widget); box && box->isVisible()) {
                asked = box->text();
                box->button(answer)->click();
            }
        }
    });
    action->trigger();
    return asked;
}

} // namespace testhelpers
