#!/usr/bin/env bash
# device-multigpu-check.sh: issue 28's proof on a machine with two or more GPUs (nvidia-h200-x2 or
# larger), which no session has run yet (docs/cli.md, "Several GPUs"). Builds the CLI and the
# injection library with CUDA on (GUI off), then:
#   1. a 32-point block sweep (32:1024:+32, slice-2d and elementwise-broadcast) on one GPU and on
#      --devices all: both wall times and their ratio (the issue asks >= 1.7x on 2 GPUs), the run
#      ids in order and the crossovers compared, every run's device_index counted;
#   2. run --devices all: every GPU strategy on each GPU side by side (do identical GPUs measure
#      the same?);
#   3. Ctrl+C to a busy --devices all sweep: the exit status, the points kept, and that no GPU
#      worker outlives it;
#   4. where python3 with torch (NCCL) is there: a recording of a 2-process NCCL all-reduce and of
#      one process driving both GPUs (a peer copy), with kernels, NCCL kernels and peer copies
#      counted per device_id. NVLink multicast stays off (NCCL_NVLS_ENABLE=0,
#      TORCH_SYMM_MEM_DISABLE_MULTICAST=1).
# Logs, traces and report.txt go into $OUT/multigpu-check.tar.gz (report.txt beside it), packed
# after every step, so a call cut short still returns what was done. Exit status: 0 all checks
# held, 1 a check failed, 3 blocked (fewer than 2 GPUs: the single-GPU steps still run).
#
#   scripts/make-carry.sh            # here, first: .carry/prefix (header-only packages)
#   device run: command `OUT=$OUT bash scripts/device-multigpu-check.sh`, carry [".carry"],
#               kind nvidia-h200-x2 (or any kind with two GPUs)
# Knobs: BUDGET_S (default 560: the seconds this script may take), SLICESCOPE_CUDA_ARCHITECTURES
# (default 90), REPEAT_BASELINE=1 (a second one-GPU sweep, to tell noise from a merge defect when
# the crossovers differ), SWEEP_REPEAT (default 3).
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$SRC/multigpu-check-out}
if [ -d "$SRC/.carry" ]; then DEFAULT_CARRY=$SRC/.carry; else DEFAULT_CARRY=$SRC/../.carry; fi
CARRY=${SLICESCOPE_CARRY:-$DEFAULT_CARRY}
BUILD=${SLICESCOPE_BUILD_DIR:-/tmp/slicescope-multigpu-build}
ARCH=${SLICESCOPE_CUDA_ARCHITECTURES:-90}
JOBS=${JOBS:-$(nproc)}
DEADLINE=$(($(date +%s) + ${BUDGET_S:-560}))
WORK=$(mktemp -d /tmp/slicescope-multigpu-check.XXXXXX)
mkdir -p "$OUT" "$WORK/logs" "$WORK/traces"
REPORT=$WORK/report.txt
CLI=$BUILD/bin/slicescope-cli
export PATH=/usr/local/cuda/bin:$PATH
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
FAILED=0

pack() {
    cp "$REPORT" "$OUT/report.txt" 2>/dev/null
    tar -czf "$OUT/multigpu-check.tar.gz.tmp" -C "$WORK" . &&
        mv "$OUT/multigpu-check.tar.gz.tmp" "$OUT/multigpu-check.tar.gz"
}
say() { echo "$*" | tee -a "$REPORT"; }
# step NAME TIMEOUT_S COMMAND...: output in logs/NAME.log; the time left caps the timeout.
step() {
    local name=$1 limit=$2
    shift 2
    local left=$((DEADLINE - $(date +%s) - 15))
    if [ "$left" -lt 10 ]; then
        say "=== $name: not run (no time left)"
        return 124
    fi
    [ "$limit" -gt "$left" ] && limit=$left
    local start=$(date +%s%N)
    say "=== $name: $*"
    timeout --kill-after=10 "$limit" "$@" >"$WORK/logs/$name.log" 2>&1
    local rc=$?
    say "=== $name: exit $rc after $((($(date +%s%N) - start) / 1000000)) ms"
    pack
    return $rc
}
check() { # check WHAT CONDITION_EXIT_STATUS
    if [ "$2" -eq 0 ]; then say "CHECK ok: $1"; else say "CHECK FAILED: $1"; FAILED=1; fi
}

