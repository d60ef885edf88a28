#!/usr/bin/env bash
# device-house-check.sh: the GPU proof of issue 25 in one device call (docs/performance.md,
# "Turnaround, CUPTI's cost, host layout passes and elementwise-grid-stride"): build (GUI off),
# `ctest -L gpu`, slicescope-bench-transpose, elementwise-grid-stride beside elementwise-broadcast,
# the seed's turnaround with CUPTI on and off (7 alternating pairs), slicescope-bench-gpu.
#   scripts/make-carry.sh            # here, first: .carry/ with prefix/ and googletest/
#   device run: OUT set by the tool; command `bash scripts/device-house-check.sh`, carry [".carry"]
set -u
SRC=$(pwd); CARRY=$SRC/.carry; BUILD=/tmp/ssf
export PATH=/usr/local/cuda/bin:$PATH
DEADLINE=$(($(date +%s) + ${BUDGET_S:-560}))
step() { local name=$1 limit=$2; shift 2
  local left=$((DEADLINE - $(date +%s) - 10)); [ "$left" -lt 10 ] && { echo "$name: not run"; return; }
  [ "$limit" -gt "$left" ] && limit=$left
  local s=$(date +%s); timeout --kill-after=5 "$limit" "$@" > "$OUT/$name.log" 2>&1; local rc=$?
  echo "$name: exit $rc after $(($(date +%s) - s)) s"; }
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
step configure 90 cmake -S "$SRC" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSLICESCOPE_BUILD_GUI=OFF -DSLICESCOPE_CUDA=ON -DSLICESCOPE_WERROR=OFF -DSLICESCOPE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH="$CARRY/prefix" -DSLICESCOPE_GTEST_SOURCE_DIR="$CARRY/googletest" -DCMAKE_POLICY_VERSION_MINIMUM=3.5 -DCMAKE_CUDA_COMPILER="$(command -v nvcc)"
step build 200 cmake --build "$BUILD" -j 16
tail -3 $OUT/build.log
CLI=$BUILD/bin/slicescope-cli
step ctest-gpu 200 ctest --test-dir "$BUILD" -L gpu --output-on-failure --timeout 120 -j 1
grep -E "tests passed|Failed|\*\*\*" $OUT/ctest-gpu.log | head -20
step transpose 40 $BUILD/bin/slicescope-bench-transpose --repeat 11
cat $OUT/transpose.log
# grid-stride beside broadcast: seed shape and a 2 GB array, pinned, 5 repetitions
step gridstride 60 bash -c "$CLI run --shape 100x4000x5 --strategy elementwise-broadcast,elementwise-grid-stride --memory pinned --repeat 5 -o $OUT/gs-seed.json && $CLI run --shape 12800x4000x5 --strategy elementwise-broadcast,elementwise-grid-stride --memory pinned --repeat 5 -o $OUT/gs-large.json && $CLI sweep --param block --range 32:1024:x2 --shape 1000x4000x5 --strategy elementwise-broadcast,elementwise-grid-stride --memory pinned --repeat 3 -o $OUT/gs-block.json"
tail -12 $OUT/gridstride.log
# turnaround and CUPTI's cost: 7 alternating pairs after one warm-up, plus the traces
turn() { $CLI run --shape 100x4000x5 --strategy all -q "$@" >/dev/null 2>&1; }
turn -o /tmp/w.json
for i in 1 2 3 4 5 6 7; do for m in on off; do x=""; [ $m = off ] && x=--no-cupti
  s=$(date +%s%N); turn $x -o /tmp/$m.json; e=$(date +%s%N); echo "$m $(( (e - s) / 1000000 ))"; done; done > $OUT/onoff.txt
cp /tmp/on.json $OUT/on.json; cp /tmp/off.json $OUT/off.json
awk '{v[$1]=v[$1]" "$2} END {for (m in v) print m, v[m]}' $OUT/onoff.txt
step bench-gpu 150 $BUILD/bin/slicescope-bench-gpu --cli-runs 7
grep -E "^\|" $OUT/bench-gpu.log | head -20
# At most 8 files come back from the device tool: the traces and timings travel as one archive.
(cd "$OUT" && tar czf traces.tar.gz ./*.json onoff.txt && rm -f ./*.json onoff.txt)
