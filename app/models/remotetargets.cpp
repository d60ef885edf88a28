#include "models/remotetargets.h"

#include "slicescope/remote/remotecommand.h"
#include "slicescope/remote/sshconfig.h"

#include <QDir>
#include <QFile>
#include <QSettings>

namespace slicescope::models {

namespace {

const QString kRecentKey = QStringLiteral("remote/recentHosts");

} // namespace

QString defaultSshConfigPath() {
    return QDir::home().filePath(QStringLiteral(".ssh/config"));
}

QStringList sshConfigHosts(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        return {};
    }
    // A config file is small; one that is not is read only so far.
    const QByteArray text = file.read(1 << 20);
    QStringList hosts;
    for (const auto& host : remote::sshConfigHosts(std::string_view(text.data(), text.size()))) {
        const QString name = QString::fromStdString(host);
        if (hostProblem(name).isEmpty()) {
            hosts << name;
        }
    }
    return hosts;
}

QString hostProblem(const QString& text) {
    const auto target = remote::parseSshTarget(text.toStdString());
    return target ? QString() : QString::fromStdString(target.error().message);
}

QStringList recentHosts(const QSettings& settings) {
    QStringList hosts;
    for (const QString& host : settings.value(kRecentKey).toStringList()) {
        if (hostProblem(host).isEmpty() && !hosts.contains(host) &&
            hosts.size() < kMaxRecentHosts) {
            hosts << host;
        }
    }
    return hosts;
}

void rememberHost(QSettings& settings, const QString& host) {
    if (host.isEmpty() || !hostProblem(host).isEmpty()) {
        return;
    }
    QStringList hosts = recentHosts(settings);
    hosts.removeAll(host);
    hosts.prepend(host);
    while (hosts.size() > kMaxRecentHosts) {
        hosts.removeLast();
    }
    settings.setValue(kRecentKey, hosts);
}

QStringList hostArguments(const QString& host) {
    if (host.isEmpty()) {
        return {};
    }
    return {QStringLiteral("--host"), host};
}

} // namespace slicescope::models
