#pragma once

#include "models/recordplan.h"

#include <QDialog>

class QCheckBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;

namespace slicescope::gui {

class TargetBox;

// "Record program…": the program to record, its arguments, working directory and environment,
// and whether to measure achieved occupancy (a second, counting run). "Record" stays disabled,
// with the reason shown, until the fields make a command slicescope-cli can run.
class RecordDialog : public QDialog {
    Q_OBJECT
  public:
    explicit RecordDialog(QWidget* parent = nullptr);

    void setConfig(const models::RecordConfig& config);
    models::RecordConfig config() const;
    // The hosts the Target box offers besides this machine and ~/.ssh/config's, and the one
    // chosen (empty: this machine).
    void setTarget(const QStringList& recentHosts, const QString& host);
    // Why the fields cannot be recorded yet; empty when they can.
    const QString& problem() const { return problem_; }

  private:
    void validate();

    QLineEdit* program_;
    QLineEdit* arguments_;
    QLineEdit* workingDirectory_;
    QPlainTextEdit* environment_;
    QCheckBox* counters_;
    TargetBox* target_;
    QLabel* problemLabel_;
    QDialogButtonBox* buttons_;
    QString problem_;
};

} // namespace slicescope::gui
