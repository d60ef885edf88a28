#pragma once

#include "models/cliplan.h"

#include <QString>
#include <QStringList>

namespace slicescope::models {

// What "Record program…" asks for: an outside program to record with `slicescope-cli record`.
struct RecordConfig {
    QString program; // path or name looked up in PATH
    QStringList arguments;
    QString workingDirectory; // empty: the GUI's
    QStringList environment;  // NAME=VALUE, added to (or replacing in) the GUI's environment
    bool counters = false;    // achieved occupancy: the program runs twice
    QString host; // empty: this machine; else the host that records it (`--host`): the program,
                  // its working directory and environment are that host's
};

struct RecordPlan {
    CliJob job;
    QString error; // why it cannot run; empty when job is set
};

// The `slicescope-cli record --progress -o OUT [--counters] [--cwd DIR] [--env NAME=VALUE]... --
// PROGRAM ARGS...` job (with `--host HOST` when the config names one), writing its trace under
// outputDir, named with `sequence`.
RecordPlan planRecord(const RecordConfig& config, const QString& outputDir, int sequence);

// Splits "NAME=VALUE" lines (blank lines ignored); a line without a name or '=' is an error.
QStringList parseEnvironment(const QString& text, QString* error);

// The status text of one `record --progress` line, or its JSON alone
// (slicescope/core/progressline.h), e.g.
// "recording: 12 kernels, 3 copies, 40 API calls (2.5 s)".
QString recordProgressText(const QByteArray& json);

} // namespace slicescope::models
