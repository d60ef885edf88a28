#pragma once

// Where runs go (docs/remote.md, "In the GUI"): this machine, or a host reached through ssh by
// `slicescope-cli --host`. The hosts come from the user (added, remembered as recent) and from the
// Host lines of ~/.ssh/config.
#include <QString>
#include <QStringList>

class QSettings;

namespace slicescope::models {

// ~/.ssh/config of the user running the GUI.
QString defaultSshConfigPath();
// The hosts its Host lines name, patterns left out; empty when it cannot be read.
QStringList sshConfigHosts(const QString& path);

// Why text is not a host `--host` takes ([USER@]HOST[:PORT]); empty when it is.
QString hostProblem(const QString& text);

// The hosts chosen before, the latest first (QSettings "remote/recentHosts").
QStringList recentHosts(const QSettings& settings);
// Puts host first among the recent hosts, keeping at most kMaxRecentHosts.
void rememberHost(QSettings& settings, const QString& host);
inline constexpr int kMaxRecentHosts = 8;

// The arguments that send a CLI job to host: "--host HOST", or none for this machine.
QStringList hostArguments(const QString& host);

} // namespace slicescope::models
