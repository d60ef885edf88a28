#pragma once

#include <QDialog>

class QLineEdit;
class QSpinBox;
class QLabel;

namespace slicescope::gui {

// Where and how big to export the timeline and occupancy view: file (PNG, PDF or SVG by its
// suffix), size in pixels and, for PNG, the DPI that scales the layout.
class ExportImageDialog : public QDialog {
    Q_OBJECT
  public:
    explicit ExportImageDialog(const QString& path, QWidget* parent = nullptr);

    QString path() const;
    QSize sizePx() const;
    double dpi() const;

  private:
    void updateHint();

    QLineEdit* path_;
    QSpinBox* width_;
    QSpinBox* height_;
    QSpinBox* dpi_;
    QLabel* hint_;
};

} // namespace slicescope::gui
