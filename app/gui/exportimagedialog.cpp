#include "gui/exportimagedialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>

namespace slicescope::gui {

ExportImageDialog::ExportImageDialog(const QString& path, QWidget* parent) : QDialog(parent) {
    setWindowTitle(QStringLiteral("Export image"));
    auto* form = new QFormLayout(this);
    path_ = new QLineEdit(path, this);
    auto* browse = new QPushButton(QStringLiteral("Browse\u2026"), this);
    auto* pathRow = new QHBoxLayout;
    pathRow->addWidget(path_, 1);
    pathRow->addWidget(browse);
    form->addRow(QStringLiteral("File"), pathRow);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString chosen = QFileDialog::getSaveFileName(
            this, QStringLiteral("Export image"), path_->text(),
            QStringLiteral("PNG image (*.png);;PDF document (*.pdf);;SVG drawing (*.svg)"));
        if (!chosen.isEmpty()) {
            path_->setText(chosen);
        }
    });
    auto* presets = new QComboBox(this);
    presets->addItem(QStringLiteral("1920 \u00d7 1080 (projector, full HD)"), QSize(1920, 1080));
    presets->addItem(QStringLiteral("3840 \u00d7 2160 (4K)"), QSize(3840, 2160));
    presets->addItem(QStringLiteral("1280 \u00d7 720"), QSize(1280, 720));
    presets->addItem(QStringLiteral("2480 \u00d7 1754 (A4 landscape at 300 dpi)"),
                     QSize(2480, 1754));
    form->addRow(QStringLiteral("Preset"), presets);
    width_ = new QSpinBox(this);
    width_->setRange(200, 20000);
    width_->setValue(1920);
    width_->setSuffix(QStringLiteral(" px"));
    height_ = new QSpinBox(this);
    height_->setRange(150, 20000);
    height_->setValue(1080);
    height_->setSuffix(QStringLiteral(" px"));
    auto* sizeRow = new QHBoxLayout;
    sizeRow->addWidget(width_);
    sizeRow->addWidget(new QLabel(QStringLiteral("\u00d7"), this));
    sizeRow->addWidget(height_);
    form->addRow(QStringLiteral("Size"), sizeRow);
    dpi_ = new QSpinBox(this);
    dpi_->setRange(24, 1200);
    dpi_->setValue(96);
    dpi_->setToolTip(
        QStringLiteral("96 draws at screen size; 192 draws everything twice as large, for print or "
                       "a high-DPI screen. PDF and SVG are vector drawings at any DPI."));
    form->addRow(QStringLiteral("DPI"), dpi_);
    connect(presets, &QComboBox::activated, this, [this, presets](int index) {
        const QSize s = presets->itemData(index).toSize();
        width_->setValue(s.width());
        height_->setValue(s.height());
        dpi_->setValue(s.width() == 2480 ? 300 : s.width() >= 3840 ? 192 : 96);
    });
    hint_ = new QLabel(this);
    hint_->setWordWrap(true);
    hint_->setStyleSheet(QStringLiteral("color:#555"));
    form->addRow(hint_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(QStringLiteral("Export"));
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(path_, &QLineEdit::textChanged, this, &ExportImageDialog::updateHint);
    connect(dpi_, &QSpinBox::valueChanged, this, &ExportImageDialog::updateHint);
    updateHint();
}

void ExportImageDialog::updateHint() {
    const QString suffix = QFileInfo(path_->text()).suffix().toLower();
    dpi_->setEnabled(suffix != QStringLiteral("pdf") && suffix != QStringLiteral("svg"));
    hint_->setText(
        dpi_->isEnabled()
            ? QStringLiteral("The timeline keeps the window's zoom; every lane is drawn.")
            : QStringLiteral("Vector output: the size sets the page and the layout."));
}

QString ExportImageDialog::path() const {
    return path_->text();
}
QSize ExportImageDialog::sizePx() const {
    return QSize(width_->value(), height_->value());
}
double ExportImageDialog::dpi() const {
    return dpi_->value();
}

} // namespace slicescope::gui
