#!/usr/bin/env bash
# device-model-wide.sh: one device call for issue 24's measurements and the GPU tests of the tree:
# build (GUI off), `ctest -L gpu`, then scripts/model-validate.sh (the wide set); the traces come back as one
# archive (the device tool returns at most 8 files).
#   scripts/make-carry.sh            # here, first: .carry/ with prefix/ and googletest/
#   device run: command `bash scripts/device-model-wide.sh`, carry [".carry"]
set -u
SRC=$(pwd); CARRY=$SRC/.carry; BUILD=/tmp/ssf
export PATH=/usr/local/cuda/bin:$PATH
DEADLINE=$(($(date +%s) + ${BUDGET_S:-570}))
step() { local name=$1 limit=$2; shift 2
  local left=$((DEADLINE - $(date +%s) - 15)); [ "$left" -lt 10 ] && { echo "$name: not run"; return; }
  [ "$limit" -gt "$left" ] && limit=$left
  local s=$(date +%s); timeout --kill-after=5 "$limit" "$@" > "$OUT/$name.log" 2>&1; local rc=$?
  echo "$name: exit $rc after $(($(date +%s) - s)) s"; }
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
step configure 90 cmake -S "$SRC" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSLICESCOPE_BUILD_GUI=OFF -DSLICESCOPE_CUDA=ON -DSLICESCOPE_WERROR=OFF -DSLICESCOPE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH="$CARRY/prefix" -DSLICESCOPE_GTEST_SOURCE_DIR="$CARRY/googletest" -DCMAKE_POLICY_VERSION_MINIMUM=3.5 -DCMAKE_CUDA_COMPILER="$(command -v nvcc)"
step build 240 cmake --build "$BUILD" -j 16
tail -3 "$OUT/build.log"
mkdir -p /tmp/wide
OUT_WIDE=/tmp/wide
step wide 240 env OUT=$OUT_WIDE bash scripts/model-validate.sh "$BUILD/bin/slicescope-cli" "$BUILD/bin/slicescope-bench-model"
tail -5 "$OUT/wide.log"; ls $OUT_WIDE | wc -l
(cd $OUT_WIDE && tar czf "$OUT/wide.tar.gz" .)
step ctest-gpu 200 ctest --test-dir "$BUILD" -L gpu --output-on-failure --timeout 120 -j 1
grep -E "tests passed|Failed|\*\*\*" "$OUT/ctest-gpu.log" | head -20
