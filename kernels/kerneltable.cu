#include "kernels/kerneltable.h"

namespace slicescope::kernels {

const KernelEntry& kernelEntry(Family family) {
    switch (family) {
    case Family::OneWorker:
        return kOneWorkerKernels;
    case Family::SliceOuter:
        return kSliceOuterKernels;
    case Family::SliceMiddle:
        return kSliceMiddleKernels;
    case Family::SliceMiddleStrided:
        return kSliceMiddleStridedKernels;
    case Family::Slice2d:
        return kSlice2dKernels;
    case Family::ElementwiseMaterialized:
        return kElementwiseMaterializedKernels;
    case Family::ElementwiseBroadcast:
        return kElementwiseBroadcastKernels;
    case Family::TestTrap:
        return kTestTrapKernels;
    case Family::TestSpin:
        return kTestSpinKernels;
    case Family::FmaPeak:
        return kFmaPeakKernels;
    }
    return kOneWorkerKernels;
}

} // namespace slicescope::kernels
