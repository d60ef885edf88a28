#!/usr/bin/env bash
# scripts/check-sizes.sh on trees made here: a function of 150 lines and a file of 900 pass; one
# line more of either fails, naming the function or the file.
set -euo pipefail
check=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A function of BODY body lines plus its two brace lines, in ROOT/engine/f.cpp.
function_of() { # ROOT LINES
    mkdir -p "$1/engine" "$1/app" "$1/kernels"
    { echo "int longFunction(int x) {"
      for ((i = 0; i < $2 - 2; i++)); do echo "    x += $i;"; done
      echo "}"; } >"$1/engine/f.cpp"
}
file_of() { # ROOT LINES
    mkdir -p "$1/app/gui"
    for ((i = 0; i < $2; i++)); do echo "int v$i = $i;"; done >"$1/app/gui/big.cpp"
}
expect() { # WANTED_STATUS ROOT PATTERN
    set +e; out=$(bash "$check" "$2" 2>&1); status=$?; set -e
    if [ "$status" -ne "$1" ] || ! grep -q -- "$3" <<<"$out"; then
        echo "FAIL: wanted status $1 and '$3', got $status:"; echo "$out"; exit 1
    fi
}

function_of "$tmp/ok" 150
file_of "$tmp/ok" 900
expect 0 "$tmp/ok" "none over 150 lines"

function_of "$tmp/longfn" 151
expect 1 "$tmp/longfn" "longFunction (151 lines) at engine/f.cpp:1"

function_of "$tmp/bigfile" 10
file_of "$tmp/bigfile" 901
expect 1 "$tmp/bigfile" "app/gui/big.cpp (901 lines)"
echo "check-sizes self-test: passed"
