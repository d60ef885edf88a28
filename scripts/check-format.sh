#!/usr/bin/env bash
# check-format.sh: every C++ and CUDA source in the tree matches .clang-format (clang-format 14,
# Debian's clang-format package). Prints the files that differ and exits 1 if any does.
#   scripts/check-format.sh        check
#   scripts/check-format.sh --fix  rewrite the files in place
set -euo pipefail
cd "$(dirname "$0")/.."
CLANG_FORMAT=${CLANG_FORMAT:-clang-format}
mapfile -t files < <(git ls-files -- 'app/*' 'engine/*' 'kernels/*' 'tests/*' 'bench/*' |
    grep -E '\.(cpp|h|cu|cuh)$')
if [ "${1:-}" = "--fix" ]; then
    "$CLANG_FORMAT" -i "${files[@]}"
    exit 0
fi
bad=()
for f in "${files[@]}"; do
    "$CLANG_FORMAT" --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
    echo "check-format: ${#bad[@]} of ${#files[@]} files differ from .clang-format (fix: scripts/check-format.sh --fix):"
    printf '  %s\n' "${bad[@]}"
    exit 1
fi
echo "check-format: ${#files[@]} files match .clang-format"
