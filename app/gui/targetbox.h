#pragma once

#include <QComboBox>
#include <QStringList>

class QSettings;

namespace slicescope::gui {

// Where runs go: "This machine", the hosts chosen before (latest first), the hosts of
// ~/.ssh/config, and "Add host…" (docs/remote.md, "In the GUI"). A host here is what
// `slicescope-cli --host` takes; the runs and the device list then come from it, through ssh.
class TargetBox : public QComboBox {
    Q_OBJECT
  public:
    explicit TargetBox(QWidget* parent = nullptr);

    // The chosen host; empty for this machine.
    QString host() const;
    // Chooses host (empty: this machine), adding it to the recent hosts when new; false, and
    // nothing changed, when it is not a host --host takes. Emits nothing: hostChosen is the user's.
    bool setHost(const QString& host);
    // Reads the Host lines of this ssh configuration (default: ~/.ssh/config) again.
    void setSshConfigPath(const QString& path);
    QStringList recentHosts() const { return recent_; }
    void setRecentHosts(const QStringList& hosts);
    QStringList configHosts() const { return config_; }

    // The recent hosts ("remote/recentHosts"). The choice itself is not restored: a start never
    // connects anywhere on its own.
    void saveSettings(QSettings& settings) const;
    void restoreSettings(const QSettings& settings);

    // The text of the item that asks for a new host.
    static QString addHostText();

  signals:
    // The user chose a target (or added a host): the device list should come from it.
    void hostChosen(const QString& host);

  private:
    void rebuild(const QString& select);
    void onActivated(int index);
    void askForHost();

    QStringList recent_;
    QStringList config_;
    QString current_;
};

} // namespace slicescope::gui
