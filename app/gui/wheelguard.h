#pragma once

#include <QObject>

namespace slicescope::gui {

// The mouse wheel scrolls the panel under the pointer unless the widget there is meant to take
// it. Spin boxes and combo boxes take it only while they have the keyboard focus (the Run panel's
// Host memory and Block size changed under a user scrolling past them), and no longer take focus
// from the wheel; plots that do not zoom with the wheel (every chart but the timeline) hand it
// on too, so the occupancy pane scrolls over its charts. Installed once on the application: every
// panel, dialog and widget made later follows the rule.
class WheelGuard : public QObject {
  public:
    using QObject::QObject;
    // A guard owned by the application, filtering its every widget.
    static void installOnApplication();

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
};

} // namespace slicescope::gui
