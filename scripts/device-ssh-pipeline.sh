#!/usr/bin/env bash
# device-ssh-pipeline.sh: where the time of a 1M-event trace brought back with --host goes, stage
# by stage, on the lent GPU machine (docs/performance.md, "Remote runs over SSH"). Builds the CLI
# (GUI off), starts the tests' sshd with a quiet login shell and times, median of 3 each:
#   local      the CLI writing the trace to a file here
#   pipe       the same written into a pipe (-o /dev/stdout | cat)
#   ssh-pipe   the same command through ssh, its stdout read by cat here
#   ssh-tee    the same through tee on the remote side, as the --host script does
#   ssh-cat    the finished file's bytes alone through ssh
#   host       the CLI with --host (the product)
# then one --host run with both ends under strace (when the machine has it): when the remote
# CLI wrote its first and last trace bytes, and when the local CLI read them.
#   scripts/make-carry.sh --ssh      # here, first
#   device run: command `bash scripts/device-ssh-pipeline.sh`, carry [".carry"]
set -u
SRC=$(pwd) CARRY=$(pwd)/.carry BUILD=/tmp/ssf W=/tmp/ssp
export PATH=$CARRY/openssh/bin:/usr/local/cuda/bin:$PATH
export SLICESCOPE_SSHD=$CARRY/openssh/bin/sshd
id sshd >/dev/null 2>&1 || useradd -r -M -d /run/sshd -s /usr/sbin/nologin sshd 2>&1
mkdir -p /run/sshd "$W"
chmod 755 /run/sshd
if [ ! -x "$BUILD/bin/slicescope-cli" ]; then
    cmake -S "$SRC" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSLICESCOPE_BUILD_GUI=OFF \
        -DSLICESCOPE_CUDA=ON -DSLICESCOPE_WERROR=OFF -DSLICESCOPE_CUDA_ARCHITECTURES=90 \
        -DCMAKE_PREFIX_PATH="$CARRY/prefix" -DSLICESCOPE_GTEST_SOURCE_DIR="$CARRY/googletest" \
        -DCMAKE_POLICY_VERSION_MINIMUM=3.5 -DCMAKE_CUDA_COMPILER="$(command -v nvcc)" >"$OUT/configure.log" 2>&1
fi
cmake --build "$BUILD" -j 16 --target slicescope-cli slicescope-bench-remote >"$OUT/build.log" 2>&1 ||
    { tail -20 "$OUT/build.log"; exit 1; }
CLI=$BUILD/bin/slicescope-cli
SSHDIR=$W/sshd
SSHD_FIXTURE_QUIET_SHELL=1 sh "$SRC/tests/remote/sshd-fixture.sh" start "$SSHDIR" >/dev/null || exit 1
SSH="ssh -F $SSHDIR/ssh_config -o BatchMode=yes slicescope-test"
LARGE="model --shape 1600x4000x5 --strategy all --device h200 --repeat 2600 --chunks 16 -q"
nproc; date -u; nvidia-smi --query-gpu=name --format=csv,noheader

