#pragma once

#include <QWidget>

class QCheckBox;
class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace slicescope::models {
class RunListModel;
class Session;
class ViewState;
} // namespace slicescope::models

namespace slicescope::gui {

// The Runs dock: one row per run of the session (RunListModel, sortable) and, under it, the
// selected run's verdict in plain words. Picking a row selects the run everywhere; selecting a
// run elsewhere moves the table's current row to it. New runs take the selection (the first GPU
// run among them); a removed run gives it to the first run left. The shipped samples are kept
// apart from the user's runs: greyed, and hidden all at once (table, timeline and charts) with
// the "Show the shipped samples" box, which the next start remembers (QSettings
// "runs/showSamples").
class RunsPanel : public QWidget {
    Q_OBJECT
  public:
    RunsPanel(models::Session* session, models::ViewState* state, QWidget* parent = nullptr);

    QTableView* table() const { return table_; }
    QString verdictText() const;
    QCheckBox* samplesChoice() const { return showSamples_; }
    // The verdict is larger than the text around it: follows the application font.
    void applyTheme();

  private:
    void selectNewRun(int first, int last);
    void showSelectedRun();
    // The box's words and visibility for the samples the session holds now.
    void updateSamplesChoice();
    // Shows or hides every sample run, and remembers the choice.
    void setSamplesShown(bool shown);
    void showVerdict();

    models::Session* session_;
    models::ViewState* state_;
    models::RunListModel* model_;
    QSortFilterProxyModel* proxy_;
    QTableView* table_;
    QLabel* verdict_;
    QCheckBox* showSamples_;
};

} // namespace slicescope::gui
