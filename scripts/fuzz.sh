#!/usr/bin/env bash
# Builds the libFuzzer targets (CMake preset `fuzz`: clang, AddressSanitizer + UBSan, into
# build-fuzz/; `guirender` needs the GUI, so it comes from the preset `fuzz-gui`, into
# build-fuzz-gui/) and runs each one for a bounded time.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#
#   SECONDS_PER_TARGET  default 180
#   TARGET              tracereader, jsoncursor, device, shape, kinetoimport, ncuimport
#                       (default: these six, one after the other), guirender (the GUI's load and draw path, offscreen; only
#                       when named: it builds the Qt GUI with clang)
#
# Findings (crash-*, leak-*, timeout-*, oom-* inputs) are kept under $FUZZ_FINDINGS/<target>/
# (default fuzz-findings/); the script exits 1 when a run found anything, 2 on a usage or build
# error, 0 otherwise. Reproduce a finding with `build-fuzz/bin/fuzz_<target> FILE` (guirender:
# build-fuzz-gui/bin/fuzz_guirender); once fixed, add it to tests/data/fuzz-regressions/<target>/
# so the normal suite replays it (tst_fuzzreplay; guirender: tst_fuzzreplaygui).
#
# Seeds: tests/data/fuzz-corpus/<target>/ (read only). The corpus the fuzzer grows is kept in
# <build folder>/corpus/<target>/ and reused by the next run.
# Environment: FUZZ_FINDINGS, FUZZ_NICE (niceness, default 10), FUZZ_JOBS (build jobs, default 2),
# FUZZ_ARGS (extra libFuzzer flags).
# Needs Debian's clang-14, libclang-rt-14-dev (libFuzzer, sanitizer runtimes) and libomp-14-dev.
set -uo pipefail
cd "$(dirname "$0")/.."

usage() {
    sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
}

seconds=180
if [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; then
    seconds=$1
    shift
elif [ $# -gt 0 ] && [[ "$1" == -h || "$1" == --help ]]; then
    usage
fi
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(tracereader jsoncursor device shape kinetoimport ncuimport)
for t in "${targets[@]}"; do
    case $t in
    tracereader | jsoncursor | device | shape | kinetoimport | ncuimport | guirender) ;;
    *) echo "fuzz.sh: unknown target '$t' (tracereader, jsoncursor, device, shape, kinetoimport, ncuimport, guirender)" >&2; usage ;;
    esac
done

findings=${FUZZ_FINDINGS:-fuzz-findings}
niceness=${FUZZ_NICE:-10}
jobs=${FUZZ_JOBS:-2}

if ! command -v clang++ >/dev/null; then
    echo "fuzz.sh: clang++ not found (apt-get install clang-14 libclang-rt-14-dev libomp-14-dev)" >&2
    exit 2
fi
# The preset and build folder of a target.
preset_of() { [ "$1" = guirender ] && echo fuzz-gui || echo fuzz; }
build_of() { [ "$1" = guirender ] && echo build-fuzz-gui || echo build-fuzz; }

for preset in $(for t in "${targets[@]}"; do preset_of "$t"; done | sort -u); do
    build=build-${preset}
    built=()
    for t in "${targets[@]}"; do [ "$(preset_of "$t")" = "$preset" ] && built+=("fuzz_$t"); done
    if [ ! -f "$build/CMakeCache.txt" ]; then
        cmake --preset "$preset" >/dev/null || { echo "fuzz.sh: configuring the $preset preset failed" >&2; exit 2; }
    fi
    echo "== building ${built[*]} (log: $build/fuzz-build.log)"
    if ! nice -n "$niceness" cmake --build "$build" -j "$jobs" \
        --target "${built[@]}" >"$build/fuzz-build.log" 2>&1; then
        tail -30 "$build/fuzz-build.log" >&2
        echo "fuzz.sh: build failed" >&2
        exit 2
    fi
done

status=0
summary=()
for t in "${targets[@]}"; do
    build=$(build_of "$t")
    seeds=tests/data/fuzz-corpus/$t
    corpus=$build/corpus/$t
    artifacts=$findings/$t
    log=$build/fuzz-$t.log
    mkdir -p "$corpus" "$artifacts"
    case $t in
    shape) dict=() ;;
    kinetoimport) dict=(-dict=tests/data/fuzz-corpus/kineto.dict) ;;
    ncuimport) dict=(-dict=tests/data/fuzz-corpus/ncu.dict) ;;
    *) dict=(-dict=tests/data/fuzz-corpus/trace.dict) ;;
    esac
    # guirender: fontconfig, under Qt, never frees its caches (tests/fuzz/guirender.lsan.supp).
    lsan=${LSAN_OPTIONS:-}
    [ "$t" = guirender ] && lsan="suppressions=$PWD/tests/fuzz/guirender.lsan.supp${lsan:+:$lsan}"
    before=$(find "$artifacts" -type f | wc -l)
    echo "== fuzz_$t for ${seconds}s (log: $log)"
    # -timeout: an input that takes over 10 s is a hang; -rss_limit_mb: a blow-up is a finding.
    started=$SECONDS
    # shellcheck disable=SC2086
    LSAN_OPTIONS=$lsan QT_QPA_PLATFORM=offscreen nice -n "$niceness" "$build/bin/fuzz_$t" "${dict[@]}" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
        -print_final_stats=1 -artifact_prefix="$artifacts/" ${FUZZ_ARGS:-} \
        "$corpus" "$seeds" >"$log" 2>&1
    rc=$?
    elapsed=$((SECONDS - started))
    after=$(find "$artifacts" -type f | wc -l)
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
    files=$(find "$corpus" -type f | wc -l)
    line="fuzz_$t: ${elapsed}s of ${seconds}s, ${runs:-?} runs, ${rate:-?} exec/s, peak RSS ${rss:-?} MB, corpus $files files, findings $((after - before)), exit $rc"
    echo "$line"
    summary+=("$line")
    if [ "$rc" -ne 0 ] || [ "$after" -gt "$before" ]; then
        status=1
        grep -E "ERROR|runtime error|fuzz check failed|Test unit written" "$log" | head -20
        echo "   findings under $artifacts/"
    fi
done

echo "== summary"
printf '%s\n' "${summary[@]}"
exit $status
