#include "gui/logpanel.h"

#include <QDateTime>
#include <QFontDatabase>

namespace slicescope::gui {

LogPanel::LogPanel(QWidget* parent) : QPlainTextEdit(parent) {
    setObjectName(QStringLiteral("log"));
    setReadOnly(true);
    setMaximumBlockCount(5000); // a long recording's output must not grow without end
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
}

void LogPanel::appendLine(const QString& line) {
    appendPlainText(QDateTime::currentDateTime().toString(QStringLiteral("HH:mm:ss  ")) + line);
}

} // namespace slicescope::gui
