#!/usr/bin/env bash
# sweep-samples.sh: the sweep and roofline samples, measured on the GPU in one go, with the
# timings of the sweep benchmark. Run from the repository root on the GPU machine:
#   OUT=dir bash scripts/sweep-samples.sh [path/to/slicescope-cli]
# The CLI: the argument, else $SLICESCOPE_CLI, else build/bin/slicescope-cli; the benchmark
# (slicescope-bench-gpu) is looked for beside it. Writes into $OUT/sweep/:
#   block-sweep-timing.txt            32-point block sweep of 3 strategies at the seed shape, with
#                                     and without counters (targets: <= 15 s and <= 5 s)
#   sweep-block-32-1024-counters.json block sweep 32..1024 of slice-2d and elementwise-broadcast,
#                                     with counters
#   sweep-work-1-4096.json            work sweep 1..4096 of elementwise-broadcast against
#                                     cpu-parallel at the seed shape, 3 repetitions a point (one
#                                     noisy repetition made false crossovers), its crossover printed
#   sweep-rows-100-100000.json        rows 100..100000 of every GPU strategy
#   roofline-seed.json, roofline-seed.csv, roofline-seed.txt
#                                     the seed's strategies with measured ceilings, and the table
#   bench-sweep.log                   slicescope-bench-gpu --sweep (the docs/performance.md rows)
#   *.log, summary.txt                what each command printed, its exit status and wall time
# SLICESCOPE_SWEEP_ROWS=0 leaves out the rows sweep (389 s on the H200: more than a device call
# holds beside the other steps). Every command runs even when an earlier one failed; the exit
# status is the number that failed.
# The traces are the samples of resources/samples/ (copy them there after a look).
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:?set OUT}/sweep
CLI=${1:-${SLICESCOPE_CLI:-$SRC/build/bin/slicescope-cli}}
if [ ! -x "$CLI" ]; then
    echo "$0: '$CLI' is not an executable" >&2
    exit 2
fi
SEED=(--shape 100x4000x5)
mkdir -p "$OUT"
failed=0

run() { # run NAME COMMAND...: its output in $OUT/NAME.log, its wall time and status in the log too
    local name=$1
    shift
    local start end rc
    start=$(date +%s.%N)
    "$@" >"$OUT/$name.log" 2>&1
    rc=$?
    end=$(date +%s.%N)
    printf '%s: exit %d, %s s: %s\n' "$name" "$rc" "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')" "$*" |
        tee -a "$OUT/summary.txt"
    [ "$rc" -eq 0 ] || failed=$((failed + 1))
}

: >"$OUT/summary.txt"
# The performance targets: one worker process and one CUDA context for the whole sweep.
run block-sweep-plain "$CLI" sweep --param block --range 32:1024:+32 "${SEED[@]}" \
    --strategy slice-2d,slice-outer,elementwise-broadcast -q -o "$OUT/block-sweep-plain.json"
run block-sweep-counters "$CLI" sweep --param block --range 32:1024:+32 "${SEED[@]}" \
    --strategy slice-2d,slice-outer,elementwise-broadcast --counters -q -o "$OUT/block-sweep-counters.json"
grep -E '^block-sweep' "$OUT/summary.txt" >"$OUT/block-sweep-timing.txt"
rm -f "$OUT/block-sweep-plain.json" "$OUT/block-sweep-counters.json" # timings only: small files back

# The samples of the issue.
run sweep-block-32-1024-counters "$CLI" sweep --param block --range 32:1024:x2 "${SEED[@]}" \
    --strategy slice-2d,elementwise-broadcast --counters -o "$OUT/sweep-block-32-1024-counters.json"
run sweep-work-1-4096 "$CLI" sweep --param work --range 1:4096:x2 "${SEED[@]}" \
    --strategy elementwise-broadcast,cpu-parallel --repeat 3 -o "$OUT/sweep-work-1-4096.json"
run roofline-seed-run "$CLI" run "${SEED[@]}" --strategy all --roofline -o "$OUT/roofline-seed.json"
run roofline-seed-table "$CLI" roofline "$OUT/roofline-seed.json"
cp "$OUT/roofline-seed-table.log" "$OUT/roofline-seed.txt"
run roofline-seed-csv "$CLI" roofline --csv "$OUT/roofline-seed.json"
cp "$OUT/roofline-seed-csv.log" "$OUT/roofline-seed.csv"

# The benchmark's sweep figures, beside the CLI when it was built.
BENCH=$(dirname "$CLI")/slicescope-bench-gpu
if [ -x "$BENCH" ]; then
    run bench-sweep "$BENCH" --sweep --cli-runs 3
fi

# Last, the longest: one-worker at 100000 rows is one thread doing 2e9 steps (144 s on the H200,
# beyond the default 60 s kernel limit), and each array is 16 GB: no warm-up (the whole sweep took
# 389 s with none).
if [ "${SLICESCOPE_SWEEP_ROWS:-1}" = 0 ]; then
    echo "sweep-rows-100-100000: not run (SLICESCOPE_SWEEP_ROWS=0)" | tee -a "$OUT/summary.txt"
else
    run sweep-rows-100-100000 "$CLI" sweep --param rows --range 100:100000:x10 --shape 100x4000x5 \
        --strategy one-worker,slice-outer,slice-middle,slice-middle-strided,slice-2d,elementwise-materialized,elementwise-broadcast \
        --warmup 0 --kernel-timeout 300 --progress -o "$OUT/sweep-rows-100-100000.json"
fi

cat "$OUT/summary.txt"
exit "$failed"
