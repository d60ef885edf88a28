#!/bin/sh
# Every line slicescope-cli writes on stderr is one write(2): under --host the remote CLI's stdout
# lines come back on the same stream, and a line written in pieces was cut by one (a CI run saw
# "slicescope-cli: interrupted: @ss-... out No crossover ..." then "2 runs ... were kept").
# Usage: error-lines.sh CLI WORK_DIR. Needs strace; says SKIPPED where ptrace is not allowed.
set -u
cli=$1 work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
if ! strace -f -qq -e trace=none true 2>strace.err; then
    echo "SKIPPED: strace cannot trace here: $(head -c 200 strace.err)"
    exit 0
fi
status=0
# LeakSanitizer cannot run under ptrace (an AddressSanitizer build, make test-asan): leaks are
# the other tests' business here.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
export ASAN_OPTIONS
# traced CASE ARGS...: runs the CLI under strace; every write to fd 2 must end its line.
traced() {
    case=$1
    shift
    strace -f -qq -s 4096 -e trace=write -e signal=none -o "$case.strace" "$cli" "$@" \
        >"$case.out" 2>"$case.err"
    writes=$(grep -c 'write(2, ' "$case.strace")
    cut=$(grep 'write(2, ' "$case.strace" | grep -v '\\n", [0-9]*) *= [0-9]*$')
    if [ "$writes" -eq 0 ]; then
        echo "FAIL: $case wrote nothing on stderr"
        status=1
    elif [ -n "$cut" ]; then
        echo "FAIL: $case wrote a line in pieces:"
        echo "$cut"
        status=1
    else
        echo "$case: $writes writes on stderr, each ending its line"
    fi
}
traced sweep_interrupted sweep --param rows --values 10,20,40 --shape 10x20x5 --strategy cpu-serial \
    --test-interrupt-after 2 -o "$work/s.json"
traced export_missing export "$work/missing.json" --csv "$work/x.csv"
traced usage_error sweep --param nothing
exit $status
