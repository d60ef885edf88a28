#pragma once

// The addresses of the compiled kernels, for host code to pass to cudaLaunchKernel,
// cudaFuncGetAttributes and the occupancy API. The strategy kernels, one file each, are found by
// their file's name (strategyKernel()); the other kernels are families: two test-only kernels that
// fault on purpose (docs/gpu-backend.md, "Faults": a trap and a spin past the kernel timeout) and
// the roofline's FMA peak.

#include "kernels/kernelargs.h"

#include <string_view>

namespace slicescope::kernels {

enum class Family : unsigned {
    TestTrap, // executes a trap instruction: a sticky "unspecified launch failure"
    TestSpin, // spins for KernelArgs::spinNs of GPU time
    FmaPeak,  // roofline ceiling: independent FMA chains, workPerElement steps per thread
};

struct KernelEntry {
    const void* f64 = nullptr; // the float64 instantiation
    const void* f32 = nullptr; // the float32 instantiation
};

const KernelEntry& kernelEntry(Family family);

// The kernels of kernels/<file>.cu (strategy::StrategyInfo::kernel), each file defining
// kernels::<file>::kKernels; null for a name that is no strategy kernel file. The table is
// generated from the list of strategy kernel files in kernels/CMakeLists.txt.
const KernelEntry* strategyKernel(std::string_view file);

// Defined in the non-strategy kernels' .cu files.
extern const KernelEntry kTestTrapKernels;
extern const KernelEntry kTestSpinKernels;
extern const KernelEntry kFmaPeakKernels;

// FMA chains per thread of the FmaPeak kernel: flop per thread = 2 x chains x steps.
inline constexpr unsigned kFmaPeakChains = 8;

} // namespace slicescope::kernels
