// libFuzzer target: slicescope::fuzz::checkNcuInput (fuzzchecks.cpp). Run by scripts/fuzz.sh.
#include "fuzzchecks.h"
#include "fuzztarget.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return slicescope::fuzz::runCheck(slicescope::fuzz::checkNcuInput, data, size);
}