{
    echo "SliceScope multigpu-check, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    uname -a
    nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1
    nvidia-smi topo -m 2>&1 | head -20
    nvcc --version 2>&1 | tail -1
} >"$REPORT"
pack

step configure 120 cmake -S "$SRC" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DSLICESCOPE_BUILD_GUI=OFF -DSLICESCOPE_BUILD_TESTS=OFF -DSLICESCOPE_CUDA=ON \
    -DSLICESCOPE_WERROR=OFF -DSLICESCOPE_CUDA_ARCHITECTURES="$ARCH" \
    -DCMAKE_PREFIX_PATH="$CARRY/prefix" -DCMAKE_POLICY_VERSION_MINIMUM=3.5 \
    -DCMAKE_CUDA_COMPILER="$(command -v nvcc)"
step build 300 cmake --build "$BUILD" -j "$JOBS" --target slicescope-cli slicescope-inject
tail -3 "$WORK/logs/build.log" | tee -a "$REPORT"
if [ ! -x "$CLI" ]; then
    say "no slicescope-cli was built: nothing to check"
    pack
    exit 1
fi
step devices 30 "$CLI" devices
cat "$WORK/logs/devices.log" >>"$REPORT"
GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
say "GPUs: $GPUS"

# ---- 1. the 32-point block sweep, one GPU against --devices all ------------------------------
SWEEP=(sweep --param block --range 32:1024:+32 --shape 100x4000x5
    --strategy slice-2d,elementwise-broadcast --repeat "${SWEEP_REPEAT:-3}" -q)
wall() { # wall NAME ARGS...: runs the CLI, prints its wall time in ms on the report
    local start=$(date +%s%N)
    step "$@"
    local rc=$?
    echo $((($(date +%s%N) - start) / 1000000)) >"$WORK/$1.ms"
    return $rc
}
wall sweep-one 240 "$CLI" "${SWEEP[@]}" --device 0 -o "$WORK/traces/sweep-one.json"
check "one-GPU sweep exits 0" $?
if [ "${REPEAT_BASELINE:-0}" = 1 ]; then
    wall sweep-one-again 240 "$CLI" "${SWEEP[@]}" --device 0 -o "$WORK/traces/sweep-one-again.json"
fi
wall sweep-all 240 "$CLI" "${SWEEP[@]}" --devices all -o "$WORK/traces/sweep-all.json"
SWEEP_ALL_RC=$?
if [ "$GPUS" -ge 2 ]; then
    check "--devices all sweep exits 0" $SWEEP_ALL_RC
fi
ONE_MS=$(cat "$WORK/sweep-one.ms" 2>/dev/null || echo 0)
ALL_MS=$(cat "$WORK/sweep-all.ms" 2>/dev/null || echo 0)
say "wall time: one GPU ${ONE_MS} ms, --devices all (${GPUS} GPUs) ${ALL_MS} ms"
if [ "$ALL_MS" -gt 0 ]; then
    RATIO=$(awk -v a="$ONE_MS" -v b="$ALL_MS" 'BEGIN { printf "%.2f", a / b }')
    say "ratio one/all: ${RATIO}x (the issue asks >= 1.7x on 2 GPUs)"
    if [ "$GPUS" -ge 2 ]; then
        awk -v r="$RATIO" 'BEGIN { exit !(r >= 1.7) }'
        check "sweep over $GPUS GPUs >= 1.7x faster than on one (${RATIO}x)" $?
    fi
