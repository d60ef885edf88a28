#pragma once

#include <QMenu>
#include <QStringList>
#include <QThreadPool>

namespace slicescope::gui {

// File > Open recent: the last traces opened or saved, newest first, numbered, kept in QSettings
// ("recentFiles") across starts.
class RecentFilesMenu : public QMenu {
    Q_OBJECT
  public:
    explicit RecentFilesMenu(const QString& title, QWidget* parent = nullptr);
    ~RecentFilesMenu() override;

    // Puts path first (a Qt resource, ":/...", is not a file to reopen: ignored).
    void add(const QString& path);
    const QStringList& files() const { return files_; }

  signals:
    void fileChosen(const QString& path);

  private:
    void rebuild();

    QStringList files_;
    QThreadPool settingsWriter_;
};

} // namespace slicescope::gui
