#pragma once

#include <QWidget>

class QCheckBox;
class QLabel;
class QTableView;

namespace slicescope::models {
class GpuTraceModel;
class GpuTraceProxy;
class Session;
class ViewState;
} // namespace slicescope::models

namespace slicescope::gui {

// The GPU trace dock: nvprof's --print-gpu-trace columns for the selected run, a caption that
// counts the rows, and a switch for the API and host rows. The table's current row and the
// selected activity follow each other; an API or host activity selected elsewhere turns the
// switch on to show its row.
class GpuTracePanel : public QWidget {
    Q_OBJECT
  public:
    GpuTracePanel(models::Session* session, models::ViewState* state, QWidget* parent = nullptr);

    QTableView* table() const { return table_; }
    models::GpuTraceProxy* proxy() const { return proxy_; }
    QString caption() const;

  private:
    void showSelectedRun();
    void showSelectedActivity();
    void updateCaption();

    models::Session* session_;
    models::ViewState* state_;
    models::GpuTraceModel* model_;
    models::GpuTraceProxy* proxy_;
    QLabel* caption_;
    QCheckBox* showAll_;
    QTableView* table_;
};

} // namespace slicescope::gui
