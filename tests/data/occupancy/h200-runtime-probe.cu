// Records what the CUDA runtime answers for occupancy on a real GPU, next to what
// cuda_occupancy.h answers for the same kernel attributes and device properties.
// Built and run once on the lent H200 (nvcc -O2 -arch=sm_90 h200-runtime-probe.cu; OUT=dir
// ./a.out); README.md beside it has its output and how h200-runtime.csv was cut from it. Not built
// by CMake. Kernels r<N> hold N values live to vary the register count; m<B> use B bytes of static
// shared memory; each is asked about with its default attributes and again after opting in to the
// largest dynamic shared memory the device allows.
#include <cstdio>
#include <cstdlib>
#include <cuda_occupancy.h>
#include <cuda_runtime.h>
template <int N> __global__ void r(const float* in, float* o) {
    float a[N];
#pragma unroll
    for (int i = 0; i < N; ++i)
        a[i] = in[threadIdx.x * N + i];
#pragma unroll
    for (int k = 0; k < 4; ++k)
#pragma unroll
        for (int i = 0; i < N; ++i)
            a[i] = a[i] * a[(i + k + 1) % N] + 1.f;
    float s = 0;
#pragma unroll
    for (int i = 0; i < N; ++i)
        s += a[i] * (i + 1);
    o[threadIdx.x] = s;
}
template <int B> __global__ void m(float* o) {
    __shared__ float b[B / 4];
    b[threadIdx.x % (B / 4)] = threadIdx.x;
    __syncthreads();
    o[threadIdx.x] = b[(threadIdx.x + 1) % (B / 4)];
}
__global__ void e() {}
int main() {
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
    int c, mc, bw;
    cudaDeviceGetAttribute(&c, cudaDevAttrClockRate, 0);
    cudaDeviceGetAttribute(&mc, cudaDevAttrMemoryClockRate, 0);
    cudaDeviceGetAttribute(&bw, cudaDevAttrGlobalMemoryBusWidth, 0);
    printf("PROP %s %d.%d sms=%d warp=%d thr/sm=%d blk/sm=%d thr/blk=%d regs/sm=%d regs/blk=%d "
           "smem/sm=%zu smem/blk=%zu optin=%zu resv=%zu mem=%zu clkKHz=%d memclkKHz=%d bus=%d\n",
           p.name, p.major, p.minor, p.multiProcessorCount, p.warpSize,
           p.maxThreadsPerMultiProcessor, p.maxBlocksPerMultiProcessor, p.maxThreadsPerBlock,
           p.regsPerMultiprocessor, p.regsPerBlock, p.sharedMemPerMultiprocessor,
           p.sharedMemPerBlock, p.sharedMemPerBlockOptin, p.reservedSharedMemPerBlock,
           p.totalGlobalMem, c, mc, bw);
    const void* K[] = {(void*)e,       (void*)r<1>,     (void*)r<4>,    (void*)r<8>,
                       (void*)r<12>,   (void*)r<16>,    (void*)r<24>,   (void*)r<32>,
                       (void*)r<48>,   (void*)r<56>,    (void*)r<64>,   (void*)r<96>,
                       (void*)r<128>,  (void*)r<200>,   (void*)r<240>,  (void*)m<1024>,
                       (void*)m<5000>, (void*)m<20480>, (void*)m<49152>};
    size_t D[] = {0,     1,     100,   1024,   3000,   8192,   24000,  40000,  48000,
                  49152, 49153, 60000, 100000, 150000, 200000, 232447, 232448, 232449};
    char fn[512];
    snprintf(fn, 512, "%s/rt.csv", getenv("OUT"));
    FILE* f = fopen(fn, "w");
    fprintf(f, "regs,static,optin,maxdyn,block,dyn,rt,st,hdr\n");
    long n = 0, bad = 0;
    for (int oi = 0; oi < 2; ++oi)
        for (auto k : K) {
            cudaFuncAttributes a;
            cudaFuncGetAttributes(&a, k);
            if (oi) {
                cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     int(p.sharedMemPerBlockOptin - a.sharedSizeBytes));
                cudaFuncGetAttributes(&a, k);
            }
            for (int b = 1; b <= 1024; b += (b < 64 ? 1 : 7))
                for (size_t d : D) {
                    int x = -1;
                    cudaError_t s = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&x, k, b, d);
                    cudaGetLastError();
                    cudaOccDeviceProp op(p);
                    cudaOccFuncAttributes oa(a);
                    cudaOccDeviceState os;
                    cudaOccResult rr{};
                    int h = cudaOccMaxActiveBlocksPerMultiprocessor(&rr, &op, &oa, &os, b, d)
                                ? -9
                                : rr.activeBlocksPerMultiprocessor;
                    fprintf(f, "%d,%zu,%d,%d,%d,%zu,%d,%d,%d\n", a.numRegs, a.sharedSizeBytes, oi,
                            a.maxDynamicSharedSizeBytes, b, d, x, s, h);
                    ++n;
                    if (s || x != h)
                        ++bad;
                }
        }
    fclose(f);
    printf("compared %ld mismatches %ld\n", n, bad);
}
