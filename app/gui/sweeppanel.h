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

namespace slicescope::models {
class DeviceListModel;
} // namespace slicescope::models

namespace slicescope::gui {

// The sweep panel: one parameter over values ("32,64,128") or a range ("32:1024:x2"), the
// strategies, the device (a GPU here, measured, or a preset, modelled), counters and the roofline's
// ceilings; Sweep and Cancel, and the sweep's progress. The problem itself (shape, type, work,
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

    void setRunning(bool running);
    void setProgress(double fraction, const QString& stage);

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
};

} // namespace slicescope::gui
