// The seed's computation as a plain C++ CUDA program, for `slicescope-cli record`
// (docs/recording.md): cv[r][c][n] = multBy[c][n] * discount[r][c][n], float64, 100 x 4000 x 5,
// with pageable copies as in the seed and three kernels:
//   whole_array      <<<1, 64>>>      one thread does all 2,000,000 multiplies (the seed's gufunc)
//   outer_slices     <<<1, 128>>>     100 workers, one per outer slice
//   broadcast        <<<7813, 256>>>  one thread per element, broadcast indexing (the hand-written fix)
// Each result is copied back and checked. Nothing here knows it is being recorded.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "seed: %s failed: %s\n", #call, cudaGetErrorString(e_));         \
            return 2;                                                                              \
        }                                                                                          \
    } while (0)

constexpr int R = 100, C = 4000, N = 5;

__global__ void whole_array(const double* multBy, const double* discount, double* cv) {
    if (threadIdx.x != 0) {
        return; // one worker, as the seed's gufunc signature made it
    }
    for (int r = 0; r < R; ++r) {
        for (int i = 0; i < C * N; ++i) {
            cv[r * C * N + i] = multBy[i] * discount[r * C * N + i];
        }
    }
}

__global__ void outer_slices(const double* multBy, const double* discount, double* cv) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= R) {
        return;
    }
    for (int i = 0; i < C * N; ++i) {
        cv[r * C * N + i] = multBy[i] * discount[r * C * N + i];
    }
}

__global__ void broadcast(const double* multBy, const double* discount, double* cv) {
    const long total = long(R) * C * N;
    for (long e = blockIdx.x * long(blockDim.x) + threadIdx.x; e < total; e += long(gridDim.x) * blockDim.x) {
        cv[e] = multBy[e % (C * N)] * discount[e];
    }
}

int main() {
    const size_t small = size_t(C) * N, big = size_t(R) * C * N;
    std::vector<double> multBy(small), discount(big), cv(big);
    for (size_t i = 0; i < small; ++i) {
        multBy[i] = 1.0 + double(i % 97) / 97.0;
    }
    for (size_t i = 0; i < big; ++i) {
        discount[i] = double(i % 89) / 89.0;
    }
    double *dMult = nullptr, *dDiscount = nullptr, *dCv = nullptr;
    CHECK(cudaMalloc(&dMult, small * sizeof(double)));
    CHECK(cudaMalloc(&dDiscount, big * sizeof(double)));
    CHECK(cudaMalloc(&dCv, big * sizeof(double)));
    CHECK(cudaMemcpy(dMult, multBy.data(), small * sizeof(double), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dDiscount, discount.data(), big * sizeof(double), cudaMemcpyHostToDevice));

    struct Launch {
        const char* name;
        void (*kernel)(const double*, const double*, double*);
        dim3 grid, block;
    } launches[] = {
        {"whole_array", whole_array, dim3(1), dim3(64)},
        {"outer_slices", outer_slices, dim3(1), dim3(128)},
        {"broadcast", broadcast, dim3(unsigned((big + 255) / 256)), dim3(256)},
    };
    int failures = 0;
    for (const auto& l : launches) {
        CHECK(cudaMemset(dCv, 0, big * sizeof(double)));
        l.kernel<<<l.grid, l.block>>>(dMult, dDiscount, dCv);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(cv.data(), dCv, big * sizeof(double), cudaMemcpyDeviceToHost));
        double worst = 0;
        for (size_t i = 0; i < big; ++i) {
            worst = std::fmax(worst, std::fabs(cv[i] - multBy[i % small] * discount[i]));
        }
        std::printf("%s: max abs error %g\n", l.name, worst);
        failures += worst == 0 ? 0 : 1;
    }
    cudaFree(dMult);
    cudaFree(dDiscount);
    cudaFree(dCv);
    return failures == 0 ? 0 : 1;
}
