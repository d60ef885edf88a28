#include "gui/exportviews.h"

#include "gui/reportpart.h"

#include <QCoreApplication>
#include <algorithm>

namespace slicescope::gui {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("slicescope::gui::ExportView", text);
}

} // namespace

const QVector<ExportView>& exportViews() {
    static const QVector<ExportView> views = {
        {QStringLiteral("overview"), tr("Timeline overview"),
         [](ReportViews& v) { v.overview = true; }, timelineParts},
        {QStringLiteral("detail"), tr("Timeline with every lane"),
         [](ReportViews& v) { v.detail = true; }, timelineParts},
        {QStringLiteral("breakdown"), tr("Time breakdown per run"),
         [](ReportViews& v) { v.breakdown = true; }, breakdownParts},
        {QStringLiteral("occupancy"), tr("Occupancy per run"),
         [](ReportViews& v) { v.occupancy = true; }, occupancyParts},
        {QStringLiteral("sweep"),
         tr("Sweep chart: time per repetition, and occupancy for block sweeps"),
         [](ReportViews& v) { v.sweep = true; }, sweepParts},
        {QStringLiteral("roofline"), tr("Roofline with the copies"),
         [](ReportViews& v) { v.roofline = true; }, sweepParts},
        {QStringLiteral("all"),
         tr("Everything: timeline lanes, breakdown, occupancy, selected run, and the sweep chart "
            "and roofline where the runs have them"),
         [](ReportViews& v) {
             v.detail = v.breakdown = v.occupancy = v.selectedRun = true;
             v.sweepsIfAny = true;
         },
         nullptr},
    };
    return views;
}

ReportParts reportParts(const ReportContext& context) {
    ReportParts out;
    std::vector<ReportParts (*)(const ReportContext&)> called;
    for (const ExportView& view : exportViews()) {
        if (!view.parts || std::find(called.begin(), called.end(), view.parts) != called.end()) {
            continue;
        }
        called.push_back(view.parts);
        for (auto& part : view.parts(context)) {
            out.push_back(std::move(part));
        }
    }
    return out;
}

const ExportView* findExportView(const QString& name) {
    const QString key = name.trimmed().toLower();
    for (const ExportView& view : exportViews()) {
        if (view.name == key) {
            return &view;
        }
    }
    return nullptr;
}

QString defaultExportViews() {
    return QStringLiteral("overview,breakdown,occupancy");
}

QString exportViewsHelp() {
    QStringList items;
    for (const ExportView& view : exportViews()) {
        // "Timeline overview" reads "overview (timeline overview)" in a sentence.
        items << view.name + QStringLiteral(" (") + view.description.left(1).toLower() +
                     view.description.mid(1) + QLatin1Char(')');
    }
    return tr("What --export-image shows: %1; or a comma-separated list of them (default %2).")
        .arg(items.join(QStringLiteral(", ")), defaultExportViews());
}

std::optional<ReportViews> ReportViews::parse(const QString& text) {
    ReportViews views;
    views.overview = views.breakdown = views.occupancy = false;
    const QStringList names = text.split(QLatin1Char(','), Qt::SkipEmptyParts);
    if (names.isEmpty()) {
        return std::nullopt;
    }
    for (const QString& name : names) {
        const ExportView* view = findExportView(name);
        if (!view) {
            return std::nullopt;
        }
        view->select(views);
    }
    if (views.overview && views.detail) {
        views.overview = false; // one timeline: the detailed one
    }
    return views;
}

QStringList ReportViews::names() {
    QStringList out;
    for (const ExportView& view : exportViews()) {
        out << view.name;
    }
    return out;
}

} // namespace slicescope::gui
