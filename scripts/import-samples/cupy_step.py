"""A CuPy program (elementwise, reduction, a raw kernel) for ncu --csv: the importer's test file.
Used by scripts/make-import-samples.sh."""
import cupy as cp

square = cp.RawKernel(
    r"""
extern "C" __global__ void square(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * x[i];
}
""",
    "square",
)

n = 1 << 20
x = cp.arange(n, dtype=cp.float32)
y = cp.empty_like(x)
square(((n + 255) // 256,), (256,), (x, y, cp.int32(n)))
z = cp.sqrt(y) + 1.0
total = float(z.sum())
print(f"sum {total:.6g}")
