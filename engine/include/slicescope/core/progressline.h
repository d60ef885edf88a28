#pragma once

// The `progress {json}` line protocol between slicescope-cli and whoever started it (the GUI's
// models): one line, flushed as it is written, the word `progress`, a space and one JSON object.
// `run` (and its GPU worker process) writes run progress on stdout; `record` writes recording
// progress on stderr, because stdout belongs to the recorded program. The CLI writes these lines
// and the models read them through this header alone, so the two sides cannot drift apart.

#include "slicescope/core/result.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace slicescope::core {

inline constexpr std::string_view kProgressPrefix = "progress ";

// `sweep`: which point of the sweep a run line belongs to. {"point","points","param","value"}
// ride along in the same object, so a reader that knows only `run`'s lines still follows a sweep.
// {"runs_done","runs"} say how far the whole sweep is: its GPU strategies run at every point
// before its CPU ones start again from the first point, so the point alone goes back to 0.
struct SweepProgressPoint {
    std::uint64_t point = 0;  // which of `points`, from 0
    std::uint64_t points = 0; // 0: not a sweep
    std::string param;        // e.g. "block"
    std::string value;        // e.g. "256"
    double runsDone = 0;      // runs of the whole sweep finished, the one running by its fraction
    std::uint64_t runs = 0;   // runs in the whole sweep (points x strategies); 0: not said
};

// `run`: one strategy's stage. {"strategy","index","count","stage","fraction"}
struct RunProgressLine {
    std::string strategy;     // a strategy name, or "gpu" for the GPU worker's whole batch
    std::uint64_t index = 0;  // which of `count` strategies, from 0
    std::uint64_t count = 1;  // strategies in this invocation, at least 1
    std::string stage;        // e.g. "compute", "slice-outer: iteration 2 of 5", "model"
    double fraction = 0;      // of this strategy, 0..1
    SweepProgressPoint sweep; // `sweep` lines only (sweep.points > 0)
};

// `record`: how far a recording is. Its end is unknown (a program runs as long as it runs).
// {"stage","elapsed_s","processes","api_calls","kernels","copies","memsets","dropped_records"}
struct RecordProgressLine {
    std::string stage; // "trace" (the program runs), "counters" (its counting run), "convert"
    double elapsedS = 0;
    std::uint64_t processes = 0;
    std::uint64_t apiCalls = 0;
    std::uint64_t kernels = 0;
    std::uint64_t copies = 0;
    std::uint64_t memsets = 0;
    std::uint64_t droppedRecords = 0;
};

// The line, without its newline.
std::string formatProgressLine(const RunProgressLine& progress);
std::string formatProgressLine(const RecordProgressLine& progress);

// Whether a line (its newline removed) is a progress line at all.
bool isProgressLine(std::string_view line);

// Parse a progress line, or its JSON object alone. Missing keys keep their defaults; what a reader
// divides or indexes by is made safe (count at least 1, index below count, fraction within 0..1).
// An Error::Code::Parse error for a line that is not `progress` and a JSON object, or whose values
// have the wrong types.
Result<RunProgressLine> parseRunProgressLine(std::string_view line);
Result<RecordProgressLine> parseRecordProgressLine(std::string_view line);

} // namespace slicescope::core
