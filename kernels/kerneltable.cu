#include "kernels/kerneltable.h"

namespace slicescope::kernels {

const KernelEntry& kernelEntry(Family family) {
    switch (family) {
    case Family::TestTrap:
        return kTestTrapKernels;
    case Family::TestSpin:
        return kTestSpinKernels;
    case Family::FmaPeak:
        return kFmaPeakKernels;
    }
    return kTestTrapKernels;
}

} // namespace slicescope::kernels
