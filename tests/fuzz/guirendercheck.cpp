#include "guirendercheck.h"

#include "gui/occupancyview.h"
#include "gui/reportrenderer.h"
#include "gui/timelineview.h"
#include "models/session.h"
#include "models/traceloader.h"
#include "models/viewstate.h"

#include <QFile>
#include <QImage>
#include <QTemporaryDir>

namespace slicescope::fuzz {

std::string checkGuiRenderInput(std::string_view data) {
    // One file, rewritten for each input: the loader reads files, as the GUI does.
    static QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("input.json"));
    {
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
            return "cannot write the input file: " + file.errorString().toStdString();
        }
        file.write(data.data(), qint64(data.size()));
    }
    models::LoadResult result = models::TraceLoader::loadNow(path, models::RunOrigin::Opened);
    if (!result.ok()) {
        return result.error.isEmpty() ? std::string("a failed load without a message") : "";
    }
    if (result.runs.empty()) {
        return {};
    }
    models::Session session;
    models::ViewState state;
    session.addRuns(std::move(result.runs));
    // As the headless export does: the first GPU run is selected, else the first run.
    QString selected = session.at(0)->id;
    for (const auto& entry : session.runs()) {
        if (entry->isGpu()) {
            selected = entry->id;
            break;
        }
    }
    state.setSelectedRun(selected);
    gui::TimelineView timeline(&session, &state);
    gui::OccupancyView occupancy(&session, &state);
    // The window's views are made (their load path is checked too) and exported from.
    const QImage image = gui::ReportRenderer(&session, gui::reportInputs(timeline, occupancy))
                             .renderImage(QSize(320, 200));
    if (image.size() != QSize(320, 200)) {
        return "the rendered image is not 320x200";
    }
    return {};
}

} // namespace slicescope::fuzz
