#include "gui/samplesmenu.h"

#include <QDir>
#include <QFileInfo>

namespace slicescope::gui {

SamplesMenu::SamplesMenu(const QString& title, QWidget* parent) : QMenu(title, parent) {
    for (const QString& path : sampleTraces()) {
        addAction(QFileInfo(path).completeBaseName(), this,
                  [this, path] { emit sampleChosen(path); });
    }
    setEnabled(!isEmpty());
}

QStringList SamplesMenu::sampleTraces() {
    QStringList paths;
    const QDir dir(QStringLiteral(":/samples"));
    for (const QString& name : dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
        paths << dir.filePath(name);
    }
    return paths;
}

QString SamplesMenu::startSample() {
    // The seed's story on a real GPU; the other samples are a click away in File > Open sample.
    const QStringList samples = sampleTraces();
    for (const QString& path : samples) {
        if (path.endsWith(QStringLiteral("/seed-100x4000x5-f64-pageable.json"))) {
            return path;
        }
    }
    return samples.isEmpty() ? QString() : samples.first();
}

} // namespace slicescope::gui
