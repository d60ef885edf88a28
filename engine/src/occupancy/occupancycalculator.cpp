// PLACEHOLDER: replaced by the occupancy work (issue 2). Not done.
#include "slicescope/occupancy/occupancycalculator.h"

namespace slicescope::occupancy {
std::string_view toString(Limiter limiter) {
    switch (limiter) {
    case Limiter::Warps: return "warps";
    case Limiter::Blocks: return "blocks";
    case Limiter::Registers: return "registers";
    case Limiter::SharedMemory: return "shared-memory";
    }
    return "warps";
}
Result<OccupancyResult> calculate(const device::DeviceSpec&, const KernelResources&) {
    return fail(Error::Code::Internal, "not implemented yet");
}
} // namespace slicescope::occupancy
