#!/usr/bin/env bash
# gui-device-check.sh: the GUI's own live path on a machine with a GPU but no Qt and no package
# registry (the lent H200). It unpacks the bundle scripts/make-carry.sh --gui made (the GUI,
# slicescope-cli, tst_livegpu, their shared libraries, the Qt offscreen plugin and fonts), checks
# that every library resolves to the bundle or to the machine's base system and CUDA, then, offscreen:
#   - tst_livegpu (tests/gui/tst_livegpu.cpp): a real MainWindow runs the seed's story through
#     the real slicescope-cli on the GPU, with counters and occupancy sampling, cancels a long
#     run, runs again, and exports the window's image of the live session;
#   - `slicescope --export-image` of the session the window autosaved.
# Every step runs even when one before failed; the summary says PASS or FAIL for each.
#
# From the repository root on the device machine, with .carry carried:
#   OUT=$OUT bash scripts/gui-device-check.sh
# $OUT receives, flat (the device tool returns at most 8 files):
#   report.txt                  the summary, PASS or FAIL per step, every figure the test printed
#   tst_livegpu.txt             the test's whole output
#   live-seed-story.png         the window's File > Export image after the seed's story
#   live-seed-story.json        the session the window autosaved then
#   live-counters.png           the window's export after the run with counters and sampling
#   live-seed-story-export.png  `slicescope --export-image` of live-seed-story.json, 1920x1080
#   logs.tar.gz                 every step's log (ldd of each bundled file, devices --json, ...)
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$SRC/gui-device-check-out}
CARRY=${SLICESCOPE_CARRY:-$SRC/.carry}
ARCHIVE=${SLICESCOPE_GUI_BUNDLE:-$CARRY/gui-bundle.tar.xz}
WORK=$(mktemp -d /tmp/slicescope-gui-device-check.XXXXXX)
mkdir -p "$OUT" "$WORK/logs"
REPORT=$OUT/report.txt
RESULTS=()

# step NAME TIMEOUT_S COMMAND...: output in logs/NAME.log; PASS or FAIL with the exit status.
step() {
    local name=$1 limit=$2 start
    shift 2
    start=$(date +%s%N)
    echo "=== $name: $*" >>"$REPORT"
    if declare -F "$1" >/dev/null; then
        "$@" >"$WORK/logs/$name.log" 2>&1 # a function of this script
    else
        timeout --kill-after=10 "$limit" "$@" >"$WORK/logs/$name.log" 2>&1
    fi
    local rc=$?
    local ms=$((($(date +%s%N) - start) / 1000000))
    local verdict=PASS
    [ $rc -eq 0 ] || verdict=FAIL
    echo "=== $name: $verdict (exit $rc after $ms ms)" >>"$REPORT"
    RESULTS+=("$verdict  $name (exit $rc, $ms ms)")
    return $rc
}

{
    echo "SliceScope gui-device-check, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "sources: $SRC ($(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo 'not a git checkout'))"
    uname -srm
    (. /etc/os-release && echo "$PRETTY_NAME") 2>&1
    ldd --version 2>&1 | head -1
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
    ls -d /usr/local/cuda*/targets/x86_64-linux/lib/libcupti.so.* 2>&1 | head -2
    echo "bundle: $ARCHIVE ($(stat -c %s "$ARCHIVE" 2>/dev/null || echo missing) bytes)"
} >"$REPORT"

step unpack 120 tar -C "$WORK" -xJf "$ARCHIVE"
B=$WORK/slicescope-gui-bundle
if [ -f "$B/env.sh" ]; then
    # shellcheck source=/dev/null
    source "$B/env.sh"
    sed -n '1,3p' "$B/MANIFEST" >>"$REPORT"
fi
echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}" >>"$REPORT"
export HOME=$WORK/home XDG_RUNTIME_DIR=$WORK/runtime
mkdir -p "$HOME" "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"

# Every library of every bundled program and plugin: from the bundle, or glibc / the GCC runtime
# / CUDA of this machine; none missing.
check_libraries() {
    local bad=0
    for file in "$B"/bin/slicescope* "$B"/bin/tst_* "$B"/plugins/*/*.so; do
        echo "--- ${file#"$B"/}"
        while read -r line; do
            echo "  $line"
            case $line in
            *"not found"*) bad=1 ;;
            *"=> $B/"* | linux-vdso* | /lib64/ld-linux*) ;;
            *" => "*)
                if ! [[ $line =~ ^(libc|libm|libdl|libpthread|librt|libutil|libresolv|libgcc_s|libstdc\+\+|libcuda|libcudart|libcupti|libnvidia-)[.-] ]]; then
                    echo "  ^ outside the bundle and the base set"
                    bad=1
                fi
                ;;
            esac
        done < <(ldd "$file" 2>&1)
    done
    return $bad
}
step libraries 60 check_libraries
step devices 60 "$B/bin/slicescope-cli" devices --json

# The live test: it writes live-seed-story.png, live-seed-story.json and live-counters.png.
rm -f "$OUT"/live-*
export SLICESCOPE_LIVEGPU_OUT=$OUT
step tst_livegpu 480 "$B/bin/tst_livegpu" -maxwarnings 0
cp "$WORK/logs/tst_livegpu.log" "$OUT/tst_livegpu.txt"
if grep -q "^SKIP   : TestLiveGpu::initTestCase" "$OUT/tst_livegpu.txt"; then
    RESULTS[${#RESULTS[@]} - 1]="FAIL  tst_livegpu (skipped: slicescope-cli found no GPU)"
fi

# The headless export of the live session, as `slicescope --export-image` writes it.
step export-image 120 "$B/bin/slicescope" --export-image "$OUT/live-seed-story-export.png" \
    "$OUT/live-seed-story.json" --size 1920x1080
tar -czf "$OUT/logs.tar.gz" -C "$WORK" logs

{
    echo
    echo "--- tst_livegpu: results and figures"
    grep -E "^(PASS|FAIL!|SKIP|XFAIL|XPASS|QINFO|QWARN|Totals)|Loc:" "$OUT/tst_livegpu.txt"
    echo
    echo "--- export-image"
    cat "$WORK/logs/export-image.log"
    echo
    echo "--- summary"
    printf '%s\n' "${RESULTS[@]}"
    if printf '%s\n' "${RESULTS[@]}" | grep -q '^FAIL'; then echo "gui-device-check: FAIL"; else echo "gui-device-check: PASS"; fi
} >>"$REPORT"
ls -l "$OUT" >>"$REPORT"
cat "$REPORT"
