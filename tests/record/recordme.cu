// recordme: a small CUDA program with known work, recorded by tst_record through
// `slicescope-cli record` (docs/recording.md). Everything the test checks is fixed here:
//   copies  HtoD 1,000,000 B (pageable), HtoD 262,144 B (pinned), DtoH 1,000,000 B (pageable)
//   memset  65,536 B
//   kernels fill<double>        grid (40,1,1)  block (256,1,1)   x3
//           tile_sum            grid (8,4,1)   block (32,8,1)    static shared 2048 B
//           tile_sum            grid (8,4,1)   block (32,8,1)    + 4096 B dynamic shared (launch)
// Then it ends the way argv[1] says: return (default), exit, _exit (after a pause longer than
// the recorder's flush period), abort, throw, segv, term. "many N" launches N tiny kernels
// instead, to show the recording's memory stays bounded; it prints its peak RSS.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <fstream>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "recordme: %s failed: %s\n", #call, cudaGetErrorString(e_));      \
            return 2;                                                                              \
        }                                                                                          \
    } while (0)

template <typename T> __global__ void fill(T* out, T value, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        out[i] = value;
    }
}

__global__ void tile_sum(const double* in, double* out, int n) {
    __shared__ double tile[256];
    const int t = threadIdx.y * blockDim.x + threadIdx.x;
    const int block = blockIdx.y * gridDim.x + blockIdx.x;
    const int i = block * 256 + t;
    tile[t] = i < n ? in[i] : 0.0;
    __syncthreads();
    if (t == 0) {
        double s = 0;
        for (int k = 0; k < 256; ++k) {
            s += tile[k];
        }
        out[block] = s;
    }
}

__global__ void tiny(int* counter) {
    atomicAdd(counter, 1);
}

static long peakRssKiB() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmHWM:", 0) == 0) {
            return std::atol(line.c_str() + 6);
        }
    }
    return -1;
}

static int many(long launches) {
    int* counter = nullptr;
    CHECK(cudaMalloc(&counter, sizeof(int)));
    CHECK(cudaMemset(counter, 0, sizeof(int)));
    for (long i = 0; i < launches; ++i) {
        tiny<<<1, 32>>>(counter);
    }
    CHECK(cudaGetLastError());
    int total = 0;
    CHECK(cudaMemcpy(&total, counter, sizeof(int), cudaMemcpyDeviceToHost));
    std::printf("recordme: %ld launches, counter %d, peak RSS %ld KiB\n", launches, total,
                peakRssKiB());
    return total == int(launches * 32) ? 0 : 3;
}

int main(int argc, char** argv) {
    const std::string how = argc > 1 ? argv[1] : "return";
    if (how == "many") {
        return many(argc > 2 ? std::atol(argv[2]) : 100000);
    }
    constexpr int kDoubles = 125000; // 1,000,000 bytes
    std::vector<double> host(kDoubles, 1.0);
    double* pinned = nullptr;
    CHECK(cudaMallocHost(&pinned, 262144));
    std::memset(pinned, 0, 262144);
    double *a = nullptr, *b = nullptr, *sums = nullptr;
    CHECK(cudaMalloc(&a, kDoubles * sizeof(double)));
    CHECK(cudaMalloc(&b, 262144));
    CHECK(cudaMalloc(&sums, 65536));

    CHECK(cudaMemcpy(a, host.data(), kDoubles * sizeof(double), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, pinned, 262144, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(sums, 0, 65536));
    for (int k = 0; k < 3; ++k) {
        fill<double><<<40, 256>>>(a, 2.0 + k, kDoubles);
    }
    tile_sum<<<dim3(8, 4, 1), dim3(32, 8, 1)>>>(a, sums, kDoubles);
    tile_sum<<<dim3(8, 4, 1), dim3(32, 8, 1), 4096>>>(a, sums, kDoubles);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(host.data(), a, kDoubles * sizeof(double), cudaMemcpyDeviceToHost));
    CHECK(cudaDeviceSynchronize());
    std::printf("recordme: done (%s), a[0] = %.1f\n", how.c_str(), host[0]);
    std::fflush(stdout);

    if (how == "exit") {
        std::exit(7);
    } else if (how == "_exit") {
        usleep(1000 * 1000); // longer than the flush period the test sets
        _exit(8);
    } else if (how == "abort") {
        std::abort();
    } else if (how == "throw") {
        throw std::runtime_error("recordme: an uncaught exception");
    } else if (how == "segv") {
        volatile int* nowhere = nullptr;
        *nowhere = 1;
    } else if (how == "term") {
        std::raise(SIGTERM);
    }
    cudaFree(a);
    cudaFree(b);
    cudaFree(sums);
    cudaFreeHost(pinned);
    return 0;
}
