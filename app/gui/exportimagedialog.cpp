#include "gui/exportimagedialog.h"

#include "models/session.h"

#include <QAbstractListModel>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>

namespace slicescope::gui {

// The session's runs, each with a box, checked at first as the window shows them. A model, not
// an item per run: 100,000 runs' items took the dialog 1.8 s to open.
class RunChoiceModel : public QAbstractListModel {
  public:
    RunChoiceModel(const models::Session& session, QObject* parent) : QAbstractListModel(parent) {
        const auto& entries = session.runs();
        ids_.reserve(qsizetype(entries.size()));
        tips_.reserve(qsizetype(entries.size()));
        for (const auto& entry : entries) {
            ids_ << entry->id;
            tips_ << entry->launchWords;
            shown_.push_back(entry->visible);
        }
        checked_ = shown_;
    }

    int rowCount(const QModelIndex& parent = {}) const override {
        return parent.isValid() ? 0 : int(ids_.size());
    }
    Qt::ItemFlags flags(const QModelIndex&) const override {
        return Qt::ItemIsUserCheckable | Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    }
    QVariant data(const QModelIndex& index, int role) const override {
        const int row = index.row();
        if (row < 0 || row >= rowCount()) {
            return {};
        }
        switch (role) {
        case Qt::DisplayRole:
            return ids_[row];
        case Qt::CheckStateRole:
            return checked_[std::size_t(row)] ? Qt::Checked : Qt::Unchecked;
        case Qt::ToolTipRole:
            return tips_[row].isEmpty() ? ids_[row] : tips_[row];
        default:
            return {};
        }
    }
    bool setData(const QModelIndex& index, const QVariant& value, int role) override {
        if (role != Qt::CheckStateRole || index.row() < 0 || index.row() >= rowCount()) {
            return false;
        }
        checked_[std::size_t(index.row())] = value.toInt() == Qt::Checked;
        emit dataChanged(index, index, {Qt::CheckStateRole});
        return true;
    }

    // Every run checked, or those the window shows.
    void checkAll(bool asInTheWindow) {
        for (std::size_t i = 0; i < checked_.size(); ++i) {
            checked_[i] = !asInTheWindow || shown_[i];
        }
        if (rowCount() > 0) {
            emit dataChanged(index(0), index(rowCount() - 1), {Qt::CheckStateRole});
        }
    }
    QStringList checkedIds() const {
        QStringList ids;
        for (std::size_t i = 0; i < checked_.size(); ++i) {
            if (checked_[i]) {
                ids << ids_[qsizetype(i)];
            }
        }
        return ids;
    }
    bool asInTheWindow() const { return checked_ == shown_; }

  private:
    QStringList ids_;
    QStringList tips_; // the launch in words
    std::vector<bool> shown_;
    std::vector<bool> checked_;
};

ExportImageDialog::ExportImageDialog(const QString& path, QWidget* parent,
                                     const models::Session* session)
    : QDialog(parent) {
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
    if (session && !session->isEmpty()) {
        addRunChoice(*session, form);
    }
    hint_ = new QLabel(this);
    hint_->setWordWrap(true);
    hint_->setStyleSheet(QStringLiteral("color:#555"));
    form->addRow(hint_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    export_ = buttons->button(QDialogButtonBox::Ok);
    export_->setText(tr("Export"));
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(path_, &QLineEdit::textChanged, this, &ExportImageDialog::updateHint);
    connect(dpi_, &QSpinBox::valueChanged, this, &ExportImageDialog::updateHint);
    if (runs_) {
        connect(runs_, &QAbstractItemModel::dataChanged, this, &ExportImageDialog::updateHint);
    }
    updateHint();
}

void ExportImageDialog::addRunChoice(const models::Session& session, QFormLayout* form) {
    runs_ = new RunChoiceModel(session, this);
    runList_ = new QListView(this);
    runList_->setObjectName(QStringLiteral("exportRuns"));
    runList_->setUniformItemSizes(true);
    runList_->setModel(runs_);
    runList_->setToolTip(tr("The runs to draw; those the window shows are checked at first. Runs "
                            "other than the window's are drawn over their whole time."));
    // A few rows tall: the dialog stays on a 720-line screen however many runs there are.
    runList_->setMaximumHeight(runList_->fontMetrics().height() * 8);
    auto* all = new QPushButton(tr("All"), this);
    all->setObjectName(QStringLiteral("exportAllRuns"));
    connect(all, &QPushButton::clicked, this, [this] { runs_->checkAll(false); });
    auto* window = new QPushButton(tr("As in the window"), this);
    window->setObjectName(QStringLiteral("exportWindowRuns"));
    connect(window, &QPushButton::clicked, this, [this] { runs_->checkAll(true); });
    runCount_ = new QLabel(this);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(runCount_, 1);
    buttons->addWidget(all);
    buttons->addWidget(window);
    auto* column = new QVBoxLayout;
    column->addWidget(runList_);
    column->addLayout(buttons);
    form->addRow(tr("Runs"), column);
}

QStringList ExportImageDialog::runs() const {
    return runs_ ? runs_->checkedIds() : QStringList();
}

void ExportImageDialog::updateHint() {
    bool asInTheWindow = true;
    if (runs_) {
        const qsizetype chosen = runs().size();
        runCount_->setText(tr("%1 of %2 runs").arg(chosen).arg(runs_->rowCount()));
        export_->setEnabled(chosen > 0);
        export_->setToolTip(chosen > 0 ? QString() : tr("Check a run to export"));
        asInTheWindow = runs_->asInTheWindow();
    }
    const QString timeline =
        asInTheWindow ? tr("The timeline keeps the window's zoom.")
                      : tr("The timeline spans the runs checked, not the window's zoom.");
    const QString suffix = QFileInfo(path_->text()).suffix().toLower();
    const bool vector = suffix == QStringLiteral("pdf") || suffix == QStringLiteral("svg");
    hint_->setText(
        (vector ? tr("Vector output: a page of the size at the DPI (1920 \u00d7 1080 at 144 "
                     "dpi is 13.3 \u00d7 7.5 in), laid out as the PNG would be.")
                : tr("The DPI scales the layout: 144 dpi draws everything 1.5 times as large "
                     "as 96.")) +
        QLatin1Char(' ') + timeline);
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
