#!/usr/bin/env bash
# seed-samples.sh: re-records the four `run` sample traces of resources/samples/ on a GPU machine,
# with their exact commands from resources/samples/README.md (the default launch options: f64,
# work 1, numba-style blocks, one repetition after the default one warm-up iteration). Each trace
# goes to $OUT/samples/<name>.json beside <name>.log (what the CLI printed: the run summaries);
# summary.txt says when, on what, at which commit, and each command's exit status.
#
#   OUT=dir bash scripts/seed-samples.sh path/to/slicescope-cli      (from the repository root)
#
# Copy the traces over resources/samples/ and fill in the date and commit in its README.md. The
# two recorded- samples come from `record` (scripts/record-check.sh) and have no warm-up to redo.
set -u
if [ $# -ne 1 ] || [ ! -x "$1" ]; then
    echo "usage: OUT=dir $0 path/to/slicescope-cli" >&2
    exit 2
fi
cli=$1
OUT=${OUT:?set OUT}
dir=$OUT/samples
mkdir -p "$dir"
summary=$dir/summary.txt
{
    date -u +%Y-%m-%dT%H:%M:%SZ
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1
    git log --oneline -1 2>/dev/null || true
} >"$summary"

failed=0
sample() { # sample NAME ARGS...: slicescope-cli run ARGS -o $dir/NAME.json
    local name=$1
    shift
    echo "slicescope-cli run $* -o FILE" >"$dir/$name.log"
    timeout --kill-after=10 120 "$cli" run "$@" -o "$dir/$name.json" >>"$dir/$name.log" 2>&1
    local rc=$?
    echo "$name: exit $rc" | tee -a "$summary"
    [ "$rc" -eq 0 ] || failed=1
}
sample seed-100x4000x5-f64-pageable --shape 100x4000x5 --strategy all --memory pageable \
    --print-gpu-trace
sample seed-100x4000x5-f64-pinned --shape 100x4000x5 --strategy all --memory pinned
sample seed-100x4000x5-f64-pageable-counters --shape 100x4000x5 --strategy all --memory pageable \
    --counters
sample larger-400x16000x5-f64-pinned --shape 400x16000x5 --strategy all --memory pinned
ls -l "$dir" >>"$summary"
cat "$summary"
exit $failed
