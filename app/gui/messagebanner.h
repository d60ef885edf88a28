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

    // text is one line; details, when given, stay folded behind a "More" button so that the
    // banner takes one line of the window until the user asks for the rest.
    void show(Kind kind, const QString& text, const QString& details = {});
    void addButton(const QString& text, std::function<void()> action);
    void clearButtons();
    // What the banner says now: the line, and the details while unfolded.
    QString text() const;
    bool detailsShown() const;
    void setDetailsShown(bool shown);
    Kind kind() const { return kind_; }

  private:
    QLabel* label_;
    QHBoxLayout* buttons_;
    QToolButton* close_;
    QToolButton* more_;
    QString line_;
    QString details_;
    Kind kind_ = Kind::Info;
};

} // namespace slicescope::gui