fi
# The verdict lines (crossovers) the CLI printed, and the traces compared in Python.
say "--- one GPU's verdict:"
cat "$WORK/logs/sweep-one.log" >>"$REPORT"
say "--- --devices all's verdict:"
cat "$WORK/logs/sweep-all.log" >>"$REPORT"
COMPARE=$(
    cat <<'PY'
import json, sys
def load(path):
    with open(path) as f:
        return json.load(f)
one, many = load(sys.argv[1]), load(sys.argv[2])
ids = lambda t: [r["id"] for r in t["runs"]]
cross = lambda t: [(c.get("from"), c.get("to"), c.get("low_value"), c.get("high_value"))
                   for c in t["sweeps"][0].get("crossovers", [])]
ok = True
print("runs: one GPU %d, --devices all %d" % (len(one["runs"]), len(many["runs"])))
if ids(one) != ids(many):
    ok = False
    print("run ids or order DIFFER")
else:
    print("run ids and order: same")
print("crossovers one GPU:", cross(one))
print("crossovers all:    ", cross(many))
if cross(one) != cross(many):
    ok = False
    print("crossovers DIFFER (noise or a merge defect: rerun with REPEAT_BASELINE=1)")
devices = {}
for r in many["runs"]:
    if r.get("mode") == "measured-gpu":
        devices[r.get("device_index")] = devices.get(r.get("device_index"), 0) + 1
print("GPU runs per device_index:", devices)
if None in devices or len(devices) < int(sys.argv[3]):
    ok = False
    print("not every GPU run says its device, or not every GPU measured")
sys.exit(0 if ok else 1)
PY
)
if command -v python3 >/dev/null && [ -f "$WORK/traces/sweep-all.json" ]; then
    step compare-sweeps 60 python3 -c "$COMPARE" "$WORK/traces/sweep-one.json" \
        "$WORK/traces/sweep-all.json" "$GPUS"
    COMPARE_RC=$?
    cat "$WORK/logs/compare-sweeps.log" >>"$REPORT"
    check "same run ids, order and crossovers; every GPU run tagged" $COMPARE_RC
    if [ "${REPEAT_BASELINE:-0}" = 1 ]; then
        step compare-baseline 60 python3 -c "$COMPARE" "$WORK/traces/sweep-one.json" \
            "$WORK/traces/sweep-one-again.json" 1
        cat "$WORK/logs/compare-baseline.log" >>"$REPORT"
    fi
fi

# ---- 2. every GPU strategy on every GPU, side by side --------------------------------------
step run-all 240 "$CLI" run --shape 100x4000x5 --strategy all --repeat 5 --devices all \
    -o "$WORK/traces/run-all.json"
grep -E "@gpu|error" "$WORK/logs/run-all.log" | tee -a "$REPORT"

# ---- 3. Ctrl+C reaches every worker ---------------------------------------------------------
if [ "$GPUS" -ge 2 ]; then
    say "=== interrupt: SIGINT to a --devices all sweep after 5 s"
    # 17 points of 160 MB copies, 21 iterations each: tens of seconds, so both workers are busy.
    "$CLI" sweep --param work --range 1:65536:x2 --shape 1000x4000x5 \
        --strategy slice-2d,elementwise-broadcast --repeat 20 --devices all -q \
        -o "$WORK/traces/interrupted.json" >"$WORK/logs/interrupt.log" 2>&1 &
    PARENT=$!
    sleep 5
    WORKERS=$(pgrep -P "$PARENT" -f -- --gpu-worker | wc -l)
    kill -INT "$PARENT"
    timeout 120 tail --pid="$PARENT" -f /dev/null
    wait "$PARENT"
    RC=$?
    sleep 1
    LEFT=$(pgrep -f -- "--gpu-worker" | wc -l)
    say "workers running before the signal: $WORKERS; exit status $RC; workers left: $LEFT"
    tail -3 "$WORK/logs/interrupt.log" | tee -a "$REPORT"
    [ "$WORKERS" -ge 2 ] && [ "$LEFT" -eq 0 ] && [ "$RC" -eq 130 ]
    check "one worker a GPU, exit 130 and no worker left after Ctrl+C" $?
    pack
fi

# ---- 4. recordings of multi-GPU programs (PyTorch, NCCL) ------------------------------------
HAVE_TORCH=0
if command -v python3 >/dev/null && python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.device_count() >= 2 and torch.distributed.is_nccl_available() else 1)' 2>/dev/null; then
    HAVE_TORCH=1
