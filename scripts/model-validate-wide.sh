#!/usr/bin/env bash
# The model's wide validation set (docs/model.md, "Wide validation"): every GPU strategy over
# N in {1, 3, 5, 9, 17, 33}, work in {1, 8, 64}, f32 and f64, each of those 36 settings at one of
# six shapes from 50x500 to 2000x8000 (assigned so that every shape meets every N and every work, the next smaller one where the arrays
# would pass 64M elements), measured warm (a warm-up launch first, then 3 repetitions).
# one-worker, a single thread walking the whole array, is measured only where that takes well
# under a second (elements x max(1, work/8) <= 2M): beyond, one launch would take minutes.
#
# Usage: OUT=dir scripts/model-validate-wide.sh path/to/slicescope-cli
#   One trace per setting: $OUT/wide-<dtype>-n<N>-w<work>-<R>x<C>.json, and $OUT/settings.txt,
#   the command line of each. The settings are listed before anything runs (--list prints them).
set -euo pipefail

cli=${1:-}
if [ "$cli" = "--list" ]; then cli=; fi
out=${OUT:-model-validation-wide}

shapes=(50x500 100x4000 500x2000 1000x1000 200x8000 2000x8000)
gpu=slice-outer,slice-middle,slice-middle-strided,slice-2d
gpu=$gpu,elementwise-materialized,elementwise-broadcast,elementwise-grid-stride
max_elements=$((64 * 1024 * 1024))

settings=()
d=0
for dtype in f64 f32; do
    k=0
    for n in 1 3 5 9 17 33; do
        w=0
        for work in 1 8 64; do
            # Every shape meets every N, and every work at every dtype.
            s=$(((k + 2 * w + 3 * d) % ${#shapes[@]}))
            while :; do
                shape=${shapes[$s]}
                r=${shape%x*}
                c=${shape#*x}
                if [ $((r * c * n)) -le $max_elements ] || [ "$s" -eq 0 ]; then break; fi
                s=$((s - 1))
            done
            strategies=$gpu
            factor=$((work / 8))
            [ "$factor" -lt 1 ] && factor=1
            if [ $((r * c * n * factor)) -le $((2 * 1024 * 1024)) ]; then
                strategies=one-worker,$strategies
            fi
            settings+=("wide-$dtype-n$n-w$work-${r}x$c|--shape ${r}x${c}x$n --dtype $dtype --work $work --repeat 3 --strategy $strategies")
            w=$((w + 1))
        done
        k=$((k + 1))
    done
    d=$((d + 1))
done

if [ -z "$cli" ]; then
    for entry in "${settings[@]}"; do echo "${entry%%|*}: run ${entry#*|}"; done
    exit 0
fi
if [ ! -x "$cli" ]; then
    echo "$0: '$cli' is not an executable" >&2
    exit 2
fi
mkdir -p "$out"
: >"$out/settings.txt"
status=0
for entry in "${settings[@]}"; do
    name=${entry%%|*}
    read -r -a flags <<<"${entry#*|}"
    echo "$name: slicescope-cli run ${flags[*]}" | tee -a "$out/settings.txt" >&2
    "$cli" run "${flags[@]}" -q -o "$out/$name.json" || status=$?
done
exit $status
