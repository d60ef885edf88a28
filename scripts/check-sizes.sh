#!/usr/bin/env bash
# The house rule of docs/design.md ("Where things go"): no function over 150 lines and no source
# file over 900 in app/, engine/ and kernels/ (tests and benchmarks aside), and MainWindow's file
# at most 650 lines. Functions are found by Universal Ctags (Debian: universal-ctags), which gives
# each definition's first and last line. Prints every breach; exits 1 if there is one.
#   scripts/check-sizes.sh [ROOT]        ROOT defaults to the repository this script is in
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"
max_function=150
max_file=900
max_mainwindow=650

command -v ctags >/dev/null || { echo "check-sizes: ctags (universal-ctags) not found" >&2; exit 2; }
ctags --version | grep -q 'Universal Ctags' ||
    { echo "check-sizes: ctags is not Universal Ctags" >&2; exit 2; }

mapfile -t sources < <(find app engine kernels -type f \
    \( -name '*.cpp' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) | sort)
[ ${#sources[@]} -gt 0 ] || { echo "check-sizes: no sources under $root" >&2; exit 2; }

breaches=0
functions=$(ctags --languages=C++ --langmap=C++:+.cu.cuh --kinds-C++=f --fields=+ne -x \
    --_xformat='%{end} %{line} %N %F' "${sources[@]}")
[ -n "$functions" ] || { echo "check-sizes: ctags found no function" >&2; exit 2; }
while read -r end start name file; do
    lines=$((end - start + 1))
    if [ "$lines" -gt "$max_function" ]; then
        echo "function over $max_function lines: $name ($lines lines) at $file:$start"
        breaches=$((breaches + 1))
    fi
done <<<"$functions"

for file in "${sources[@]}"; do
    lines=$(wc -l <"$file")
    limit=$max_file
    [ "$file" = app/gui/mainwindow.cpp ] && limit=$max_mainwindow
    if [ "$lines" -gt "$limit" ]; then
        echo "file over $limit lines: $file ($lines lines)"
        breaches=$((breaches + 1))
    fi
done

count=$(wc -l <<<"$functions")
if [ "$breaches" -gt 0 ]; then
    echo "check-sizes: $breaches breach(es) among $count functions in ${#sources[@]} files"
    exit 1
fi
echo "check-sizes: $count functions in ${#sources[@]} files, none over $max_function lines, no file over $max_file"
