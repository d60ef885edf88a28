#!/usr/bin/env bash
# One hostile-input case (tests/hostile/CMakeLists.txt): runs a program on INPUT under a 30 s
# timeout and, unless SANITIZE is ON, a 4 GiB address-space limit, and checks how it ended.
#
#   runhostile.sh cli|gui PROGRAM INPUT error|ok PATTERN OUTDIR SANITIZE FEED
#
#   cli      PROGRAM is slicescope-cli: `export INPUT --csv OUT.csv`
#   gui      PROGRAM is slicescope: `--export-image OUT.png INPUT`, QT_QPA_PLATFORM=offscreen
#   error    the program must exit 1 and say PATTERN (an extended regular expression) on stderr
#   ok       the program must exit 0 and write a CSV with its header, or a PNG with its size
#   SANITIZE ON under the asan preset: AddressSanitizer reserves terabytes of address space, so
#            the address-space limit is left out there; AddressSanitizer's own
#            hard_rss_limit_mb=4096 ends the program instead if it holds more than 4 GiB (the
#            timeout stays)
#   FEED     yes: INPUT is a FIFO that `yes` writes to while the program runs; - otherwise
#
# A signal (a crash, an abort, bad_alloc's terminate), the timeout, a sanitizer's report, or a
# limit that could not be set fails the case.
set -u
if [ $# -ne 8 ]; then
    sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
tool=$1 program=$2 input=$3 expect=$4 pattern=$5 outdir=$6 sanitize=$7 feed=$8

mkdir -p "$outdir"
name=$(basename "$input").$tool
if [ "$tool" = cli ]; then
    out=$outdir/$name.csv
    command=("$program" export "$input" --csv "$out")
else
    out=$outdir/$name.png
    command=("$program" --export-image "$out" "$input")
    export QT_QPA_PLATFORM=offscreen
fi
rm -f "$out"

writer=
if [ "$feed" = yes ]; then
    yes >"$input" 2>/dev/null &
    writer=$!
fi
if [ "$sanitize" != ON ]; then
    # KiB: 4 GiB of address space, for the program and what it starts. A case that ran without
    # it would prove nothing about memory.
    if ! ulimit -v 4194304 || [ "$(ulimit -v)" != 4194304 ]; then
        echo "FAIL: could not limit the address space to 4 GiB (ulimit -v: $(ulimit -v))"
        exit 1
    fi
else
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=4096"
fi
started=$SECONDS
timeout -s KILL 30 "${command[@]}" >"$outdir/$name.stdout" 2>"$outdir/$name.stderr"
status=$?
elapsed=$((SECONDS - started))
if [ -n "$writer" ]; then
    kill "$writer" 2>/dev/null
    wait "$writer" 2>/dev/null
fi

echo "${command[*]}"
echo "exit status $status after ${elapsed}s; stderr:"
head -c 2000 "$outdir/$name.stderr"
echo

if [ "$status" -eq 137 ] || [ "$status" -eq 124 ]; then
    echo "FAIL: killed by the 30 s timeout"
    exit 1
fi
if [ "$status" -gt 128 ]; then
    echo "FAIL: ended by signal $((status - 128))"
    exit 1
fi
if grep -Eq 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error: |hard rss limit exhausted' \
    "$outdir/$name.stderr"; then
    echo "FAIL: a sanitizer reported an error (or the 4 GiB limit) on stderr"
    exit 1
fi
if [ "$expect" = error ]; then
    if [ "$status" -ne 1 ]; then
        echo "FAIL: expected exit status 1 (a clear error), got $status"
        exit 1
    fi
    if ! grep -Eq -- "$pattern" "$outdir/$name.stderr"; then
        echo "FAIL: stderr does not say /$pattern/"
        exit 1
    fi
    if [ -e "$out" ]; then
        echo "FAIL: an output file was written for a refused input"
        exit 1
    fi
    echo "PASS: refused with a clear message"
    exit 0
fi

if [ "$status" -ne 0 ]; then
    echo "FAIL: expected exit status 0, got $status"
    exit 1
fi
if [ "$tool" = cli ]; then
    if ! head -1 "$out" 2>/dev/null | grep -q '^Start,Duration,'; then
        echo "FAIL: $out is not the CSV export"
        exit 1
    fi
else
    # The PNG signature, then the IHDR chunk: width and height, big-endian, both non-zero.
    signature=$(head -c 8 "$out" 2>/dev/null | od -An -tx1 | tr -d ' \n')
    width=$(od -An -tu4 --endian=big -j16 -N4 "$out" 2>/dev/null | tr -d ' ')
    height=$(od -An -tu4 --endian=big -j20 -N4 "$out" 2>/dev/null | tr -d ' ')
    if [ "$signature" != 89504e470d0a1a0a ] || [ "${width:-0}" -eq 0 ] || [ "${height:-0}" -eq 0 ]; then
        echo "FAIL: $out is not a PNG image"
        exit 1
    fi
    echo "image ${width}x${height}"
fi
echo "PASS: exported"
exit 0
