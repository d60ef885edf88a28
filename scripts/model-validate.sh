#!/usr/bin/env bash
# Out-of-sample check of the model (docs/model.md, "Validation"). The model's kernel constants are
# fitted on the H200 at the seed shape only (100x4000x5 f64, work 1, numba blocks); this measures
# every GPU strategy on this machine's GPU in four settings that each change one of those, and
# compares each run with the model on the matching preset (slicescope-bench-model). Target: every
# strategy within 1.5x.
#
# Usage: OUT=dir scripts/model-validate.sh path/to/slicescope-cli [path/to/slicescope-bench-model]
#   The traces go to $OUT (default ./model-validation) as model-validation-<setting>.json and the
#   table to $OUT/model-validation.md. Copy the traces into tests/data/model-validation/ for
#   tst_modelbackend to hold the model to them. Exit status: the comparison's (1 if any strategy is
#   outside 1.5x).
set -euo pipefail

if [ $# -lt 1 ]; then
    echo "usage: OUT=dir $0 path/to/slicescope-cli [path/to/slicescope-bench-model]" >&2
    exit 2
fi
cli=$1
bench=${2:-$(dirname "$cli")/slicescope-bench-model}
out=${OUT:-model-validation}
mkdir -p "$out"
for program in "$cli" "$bench"; do
    if [ ! -x "$program" ]; then
        echo "$0: '$program' is not an executable" >&2
        exit 2
    fi
done

strategies=one-worker,slice-outer,slice-middle,slice-middle-strided,slice-2d
strategies=$strategies,elementwise-materialized,elementwise-broadcast
seed=100x4000x5
# setting name, then the flags that differ from the seed run (defaults: f64, work 1, numba,
# pageable, repeat 1).
settings=(
    "shape-10x|--shape 1000x4000x5"
    "work-100|--shape $seed --work 100"
    "f32|--shape $seed --dtype f32"
    "numba-cuda|--shape $seed --block numba-cuda"
)
traces=()
for entry in "${settings[@]}"; do
    name=${entry%%|*}
    read -r -a flags <<<"${entry#*|}"
    trace="$out/model-validation-$name.json"
    echo "== $name: slicescope-cli run ${flags[*]} --strategy (every GPU strategy)" >&2
    "$cli" run "${flags[@]}" --strategy "$strategies" -o "$trace"
    traces+=("$trace")
done

status=0
"$bench" "${traces[@]}" | tee "$out/model-validation.md" || status=$?
exit $status
