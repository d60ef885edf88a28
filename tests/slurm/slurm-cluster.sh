#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for the `slurm` tests: Debian's slurm-wlm and
# munge, nothing else. Runs as root (the tests do), needs no systemd, no cgroups and no
# accounting database.
#   slurm-cluster.sh start DIR   writes DIR/slurm.conf, starts munged (its own key and socket),
#                                slurmctld and slurmd, and waits until the node is idle
#   slurm-cluster.sh stop DIR    stops them by their PIDs (written under DIR) and waits for them
# Clients reach the cluster with SLURM_CONF=DIR/slurm.conf.
set -euo pipefail

command=${1:?start or stop}
dir=${2:?a directory}

# A TCP port nothing listens on (slurmctld and slurmd each need one; the defaults may be taken).
free_port() {
    local port
    for _ in $(seq 200); do
        port=$((20000 + RANDOM % 20000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "$port"
            return 0
        fi
    done
    echo "no free port found" >&2
    return 1
}

# Ends the process whose PID is in FILE: SIGTERM, then SIGKILL after 10 s.
stop_pid_file() {
    local file=$1 pid
    [ -s "$file" ] || return 0
    pid=$(cat "$file")
    if kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 100); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$file"
}

stop() {
    # slurmd first, so that no job step outlives the controller that would clean it up.
    stop_pid_file "$dir/slurmd.pid"
    stop_pid_file "$dir/slurmctld.pid"
    stop_pid_file "$dir/munged.pid"
}

start() {
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    stop # a cluster left from an interrupted run
    rm -rf "$dir/state" "$dir/spool" "$dir/munge"
    mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
    chmod 700 "$dir/munge"

    # munged with a throwaway key on a socket of its own: the system's munged (if any) and its
    # key are left alone.
    dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
    chmod 600 "$dir/munge/munge.key"
    local socket="$dir/munge/munge.socket"
    munged --force --foreground --socket="$socket" --key-file="$dir/munge/munge.key" \
        --pid-file="$dir/munge/munged.pid.own" --seed-file="$dir/munge/munged.seed" \
        --log-file="$dir/munged.log" >>"$dir/munged.log" 2>&1 &
    echo $! >"$dir/munged.pid"
    for _ in $(seq 100); do
        [ -S "$socket" ] && break
        sleep 0.1
    done
    [ -S "$socket" ] || { echo "munged did not start:" >&2; cat "$dir/munged.log" >&2; exit 1; }

    local ctld_port slurmd_port cpus
    ctld_port=$(free_port)
    slurmd_port=$(free_port)
    while [ "$slurmd_port" = "$ctld_port" ]; do slurmd_port=$(free_port); done
    cpus=$(nproc)
    cat >"$dir/slurm.conf" <<CONF
ClusterName=slicescope-test
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid.own
SlurmdPidFile=$dir/slurmd.pid.own
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
MinJobAge=30
KillWait=5
SchedulerParameters=sched_interval=1
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=100 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
    export SLURM_CONF="$dir/slurm.conf"
    slurmctld -D -i -f "$SLURM_CONF" >>"$dir/slurmctld.out" 2>&1 &
    echo $! >"$dir/slurmctld.pid"
    slurmd -D -N localhost -f "$SLURM_CONF" >>"$dir/slurmd.out" 2>&1 &
    echo $! >"$dir/slurmd.pid"

    local state=""
    for _ in $(seq 300); do
        state=$(sinfo -h -N -o '%T' 2>/dev/null || true)
        [ "$state" = "idle" ] && break
        sleep 0.1
    done
    if [ "$state" != "idle" ]; then
        echo "the Slurm node did not become idle (state: '${state}')" >&2
        tail -n 20 "$dir/slurmctld.log" "$dir/slurmd.log" "$dir/slurmctld.out" "$dir/slurmd.out" >&2 || true
        stop
        exit 1
    fi
    echo "Slurm cluster up: SLURM_CONF=$SLURM_CONF"
}

case "$command" in
start) start ;;
stop) stop ;;
*) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
