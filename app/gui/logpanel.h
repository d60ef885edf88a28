#pragma once

#include <QPlainTextEdit>

namespace slicescope::gui {

// The Log dock: what slicescope-cli printed, what was opened, saved and written, and every error
// shown in a banner, each line with the time it arrived.
class LogPanel : public QPlainTextEdit {
    Q_OBJECT
  public:
    explicit LogPanel(QWidget* parent = nullptr);

    void appendLine(const QString& line);
};

} // namespace slicescope::gui
