#!/bin/sh
# `record` ends the whole program, grandchildren included, when it is cancelled or dies
# (docs/recording.md). Usage: record-signals.sh CLI WORK_DIR SIGNAL [ignore-term]
#   SIGNAL       what `record` gets: TERM or INT (a cancel), KILL (its death)
#   ignore-term  the program and its grandchild ignore SIGTERM: only SIGKILL ends them
# The program is a shell that starts a grandchild (sleep 300), writes its PID and waits for it.
set -u
cli=$1 work=$2 signal=$3 mode=${4:-}
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

trap_term=''
if [ "$mode" = ignore-term ]; then
    trap_term='trap "" TERM; '
fi
"$cli" record -q -o "$work/t.json" -- sh -c "${trap_term}sleep 300 & echo \$! > grandchild.pid; wait" &
record=$!

# A process is gone when it no longer exists or is a zombie nobody has reaped yet.
gone() {
    ! kill -0 "$1" 2>/dev/null || grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null
}
# Waits up to $2 tenths of a second for `$1` to succeed.
within() {
    n=0
    while ! eval "$1"; do
        n=$((n + 1))
        [ "$n" -ge "$2" ] && return 1
        sleep 0.1
    done
}

if ! within '[ -s grandchild.pid ]' 100; then
    echo "FAIL: the program never wrote grandchild.pid"
    kill -KILL "$record" 2>/dev/null
    exit 1
fi
grandchild=$(cat grandchild.pid)
sleep 0.3 # the program is now waiting on its grandchild
kill "-$signal" "$record"

status=0
# Cancel: TERM at once, KILL 5 s later; death: the same from the watchdog. 12 s is ample.
if within "gone $grandchild" 120; then
    echo "the grandchild $grandchild is gone after SIG$signal to record"
else
    echo "FAIL: the grandchild $grandchild still runs 12 s after SIG$signal to record"
    kill -KILL "$grandchild" 2>/dev/null
    status=1
fi
if ! within "! kill -0 $record 2>/dev/null || gone $record" 100; then
    echo "FAIL: record still runs 10 s after that"
    kill -KILL "$record"
    status=1
fi
wait "$record"
record_status=$?
echo "record exited with $record_status"
if [ "$signal" != KILL ]; then
    # A cancel keeps what was recorded: the trace is written, with the cancel note.
    if ! grep -q 'recording cancelled' "$work/t.json" 2>/dev/null; then
        echo "FAIL: no trace with the cancel note after SIG$signal"
        status=1
    fi
fi
exit $status
