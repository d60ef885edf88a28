#!/usr/bin/env bash
# `sweep --launcher slurm` against the cluster slurm-cluster.sh started (SLURM_CONF set by CTest).
#   slurm-sweep.sh CASE CLI WORKDIR
# Cases:
#   sweep_equals_one_process  a 32-point modelled sweep over 4 array tasks gives the trace one
#                             process gives: runs, sweep tags, values, crossovers (wall times and
#                             dates aside), its crossover straddling two tasks' slices
#   failed_task_reported      the last slice's points need more device memory than the preset
#                             has, so task 3 really fails: reported by index with its stderr; the
#                             other parts merged, the sweep marked incomplete, exit 1
#   cancel_runs_scancel       SIGINT while the tasks run: scancel, the job leaves the queue,
#                             exit 130
#   sweep_from_login_node     the same sweep submitted with --host through a real sshd on
#                             127.0.0.1 (tests/remote/sshd-fixture.sh) as from a login node: the
#                             remote CLI submits the array there with its work folder where
#                             --slurm-dir says (the remote output is a temporary file), its
#                             progress comes back, and the trace written here equals the
#                             one-process sweep's
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

case_name=${1:?case}
cli=${2:?slicescope-cli}
work=${3:?work directory}
: "${SLURM_CONF:?SLURM_CONF must name the slurm.conf of the test cluster}"
rm -rf "$work"
mkdir -p "$work"
cd "$work"

failures=0
check() { # check DESCRIPTION COMMAND...
    local what=$1
    shift
    if "$@"; then
        echo "ok: $what"
    else
        echo "FAILED: $what"
        failures=$((failures + 1))
    fi
}
contains() { grep -Eq -- "$2" "$1"; }

# The parts of a trace that must not depend on where the points ran: every run without its wall
# time and date, and the sweeps (values, strategies, crossovers, complete).
normalized() {
    jq -S '{runs: [.runs[] | del(.wall_ns, .created_at)], sweeps: .sweeps}' "$1"
}

# The 32 column values of sweep_equals_one_process, comma-separated.
column_values() {
    awk 'BEGIN { v = 8; for (i = 0; i < 32; ++i) { printf "%s%d", (i ? "," : ""), v; v = int(v * 1.3) + 1 } }'
}

sweep_equals_one_process() {
    # 32 points of columns, 8 to 34636 by x1.3 or so: slice-outer leads until columns 62 (point 7,
    # the last of task 0) and slice-middle-strided from 81 (point 8, the first of task 1) on
    # (the modelled crossover), so only the merge can see the crossover.
    local values
    values=$(column_values)
    local args=(sweep --param columns --values "$values" --shape 100x1x5
        --strategy slice-outer,slice-middle-strided --device h200 -q)
    "$cli" "${args[@]}" -o local.json >local.out 2>local.err
    local status=0
    "$cli" "${args[@]}" --launcher slurm --max-tasks 4 -o slurm.json >slurm.out 2>slurm.err ||
        status=$?
    cat slurm.out slurm.err
    check "exit status 0 (got $status)" test "$status" = 0
    check "submitted one array of 4 tasks" contains slurm.out '^slurm: submitted job [0-9]+: 4 tasks'
    check "progress counts to 4 of 4" contains slurm.out '^slurm: 4 of 4 tasks done$'
    local t
    for t in 0 1 2 3; do
        check "task $t wrote its part of 8 points" \
            test "$(jq '.sweeps[0].values | length' "slurm.json.slurm/part-$t.json")" = 8
        check "part $t alone has no crossover" \
            test "$(jq '.sweeps[0].crossovers | length' "slurm.json.slurm/part-$t.json")" = 0
    done
    check "64 runs" test "$(jq '.runs | length' slurm.json)" = 64
    check "the one-process sweep finds its crossover between columns 62 and 81" \
        test "$(jq -c '[.sweeps[0].crossovers[] | [.low_value, .high_value]]' local.json)" = '[[62,81]]'
    normalized local.json >local.norm
    normalized slurm.json >slurm.norm
    check "the merged trace equals the one-process trace" diff -u local.norm slurm.norm
    check "the same verdict" diff <(grep -v '^slurm: ' slurm.out) local.out
}

