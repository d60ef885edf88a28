"""The seed's computation in numba, for `slicescope-cli record` (docs/recording.md).

cv[r][c][n] = multBy[c][n] * discount[r][c][n], float64, R x C x N = 100 x 4000 x 5, three ways:
  1. @guvectorize whose signature maps the whole array to one worker (the seed's slow version),
  2. @guvectorize sliced along the outer dimension (R = 100 workers; multBy repeated per slice),
  3. @vectorize, one thread per element, with multBy expanded to the full shape on the host.
Each result is checked against NumPy. Plain numba-cuda: nothing here knows it is being recorded.
"""
import sys
import time

import numpy as np
from numba import cuda, guvectorize, vectorize

R, C, N = 100, 4000, 5


@guvectorize(["void(float64[:,:], float64[:,:,:], float64[:,:,:])"], "(c,n),(r,c,n)->(r,c,n)", target="cuda")
def whole_array(mult_by, discount, cv):
    for r in range(discount.shape[0]):
        for c in range(discount.shape[1]):
            for n in range(discount.shape[2]):
                cv[r, c, n] = mult_by[c, n] * discount[r, c, n]


@guvectorize(["void(float64[:,:], float64[:,:], float64[:,:])"], "(c,n),(c,n)->(c,n)", target="cuda")
def outer_slice(mult_by, discount, cv):
    for c in range(discount.shape[0]):
        for n in range(discount.shape[1]):
            cv[c, n] = mult_by[c, n] * discount[c, n]


@vectorize(["float64(float64, float64)"], target="cuda")
def multiply(a, b):
    return a * b


def timed(label, function):
    start = time.perf_counter()
    result = function()
    print(f"{label}: {1e3 * (time.perf_counter() - start):.2f} ms", flush=True)
    return result


def main():
    rng = np.random.default_rng(2026)
    mult_by = rng.random((C, N))
    discount = rng.random((R, C, N))
    expected = mult_by[np.newaxis, :, :] * discount
    name = cuda.get_current_device().name
    print(f"numba-cuda on {name.decode() if isinstance(name, bytes) else name}", flush=True)

    results = {
        "guvectorize, whole array (1 worker)": timed(
            "guvectorize, whole array (1 worker)", lambda: whole_array(mult_by, discount)),
        "guvectorize, outer slices (100 workers)": timed(
            "guvectorize, outer slices (100 workers)",
            lambda: outer_slice(np.ascontiguousarray(np.broadcast_to(mult_by, discount.shape)), discount)),
        "vectorize, one thread per element": timed(
            "vectorize, one thread per element",
            lambda: multiply(np.ascontiguousarray(np.broadcast_to(mult_by, discount.shape)), discount)),
    }
    ok = True
    for label, cv in results.items():
        error = float(np.max(np.abs(cv - expected)))
        print(f"{label}: max abs error {error}", flush=True)
        ok = ok and error == 0.0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
