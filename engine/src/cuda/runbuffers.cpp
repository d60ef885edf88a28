#include "runbuffers.h"

#include <atomic>

namespace slicescope::cuda {

namespace {
std::atomic<bool> gDeviceHung{false};
} // namespace

void markDeviceHung() {
    gDeviceHung = true;
}

bool deviceHung() {
    return gDeviceHung.load();
}

} // namespace slicescope::cuda
