#include "gui/targetbox.h"

#include "models/remotetargets.h"

#include <QInputDialog>
#include <QMessageBox>
#include <QSettings>

namespace slicescope::gui {

namespace {

enum Role { HostRole = Qt::UserRole, AddRole };

} // namespace

TargetBox::TargetBox(QWidget* parent) : QComboBox(parent) {
    setObjectName(QStringLiteral("target"));
    setToolTip(tr("Where runs go: this machine, or a host reached through ssh (your "
                  "~/.ssh/config, agent and keys; slicescope-cli must be installed there). The "
                  "GPU list then shows that host's devices."));
    config_ = models::sshConfigHosts(models::defaultSshConfigPath());
    rebuild({});
    connect(this, &QComboBox::activated, this, &TargetBox::onActivated);
}

QString TargetBox::addHostText() {
    return tr("Add host\u2026");
}

QString TargetBox::host() const {
    return current_;
}

bool TargetBox::setHost(const QString& host) {
    if (!host.isEmpty() && !models::hostProblem(host).isEmpty()) {
        return false;
    }
    if (!host.isEmpty()) {
        recent_.removeAll(host);
        recent_.prepend(host);
        while (recent_.size() > models::kMaxRecentHosts) {
            recent_.removeLast();
        }
    }
    rebuild(host);
    return true;
}

void TargetBox::setRecentHosts(const QStringList& hosts) {
    recent_.clear();
    for (const QString& host : hosts) {
        if (models::hostProblem(host).isEmpty() && !recent_.contains(host) &&
            recent_.size() < models::kMaxRecentHosts) {
            recent_ << host;
        }
    }
    rebuild(current_);
}

void TargetBox::setSshConfigPath(const QString& path) {
    config_ = models::sshConfigHosts(path);
    rebuild(current_);
}

void TargetBox::saveSettings(QSettings& settings) const {
    // Latest last in, so that rememberHost leaves them in this order.
    for (auto it = recent_.crbegin(); it != recent_.crend(); ++it) {
        models::rememberHost(settings, *it);
    }
}

void TargetBox::restoreSettings(const QSettings& settings) {
    recent_ = models::recentHosts(settings);
    rebuild(current_);
}

void TargetBox::rebuild(const QString& select) {
    const QSignalBlocker blocker(this);
    clear();
    addItem(tr("This machine"), QString());
    setItemData(0, tr("Run here: this machine's CPU and GPUs"), Qt::ToolTipRole);
    for (const QString& host : recent_) {
        addItem(host, host);
        setItemData(count() - 1, tr("%1 (used before)").arg(host), Qt::ToolTipRole);
    }
    for (const QString& host : config_) {
        if (!recent_.contains(host)) {
            addItem(host, host);
            setItemData(count() - 1, tr("%1 (from ~/.ssh/config)").arg(host), Qt::ToolTipRole);
        }
    }
    addItem(addHostText());
    setItemData(count() - 1, true, AddRole);
    const int row = findData(select, HostRole);
    current_ = row >= 0 ? select : QString();
    setCurrentIndex(std::max(0, row));
}

void TargetBox::onActivated(int index) {
    if (itemData(index, AddRole).toBool()) {
        askForHost();
        return;
    }
    const QString chosen = itemData(index, HostRole).toString();
    setHost(chosen); // latest first among the recent hosts
    emit hostChosen(chosen);
}

void TargetBox::askForHost() {
    bool ok = false;
    const QString text =
        QInputDialog::getText(this, tr("Add host"),
                              tr("Host to run on, as for ssh: [user@]host[:port], or a Host of "
                                 "~/.ssh/config. Keys come from your ssh agent and config; no "
                                 "password is ever asked for."),
                              QLineEdit::Normal, QString(), &ok)
            .trimmed();
    if (!ok || text.isEmpty()) {
        rebuild(current_);
        return;
    }
    if (const QString problem = models::hostProblem(text); !problem.isEmpty()) {
        QMessageBox::warning(this, tr("Add host"), problem);
        rebuild(current_);
        return;
    }
    setHost(text);
    emit hostChosen(text);
}

} // namespace slicescope::gui