failed_task_reported() {
    # 8 points, 2 a task: rows 4000000 and 8000000 need more than the H200's 141 GB.
    local args=(sweep --param rows --values 10,20,40,80,160,320,4000000,8000000 --shape 1x4000x5
        --strategy slice-outer,elementwise-broadcast --device h200 -q)
    local status=0
    "$cli" "${args[@]}" --launcher slurm --max-tasks 4 -o s.json >s.out 2>s.err || status=$?
    cat s.out s.err
    check "exit status 1 (got $status)" test "$status" = 1
    check "task 3 reported by index, with its slice and how it ended" contains s.err \
        '^slicescope-cli: error: task 3 of job [0-9]+ \(rows 4000000 to 8000000\) failed: FAILED, exit status 1; the end of .*/s\.json\.slurm/task-3\.err:$'
    check "with its stderr's tail" contains s.err '^  \| .*needs [0-9]+ MiB of device memory'
    check "only task 3 failed" test "$(grep -c 'failed: ' s.err)" = 1
    check "the count of failed tasks" contains s.err '^slicescope-cli: 1 of 4 Slurm tasks failed'
    check "the finished parts are kept" test -s s.json.slurm/part-0.json -a \
        -s s.json.slurm/part-2.json
    check "the merged trace holds the 12 runs that finished" \
        test "$(jq '.runs | length' s.json)" = 12
    check "marked incomplete" test "$(jq '.sweeps[0].complete' s.json)" = false
    check "points keep the whole sweep's indices" \
        test "$(jq -c '[.runs[].sweep.index] | unique' s.json)" = '[0,1,2,3,4,5]'
}

cancel_runs_scancel() {
    # Measured CPU points that take seconds each, so that the tasks are running when SIGINT comes.
    "$cli" sweep --param work --values 1000,1001,1002,1003 --shape 1000x1000x5 \
        --strategy cpu-serial --launcher slurm --max-tasks 4 -o c.json >c.out 2>c.err &
    local launcher=$! job="" running=""
    for _ in $(seq 300); do
        job=$(sed -n 's/^slurm: submitted job \([0-9]*\):.*/\1/p' c.out)
        if [ -n "$job" ]; then
            running=$(squeue -h -j "$job" -t RUNNING -o %K)
            [ -n "$running" ] && break
        fi
        sleep 0.1
    done
    check "the job was submitted and a task runs" test -n "$job" -a -n "$running"
    kill -INT "$launcher"
    local status=0
    wait "$launcher" || status=$?
    cat c.out c.err
    check "exit status 130 (got $status)" test "$status" = 130
    check "scancel ran" contains c.out "^slurm: cancelled job $job \\(scancel\\)$"
    check "the job left the queue" test -z "$(squeue -h -j "$job" -o %i 2>/dev/null)"
    check "Slurm says the tasks were cancelled" contains <(squeue -h -j "$job" --states=all -o %T) \
        '^CANCELLED'
}

sweep_from_login_node() {
    local args=(sweep --param columns --values "$(column_values)" --shape 100x1x5
        --strategy slice-outer,slice-middle-strided --device h200 -q)
    "$cli" "${args[@]}" -o local.json >local.out 2>local.err
    # sshd gives its sessions a clean environment: the remote CLI learns the cluster's
    # slurm.conf from a wrapper, as a site's module or profile would set it.
    printf '#!/bin/sh\nexport SLURM_CONF=%s\nexec %s "$@"\n' "$SLURM_CONF" "$cli" >remote-cli
    chmod +x remote-cli
    sh "$here/../remote/sshd-fixture.sh" start "$work/sshd" >/dev/null
    trap 'sh "$here/../remote/sshd-fixture.sh" stop "$work/sshd"' EXIT
    local status=0
    SLICESCOPE_SSH="ssh -F $work/sshd/ssh_config" "$cli" "${args[@]}" --launcher slurm \
        --max-tasks 4 --slurm-dir "$work/shared/parts" --host slicescope-test \
        --remote-cli "$work/remote-cli" -o login.json \
        >login.out 2>login.err || status=$?
    cat login.out login.err
    check "exit status 0 (got $status)" test "$status" = 0
    check "the remote side submitted one array of 4 tasks" \
        contains login.out '^slurm: submitted job [0-9]+: 4 tasks'
    check "its progress came back to 4 of 4" contains login.out '^slurm: 4 of 4 tasks done$'
    check "the work folder is where --slurm-dir says" contains login.out \
        "^slurm: submitted job [0-9]+: 4 tasks, work in $work/shared/parts\$"
    check "the tasks wrote their parts there" test -s shared/parts/part-0.json -a \
        -s shared/parts/part-3.json
    check "64 runs written here" test "$(jq '.runs | length' login.json)" = 64
    normalized local.json >local.norm
    normalized login.json >login.norm
    check "the trace equals the one-process sweep's" diff -u local.norm login.norm
    check "the same verdict" diff <(grep -v '^slurm: ' login.out) local.out
}

"$case_name"
if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed; the files are in $work"
    exit 1
fi
