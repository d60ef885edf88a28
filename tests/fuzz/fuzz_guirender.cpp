// libFuzzer target: slicescope::fuzz::checkGuiRenderInput (guirendercheck.cpp), the GUI's load
// and draw path on the offscreen platform. Run by scripts/fuzz.sh (preset fuzz-gui).
#include "fuzztarget.h"
#include "guirendercheck.h"

#include <QApplication>

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    // The views are widgets. Never destroyed: at exit, a static QApplication would be torn down
    // after Qt's own globals, and crash there.
    static auto* app = new QApplication(*argc, *argv);
    (void)app;
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return slicescope::fuzz::runCheck(slicescope::fuzz::checkGuiRenderInput, data, size);
}
