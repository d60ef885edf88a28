#pragma once

// The property the GUI fuzz target (fuzz_guirender.cpp) checks, shared with the normal suite's
// replay (tst_fuzzreplaygui.cpp). Needs a QApplication (offscreen is enough).
#include <string>
#include <string_view>

namespace slicescope::fuzz {

// The bytes go through the GUI's load path (models::TraceLoader::loadNow on a file holding them)
// and, when they load, through the headless report renderer into a small image. Empty when that
// held; otherwise what broke. A crash, a sanitizer report or a hang is a finding by itself.
std::string checkGuiRenderInput(std::string_view data);

} // namespace slicescope::fuzz
