#pragma once

#include "models/cliplan.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QGroupBox;
class QHBoxLayout;
class QLabel;
class QListView;
class QPushButton;
class QSettings;
class QSpinBox;

namespace slicescope::models {
class DeviceListModel;
class StrategyListModel;
} // namespace slicescope::models

namespace slicescope::gui {

class TargetBox;

// The run panel: the problem (R, C, N, dtype, work per element, with element count, bytes and
// arithmetic intensity updated as they change), the strategies, the launch options and the
// device, and the Run and Cancel buttons.
class RunSetupWidget : public QWidget {
    Q_OBJECT
  public:
    RunSetupWidget(models::StrategyListModel* strategies, models::DeviceListModel* devices,
                   QWidget* parent = nullptr);

    models::RunConfig config() const;
    void setConfig(const models::RunConfig& config);
    // Selects a device by "gpu:N" / "preset:ID" (or a bare preset id); false when unknown.
    bool selectDevice(const QString& key);
    void saveSettings(QSettings& settings) const;
    void restoreSettings(const QSettings& settings);
    void setRunning(bool running);
    // Where runs go: this machine or a host (gui/targetbox.h).
    TargetBox* targetBox() const { return target_; }
    // Says that the device list is being asked for (host empty: this machine).
    void showDevicesPending(const QString& host);
    // The problem summary line, e.g. "2,000,000 elements · 30.7 MiB moved · 0.042 flop/byte".
    QString problemSummary() const;

  signals:
    void runRequested();
    void cancelRequested();
    // The user chose another target: its devices should be listed.
    void targetChanged(const QString& host);

  private:
    // The form's parts, top to bottom: each builds its widgets into the members.
    QGroupBox* buildProblemBox();
    QGroupBox* buildStrategyBox();
    QGroupBox* buildLaunchBox();
    QHBoxLayout* buildRunButtons();
    void updateProblemSummary();
    void updateBlockMode();
    void onDevicesReset();
    void checkSeedStory();

    models::StrategyListModel* strategies_;
    models::DeviceListModel* devices_;
    QSpinBox* r_;
    QSpinBox* c_;
    QSpinBox* n_;
    QComboBox* dtype_;
    QSpinBox* work_;
    QLabel* summary_;
    QListView* strategyView_;
    QComboBox* blockMode_;
    QSpinBox* blockThreads_;
    QComboBox* memory_;
    QSpinBox* repeat_;
    QSpinBox* warmup_;
    QSpinBox* chunks_;
    QSpinBox* streams_;
    QCheckBox* counters_;
    QCheckBox* sampleOccupancy_;
    TargetBox* target_;
    QComboBox* device_;
    QLabel* deviceNote_;
    QPushButton* run_;
    QPushButton* cancel_;
    QString pendingDeviceKey_;
};

} // namespace slicescope::gui
