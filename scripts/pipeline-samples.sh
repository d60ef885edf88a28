#!/usr/bin/env bash
# pipeline-samples.sh: the chunked multi-stream pipeline samples and figures on the GPU machine
# (docs/gpu-backend.md, "Pipelines"). Runs from the repository root with a built CLI:
#   OUT=<dir> bash scripts/pipeline-samples.sh BUILD/bin/slicescope-cli [BUILD/bin/slicescope-bench-gpu]
# and writes under $OUT/pipeline/:
#   <shape>-<memory>-k<K>-s<S>.json  elementwise-broadcast (block 256) at the seed shape 100x4000x5
#                                    and 10x (1000x4000x5), f64, pinned and pageable, with chunks
#                                    1, 4, 16 and streams 1, 2, 4 (one chunk on any number of
#                                    streams is one stream, so K = 1 has S = 1 only): 28 traces,
#                                    one run each, for resources/samples/pipeline/
#   summary.txt                      each run's summary line and pipeline line, as the CLI prints
#   bench.txt                        slicescope-bench-gpu --pipeline (figures 6-8), when given
set -u
CLI=${1:?usage: pipeline-samples.sh SLICESCOPE_CLI [SLICESCOPE_BENCH_GPU]}
BENCH=${2:-}
OUT=${OUT:?set OUT}
DIR=$OUT/pipeline
mkdir -p "$DIR"
summary=$DIR/summary.txt
: >"$summary"
status=0
for shape in 100x4000x5 1000x4000x5; do
    for memory in pinned pageable; do
        for pair in 1:1 4:1 4:2 4:4 16:1 16:2 16:4; do
            k=${pair%:*}
            s=${pair#*:}
            file=$DIR/$shape-$memory-k$k-s$s.json
            echo "== $shape $memory --chunks $k --streams $s" >>"$summary"
            timeout --kill-after=10 120 "$CLI" run --shape "$shape" --dtype f64 \
                --strategy elementwise-broadcast --block 256 --memory "$memory" \
                --chunks "$k" --streams "$s" -o "$file" >>"$summary" 2>&1 || status=1
        done
    done
done
if [ -n "$BENCH" ]; then
    timeout --kill-after=10 300 "$BENCH" --pipeline --block 256 >"$DIR/bench.txt" 2>&1 || status=1
fi
cat "$summary"
[ -f "$DIR/bench.txt" ] && cat "$DIR/bench.txt"
exit $status
