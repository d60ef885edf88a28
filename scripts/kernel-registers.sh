#!/usr/bin/env bash
# Writes the registers per thread of every strategy kernel, per element type and per architecture,
# as ptxas reports them (nvcc --resource-usage), to resources/kernel-registers.json: the table the
# model reads (engine/src/backend/modelbackend.cpp, docs/model.md). The file is checked in so that
# the model works on machines without CUDA; the CTest test kernels.registers_table (only in CUDA
# builds) runs this script with the build's nvcc and fails when the result differs.
#
# Usage: scripts/kernel-registers.sh [--nvcc PATH] [--archs "75;80;..."] [-o FILE]
#   --nvcc   the CUDA compiler (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc)
#   --archs  CMake-style list of architectures (default: SLICESCOPE_CUDA_ARCHITECTURES's default
#            in kernels/CMakeLists.txt; "-real"/"-virtual" suffixes are ignored)
#   -o       output file (default: resources/kernel-registers.json; "-" for stdout)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
archs=""
output="$root/resources/kernel-registers.json"
while [ $# -gt 0 ]; do
    case "$1" in
    --nvcc) nvcc=$2; shift 2 ;;
    --archs) archs=$2; shift 2 ;;
    -o) output=$2; shift 2 ;;
    *) echo "kernel-registers.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
if [ -z "$archs" ]; then
    # The default of the cache variable: the list between the first pair of quotes after it.
    archs=$(sed -n '/set(SLICESCOPE_CUDA_ARCHITECTURES/{n;p;q}' "$root/kernels/CMakeLists.txt" |
        sed 's/^ *"\([^"]*\)".*/\1/')
fi
if [ ! -x "$nvcc" ]; then
    echo "kernel-registers.sh: no CUDA compiler at '$nvcc'" >&2
    exit 1
fi

# Architecture numbers, each once, ascending: "75-real;121" -> "75 121".
numbers=$(echo "$archs" | tr ';' '\n' | sed 's/-.*//' | grep -E '^[0-9]+$' | sort -n | uniq)
if [ -z "$numbers" ]; then
    echo "kernel-registers.sh: no architectures in '$archs'" >&2
    exit 2
fi
gencode=()
for a in $numbers; do
    gencode+=("--generate-code=arch=compute_$a,code=sm_$a")
done
release=$("$nvcc" --version | sed -n 's/.*release \([0-9.]*\),.*/\1/p')

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The strategy kernel files: the SLICESCOPE_STRATEGY_KERNELS list of kernels/CMakeLists.txt, the
# names strategy::StrategyInfo::kernel uses.
files=$(sed -n '/^set(SLICESCOPE_STRATEGY_KERNELS$/,/^)$/p' "$root/kernels/CMakeLists.txt" |
    sed '1d;$d' | tr -d ' ')
if [ -z "$files" ]; then
    echo "kernel-registers.sh: no SLICESCOPE_STRATEGY_KERNELS list in kernels/CMakeLists.txt" >&2
    exit 2
fi
rows="$work/rows"
: >"$rows"
for file in $files; do
    # The flags the build compiles the kernels with (kernels/CMakeLists.txt) that reach ptxas.
    "$nvcc" -O2 -std=c++17 -I"$root" -I"$root/engine/include" "${gencode[@]}" --resource-usage \
        -c "$root/kernels/$file.cu" -o "$work/$file.o" >"$work/$file.log" 2>&1 || {
        cat "$work/$file.log" >&2
        exit 1
    }
    # "Compiling entry function '_Z...IdE...' for 'sm_90'" then "Used 34 registers".
    awk -v kernel="$file" '
        /Compiling entry function/ {
            match($0, /I[df]EEv/); type = substr($0, RSTART + 1, 1)
            match($0, /sm_[0-9]+/); sm = substr($0, RSTART + 3, RLENGTH - 3)
        }
        /Used [0-9]+ registers/ && sm != "" {
            match($0, /Used [0-9]+ registers/); regs = substr($0, RSTART + 5, RLENGTH - 15)
            print kernel, (type == "d" ? "f64" : "f32"), sm, regs
            sm = ""
        }' "$work/$file.log" >>"$rows"
done

expected=$(($(echo "$files" | wc -l) * 2 * $(echo "$numbers" | wc -l)))
if [ "$(wc -l <"$rows")" -ne "$expected" ]; then
    echo "kernel-registers.sh: expected $expected kernel entries, ptxas reported $(wc -l <"$rows")" >&2
    exit 1
fi

{
    echo '{'
    echo '  "format": "slicescope-kernel-registers",'
    echo '  "version": 2,'
    echo "  \"generated_by\": \"scripts/kernel-registers.sh: nvcc $release --resource-usage -O2\","
    echo '  "kernels": ['
    sort -k1,1 -k2,2 -k3,3n "$rows" | awk '{
        printf "%s    {\"kernel\": \"%s\", \"dtype\": \"%s\", \"sm\": %s, \"registers\": %s}",
               (NR > 1 ? ",\n" : ""), $1, $2, $3, $4 }
        END { print "" }'
    echo '  ]'
    echo '}'
} >"$work/out.json"
if [ "$output" = "-" ]; then
    cat "$work/out.json"
else
    cp "$work/out.json" "$output"
fi
