#include "gui/recorddialog.h"

#include "gui/targetbox.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QStandardPaths>
#include <QVBoxLayout>
#include <functional>

namespace slicescope::gui {

namespace {

QWidget* withBrowse(QWidget* parent, QLineEdit* edit, const QString& name,
                    const std::function<void()>& browse) {
    auto* row = new QWidget(parent);
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(edit, 1);
    auto* button = new QPushButton(RecordDialog::tr("Browse\u2026"), row);
    button->setObjectName(name);
    QObject::connect(button, &QPushButton::clicked, row, browse);
    layout->addWidget(button);
    return row;
}

// Arguments as a shell would read them back: quoted where they hold spaces or quotes.
QString joinArguments(const QStringList& arguments) {
    QStringList quoted;
    for (const QString& a : arguments) {
        if (!a.isEmpty() && !a.contains(QLatin1Char(' ')) && !a.contains(QLatin1Char('"')) &&
            !a.contains(QLatin1Char('\''))) {
            quoted << a;
        } else {
            QString q = a;
            q.replace(QLatin1Char('"'), QStringLiteral("\"\"\""));
            quoted << QLatin1Char('"') + q + QLatin1Char('"');
        }
    }
    return quoted.join(QLatin1Char(' '));
}

} // namespace

RecordDialog::RecordDialog(QWidget* parent) : QDialog(parent) {
    setObjectName(QStringLiteral("recordDialog"));
    setWindowTitle(tr("Record program"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(
        QStringLiteral(
            "Runs a CUDA program (a numba script, a C++ program, \u2026) under SliceScope's CUPTI "
            "recorder and opens what it did on the GPU: every API call, copy and kernel, with each "
            "kernel's occupancy. The program itself is not changed."),
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto* form = new QFormLayout();
    program_ = new QLineEdit(this);
    program_->setObjectName(QStringLiteral("recordProgram"));
    program_->setPlaceholderText(tr("python3, /path/to/program, \u2026"));
    form->addRow(tr("&Program:"),
                 withBrowse(this, program_, QStringLiteral("browseProgram"), [this] {
                     const QString file = QFileDialog::getOpenFileName(
                         this, tr("Program to record"), QFileInfo(program_->text()).absolutePath());
                     if (!file.isEmpty()) {
                         program_->setText(file);
                     }
                 }));
    arguments_ = new QLineEdit(this);
    arguments_->setObjectName(QStringLiteral("recordArguments"));
    arguments_->setPlaceholderText(tr("seed.py --size 100x4000x5"));
    arguments_->setToolTip(tr("Separated by spaces; quote an argument that holds spaces."));
    form->addRow(tr("&Arguments:"), arguments_);
    workingDirectory_ = new QLineEdit(this);
    workingDirectory_->setObjectName(QStringLiteral("recordWorkingDirectory"));
    workingDirectory_->setPlaceholderText(tr("(SliceScope's own)"));
    form->addRow(tr("&Working directory:"),
                 withBrowse(this, workingDirectory_, QStringLiteral("browseDirectory"), [this] {
                     const QString dir = QFileDialog::getExistingDirectory(
                         this, tr("Working directory"), workingDirectory_->text());
                     if (!dir.isEmpty()) {
                         workingDirectory_->setText(dir);
                     }
                 }));
    environment_ = new QPlainTextEdit(this);
    environment_->setObjectName(QStringLiteral("recordEnvironment"));
    environment_->setPlaceholderText(
        tr("NAME=VALUE, one a line (added to SliceScope's environment)"));
    environment_->setTabChangesFocus(true);
    environment_->setFixedHeight(environment_->fontMetrics().lineSpacing() * 5);
    form->addRow(tr("&Environment:"), environment_);
    counters_ = new QCheckBox(tr("Measure achieved &occupancy (runs the program a second time, "
                                 "output discarded, with kernel replay)"),
                              this);
    counters_->setObjectName(QStringLiteral("recordCounters"));
    form->addRow(QString(), counters_);
    target_ = new TargetBox(this);
    target_->setObjectName(QStringLiteral("recordTarget"));
    target_->setToolTip(tr("Where the program runs and is recorded: this machine, or a host "
                           "reached through ssh (the program, working directory and environment "
                           "are then that host's)."));
    form->addRow(tr("&Target:"), target_);
    connect(target_, &TargetBox::hostChosen, this, &RecordDialog::validate);
    layout->addLayout(form);

    problemLabel_ = new QLabel(this);
    problemLabel_->setObjectName(QStringLiteral("recordProblem"));
    problemLabel_->setStyleSheet(QStringLiteral("color: #a33"));
    problemLabel_->setWordWrap(true);
    layout->addWidget(problemLabel_);

    buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons_->button(QDialogButtonBox::Ok)->setText(tr("&Record"));
    connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons_);

    for (QLineEdit* edit : {program_, arguments_, workingDirectory_}) {
        connect(edit, &QLineEdit::textChanged, this, &RecordDialog::validate);
    }
    connect(environment_, &QPlainTextEdit::textChanged, this, &RecordDialog::validate);
    resize(560, sizeHint().height());
    validate();
}

void RecordDialog::setConfig(const models::RecordConfig& config) {
    program_->setText(config.program);
    arguments_->setText(joinArguments(config.arguments));
    workingDirectory_->setText(config.workingDirectory);
    environment_->setPlainText(config.environment.join(QLatin1Char('\n')));
    counters_->setChecked(config.counters);
    validate();
}

void RecordDialog::setTarget(const QStringList& recentHosts, const QString& host) {
    target_->setRecentHosts(recentHosts);
    target_->setHost(host);
    validate();
}

models::RecordConfig RecordDialog::config() const {
    models::RecordConfig c;
    c.host = target_->host();
    c.program = program_->text().trimmed();
    c.arguments = QProcess::splitCommand(arguments_->text());
    c.workingDirectory = workingDirectory_->text().trimmed();
    c.environment = models::parseEnvironment(environment_->toPlainText(), nullptr);
    c.counters = counters_->isChecked();
    return c;
}

void RecordDialog::validate() {
    problem_.clear();
    const QString program = program_->text().trimmed();
    const QString dir = workingDirectory_->text().trimmed();
    QString envError;
    models::parseEnvironment(environment_->toPlainText(), &envError);
    // On another host, the program and the folder are that host's: its slicescope-cli checks them.
    const bool here = target_->host().isEmpty();
    if (program.isEmpty()) {
        problem_ = tr("Choose the program to record.");
    } else if (here && program.contains(QLatin1Char('/')) &&
               !QFileInfo(QDir(dir).filePath(program)).exists() && !QFileInfo(program).exists()) {
        problem_ = tr("%1 does not exist.").arg(program);
    } else if (here && !program.contains(QLatin1Char('/')) &&
               QStandardPaths::findExecutable(program).isEmpty()) {
        problem_ = tr("%1 is not a program on the PATH.").arg(program);
    } else if (here && !dir.isEmpty() && !QFileInfo(dir).isDir()) {
        problem_ = tr("The working directory %1 does not exist.").arg(dir);
    } else if (!envError.isEmpty()) {
        problem_ = tr("Environment: %1.").arg(envError);
    }
    problemLabel_->setText(problem_);
    problemLabel_->setVisible(!problem_.isEmpty());
    buttons_->button(QDialogButtonBox::Ok)->setEnabled(problem_.isEmpty());
}

} // namespace slicescope::gui
