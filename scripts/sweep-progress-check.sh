#!/usr/bin/env bash
# A measured sweep of a GPU and a CPU strategy with --progress: the GPU worker runs every point
# first, then the CPU strategy starts again at the first point. Checks that the progress lines'
# "runs_done" never goes back and ends at "runs" (points x strategies), as the GUI's Sweep panel
# shows it. Needs a GPU; run from the repository root:
#   OUT=/tmp/out bash scripts/sweep-progress-check.sh build/bin/slicescope-cli
# Writes $OUT/sweep-progress/{progress.log,summary.txt}; exits 1 when the check fails.
set -euo pipefail
CLI=${1:?usage: sweep-progress-check.sh SLICESCOPE_CLI}
OUT=${OUT:?set OUT}
dir=$OUT/sweep-progress
mkdir -p "$dir"
"$CLI" sweep --param block --values 64,128,256 --shape 100x4000x5 \
    --strategy slice-2d,elementwise-broadcast,cpu-serial --progress -o "$dir/sweep.json" \
    >"$dir/progress.log" 2>&1
grep '^progress ' "$dir/progress.log" |
    sed -n 's/.*"runs":\([0-9]*\),"runs_done":\([0-9.e+-]*\).*"strategy":"\([^"]*\)".*/\1 \2 \3/p' |
    awk '
        { lines++; if ($2 + 0 < last - 1e-9) { back++; printf "went back: %s after %s (%s)\n", $2, last, $3 }
          last = $2 + 0; runs = $1; if ($3 == "gpu") gpu++; else cpu++ }
        END { printf "%d progress lines (%d gpu, %d cpu), runs %d, last runs_done %g, went back %d times\n",
                     lines, gpu, cpu, runs, last, back
              exit (lines == 0 || back > 0 || gpu == 0 || cpu == 0 || last < runs - 1) ? 1 : 0 }
    ' | tee "$dir/summary.txt"
