#pragma once

// CUDA_CHECK(call): runs a CUDA runtime call; on failure returns from the enclosing function
// (which returns a Result or Status) with an Error naming the call and CUDA's error string.

#include "slicescope/core/result.h"

#include <cuda_runtime_api.h>

namespace slicescope::cuda {

// The error for a failed runtime call. Codes: InsufficientMemory for allocation failures,
// Unsupported for a missing driver or device, DeviceFault for errors raised by device work.
Error cudaError(cudaError_t error, const char* callText);

// Errors after which the context cannot be used again in this process (a kernel fault):
// every later CUDA call returns the same error.
bool isStickyError(cudaError_t error);

} // namespace slicescope::cuda

#define CUDA_CHECK(call)                                                                           \
    do {                                                                                           \
        const cudaError_t cudaCheckResult_ = (call);                                               \
        if (cudaCheckResult_ != cudaSuccess) {                                                     \
            return ::tl::unexpected(::slicescope::cuda::cudaError(cudaCheckResult_, #call));       \
        }                                                                                          \
    } while (false)
