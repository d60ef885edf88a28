#!/usr/bin/env bash
# device-check.sh: the whole GPU proof in one device call: gpu-check.sh (GPU backend, faults,
# benchmark, samples) then record-check.sh (recording), sharing one build for sm_90. Each packs its
# own archive under $OUT as it goes, so a call cut short still returns what was done.
#   OUT=$OUT SLICESCOPE_CARRY=$PWD/.carry bash scripts/device-check.sh
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
export SLICESCOPE_CUDA_ARCHITECTURES=${SLICESCOPE_CUDA_ARCHITECTURES:-90}
export SLICESCOPE_BUILD_DIR=${SLICESCOPE_BUILD_DIR:-/tmp/slicescope-device-build}
bash "$SRC/scripts/gpu-check.sh" > "$OUT/gpu-check-stdout.txt" 2>&1
echo "gpu-check exit $?"
tail -n 40 "$OUT/gpu-check-stdout.txt"
bash "$SRC/scripts/record-check.sh" > "$OUT/record-check-stdout.txt" 2>&1
echo "record-check exit $?"
tail -n 60 "$OUT/record-check-stdout.txt"
