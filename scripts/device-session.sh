#!/usr/bin/env bash
# device-session.sh: one device call that proves a session's GPU work on the lent H200 (no Qt,
# no GoogleTest, no network there): the live GUI check from the carried bundle
# (scripts/gui-device-check.sh), then an sm_90 build of the engine, CLI and tests with the GUI
# off, `ctest -L gpu` (GPU backend, faults, recording) and the model's out-of-sample check
# (scripts/model-validate.sh). Every step runs even when an earlier one failed; logs go to $OUT.
#   scripts/make-carry.sh --gui     # here, first: .carry/ with prefix/, googletest/, the bundle
#   device run: OUT is set by the tool; command `bash scripts/device-session.sh`, carry [".carry"]
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:?set OUT}
CARRY=${SLICESCOPE_CARRY:-$SRC/.carry}
BUILD=/tmp/slicescope-device-session
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p "$OUT/gui" "$OUT/gpu"
summary=$OUT/gpu/summary.txt
step() { # step NAME LIMIT_S COMMAND...: output to $OUT/gpu/NAME.log, exit status to the summary
    local name=$1 limit=$2
    shift 2
    local start=$(date +%s)
    timeout --kill-after=10 "$limit" "$@" >"$OUT/gpu/$name.log" 2>&1
    local rc=$?
    echo "$name: exit $rc after $(($(date +%s) - start)) s" | tee -a "$summary"
}
{
    date -u +%Y-%m-%dT%H:%M:%SZ
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1
    git -C "$SRC" log --oneline -1 2>/dev/null || true
} >"$summary"

OUT=$OUT/gui timeout --kill-after=10 200 bash "$SRC/scripts/gui-device-check.sh" >"$OUT/gui/stdout.txt" 2>&1
echo "gui-device-check: exit $?" | tee -a "$summary"

step configure 120 cmake -S "$SRC" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DSLICESCOPE_BUILD_GUI=OFF -DSLICESCOPE_CUDA=ON -DSLICESCOPE_WERROR=OFF \
    -DSLICESCOPE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH="$CARRY/prefix" \
    -DSLICESCOPE_GTEST_SOURCE_DIR="$CARRY/googletest" -DCMAKE_POLICY_VERSION_MINIMUM=3.5 \
    -DCMAKE_CUDA_COMPILER="$(command -v nvcc)"
step build 300 cmake --build "$BUILD" -j "$(nproc)"
step ctest-gpu 240 ctest --test-dir "$BUILD" -L gpu --output-on-failure --timeout 120
step model-validate 120 env OUT="$OUT/gpu" bash "$SRC/scripts/model-validate.sh" "$BUILD/bin/slicescope-cli"
cat "$summary"
tail -n 30 "$OUT/gpu/ctest-gpu.log"
cat "$OUT/gpu/model-validation.md" 2>/dev/null
tar -czf "$OUT/gpu-logs.tar.gz" -C "$OUT" gpu && rm -rf "$OUT/gpu"
tar -tzf "$OUT/gpu-logs.tar.gz" >/dev/null && echo "logs: gpu-logs.tar.gz"
