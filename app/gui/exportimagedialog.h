#pragma once

#include "gui/reportrenderer.h"

#include <QDialog>
#include <functional>

class QLineEdit;
class QSpinBox;
class QLabel;
class QComboBox;
class QCheckBox;
class QFormLayout;
class QListView;
class QPushButton;

namespace slicescope::models {
class Session;
}

namespace slicescope::gui {

class RunChoiceModel;

// Where and how big to export the report: file (PNG, PDF or SVG by its suffix), a preset (slide,
// hd, 4k, paper) or a size in pixels and the DPI that scales the layout, and the views to show
// (the same choices as `slicescope --export-image --size --dpi --view`), and, given a session, the
// runs to draw (`--runs`): the ones the window shows at first, any others checked instead.
class ExportImageDialog : public QDialog {
    Q_OBJECT
  public:
    explicit ExportImageDialog(const QString& path, QWidget* parent = nullptr,
                               const models::Session* session = nullptr);

    QString path() const;
    QSize sizePx() const;
    double dpi() const;
    ReportOptions options() const;
    QComboBox* presetChoice() const { return presets_; }
    QComboBox* viewChoice() const { return view_; }
    // The runs checked, in the session's order (none without a session).
    QStringList runs() const;
    // The list of the session's runs with their boxes (Qt::CheckStateRole); none without one.
    QListView* runChoice() const { return runList_; }
    // Export: asks before a file that exists is replaced (unless the file dialog just asked),
    // and remembers the preset, size, DPI and views for the next export.
    void accept() override;

  private:
    void updateHint();
    void addRunChoice(const models::Session& session, QFormLayout* form);
    // The choices of the last export (QSettings "export/..."), saved when one is accepted.
    void restoreChoices(const std::function<void(int)>& applyPreset);
    void saveChoices() const;

    QLineEdit* path_;
    QString confirmedPath_; // chosen in the file dialog, which asked about replacing it
    QSpinBox* width_;
    QSpinBox* height_;
    QSpinBox* dpi_;
    QLabel* hint_;
    QComboBox* presets_;
    QComboBox* view_;
    QCheckBox* log_;
    RunChoiceModel* runs_ = nullptr;
    QListView* runList_ = nullptr;
    QLabel* runCount_ = nullptr;
    QPushButton* export_ = nullptr;
};

} // namespace slicescope::gui