# time3 NAME COMMAND: the median of 3 wall times of a shell command.
time3() {
    local name=$1 cmd=$2 t=()
    for _ in 1 2 3; do
        local s e
        s=$(date +%s.%N)
        bash -c "$cmd" >/dev/null 2>>"$OUT/errors.log" || echo "$name failed" >>"$OUT/errors.log"
        e=$(date +%s.%N)
        t+=("$(awk -v a="$s" -v b="$e" 'BEGIN{printf "%.3f", b-a}')")
    done
    printf '%-10s %s s (runs: %s)\n' "$name" "$(printf '%s\n' "${t[@]}" | sort -n | sed -n 2p)" "${t[*]}"
}
time3 local "$CLI $LARGE -o $W/l.json"
time3 pipe "$CLI $LARGE -o /dev/stdout | cat >/dev/null"
time3 ssh-pipe "$SSH '$CLI $LARGE -o /dev/stdout' | cat >/dev/null"
time3 ssh-tee "$SSH '$CLI $LARGE -o /dev/stdout | tee $W/copy.json' | cat >/dev/null"
time3 ssh-file "$SSH '$CLI $LARGE -o /dev/stdout' >$W/c.json"
time3 ssh-cat "$SSH 'cat $W/l.json' | cat >/dev/null"
time3 ssh-aes "ssh -F $SSHDIR/ssh_config -o BatchMode=yes -c aes128-gcm@openssh.com slicescope-test 'cat $W/l.json' | cat >/dev/null"
export SLICESCOPE_SSH="ssh -F $SSHDIR/ssh_config"
time3 host "$CLI $LARGE -o $W/h.json --host slicescope-test --remote-cli $CLI"
export SLICESCOPE_SSH="ssh -F $SSHDIR/ssh_config -c aes128-gcm@openssh.com"
time3 host-aes "$CLI $LARGE -o $W/h.json --host slicescope-test --remote-cli $CLI"
export SLICESCOPE_SSH="ssh -F $SSHDIR/ssh_config"
# Stage times inside one --host run: the remote CLI wrapped so that it notes when it started and
# ended; the local side notes the command's start and end.
printf '#!/bin/sh\necho "cli-start $(date +%%s.%%N)" >>%s/stages\n%s "$@"\nr=$?\necho "cli-end $(date +%%s.%%N)" >>%s/stages\nexit $r\n' "$W" "$CLI" "$W" >"$W/timed-cli"
chmod +x "$W/timed-cli"
for cipher in default aes128-gcm@openssh.com; do
    for _ in 1 2 3; do
        rm -f "$W/stages"
        c=""
        [ "$cipher" = default ] || c="-c $cipher"
        s=$(date +%s.%N)
        SLICESCOPE_SSH="ssh -F $SSHDIR/ssh_config $c" "$CLI" $LARGE -o "$W/h.json" --host slicescope-test --remote-cli "$W/timed-cli"
        e=$(date +%s.%N)
        awk -v s="$s" -v e="$e" -v c="$cipher" '$1=="cli-start"{a=$2} $1=="cli-end"{b=$2}
            END{printf "%s: connect+handshake %.3f s, remote CLI %.3f s, after it %.3f s, total %.3f s\n", c, a-s, b-a, e-b, e-s}' "$W/stages"
    done
done
time3 local "$CLI $LARGE -o $W/l.json"
time3 ssh-pipe-aes "ssh -F $SSHDIR/ssh_config -o BatchMode=yes -c aes128-gcm@openssh.com slicescope-test '$CLI $LARGE -o /dev/stdout' | cat >/dev/null"
ls -l "$W/l.json" "$W/h.json" "$W/c.json" | awk '{print $5, $9}'
cmp "$W/l.json" "$W/h.json" && echo "host trace equals the local one"

if command -v strace >/dev/null; then
    printf '#!/bin/sh\nexec strace -f -ttt -e trace=write -o %s/remote.st %s "$@"\n' "$W" "$CLI" >"$W/traced-cli"
    chmod +x "$W/traced-cli"
    s=$(date +%s.%N)
    strace -f -ttt -e trace=read,write,fsync,rename -o "$W/local.st" \
        "$CLI" $LARGE -o "$W/h.json" --host slicescope-test --remote-cli "$W/traced-cli"
    echo "traced --host run: start $s, end $(date +%s.%N)"
    echo "remote CLI: first and last writes of >=64 KiB"
    grep -E 'write\(5,.*= [0-9]{5,}$' "$W/remote.st" | awk '{print $2}' | sed -n '1p;$p'
    echo "local CLI: first and last reads of >=16 KiB, then fsync and rename"
    grep -E 'read\(.*= [0-9]{5,}$' "$W/local.st" | awk '{print $2}' | sed -n '1p;$p'
    grep -E 'fsync|rename' "$W/local.st" | awk '{print $2, $3}' | tail -4
    cp "$W/local.st" "$W/remote.st" "$OUT/" 2>/dev/null
    gzip -f "$OUT/local.st" "$OUT/remote.st"
else
    echo "no strace on this machine"
fi
sh "$SRC/tests/remote/sshd-fixture.sh" stop "$SSHDIR"
