#pragma once

// The one argument every SliceScope kernel takes, passed by value through cudaLaunchKernel.
// Plain C++ so host code that launches kernels needs no CUDA headers to fill it.

#include <cstdint>

namespace slicescope::kernels {

struct KernelArgs {
    const void* discount = nullptr; // R x C x N (C x R x N for slice-middle)
    const void* multBy = nullptr;   // C x N (R x C x N for elementwise-materialized)
    void* cv = nullptr;             // the output, in discount's layout
    std::uint64_t r = 0;
    std::uint64_t c = 0;
    std::uint64_t n = 0;
    std::uint64_t workers = 0;           // worker kernels: threads with work
    std::uint64_t elementsPerWorker = 0; // worker kernels: elements each worker walks
    std::uint32_t workPerElement = 1;    // k: 1 multiply, then k-1 multiply-adds
    std::uint32_t vectorWidth = 1;       // elementwise-broadcast: elements per vector access
    std::uint64_t spinNs = 0;            // test-only spin kernel: how long to spin
};

} // namespace slicescope::kernels
