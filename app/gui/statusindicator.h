#pragma once

#include <QObject>

class QAction;
class QLabel;
class QProgressBar;
class QStatusBar;
class QToolButton;

namespace slicescope::gui {

// The status bar's parts: a message, and while a run or a load goes a progress bar and a Cancel
// button beside it.
class StatusIndicator : public QObject {
    Q_OBJECT
  public:
    StatusIndicator(QStatusBar* bar, QAction* cancel);

    void showMessage(const QString& text);
    // Shows or hides the bar and the button (the bar from 0); text, when any, as the message.
    void setBusy(bool busy, const QString& text = {});
    // 0..1; below 0 when the end is unknown (a recorded program runs as long as it runs).
    void setProgress(double fraction);

  private:
    QLabel* message_;
    QProgressBar* progress_;
    QToolButton* cancel_;
};

} // namespace slicescope::gui
