#pragma once

#include "slicescope/backend/runrequest.h"
#include "slicescope/core/result.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

// What a sweep varies and over which values (slicescope-cli sweep): parsing and checking of
// --param, --values and --range, and a run request for each point. Pure functions.
namespace slicescope::sweep {

enum class SweepParam { Block, Rows, Columns, N, Work, Dtype, Memory };
std::string_view toString(SweepParam param); // "block", "rows", "columns", "n", "work", ...
Result<SweepParam> parseSweepParam(std::string_view text);
// Numeric parameters are multiplicative (sizes, counts): swept and interpolated on log axes.
// dtype and memory are categories.
bool isNumeric(SweepParam param);

// Whether the parameter changes the work a strategy does: block size and host memory change
// only GPU strategies' (a CPU strategy computes the same at every block size, so its times
// across such a sweep differ by noise alone); the problem's sizes, work and dtype change every
// strategy's. An unknown strategy name counts as changed.
bool changesWorkOf(std::string_view param, std::string_view strategy);

// A sweep of more points than this is refused: it would take long and say little more.
inline constexpr std::size_t kMaxPoints = 1000;

// Whether value is valid for the parameter: block 1..1024, rows/columns/n >= 1, work
// 1..4294967295, dtype f64|f32, memory pageable|pinned|managed|mapped. The canonical text of
// the value ("064" gives "64").
Result<std::string> checkValue(SweepParam param, std::string_view value);
// "32,64,128": every value checked, duplicates refused, at most kMaxPoints.
Result<std::vector<std::string>> parseValues(SweepParam param, std::string_view list);
// "START:STOP[:xFACTOR|:+STEP]" for numeric parameters; the default step is x2. START <= STOP,
// FACTOR > 1, STEP >= 1; STOP is included when the steps land on it; at most kMaxPoints.
Result<std::vector<std::string>> parseRange(SweepParam param, std::string_view range);

// The base request with the parameter set to value (already checked); the problem is
// re-validated (a shape whose sizes overflow is an error).
Result<backend::RunRequest> applyValue(SweepParam param, std::string_view value,
                                       const backend::RunRequest& base);

// The id of one strategy's run at one point, "slice-2d@block=64": unique within a sweep's trace,
// which the GPU worker and the CLI both write (a trace refuses two runs of one id).
std::string pointRunId(std::string_view strategy, std::string_view param, std::string_view value);

} // namespace slicescope::sweep
