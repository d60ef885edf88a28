#!/usr/bin/env bash
# The model's validation sets (docs/model.md, "Validation" and "Wide validation"): measure every GPU
# strategy on this machine's GPU in each setting of a set, then compare each run with the model on
# the matching preset (slicescope-bench-model).
#
#   wide (the default): issue 24's set. N in {1, 3, 5, 9, 17, 33}, work in {1, 8, 64}, f32 and
#     f64, each of those 36 settings at one of six shapes from 50x500 to 2000x8000 (assigned so
#     that every shape meets every N and every work, the next smaller one where the arrays would
#     pass 64M elements), measured warm (a warm-up launch first, then 3 repetitions). one-worker, a
#     single thread walking the whole array, is measured only where that takes well under a second
#     (elements x max(1, work/8) <= 2M): beyond, one launch would take minutes. One trace per
#     setting, $OUT/wide-<dtype>-n<N>-w<work>-<R>x<C>.json, the command line of each in
#     $OUT/settings.txt (the order the fit and held-out halves alternate in), then the summary of
#     scripts/model-wide-summary.py. Copy the directory to tests/data/model-validation-wide/.
#   four: the first out-of-sample check, four settings that each change one thing from the seed
#     (100x4000x5 f64, work 1, numba blocks): 10x the shape, --work 100, f32, numba-cuda blocks.
#     Traces $OUT/model-validation-<setting>.json and the bench's table $OUT/model-validation.md;
#     exit status 1 if any strategy is outside 1.5x. Copy the traces to tests/data/model-validation/.
#
# Usage: OUT=dir scripts/model-validate.sh [--set wide|four] path/to/slicescope-cli [path/to/slicescope-bench-model]
#        scripts/model-validate.sh [--set wide|four] --list      (the settings, nothing run)
set -euo pipefail

set_name=wide
if [ "${1:-}" = "--set" ]; then
    set_name=${2:-}
    shift 2 || true
fi
case "$set_name" in
wide | four) ;;
*)
    echo "$0: --set takes wide or four, not '$set_name'" >&2
    exit 2
    ;;
esac
cli=${1:-}
if [ -z "$cli" ]; then
    echo "usage: OUT=dir $0 [--set wide|four] path/to/slicescope-cli [path/to/slicescope-bench-model]" >&2
    echo "       $0 [--set wide|four] --list" >&2
    exit 2
fi
settings=() # "name|flags of slicescope-cli run"
if [ "$set_name" = four ]; then
    strategies=one-worker,slice-outer,slice-middle,slice-middle-strided,slice-2d
    strategies=$strategies,elementwise-materialized,elementwise-broadcast
    seed=100x4000x5
    # The flags that differ from the seed run (defaults: f64, work 1, numba, pageable, repeat 1).
    for entry in "shape-10x|--shape 1000x4000x5" "work-100|--shape $seed --work 100" \
        "f32|--shape $seed --dtype f32" "numba-cuda|--shape $seed --block numba-cuda"; do
        settings+=("model-validation-${entry%%|*}|${entry#*|} --strategy $strategies")
    done
else
    shapes=(50x500 100x4000 500x2000 1000x1000 200x8000 2000x8000)
    gpu=slice-outer,slice-middle,slice-middle-strided,slice-2d
    gpu=$gpu,elementwise-materialized,elementwise-broadcast,elementwise-grid-stride
    max_elements=$((64 * 1024 * 1024))
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
fi

if [ "$cli" = "--list" ]; then
    for entry in "${settings[@]}"; do echo "${entry%%|*}: run ${entry#*|}"; done
    exit 0
fi
bench=${2:-$(dirname "$cli")/slicescope-bench-model}
for program in "$cli" "$bench"; do
    if [ ! -x "$program" ]; then
        echo "$0: '$program' is not an executable" >&2
        exit 2
    fi
done
out=${OUT:-model-validation-$set_name}
mkdir -p "$out"
: >"$out/settings.txt"
traces=()
status=0
for entry in "${settings[@]}"; do
    name=${entry%%|*}
    read -r -a flags <<<"${entry#*|}"
    echo "$name: slicescope-cli run ${flags[*]}" | tee -a "$out/settings.txt" >&2
    "$cli" run "${flags[@]}" -q -o "$out/$name.json" || status=$?
    traces+=("$out/$name.json")
done

if [ "$set_name" = four ]; then
    "$bench" "${traces[@]}" | tee "$out/model-validation.md" || status=$?
else
    python3 "$(dirname "$0")/model-wide-summary.py" --data "$out" "$bench" | tee "$out/summary.txt" || status=$?
fi
exit $status
