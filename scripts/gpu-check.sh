#!/usr/bin/env bash
# gpu-check.sh: the GPU backend's proof on a machine with a GPU but no Qt, no GoogleTest package and
# no package registry (the lent H200). It configures with the GUI off, builds the engine, the CLI,
# the gpu tests and the benchmark, runs `ctest -L gpu`, the benchmark, records the sample traces,
# and packs logs, report and traces into ONE archive: $OUT/gpu-check.tar.gz (plus report.txt beside
# it for a quick look). Every step runs even when an earlier one failed; the report says which did.
#
# Needs (carried to such a machine): a prefix with the header-only packages and their CMake files
# (nlohmann_json, CLI11, tl-expected) and a GoogleTest source tree:
#   SLICESCOPE_CARRY=<dir> holding prefix/ and googletest/   (default: ../.carry beside the sources)
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$SRC/gpu-check-out}
CARRY=${SLICESCOPE_CARRY:-$SRC/../.carry}
BUILD=${SLICESCOPE_BUILD_DIR:-/tmp/slicescope-gpu-build}
JOBS=${JOBS:-$(nproc)}
WORK=$(mktemp -d /tmp/slicescope-gpu-check.XXXXXX)
mkdir -p "$OUT" "$WORK/logs" "$WORK/samples"
REPORT=$WORK/report.txt
export PATH=/usr/local/cuda/bin:$PATH

pack() { # refreshed after every step, so a run cut short still returns what it did
    cp "$REPORT" "$OUT/report.txt" 2>/dev/null
    tar -czf "$OUT/gpu-check.tar.gz.tmp" -C "$WORK" . && mv "$OUT/gpu-check.tar.gz.tmp" "$OUT/gpu-check.tar.gz"
}

# step NAME TIMEOUT_S COMMAND...: runs it with its output in logs/NAME.log, records rc and time.
step() {
    local name=$1 limit=$2
    shift 2
    local start=$(date +%s%N)
    echo "=== $name: $*" | tee -a "$REPORT"
    timeout --kill-after=10 "$limit" "$@" >"$WORK/logs/$name.log" 2>&1
    local rc=$?
    local ms=$((($(date +%s%N) - start) / 1000000))
    echo "=== $name: exit $rc after ${ms} ms" | tee -a "$REPORT"
    pack
    return $rc
}

{
    echo "SliceScope gpu-check, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "sources: $SRC"
    uname -a
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv 2>&1
    nvcc --version 2>&1 | tail -2
    cmake --version | head -1
    ls /usr/local/cuda*/targets/x86_64-linux/lib/libcupti.so* 2>&1 | head -3
} >"$REPORT"
pack

CONFIGURE=(cmake -S "$SRC" -B "$BUILD" -G Ninja
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSLICESCOPE_BUILD_GUI=OFF -DSLICESCOPE_CUDA=ON
    -DSLICESCOPE_WERROR=OFF -DCMAKE_PREFIX_PATH="$CARRY/prefix"
    -DSLICESCOPE_GTEST_SOURCE_DIR="$CARRY/googletest" -DCMAKE_POLICY_VERSION_MINIMUM=3.5
    -DCMAKE_CUDA_COMPILER="$(command -v nvcc)")
# A quicker build for one GPU: SLICESCOPE_CUDA_ARCHITECTURES=90 (default: every CUDA 13 target).
if [ -n "${SLICESCOPE_CUDA_ARCHITECTURES:-}" ]; then
    CONFIGURE+=(-DSLICESCOPE_CUDA_ARCHITECTURES="$SLICESCOPE_CUDA_ARCHITECTURES")
fi
if ! step configure 180 "${CONFIGURE[@]}"; then
    # Point FindCUDAToolkit at the toolkit nvcc belongs to, should it have looked elsewhere.
    rm -rf "$BUILD"
    step configure-again 180 "${CONFIGURE[@]}" \
        -DCUDAToolkit_ROOT="$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")"
fi
step build 400 cmake --build "$BUILD" -j "$JOBS" --target slicescope-cli slicescope-bench-gpu \
    tst_gpubackend tst_gpufaults tst_activityrecorddecoder tst_gpunodevice tst_gpurunassembly
CLI=$BUILD/bin/slicescope-cli
step devices 60 "$CLI" devices --json

# The gpu tests, then the device-free decoding and run-assembly tests for good measure.
step ctest-gpu 400 ctest --test-dir "$BUILD" -L gpu --output-on-failure --timeout 300
step ctest-decoder 60 ctest --test-dir "$BUILD" -R "ActivityRecordDecoder|ActivityBufferPool|GpuRunAssembly" --output-on-failure

# Sample traces (resources/samples/): real measurements, written by the CLI.
S=$WORK/samples
step sample-seed-pageable 120 "$CLI" run --shape 100x4000x5 --strategy all --memory pageable \
    --print-gpu-trace -o "$S/seed-100x4000x5-f64-pageable.json"
step sample-seed-pinned 120 "$CLI" run --shape 100x4000x5 --strategy all --memory pinned \
    -o "$S/seed-100x4000x5-f64-pinned.json"
step sample-seed-counters 180 "$CLI" run --shape 100x4000x5 --strategy all --memory pageable --counters \
    -o "$S/seed-100x4000x5-f64-pageable-counters.json"
step sample-larger 180 "$CLI" run --shape 400x16000x5 --strategy all --memory pinned \
    -o "$S/larger-400x16000x5-f64-pinned.json"
ls -l "$S" >>"$REPORT"

step bench 300 "$BUILD/bin/slicescope-bench-gpu" --cli "$CLI"
# Figure 1 on wide rows too (multBy 2 MB, past L1), for comparison with the seed's proportions.
step bench-wide 120 "$BUILD/bin/slicescope-bench-gpu" --cli "$CLI" --rows 1024 --columns 50000 --cli-runs 0
# What the engine's grid for elementwise-broadcast rests on: items per thread against bandwidth.
step bench-grid-sweep 300 "$BUILD/bin/slicescope-bench-gpu" --grid-sweep

{
    echo
    echo "--- ctest -L gpu (tail)"
    tail -n 60 "$WORK/logs/ctest-gpu.log"
    echo
    echo "--- bench"
    cat "$WORK/logs/bench.log"
    echo
    echo "--- bench, wide rows"
    cat "$WORK/logs/bench-wide.log"
    echo
    echo "--- bench, grid sweep"
    cat "$WORK/logs/bench-grid-sweep.log"
} >>"$REPORT"
pack
echo "archive: $OUT/gpu-check.tar.gz"
cat "$REPORT"
