#pragma once

#include "models/runentry.h"

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>
#include <vector>

namespace slicescope::models {

// What naming needs to know of a run arriving in the session.
struct RunNameRequest {
    QString wanted;    // the run's id in its trace, or the recorded program's name
    QString deviceTag; // a short tag of its device ("h200", "gtx-970", "intel-xeon")
    // The settings that tell two runs of one strategy apart, as a name shows them, always in the
    // order runSettings gives: the shape, the dtype, the work, the host memory, the pieces
    // ("k16×s4"), the block ("block 256") and, for a measured GPU run, "counters" or "no
    // counters"; empty where the run has none.
    QStringList settings;
};
// A run's settings for naming (RunNameRequest::settings).
QStringList runSettings(const trace::Run& run);

// The request for a run whose trace id is `id`: a recorded run is named after its program
// ("seed_numba", not "recorded"), any other run keeps its trace id (a strategy name).
RunNameRequest nameRequest(const trace::Run& run, const QString& id);
// The same for an entry, from the device tag and settings made with it (RunEntry::deviceTag,
// RunEntry::settings), under the id it has.
RunNameRequest nameRequest(const RunEntry& entry);
// A short, lower-case tag of a device for names: the preset key, or the name without vendor
// words ("NVIDIA H200" -> "h200", "Intel(R) Xeon(R) Processor" -> "intel-xeon").
QString deviceTag(const device::DeviceSpec& device);
// A device's name for labels, without vendor words: "NVIDIA H200" -> "H200",
// "Intel(R) Xeon(R) Processor" -> "Xeon", "Quadro K2000" stays.
QString shortDeviceName(const device::DeviceSpec& device);
// The program a recorded command ran: "python3 docs/recording/seed_numba.py" -> "seed_numba".
QString programName(const std::string& command);

// The session's naming policy. A run keeps the name it asks for while that name has never been
// given in this session; otherwise it is told apart by its device ("slice-outer@gtx-970") when the
// run that first had the name ran on another device, else by the settings in which it differs
// from that run ("slice-outer (k16×s4)", "slice-middle (block 256, f32)"), and otherwise (the
// same settings again) by one numeric suffix shared by every run of the batch that needs one
// ("-2", then "-3", ...). Names are never given twice, even
// after the run that had one was removed: a name in a verdict, an export or a note keeps meaning
// one run. reset() (the session was cleared) forgets them.
class RunNaming {
  public:
    // Names for the runs of one batch (runs that arrived together), in order.
    QStringList nameBatch(const QList<RunNameRequest>& batch);
    void reset() { issued_.clear(); }
    bool wasIssued(const QString& name) const { return issued_.contains(name); }

  private:
    struct Holder { // the run a name was given to
        QString deviceTag;
        QStringList settings;
    };
    QHash<QString, Holder> issued_;
};

// The batch a run came in with, for verdicts (trace::SummarizedRun::batch) and for placing
// modelled runs on absolute time. A run that names its batch (trace::Run::batch: the session
// file writes it, Session::toTrace) keeps it. Otherwise it is derived from the file the run was
// loaded from. A run request of the GUI writes "run-N-gpu.json", "run-N-<cpu strategy>.json" and
// "run-N-modelled.json" (cliplan.cpp): those are one batch, "run-N" in that folder. Any other file
// is a batch of its own (one slicescope-cli invocation). Runs restored from a session file
// written before batches were kept are grouped with the runs created in the same second. Empty
// for a run of no file, no batch and no creation time: a batch of nothing known.
QString batchOf(const RunEntry& entry);

// Whether the visible runs ran on more than one device: chart labels then carry the device.
bool devicesDiffer(const std::vector<RunEntryPtr>& runs);

} // namespace slicescope::models
