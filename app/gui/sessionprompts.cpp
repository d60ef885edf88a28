#include "gui/sessionprompts.h"

#include "models/traceloader.h"

#include <QCoreApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QSettings>

namespace slicescope::gui {

QString openErrorHtml(const QString& path, const QString& error) {
    const QString reason = models::reasonWithoutPath(path, error);
    return QCoreApplication::translate("MainWindow", "Could not open <b>%1</b>: %2")
        .arg(path.toHtmlEscaped(), reason.toHtmlEscaped());
}

bool confirmNewSession(QWidget* parent, int runs, const QString& sessionFile) {
    if (runs <= 0) {
        return true;
    }
    const QString question =
        QCoreApplication::translate("MainWindow",
                                    "Close the %n run(s) of this session and start an empty one? "
                                    "The autosaved session %1 is emptied too; trace files you "
                                    "saved are not touched.",
                                    nullptr, runs)
            .arg(sessionFile);
    return QMessageBox::question(parent, QCoreApplication::translate("MainWindow", "New session"),
                                 question, QMessageBox::Yes | QMessageBox::Cancel,
                                 QMessageBox::Cancel) == QMessageBox::Yes;
}

bool confirmCloseAll(QWidget* parent, int runs, const QString& sessionFile) {
    if (runs <= 0) {
        return true;
    }
    const QString question =
        QCoreApplication::translate("MainWindow",
                                    "Close all %n run(s)? They leave the autosaved session %1 "
                                    "too; trace files you saved are not touched.",
                                    nullptr, runs)
            .arg(sessionFile);
    return QMessageBox::question(
               parent, QCoreApplication::translate("MainWindow", "Close all runs"), question,
               QMessageBox::Yes | QMessageBox::No, QMessageBox::No) == QMessageBox::Yes;
}

QStringList askForTracesToOpen(QWidget* parent) {
    const QStringList files = QFileDialog::getOpenFileNames(
        parent, QCoreApplication::translate("MainWindow", "Open trace"),
        QSettings().value(QStringLiteral("lastDir")).toString(),
        QCoreApplication::translate("MainWindow", "Traces: SliceScope, PyTorch profiler, Nsight "
                                                  "Compute CSV (*.json *.csv);;All files (*)"));
    if (!files.isEmpty()) {
        QSettings().setValue(QStringLiteral("lastDir"), QFileInfo(files.last()).absolutePath());
    }
    return files;
}

} // namespace slicescope::gui
