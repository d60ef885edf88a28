#pragma once

// The addresses of the compiled kernels, for host code to pass to cudaLaunchKernel,
// cudaFuncGetAttributes and the occupancy API. One family per strategy, plus two test-only
// kernels that fault on purpose (docs/gpu-backend.md, "Faults": a trap and a spin past the kernel
// timeout).

#include "kernels/kernelargs.h"

namespace slicescope::kernels {

enum class Family : unsigned {
    OneWorker,
    SliceOuter,
    SliceMiddle,
    SliceMiddleStrided,
    Slice2d,
    ElementwiseMaterialized,
    ElementwiseBroadcast,
    TestTrap, // executes a trap instruction: a sticky "unspecified launch failure"
    TestSpin, // spins for KernelArgs::spinNs of GPU time
    FmaPeak,  // roofline ceiling: independent FMA chains, workPerElement steps per thread
};

struct KernelEntry {
    const void* f64 = nullptr; // the float64 instantiation
    const void* f32 = nullptr; // the float32 instantiation
};

const KernelEntry& kernelEntry(Family family);

// Defined in each family's .cu file.
extern const KernelEntry kOneWorkerKernels;
extern const KernelEntry kSliceOuterKernels;
extern const KernelEntry kSliceMiddleKernels;
extern const KernelEntry kSliceMiddleStridedKernels;
extern const KernelEntry kSlice2dKernels;
extern const KernelEntry kElementwiseMaterializedKernels;
extern const KernelEntry kElementwiseBroadcastKernels;
extern const KernelEntry kTestTrapKernels;
extern const KernelEntry kTestSpinKernels;
extern const KernelEntry kFmaPeakKernels;

// FMA chains per thread of the FmaPeak kernel: flop per thread = 2 x chains x steps.
inline constexpr unsigned kFmaPeakChains = 8;

} // namespace slicescope::kernels
