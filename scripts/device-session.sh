#!/usr/bin/env bash
# device-session.sh: one device call that proves a session's GPU work on the lent H200 (no Qt,
# no GoogleTest, no network there): the live GUI check from the carried bundle
# (scripts/gui-device-check.sh, when .carry holds it), then an sm_90 build of the engine, CLI and
# tests with the GUI off, `ctest -L gpu` (GPU backend, pipelines, sweeps, faults, recording), the
# model's out-of-sample check (scripts/model-validate.sh --set four), the seed samples re-recorded
# (scripts/seed-samples.sh), the pipeline samples and figures (scripts/pipeline-samples.sh), the
# numba seed recorded with counters (measured thread use), and the sweep samples and timings
# (scripts/sweep-samples.sh), longest last. Every step runs even when an earlier one failed, each
# within what is left of the call's budget (SLICESCOPE_DEVICE_BUDGET_S, default 570 s: the device
# tool allows 600 s a command); logs and traces go to $OUT/gpu-logs.tar.gz.
#   scripts/make-carry.sh [--gui]   # here, first: .carry/ with prefix/, googletest/[, the bundle]
#   device run: OUT is set by the tool; command `bash scripts/device-session.sh`, carry [".carry"]
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:?set OUT}
CARRY=${SLICESCOPE_CARRY:-$SRC/.carry}
BUILD=/tmp/slicescope-device-session
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p "$OUT/gui" "$OUT/gpu"
summary=$OUT/gpu/summary.txt
DEADLINE=$(($(date +%s) + ${SLICESCOPE_DEVICE_BUDGET_S:-570}))
step() { # step NAME LIMIT_S COMMAND...: output to $OUT/gpu/NAME.log, exit status to the summary
    local name=$1 limit=$2
    shift 2
    local left=$((DEADLINE - $(date +%s) - 15))
    if [ "$left" -lt 10 ]; then
        echo "$name: not run, the call's time is spent" | tee -a "$summary"
        return
    fi
    [ "$limit" -gt "$left" ] && limit=$left
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

if [ -f "$CARRY/gui-bundle.tar.xz" ]; then
    OUT=$OUT/gui timeout --kill-after=10 200 bash "$SRC/scripts/gui-device-check.sh" >"$OUT/gui/stdout.txt" 2>&1
    echo "gui-device-check: exit $?" | tee -a "$summary"
else
    echo "gui-device-check: not run, no $CARRY/gui-bundle.tar.xz (scripts/make-carry.sh --gui)" | tee -a "$summary"
fi

step configure 120 cmake -S "$SRC" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DSLICESCOPE_BUILD_GUI=OFF -DSLICESCOPE_CUDA=ON -DSLICESCOPE_WERROR=OFF \
    -DSLICESCOPE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH="$CARRY/prefix" \
    -DSLICESCOPE_GTEST_SOURCE_DIR="$CARRY/googletest" -DCMAKE_POLICY_VERSION_MINIMUM=3.5 \
    -DCMAKE_CUDA_COMPILER="$(command -v nvcc)"
step build 300 cmake --build "$BUILD" -j "$(nproc)"
step ctest-gpu 300 ctest --test-dir "$BUILD" -L gpu --output-on-failure --timeout 120
step model-validate 120 env OUT="$OUT/gpu" bash "$SRC/scripts/model-validate.sh" --set four "$BUILD/bin/slicescope-cli"
step seed-samples 150 env OUT="$OUT/gpu" bash "$SRC/scripts/seed-samples.sh" "$BUILD/bin/slicescope-cli"
step pipeline 300 env OUT="$OUT/gpu" bash "$SRC/scripts/pipeline-samples.sh" "$BUILD/bin/slicescope-cli" \
    "$BUILD/bin/slicescope-bench-gpu"
# Recorded kernels' measured thread use (docs/trace-format.md, active_lane_share); numba-cuda 0.30
# needs numpy.row_stack, which NumPy 2 removed (docs/design.md, "Injection").
mkdir -p /tmp/numbafix
printf 'import numpy\nif not hasattr(numpy, "row_stack"):\n    numpy.row_stack = numpy.vstack\n' \
    >/tmp/numbafix/sitecustomize.py
step record-numba 150 "$BUILD/bin/slicescope-cli" record --counters --env PYTHONPATH=/tmp/numbafix \
    -o "$OUT/gpu/recorded-numba.json" -- python3 "$SRC/docs/recording/seed_numba.py"
python3 -c 'import json,sys
for a in json.load(open(sys.argv[1]))["runs"][0]["activities"]:
    if a["kind"] == "kernel": print(a.get("name","")[:60], a["grid"], a["block"], "active_lane_share", a.get("active_lane_share"))' \
    "$OUT/gpu/recorded-numba.json" 2>&1 | tee -a "$summary"
# A measured sweep of GPU and CPU strategies with --progress: runs_done never goes back.
step sweep-progress 120 env OUT="$OUT/gpu" bash "$SRC/scripts/sweep-progress-check.sh" "$BUILD/bin/slicescope-cli"
# The rows sweep (389 s) does not fit beside the rest: run it alone with
# `OUT=... bash scripts/sweep-samples.sh CLI` when its sample needs re-measuring.
step sweep-samples 480 env OUT="$OUT/gpu" SLICESCOPE_SWEEP_ROWS=0 bash "$SRC/scripts/sweep-samples.sh" "$BUILD/bin/slicescope-cli"
cat "$summary"
grep -E "tests passed|\*\*\*Failed|Skipped" "$OUT/gpu/ctest-gpu.log" | head -20
cat "$OUT/gpu/model-validation.md" 2>/dev/null | tail -40
cat "$OUT/gpu/samples/summary.txt" 2>/dev/null
grep -E "^\| [0-9S]|pipeline:" "$OUT/gpu/pipeline/bench.txt" 2>/dev/null
cat "$OUT/gpu/sweep/summary.txt" "$OUT/gpu/sweep/bench-sweep.log" 2>/dev/null | tail -20
grep -h "crossover" "$OUT"/gpu/sweep/*.log 2>/dev/null | head
tar -czf "$OUT/gpu-logs.tar.gz" -C "$OUT" gpu && rm -rf "$OUT/gpu"
tar -tzf "$OUT/gpu-logs.tar.gz" >/dev/null && echo "logs: gpu-logs.tar.gz"
