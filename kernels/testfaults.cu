// Test-only kernels that fail on purpose, so the fault handling of the GPU backend and the CLI
// can be exercised on a real device (docs/gpu-backend.md, "Faults"). Never launched unless a test
// asks for them.
#include "kernels/kerneltable.h"

namespace slicescope::kernels {

// A trap instruction: the launch fails with a sticky error that poisons the CUDA context.
__global__ void testTrapKernel(KernelArgs) {
    __trap();
}

__device__ __forceinline__ std::uint64_t globalTimerNs() {
    std::uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Spins for spinNs of GPU time (bounded, so a process that cannot tear its context down still
// frees the GPU in the end).
__global__ void testSpinKernel(KernelArgs a) {
    const std::uint64_t start = globalTimerNs();
    while (globalTimerNs() - start < a.spinNs) {
    }
}

extern const KernelEntry kTestTrapKernels{reinterpret_cast<const void*>(&testTrapKernel),
                                          reinterpret_cast<const void*>(&testTrapKernel)};
extern const KernelEntry kTestSpinKernels{reinterpret_cast<const void*>(&testSpinKernel),
                                          reinterpret_cast<const void*>(&testSpinKernel)};

} // namespace slicescope::kernels
