#!/usr/bin/env bash
# device-ssh-prebuilt.sh: issue 22's GPU path over SSH on the lent GPU machine with binaries built
# here (the CLI, recordme, the injection library and slicescope-bench-remote of a CUDA build,
# stripped into .carry/gpu): no build there, for when little device time is left. Runs the
# remote cases gpu_run and shared_connection through the tests' sshd, then the bench (seed: median
# of 7).
#   here: strip -o .carry/gpu/bin/slicescope-cli build/bin/slicescope-cli (and recordme,
#         slicescope-bench-remote; .carry/gpu/lib/libslicescope-inject.so, libgomp.so.1)
#   device run: command `bash scripts/device-ssh-prebuilt.sh`, carry [".carry"]
set -u
SRC=$(pwd); CARRY=$SRC/.carry; BIN=$CARRY/gpu/bin
export PATH=$CARRY/openssh/bin:$PATH
export SLICESCOPE_SSHD=$CARRY/openssh/bin/sshd
export SLICESCOPE_INJECTION_LIBRARY=$CARRY/gpu/lib/libslicescope-inject.so
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib:/usr/local/cuda/lib64:$CARRY/gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
DEADLINE=$(($(date +%s) + ${BUDGET_S:-150}))
step() { local name=$1 limit=$2; shift 2
  local left=$((DEADLINE - $(date +%s) - 5)); [ "$left" -lt 5 ] && { echo "$name: not run"; return; }
  [ "$limit" -gt "$left" ] && limit=$left
  local s=$(date +%s); timeout --kill-after=3 "$limit" "$@" > "$OUT/$name.log" 2>&1; local rc=$?
  echo "$name: exit $rc after $(($(date +%s) - s)) s"; }
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git -C "$SRC" log --oneline -1
id sshd >/dev/null 2>&1 || useradd -r -M -d /run/sshd -s /usr/sbin/nologin sshd 2>&1 ||
  echo 'sshd:x:74:74:privsep:/run/sshd:/usr/sbin/nologin' >>/etc/passwd
mkdir -p /run/sshd; chmod 755 /run/sshd
"$BIN/slicescope-cli" devices 2>&1 | head -3
for case in gpu_run shared_connection; do
  RECORDME=$BIN/recordme step "remote-$case" 60 sh "$SRC/tests/remote/remote-cli.sh" \
    "$BIN/slicescope-cli" "$SRC" "/tmp/remote-work/$case" "$case"
  grep -E "FAIL|SKIPPED|same runs|recorded|after the first" "$OUT/remote-$case.log" | head -8
done
step bench-remote ${BENCH_S:-90} "$BIN/slicescope-bench-remote" "$BIN/slicescope-cli" 7 ${LARGE_ROUNDS:-3}
cat "$OUT/bench-remote.log"
