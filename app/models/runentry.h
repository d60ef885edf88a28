#pragma once

#include "models/kernelgroups.h"
#include "models/timelinelanes.h"
#include "slicescope/trace/runsummary.h"
#include "slicescope/trace/trace.h"

#include <QMetaType>
#include <QString>
#include <QStringList>
#include <memory>

namespace slicescope::models {

// Where a run in the session came from.
enum class RunOrigin {
    Measured, // a slicescope-cli run started from this window
    Opened,   // a trace file the user opened
    Restored, // the autosaved session of an earlier start
    Sample,   // a sample trace shipped with SliceScope (not autosaved)
};

// One run as the GUI holds it: the immutable run and what is derived from it once, off the GUI
// thread (lanes, summary). The session gives each entry a unique id and a verdict.
struct RunEntry {
    QString id; // unique in the session; the run's own id unless that was taken
    std::shared_ptr<const trace::Run> run;
    std::shared_ptr<const RunLanes> lanes;
    trace::RunSummary summary;
    std::size_t deviceActivities =
        0; // copies, kernels and memsets: the rows nvprof's gpu trace lists
    std::size_t warmupDeviceActivities = 0; // of those, the warm-up iterations' (greyed)
    // The distinct kernels of runs that have no launch of their own (recorded runs), for the
    // occupancy view's chooser: one pass over every activity, so made here, off the GUI thread.
    // At most kMaxKernelGroups, those with the most kernel time; kernelConfigurations counts all.
    QVector<KernelGroup> kernels;
    qsizetype kernelConfigurations = 0;
    QString launchWords; // "one block of 64 threads; 1 thread works; 131 of 132 SMs idle"
    // What the session's naming needs (runnaming.h: deviceTag, runSettings), made here once, off
    // the GUI thread: for 100,000 runs it took a third of a second there.
    QString deviceTag;
    QStringList settings;
    QString verdict; // set by the session, which knows the other runs
    RunOrigin origin = RunOrigin::Opened;
    QString source;      // the file it came from, when any
    bool visible = true; // drawn on the timeline

    bool isModelled() const { return run->mode == trace::RunMode::Modelled; }
    // Modelled or projected: times the model made, drawn hatched and never called measured.
    bool isPredicted() const { return trace::isPredicted(run->mode); }
    QString predictedWord() const; // "modelled", "projected"; empty for measured runs
    bool isGpu() const {
        return run->mode != trace::RunMode::MeasuredCpu && summary.hasDeviceWork();
    }
};

using RunEntryPtr = std::shared_ptr<RunEntry>;
using ConstRunEntryPtr = std::shared_ptr<const RunEntry>;

// A chooser of tens of thousands of kernel configurations would take seconds to fill and nobody
// could use it.
inline constexpr int kMaxKernelGroups = 500;

// Builds an entry; heavy for big runs (sorts the lanes), so loaders call it on a worker thread.
RunEntryPtr makeRunEntry(trace::Run run, RunOrigin origin, const QString& source = {});

// The same run, reached twice (from the saved session and from a trace a killed GUI left): the
// same strategy, mode, creation time, wall time and activities' extent and count.
bool isSameRun(const trace::Run& a, const trace::Run& b);

QString toQString(std::string_view text);
QString
modeText(trace::RunMode mode); // "measured on the GPU", "measured on the CPU", "modelled", ...
QString shortModeText(trace::RunMode mode); // "GPU", "CPU", "modelled", ..., "projected"

} // namespace slicescope::models

Q_DECLARE_METATYPE(slicescope::models::RunEntryPtr)
