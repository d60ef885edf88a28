#pragma once

#include "models/kernelgroups.h"
#include "models/runentry.h"
#include "slicescope/occupancy/residency.h"

#include <QString>
#include <QVector>
#include <optional>
#include <vector>

namespace slicescope::models {

// Everything the occupancy view shows about one GPU run, derived from its launch geometry, its
// device and the occupancy calculator. Computed once per selection.
struct OccupancyFacts {
    bool hasLaunch = false; // false for CPU runs and recorded runs without launch facts
    QString title;          // "slice-outer on NVIDIA H200 (modelled)"
    QString launchWords;    // "one block of 64 threads; 1 thread works; 131 of 132 SMs idle"
    QString limiterWords;   // the limiter in plain words
    // The headline: the launch's own occupancy of the GPU and what limits it, in words, then
    // CUDA's theoretical occupancy named as the per-SM limit it is (trace::launchOccupancyOf).
    // Empty where the run's launch occupancy is unknown.
    QString launchOccupancyWords;
    QString problem; // why no launch facts / why no curve, when so
    // How the framework chose this launch, for a recorded kernel whose name says numba made it
    // (explain/numbalaunch.h): the grid numba chose and the signature that gives more workers.
    QString launchChoiceWords;

    std::uint32_t blockSize = 0;
    std::uint32_t registersPerThread = 0;
    bool registersKnown = false;
    std::uint64_t sharedBytes = 0;
    std::uint32_t activeBlocksPerSm = 0;
    std::string limiter; // the per-SM limiter: "warps", "blocks", "registers", "shared-memory"
    double theoretical = 0;
    std::optional<double> achieved;
    double threadSlotsBusy = 0;
    bool threadSlotsBusyKnown = true; // false for a recorded kernel without counters
    occupancy::Residency residency;

    // Theoretical occupancy (0..1) against block size and against registers per thread.
    QVector<double> blockSizes, occupancyByBlockSize;
    QVector<double> registers, occupancyByRegisters;
    QString curveError; // the calculator's error, when it failed
};

OccupancyFacts computeOccupancyFacts(const RunEntry& entry);

// "This launch fills 0.024 % of the GPU's warp slots, limited by the grid. 1 block for 132 SMs:
// ... Per-SM limit (CUDA's theoretical occupancy): 100 %."; empty without launch occupancy facts.
QString launchOccupancyInWords(const trace::Run& run);

// One kernel of a run (a recorded program's), with the theoretical and achieved occupancy the
// trace gives for it.
OccupancyFacts computeOccupancyFacts(const RunEntry& entry, const KernelGroup& kernel);

// The share of the device's thread slots (SMs x max threads per SM) doing work while a recorded
// kernel runs: its launched threads times the measured share of active lanes, or in a grid of one
// wave the warps that stayed resident (achieved occupancy) times that share, where fewer; given
// out in order as the seed's measure does (strategy::threadSlotsBusy). Unknown without counters.
// The kernel's facts and its occupancy row both take it from here, so the two cannot disagree.
std::optional<double> kernelThreadSlotsBusy(const device::DeviceSpec& device,
                                            const KernelGroup& kernel);
// A recorded or imported kernel's launch occupancy: the share of the device's warp slots its grid
// can fill (occupancy::launchOccupancy), as a strategy run's row has it; unknown where the
// calculator cannot place its blocks.
std::optional<double> kernelLaunchOccupancy(const device::DeviceSpec& device,
                                            const KernelGroup& kernel);

// One bar group of the per-run occupancy chart: a GPU run with one launch, or one kernel (by
// name) of a run without one, such as a recorded program.
struct OccupancyRow {
    QString runId;
    QString kernel;    // the kernel's full name, for a recorded run's kernel; empty otherwise
    QString device;    // the device's name
    QString predicted; // "modelled" or "projected": the model's times, hatched; empty if measured
    double theoretical = 0; // 0..1
    // The launch's own share of the GPU's warp slots (its grid may not fill every SM): a run's
    // launch_occupancy; none for a recorded kernel row
    std::optional<double> launch;
    std::optional<double> achieved;        // 0..1, with counters only
    std::optional<double> threadSlotsBusy; // 0..1; recorded kernels: measured, or unknown
    int kernelGroup = -1; // the run's first KernelGroup of that name (the occupancy view's chooser)
};

// The rows for the visible runs, in session order: a run's own occupancy, or else each distinct
// kernel name of its kernel groups (configurations of one kernel weighted by their time).
QVector<OccupancyRow> occupancyRows(const std::vector<RunEntryPtr>& runs);
// The rows of one run, and how many they are, built only for a run without a launch of its own
// (a recorded run's kernels).
QVector<OccupancyRow> occupancyRowsOf(const RunEntry& entry);
qsizetype occupancyRowCount(const RunEntry& entry);
// The rows the occupancy charts show (chartrows.h): the newest kMaxChartRows and the selected
// run's, built for those runs only; total gets how many occupancyRows gives.
QVector<OccupancyRow> chartOccupancyRows(const std::vector<RunEntryPtr>& runs,
                                         const QString& selectedRun, qsizetype& total);

// text cut to at most maxChars characters by an ellipsis in the middle: long mangled kernel names
// keep their start and end.
QString elideMiddle(const QString& text, int maxChars);
// A kernel's name for a chart's label: without its return type, namespaces, ABI tags and
// parameters ("void ns::fill<double>(double*)" -> "fill<double>",
// "__main__::__gufunc_whole_array[abi:v2][abi:cw51...](Array<...>)" -> "__gufunc_whole_array",
// "void (anonymous namespace)::softmax<float>(float*)" -> "softmax<float>"),
// so that kernels told apart only in the middle of a long name stay apart. The full name goes in
// the tooltip.
QString shortKernelName(const QString& name);

// One sentence for a limiter, for people who have not met the word: "Warps: each SM runs at most
// 64 warps (2,048 threads); this block size fills them with 8 blocks."
QString limiterInPlainWords(const std::string& limiter, const device::DeviceSpec& device,
                            std::uint32_t activeBlocksPerSm, std::uint32_t blockSize);

} // namespace slicescope::models
