#pragma once

#include "gui/reportrenderer.h"

#include <QDialog>
#include <functional>

class QLineEdit;
class QSpinBox;
class QLabel;
class QComboBox;
class QCheckBox;

namespace slicescope::gui {

// Where and how big to export the report: file (PNG, PDF or SVG by its suffix), a preset (slide,
// hd, 4k, paper) or a size in pixels and the DPI that scales the layout, and the views to show
// (the same choices as `slicescope --export-image --size --dpi --view`).
class ExportImageDialog : public QDialog {
    Q_OBJECT
  public:
    explicit ExportImageDialog(const QString& path, QWidget* parent = nullptr);

    QString path() const;
    QSize sizePx() const;
    double dpi() const;
    ReportOptions options() const;
    QComboBox* presetChoice() const { return presets_; }
    QComboBox* viewChoice() const { return view_; }
    // Export: asks before a file that exists is replaced (unless the file dialog just asked),
    // and remembers the preset, size, DPI and views for the next export.
    void accept() override;

  private:
    void updateHint();
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
};

} // namespace slicescope::gui
