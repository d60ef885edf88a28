#pragma once

#include "models/sweepjob.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QTimer;

namespace slicescope::models {
class DeviceListModel;
} // namespace slicescope::models

namespace slicescope::gui {

// The sweep panel: one parameter over values ("32,64,128") or a range ("32:1024:x2"), the
// strategies, the device of the GPU strategies (a GPU here, measured, or a preset, modelled; CPU
// strategies are measured here either way), counters and the roofline's ceilings; Sweep and
// Cancel, and the sweep's progress. The problem itself (shape, type, work,
// block, memory, repeat) is the run panel's: config() takes it as the base.
class SweepPanel : public QWidget {
    Q_OBJECT
  public:
    explicit SweepPanel(models::DeviceListModel* devices, QWidget* parent = nullptr);

    // The sweep asked for, on top of the run panel's problem and launch options.
    models::SweepConfig config(const models::RunConfig& base) const;
    void setParam(const QString& param);
    void setValues(const QString& values);
    void setStrategies(const QStringList& strategies);
    void setCounters(bool on);
    bool selectDevice(const QString& key);

    // A run starts (the bar empties) or ends: finished, the bar goes to 100 % and empties again
    // kProgressResetMs later; cancelled, it stays where the run stopped until then.
    void setRunning(bool running, bool cancelled = false);
    void setProgress(double fraction, const QString& stage);
    static constexpr int kProgressResetMs = 1500;

  signals:
    void sweepRequested();
    void cancelRequested();

  private:
    void suggestValues();

    models::DeviceListModel* devices_;
    QComboBox* param_;
    QLineEdit* values_;
    QListWidget* strategies_;
    QComboBox* device_;
    QCheckBox* counters_;
    QCheckBox* roofline_;
    QPushButton* sweep_;
    QPushButton* cancel_;
    QProgressBar* progress_;
    QLabel* stage_;
    QTimer* resetProgress_;
    bool running_ = false;
};

} // namespace slicescope::gui