fi
say "python3 with torch, NCCL and 2 GPUs: $([ $HAVE_TORCH = 1 ] && echo yes || echo no)"
if [ "$HAVE_TORCH" = 1 ]; then
    cat >"$WORK/allreduce.py" <<'PY'
# Two processes, one a GPU: an NCCL all-reduce of 64 MiB, five times.
import os, torch, torch.distributed as dist, torch.multiprocessing as mp
def rank_main(rank):
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:29517", rank=rank, world_size=2)
    torch.cuda.set_device(rank)
    x = torch.ones(16 << 20, device=f"cuda:{rank}")
    for _ in range(5):
        dist.all_reduce(x)
    torch.cuda.synchronize()
    print(f"rank {rank}: {x[0].item()}")
    dist.destroy_process_group()
if __name__ == "__main__":
    mp.spawn(rank_main, nprocs=2)
PY
    cat >"$WORK/peercopy.py" <<'PY'
# One process driving both GPUs: a kernel on each and 64 MiB copied from GPU 0 to GPU 1 and back.
import torch
a = torch.ones(16 << 20, device="cuda:0") * 2
b = a.to("cuda:1")
b.mul_(3)
c = b.to("cuda:0")
torch.cuda.synchronize(0)
torch.cuda.synchronize(1)
print("peer access:", torch.cuda.can_device_access_peer(0, 1), "value:", c[0].item())
PY
    SUMMARY=$(
        cat <<'PY'
import json, sys
with open(sys.argv[1]) as f:
    trace = json.load(f)
for run in trace["runs"]:
    kernels, nccl, peer, copies = {}, {}, 0, {}
    for a in run["activities"]:
        d = a.get("device_id", 0)
        if a["kind"] == "kernel":
            kernels[d] = kernels.get(d, 0) + 1
            if "nccl" in a.get("name", "").lower():
                nccl[d] = nccl.get(d, 0) + 1
        elif a["kind"] in ("htod", "dtoh", "dtod"):
            copies[d] = copies.get(d, 0) + 1
            if "peer_device_id" in a:
                peer += 1
    print(run["id"], "kernels per device:", kernels, "NCCL kernels:", nccl,
          "copies per device:", copies, "peer copies:", peer)
    for note in run.get("notes", [])[:6]:
        print("  note:", note)
    ok = len(kernels) >= 2 and (peer > 0 or sum(nccl.values()) > 0)
sys.exit(0 if ok else 1)
PY
    )
    step record-nccl 180 "$CLI" record --env NCCL_NVLS_ENABLE=0 \
        --env TORCH_SYMM_MEM_DISABLE_MULTICAST=1 -o "$WORK/traces/nccl-allreduce.json" \
        -- python3 "$WORK/allreduce.py"
    step summary-nccl 60 python3 -c "$SUMMARY" "$WORK/traces/nccl-allreduce.json"
    RC=$?
    cat "$WORK/logs/summary-nccl.log" >>"$REPORT"
    check "NCCL all-reduce recording: kernels on both devices, NCCL kernels named" $RC
    step record-peer 120 "$CLI" record --env NCCL_NVLS_ENABLE=0 \
        --env TORCH_SYMM_MEM_DISABLE_MULTICAST=1 -o "$WORK/traces/peer-copy.json" \
        -- python3 "$WORK/peercopy.py"
    step summary-peer 60 python3 -c "$SUMMARY" "$WORK/traces/peer-copy.json"
    RC=$?
    cat "$WORK/logs/summary-peer.log" >>"$REPORT"
    check "one process, two GPUs: kernels on both, the peer copies between them" $RC
fi

pack
if [ "$GPUS" -lt 2 ]; then
    say "BLOCKED: $GPUS GPU(s) here; the 2-GPU checks need a machine with two or more"
    exit 3
fi
say "$([ $FAILED = 0 ] && echo 'all checks held' || echo 'a check FAILED')"
exit $FAILED
