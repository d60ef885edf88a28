#pragma once

#include <QString>
#include <QStringList>
#include <QVector>
#include <memory>
#include <optional>
#include <vector>

namespace slicescope::gui {

class ReportPart;
struct ReportContext;
// What one view draws (gui/reportpart.h): its parts, each with its size policy and its paint.
using ReportParts = std::vector<std::unique_ptr<ReportPart>>;

// What an export shows. `--view overview|detail|breakdown|occupancy|sweep|roofline|all`; the
// default is the overview, the breakdown and the occupancy chart.
struct ReportViews {
    bool overview = true;     // the timeline, compact (one row per run where the timeline has it)
    bool detail = false;      // the timeline with every lane
    bool breakdown = true;    // where one repetition's time goes, per run
    bool occupancy = true;    // occupancy per GPU run and kernel
    bool selectedRun = false; // the selected run's launch in words, under the occupancy chart
    // The sweep chart's time view per sweep, with its occupancy view beside it for block sweeps;
    // asked for on runs with no sweep point, a line in words says there is none.
    bool sweep = false;
    // The roofline with the copies per set of ceilings; without any, a line in words says so.
    bool roofline = false;
    // `all`: the sweep chart and the roofline where the runs have them, left out without a word
    // where they have none.
    bool sweepsIfAny = false;

    bool timeline() const { return overview || detail; }
    // A view's name from exportViews(), or a comma-separated list of them.
    static std::optional<ReportViews> parse(const QString& text);
    // The names parse takes, for messages and help.
    static QStringList names();
};

// One view an export can show: its `--view` name, what it shows in words (for `slicescope
// --help` and the Export image dialog), what choosing it adds to the views, and what it draws:
// its parts (gui/reportpart.h), each with a placement, a preferred and a compact height and a
// paint step, which ReportRenderer lays out. The one list of views that main.cpp, the dialog,
// ReportViews::parse and ReportRenderer read.
struct ExportView {
    QString name;
    QString description;
    void (*select)(ReportViews& views);
    // The parts it draws for the views a context chooses (none where they do not show it); rows
    // that share a part (the timeline's overview and detail) name the same function, and a view
    // that only chooses others (`all`) none.
    ReportParts (*parts)(const ReportContext& context);
};
const QVector<ExportView>& exportViews();
// The parts of every view the context's options choose, in the registry's order, each parts
// function called once.
ReportParts reportParts(const ReportContext& context);
// The row of a name (any case, spaces around it ignored); null for an unknown one.
const ExportView* findExportView(const QString& name);
// The views a report shows unless told: "overview,breakdown,occupancy".
QString defaultExportViews();
// `--view`'s help: every view with its description.
QString exportViewsHelp();

} // namespace slicescope::gui
