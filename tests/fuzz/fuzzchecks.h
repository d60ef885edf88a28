#pragma once

// The properties each fuzz target checks on one input. The libFuzzer targets (fuzz_*.cpp) run
// them on generated inputs; the normal test suite (tst_fuzzreplay.cpp) replays the seed corpus
// and every past finding through the same checks, under whatever sanitizers that build has.
//
// A crash, a sanitizer report, a hang or a leak is a finding by itself; the checks add the
// properties a crash would not show: a rejected input is a Parse error saying where, and an
// accepted one writes out as valid JSON that reads back to the same text.
#include <string>
#include <string_view>

namespace slicescope::fuzz {

// Each returns an empty string when every property held, otherwise what broke.
std::string checkTraceInput(std::string_view data);      // trace::parseTrace and the exporters
std::string checkKinetoInput(std::string_view data);     // the PyTorch profiler trace import
std::string checkNcuInput(std::string_view data);        // the Nsight Compute CSV import
std::string checkDeviceInput(std::string_view data);     // device::deviceFromJson, parsePresets
std::string checkShapeInput(std::string_view data);      // problem::parseShape, makeProblem
std::string checkJsonCursorInput(std::string_view data); // trace::JsonCursor against nlohmann

} // namespace slicescope::fuzz
