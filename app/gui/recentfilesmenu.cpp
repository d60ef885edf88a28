#include "gui/recentfilesmenu.h"

#include <QFileInfo>
#include <QSettings>

namespace slicescope::gui {

namespace {
constexpr int kMaxRecentFiles = 8;
const QString kSettingsKey = QStringLiteral("recentFiles");
} // namespace

RecentFilesMenu::RecentFilesMenu(const QString& title, QWidget* parent) : QMenu(title, parent) {
    settingsWriter_.setMaxThreadCount(1); // settings writes land in the order they were made
    files_ = QSettings().value(kSettingsKey).toStringList();
    rebuild();
}

RecentFilesMenu::~RecentFilesMenu() {
    settingsWriter_.waitForDone();
}

void RecentFilesMenu::add(const QString& path) {
    if (path.startsWith(QLatin1Char(':'))) {
        return;
    }
    const QString absolute = QFileInfo(path).absoluteFilePath();
    files_.removeAll(absolute);
    files_.prepend(absolute);
    while (files_.size() > kMaxRecentFiles) {
        files_.removeLast();
    }
    rebuild();
    // A QSettings writes its file, and fsyncs it, when it goes: on a worker, so that opening a
    // trace never waits for the disk (tens of milliseconds, more on a busy disk).
    settingsWriter_.start([files = files_] { QSettings().setValue(kSettingsKey, files); });
}

void RecentFilesMenu::rebuild() {
    clear();
    for (int i = 0; i < files_.size(); ++i) {
        auto* action = addAction(QStringLiteral("&%1  %2").arg(i + 1).arg(files_[i]));
        connect(action, &QAction::triggered, this,
                [this, path = files_[i]] { emit fileChosen(path); });
    }
    setEnabled(!files_.isEmpty());
}

} // namespace slicescope::gui
