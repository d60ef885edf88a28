#!/usr/bin/env bash
# record-check.sh: recording's proof (docs/recording.md) on a machine with a GPU but no Qt, no GoogleTest
# package and no package registry (the lent H200). Configures with the GUI off and the kernels
# for this GPU only, builds the CLI, the injection library and the recording tests, runs them
# (the gpu test tst_record and the device-free ones), records the sample programs
# (docs/recording.md: the numba seed and the C++ seed, both with --counters), prints the key
# figures of each trace, and packs logs, report and traces into ONE archive:
# $OUT/record-check.tar.gz (report.txt beside it). Every step runs even when one before failed.
#
# Needs SLICESCOPE_CARRY=<dir> holding prefix/ and googletest/ (default: .carry in the sources,
# else ../.carry beside them), as scripts/gpu-check.sh does. From the repository root on the
# device machine: OUT=$OUT bash scripts/record-check.sh
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$SRC/record-check-out}
if [ -d "$SRC/.carry" ]; then DEFAULT_CARRY=$SRC/.carry; else DEFAULT_CARRY=$SRC/../.carry; fi
CARRY=${SLICESCOPE_CARRY:-$DEFAULT_CARRY}
BUILD=${SLICESCOPE_BUILD_DIR:-/tmp/slicescope-record-build}
ARCH=${SLICESCOPE_CUDA_ARCHITECTURES:-90}
JOBS=${JOBS:-$(nproc)}
WORK=$(mktemp -d /tmp/slicescope-record-check.XXXXXX)
mkdir -p "$OUT" "$WORK/logs" "$WORK/samples"
REPORT=$WORK/report.txt
export PATH=/usr/local/cuda/bin:$PATH

pack() {
    cp "$REPORT" "$OUT/report.txt" 2>/dev/null
    tar -czf "$OUT/record-check.tar.gz.tmp" -C "$WORK" . && mv "$OUT/record-check.tar.gz.tmp" "$OUT/record-check.tar.gz"
}

step() { # step NAME TIMEOUT_S COMMAND...
    local name=$1 limit=$2
    shift 2
    local start=$(date +%s%N)
    echo "=== $name: $*" | tee -a "$REPORT"
    timeout --kill-after=10 "$limit" "$@" >"$WORK/logs/$name.log" 2>&1
    local rc=$?
    echo "=== $name: exit $rc after $((($(date +%s%N) - start) / 1000000)) ms" | tee -a "$REPORT"
    pack
    return $rc
}

{
    echo "SliceScope record-check, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1
    nvcc --version 2>&1 | tail -1
    python3 -c 'import numba, numpy; print("numba", numba.__version__, "numpy", numpy.__version__)' 2>&1
    python3 -c 'import numba_cuda; print("numba-cuda", numba_cuda.__version__)' 2>&1
} >"$REPORT"
pack

CONFIGURE=(cmake -S "$SRC" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSLICESCOPE_BUILD_GUI=OFF
    -DSLICESCOPE_CUDA=ON -DSLICESCOPE_WERROR=OFF -DSLICESCOPE_CUDA_ARCHITECTURES="$ARCH"
    -DCMAKE_PREFIX_PATH="$CARRY/prefix" -DSLICESCOPE_GTEST_SOURCE_DIR="$CARRY/googletest"
    -DCMAKE_POLICY_VERSION_MINIMUM=3.5 -DCMAKE_CUDA_COMPILER="$(command -v nvcc)")
if ! step configure 120 "${CONFIGURE[@]}"; then
    rm -rf "$BUILD"
    step configure-again 120 "${CONFIGURE[@]}" \
        -DCUDAToolkit_ROOT="$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")"
fi
step build 200 cmake --build "$BUILD" -j "$JOBS" --target slicescope-cli slicescope-inject recordme \
    tst_record tst_injectionlifecycle tst_recorder tst_spoolformat
CLI=$BUILD/bin/slicescope-cli

step ctest-record 200 ctest --test-dir "$BUILD" --output-on-failure --timeout 120 -V \
    -R 'RecordGpu|InjectionLifecycle|RunFromSpools|RecordProgram|SpoolFormat|ShellQuote|cli\.record'

# The samples (resources/samples/): real recordings, never edited.
S=$WORK/samples
# The commands of docs/recording.md, from the source tree.
cd "$SRC"
mkdir -p /tmp/numbafix
# numba-cuda 0.30 needs numpy.row_stack, which NumPy 2 removed (docs/design.md, "Injection").
printf 'import numpy\nif not hasattr(numpy, "row_stack"):\n    numpy.row_stack = numpy.vstack\n' \
    >/tmp/numbafix/sitecustomize.py
step sample-numba 120 "$CLI" record --counters --progress --env PYTHONPATH=/tmp/numbafix \
    -o "$S/recorded-numba.json" -- python3 docs/recording/seed_numba.py
step compile-seed 60 nvcc -O2 -arch=sm_90 -o /tmp/seed docs/recording/seed.cu
step sample-cpp 90 "$CLI" record --counters --progress -o "$S/recorded-cpp.json" -- /tmp/seed
ls -l "$S" >>"$REPORT"

summarize() { # the key figures of a recorded trace
    python3 - "$1" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
acts = run["activities"]
print(f'{sys.argv[1].rsplit("/", 1)[-1]}: {run["command"]!r} exit {run["exit_status"]}, device {run["device"]["name"]}, '
      f'{len(acts)} activities, dropped {run["dropped_records"]}')
kinds = {}
for a in acts:
    kinds[a["kind"]] = kinds.get(a["kind"], 0) + 1
print("  kinds:", kinds)
for a in acts:
    if a["kind"] == "kernel":
        print(f'  kernel {a.get("name","")[:70]!s:70} grid {a["grid"]} block {a["block"]} regs {a["registers_per_thread"]} '
              f'smem {a["static_shared_bytes"]}+{a["dynamic_shared_bytes"]} {(a["end_ns"]-a["start_ns"])/1e3:.1f} us '
              f'theo {a.get("theoretical_occupancy")} achieved {a.get("achieved_occupancy")}')
        # Measured thread use (record --counters): lanes active per warp instruction, and the
        # threads' worth of work that makes (numba's whole-array gufunc: 1 of 1024).
        share = a.get("active_lane_share")
        launched = (a["grid"][0] * a["grid"][1] * a["grid"][2] * a["block"][0] * a["block"][1] * a["block"][2])
        if share is None:
            print('    thread use: unknown (no active_lane_share; was it recorded with --counters?)')
        else:
            print(f'    thread use: {share * 32:.2f} of 32 threads active per warp instruction, '
                  f'about {max(1, round(launched * share))} of {launched} launched threads worth of work')
    elif a["kind"] in ("htod", "dtoh", "dtod", "memset"):
        print(f'  {a["kind"]} {a["bytes"]} B {a.get("src_kind","")}->{a.get("dst_kind","")} {(a["end_ns"]-a["start_ns"])/1e3:.1f} us')
for n in run["notes"]:
    print("  note:", n)
PY
}
{
    echo
    for f in "$S"/*.json; do summarize "$f"; echo; done
    echo "--- ctest (failures and tails)"
    grep -E "Failure|FAILED|tests passed|SKIPPED|peak RSS|Passed|Failed" "$WORK/logs/ctest-record.log" | tail -n 60
    echo "--- sample-numba (tail)"
    tail -n 15 "$WORK/logs/sample-numba.log"
    echo "--- sample-cpp (tail)"
    tail -n 15 "$WORK/logs/sample-cpp.log"
} >>"$REPORT" 2>&1
pack
echo "archive: $OUT/record-check.tar.gz"
cat "$REPORT"
