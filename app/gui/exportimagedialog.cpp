#include "gui/exportimagedialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>

namespace slicescope::gui {

ExportImageDialog::ExportImageDialog(const QString& path, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Export image"));
    auto* form = new QFormLayout(this);
    path_ = new QLineEdit(path, this);
    auto* browse = new QPushButton(tr("Browse\u2026"), this);
    auto* pathRow = new QHBoxLayout;
    pathRow->addWidget(path_, 1);
    pathRow->addWidget(browse);
    form->addRow(tr("File"), pathRow);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString chosen = QFileDialog::getSaveFileName(
            this, tr("Export image"), path_->text(),
            tr("PNG image (*.png);;PDF document (*.pdf);;SVG drawing (*.svg)"));
        if (!chosen.isEmpty()) {
            confirmedPath_ = chosen;
            path_->setText(chosen);
        }
    });
    presets_ = new QComboBox(this);
    presets_->setObjectName(QStringLiteral("exportPreset"));
    auto* presets = presets_;
    presets->addItem(tr("Slide: 1280 \u00d7 720"), QStringLiteral("slide"));
    presets->addItem(tr("Slide, HD: 1920 \u00d7 1080 (the slide at 1.5\u00d7)"),
                     QStringLiteral("hd"));
    presets->addItem(tr("Slide, 4K: 3840 \u00d7 2160 (the slide at 3\u00d7)"),
                     QStringLiteral("4k"));
    presets->addItem(tr("Paper: 7 in wide, print font sizes (PDF/SVG, or PNG at 300 dpi)"),
                     QStringLiteral("paper"));
    presets->addItem(tr("Custom size"), QString());
    form->addRow(tr("Preset"), presets);
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
    form->addRow(tr("Size"), sizeRow);
    dpi_ = new QSpinBox(this);
    dpi_->setRange(24, 1200);
    dpi_->setValue(96);
    dpi_->setToolTip(
        QStringLiteral("96 draws at screen size; 192 draws everything twice as large, for print or "
                       "a high-DPI screen. PDF and SVG are vector drawings at any DPI."));
    form->addRow(tr("DPI"), dpi_);
    view_ = new QComboBox(this);
    view_->setObjectName(QStringLiteral("exportView"));
    view_->addItem(tr("Overview, breakdown and occupancy"), defaultExportViews());
    for (const ExportView& view : exportViews()) {
        view_->addItem(view.description, view.name);
    }
    view_->addItem(tr("Sweep chart and roofline"), QStringLiteral("sweep,roofline"));
    form->addRow(tr("Show"), view_);
    log_ = new QCheckBox(tr("Breakdown on a log scale"), this);
    form->addRow(QString(), log_);
    const auto applyPreset = [this](int index) {
        const auto preset = exportPreset(presets_->itemData(index).toString());
        width_->setEnabled(!preset);
        height_->setEnabled(!preset || preset->sizePx.height() > 0);
        if (!preset) {
            return;
        }
        width_->setValue(preset->sizePx.width());
        if (preset->sizePx.height() > 0) {
            height_->setValue(preset->sizePx.height());
        } else {
            height_->setEnabled(false); // as tall as the content
        }
        dpi_->setValue(int(preset->dpi));
    };
    connect(presets, &QComboBox::activated, this, applyPreset);
    presets->setCurrentIndex(1); // hd: the old default size, a slide's text size
    applyPreset(1);
    restoreChoices(applyPreset);
    hint_ = new QLabel(this);
    hint_->setWordWrap(true);
    hint_->setStyleSheet(QStringLiteral("color:#555"));
    form->addRow(hint_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Export"));
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(path_, &QLineEdit::textChanged, this, &ExportImageDialog::updateHint);
    connect(dpi_, &QSpinBox::valueChanged, this, &ExportImageDialog::updateHint);
    updateHint();
}

void ExportImageDialog::updateHint() {
    const QString suffix = QFileInfo(path_->text()).suffix().toLower();
    const bool vector = suffix == QStringLiteral("pdf") || suffix == QStringLiteral("svg");
    hint_->setText(
        vector ? tr("Vector output: a page of the size at the DPI (1920 \u00d7 1080 at 144 "
                    "dpi is 13.3 \u00d7 7.5 in), laid out as the PNG would be.")
               : tr("The DPI scales the layout: 144 dpi draws everything 1.5 times as large "
                    "as 96. The timeline keeps the window's zoom."));
}

void ExportImageDialog::accept() {
    const QFileInfo target(path());
    if (target.exists() && target.isFile() && path() != confirmedPath_) {
        const auto answer = QMessageBox::question(
            this, tr("Export image"), tr("%1 already exists. Replace it?").arg(target.fileName()),
            QMessageBox::Yes | QMessageBox::No, QMessageBox::No);
        if (answer != QMessageBox::Yes) {
            return;
        }
    }
    saveChoices();
    QDialog::accept();
}

namespace {

const QString kPresetKey = QStringLiteral("export/preset");
const QString kWidthKey = QStringLiteral("export/width");
const QString kHeightKey = QStringLiteral("export/height");
const QString kDpiKey = QStringLiteral("export/dpi");
const QString kViewKey = QStringLiteral("export/view");
const QString kLogKey = QStringLiteral("export/breakdownLog");

} // namespace

// The last export's choices come back with the dialog; a preset or view this version does not
// know leaves the default.
void ExportImageDialog::restoreChoices(const std::function<void(int)>& applyPreset) {
    const QSettings settings;
    if (!settings.contains(kPresetKey)) {
        return;
    }
    const int preset = presets_->findData(settings.value(kPresetKey).toString());
    if (preset >= 0) {
        presets_->setCurrentIndex(preset);
        applyPreset(preset);
        if (width_->isEnabled()) {
            width_->setValue(settings.value(kWidthKey, width_->value()).toInt());
        }
        if (height_->isEnabled()) {
            height_->setValue(settings.value(kHeightKey, height_->value()).toInt());
        }
        if (preset == presets_->count() - 1) { // custom: the DPI is the user's too
            dpi_->setValue(settings.value(kDpiKey, dpi_->value()).toInt());
        }
    }
    if (const int view = view_->findData(settings.value(kViewKey).toString()); view >= 0) {
        view_->setCurrentIndex(view);
    }
    log_->setChecked(settings.value(kLogKey, false).toBool());
}

void ExportImageDialog::saveChoices() const {
    QSettings settings;
    settings.setValue(kPresetKey, presets_->currentData().toString());
    settings.setValue(kWidthKey, width_->value());
    settings.setValue(kHeightKey, height_->value());
    settings.setValue(kDpiKey, dpi_->value());
    settings.setValue(kViewKey, view_->currentData().toString());
    settings.setValue(kLogKey, log_->isChecked());
}

QString ExportImageDialog::path() const {
    return path_->text();
}
QSize ExportImageDialog::sizePx() const {
    const auto preset = exportPreset(presets_->currentData().toString());
    return preset ? preset->sizePx : QSize(width_->value(), height_->value());
}

ReportOptions ExportImageDialog::options() const {
    ReportOptions options;
    options.views = ReportViews::parse(view_->currentData().toString()).value_or(ReportViews());
    options.breakdownLog = log_->isChecked();
    return options;
}
double ExportImageDialog::dpi() const {
    return dpi_->value();
}

} // namespace slicescope::gui
