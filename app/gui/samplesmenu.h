#pragma once

#include <QMenu>
#include <QStringList>

namespace slicescope::gui {

// File > Open sample: the sample traces shipped in the program's resources, by name; disabled
// when none were shipped.
class SamplesMenu : public QMenu {
    Q_OBJECT
  public:
    explicit SamplesMenu(const QString& title, QWidget* parent = nullptr);

    // Shipped sample traces, from the program's resources (empty when none were shipped).
    static QStringList sampleTraces();
    // The sample opened at start: the seed's shape, every strategy, pageable memory.
    static QString startSample();

  signals:
    void sampleChosen(const QString& path);
};

} // namespace slicescope::gui
