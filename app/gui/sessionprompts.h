#pragma once

// What the window says to the user about its session and the files it opens: the words of an
// open error and the question before a destructive action, kept out of MainWindow so that each
// reads on its own and can be tested without a window.

#include <QString>
#include <QStringList>

class QWidget;

namespace slicescope::gui {

// "Could not open <b>PATH</b>: REASON", HTML-escaped, the path said once even where the reader's
// message starts by naming it again ("cannot read PATH: ...").
QString openErrorHtml(const QString& path, const QString& error);

// Asks before File > New session closes the session's runs (of the user's: runs > 0) and empties
// the autosaved session file; true when the user says yes, or when there is nothing to lose.
bool confirmNewSession(QWidget* parent, int runs, const QString& sessionFile);

// Asks before File > Close all runs (Ctrl+Shift+W) does the same (Yes/No, No the default); true
// when the user says yes, or when there is nothing to lose.
bool confirmCloseAll(QWidget* parent, int runs, const QString& sessionFile);

// File > Open: the traces the user picks, starting in the folder of the last one opened, which
// it remembers (QSettings "lastDir").
QStringList askForTracesToOpen(QWidget* parent);

} // namespace slicescope::gui
