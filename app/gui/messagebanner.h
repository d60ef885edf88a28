#pragma once

#include <QFrame>
#include <functional>

class QLabel;
class QHBoxLayout;
class QToolButton;

namespace slicescope::gui {

// A strip across the top of the window for what the user must know now (no GPU here, a run
// failed, a session to restore), instead of a modal dialog that would stop the window.
class MessageBanner : public QFrame {
    Q_OBJECT
  public:
    enum class Kind { Info, Warning, Error, Question };

    explicit MessageBanner(QWidget* parent = nullptr);

    void show(Kind kind, const QString& text);
    void addButton(const QString& text, std::function<void()> action);
    void clearButtons();
    QString text() const;
    Kind kind() const { return kind_; }

  private:
    QLabel* label_;
    QHBoxLayout* buttons_;
    QToolButton* close_;
    Kind kind_ = Kind::Info;
};

} // namespace slicescope::gui
