#pragma once

#include <QMenu>

namespace slicescope::gui {

// Help: what occupancy is, in the words the views use, and About.
class HelpMenu : public QMenu {
    Q_OBJECT
  public:
    explicit HelpMenu(QWidget* parent = nullptr);

    static QString occupancyHtml();
};

} // namespace slicescope::gui
