#pragma once

#include "models/devicelistmodel.h"

#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>

namespace slicescope::models {

// What the run panel asks for.
struct RunConfig {
    quint64 r = 100; // the seed's shape
    quint64 c = 4000;
    quint64 n = 5;
    QString dtype = QStringLiteral("f64");
    int work = 1;
    QStringList strategies;
    QString block = QStringLiteral("numba"); // "numba", "numba-cuda" or a number
    QString memory = QStringLiteral("pageable");
    int repeat = 1;
    int warmup = 1;  // warm-up iterations of measured runs; a model has none
    int chunks = 1;  // GPU strategies: --chunks (strategy/pipeline.h)
    int streams = 1; // GPU strategies: --streams
    bool counters = false;
    bool sampleOccupancy = false;
    DeviceChoice device;
    // Where the jobs run: empty for this machine, else a host for `--host`
    // (models/remotetargets.h); the device is then one of that host's.
    QString host;
};

// One slicescope-cli invocation.
struct CliJob {
    QString label;         // "CPU: cpu-serial, cpu-parallel" / "modelled on NVIDIA H200: ..."
    QStringList arguments; // after the program name
    QString outputPath;    // the trace file it writes
    QStringList strategies;
    bool modelled = false;
    // `record` of an outside program: its trace is written whatever the program's exit status
    // (and when cancelled), and it needs time to stop the program on Cancel.
    bool recording = false;
};

struct RunPlan {
    QList<CliJob> jobs;
    QString error; // why nothing can run; empty when jobs is not
};

// Splits a request into CLI jobs: GPU strategies measured on a detected device in one `run` (one
// CUDA context), each CPU strategy in a `run` of its own (its run lands as soon as it is done),
// GPU strategies on a preset in one `model`; in that order. Every job reports progress and writes
// its trace under outputDir, named with `sequence` so runs never overwrite each other. With a host,
// every job runs there (`--host`) and its trace still lands under outputDir.
RunPlan planRun(const RunConfig& config, const QString& outputDir, int sequence);

// The config's strategies, split into CPU and GPU ones (as named). Empty, or why they cannot run:
// none chosen, an unknown name, GPU strategies with no device to measure or model them on.
QString splitStrategies(const RunConfig& config, QStringList* cpu, QStringList* gpu);

} // namespace slicescope::models

Q_DECLARE_METATYPE(slicescope::models::CliJob)
