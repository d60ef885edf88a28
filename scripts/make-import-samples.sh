#!/usr/bin/env bash
# Makes the importer's real test files on a machine with an NVIDIA GPU, PyTorch, CuPy and
# Nsight Compute (the device machine): a Kineto (torch.profiler) trace of a small CNN step, the
# same program under `ncu --csv` in its default and --page raw layouts, and a CuPy program under
# ncu. Writes them to OUT_DIR (default tests/data/import), each kept under 1 MB.
#   scripts/make-import-samples.sh [OUT_DIR]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../tests/data/import}
mkdir -p "$out"
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
sections=(--section LaunchStats --section Occupancy --section SpeedOfLight)
echo "torch $(python3 -c 'import torch; print(torch.__version__, torch.cuda.get_device_name())')"
python3 "$here/import-samples/cnn.py" --profile "$out/kineto-cnn.json" || echo "FAILED: kineto-cnn"
if [ -n "$ncu" ]; then
    "$ncu" --version | tail -1
    "$ncu" --csv --clock-control none "${sections[@]}" \
        python3 "$here/import-samples/cnn.py" --steps 1 > "$out/ncu-cnn.csv" || echo "FAILED: ncu-cnn"
    "$ncu" --csv --page raw --clock-control none "${sections[@]}" \
        python3 "$here/import-samples/cnn.py" --steps 1 > "$out/ncu-cnn-raw.csv" || echo "FAILED: ncu-cnn-raw"
    "$ncu" --csv --clock-control none "${sections[@]}" \
        python3 "$here/import-samples/cupy_step.py" > "$out/ncu-cupy.csv" || echo "FAILED: ncu-cupy"
else
    echo "FAILED: ncu not found"
fi
ls -l "$out"
