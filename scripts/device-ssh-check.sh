#!/usr/bin/env bash
# device-ssh-check.sh: issue 22's GPU path over SSH on the lent GPU machine, whose image has no
# OpenSSH: Debian's ssh and sshd travel in .carry/openssh (scripts/make-carry.sh --ssh). Builds
# the engine and CLI (GUI off), starts the tests' sshd on 127.0.0.1 and runs `ctest -L remote`:
# remote.gpu_run measures every GPU strategy and records recordme through ssh and compares them
# with the same commands run here.
#   scripts/make-carry.sh --ssh      # here, first
#   device run: command `bash scripts/device-ssh-check.sh`, carry [".carry"]
set -u
SRC=$(pwd); CARRY=$SRC/.carry; BUILD=/tmp/ssf
export PATH=$CARRY/openssh/bin:/usr/local/cuda/bin:$PATH
export SLICESCOPE_SSHD=$CARRY/openssh/bin/sshd
DEADLINE=$(($(date +%s) + ${BUDGET_S:-560}))
step() { local name=$1 limit=$2; shift 2
  local left=$((DEADLINE - $(date +%s) - 10)); [ "$left" -lt 10 ] && { echo "$name: not run"; return; }
  [ "$limit" -gt "$left" ] && limit=$left
  local s=$(date +%s); timeout --kill-after=5 "$limit" "$@" > "$OUT/$name.log" 2>&1; local rc=$?
  echo "$name: exit $rc after $(($(date +%s) - s)) s"; }
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; . /etc/os-release; echo "$PRETTY_NAME"
ssh -V; id sshd 2>&1
# Debian's sshd separates privileges into the user 'sshd' and chroots into /run/sshd.
id sshd >/dev/null 2>&1 || useradd -r -M -d /run/sshd -s /usr/sbin/nologin sshd 2>&1 ||
  echo 'sshd:x:74:74:privsep:/run/sshd:/usr/sbin/nologin' >>/etc/passwd
mkdir -p /run/sshd; chmod 755 /run/sshd
step configure 90 cmake -S "$SRC" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSLICESCOPE_BUILD_GUI=OFF -DSLICESCOPE_CUDA=ON -DSLICESCOPE_WERROR=OFF -DSLICESCOPE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH="$CARRY/prefix" -DSLICESCOPE_GTEST_SOURCE_DIR="$CARRY/googletest" -DCMAKE_POLICY_VERSION_MINIMUM=3.5 -DCMAKE_CUDA_COMPILER="$(command -v nvcc)"
step build 240 cmake --build "$BUILD" -j 16 --target slicescope-cli recordme slicescope-inject slicescope-bench-remote
tail -3 $OUT/build.log
# A first try by hand, so that a failure says where.
step sshd-try 30 bash -c "sh $SRC/tests/remote/sshd-fixture.sh start /tmp/sshd-try && ssh -F /tmp/sshd-try/ssh_config -o BatchMode=yes slicescope-test 'echo connected as \$(id -un) on \$(hostname)'; sh $SRC/tests/remote/sshd-fixture.sh stop /tmp/sshd-try; cat /tmp/sshd-try/sshd.log"
cat $OUT/sshd-try.log
step ctest-remote 240 ctest --test-dir "$BUILD" -L remote --output-on-failure --timeout 200 -j 4
grep -E "tests passed|Failed|\*\*\*|SKIPPED|Passed" $OUT/ctest-remote.log | head -30
step bench-remote 150 $BUILD/bin/slicescope-bench-remote $BUILD/bin/slicescope-cli 7 # the issue: median of 7
cat $OUT/bench-remote.log
