#!/usr/bin/env bash
# Makes the hostile inputs too large (or too odd) to keep in the repository, for the hostile
# tests (tests/hostile/, label `hostile`; docs/reliability.md). The small ones are in
# tests/data/hostile/.
#
#   scripts/make-hostile-corpus.sh OUTDIR
#
# Writes into OUTDIR (created, emptied of earlier results):
#   long-name.json        a kernel name of 200,000,000 bytes (200 MB)
#   same-id-4000.json     4,000 runs with one id
#   notes-10m.json       a run with 10,000,000 empty notes (40 MB; before the
#                         notes limit, 100,000,000 of them took 4.5 GB of memory)
#   sparse-2g.json        2 GiB, sparse (truncate): a valid start, then zeros; no disk used
#   kineto-long-name.json a PyTorch profiler trace whose kernel name is 100,000,000 bytes
#   ncu-wide-row.csv      an Nsight Compute CSV whose one row has 100,000 fields
#   fifo-no-writer.json   a FIFO nobody writes to
#   fifo-yes-cli.json, fifo-yes-gui.json
#                         FIFOs (one per program, as tests run in parallel) that
#                         tests/hostile/runhostile.sh feeds with `yes`
# (/dev/zero is used as it is.)
set -euo pipefail

if [ $# -ne 1 ]; then
    sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
out=$1
mkdir -p "$out"
rm -f "$out"/long-name.json "$out"/notes-10m.json "$out"/same-id-4000.json "$out"/sparse-2g.json "$out"/fifo-*.json \
    "$out"/kineto-long-name.json "$out"/ncu-wide-row.csv

head='{"format": "slicescope-trace", "version": 1, "runs": ['
device='"device": {"name": "NVIDIA H200", "sm_count": 132}'

{
    printf '%s{"id": "long-name", "strategy": "recorded", "mode": "recorded", %s, ' "$head" "$device"
    printf '"activities": [{"kind": "kernel", "start_ns": 1000, "end_ns": 5000, "name": "'
    head -c 200000000 /dev/zero | tr '\0' 'k'
    printf '", "grid": [4, 1, 1], "block": [128, 1, 1], "stream": 7}]}]}\n'
} >"$out/long-name.json"

{
    printf '%s' "$head"
    for ((i = 0; i < 4000; i++)); do
        [ "$i" -gt 0 ] && printf ',\n'
        printf '{"id": "same", "strategy": "recorded", "mode": "recorded", %s, ' "$device"
        printf '"activities": [{"kind": "api", "start_ns": %d, "end_ns": %d}]}' "$i" "$((i + 1))"
    done
    printf ']}\n'
} >"$out/same-id-4000.json"

{
    printf '%s{"id": "notes", "strategy": "recorded", "mode": "recorded", %s, "notes": [""' "$head" "$device"
    awk 'BEGIN { for (i = 1; i < 10000000; i++) printf ", \"\"" }'
    printf '], "activities": []}]}\n'
} >"$out/notes-10m.json"

{
    printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "'
    head -c 100000000 /dev/zero | tr '\0' 'k'
    printf '", "pid": 0, "tid": 7, "ts": 1, "dur": 2, "args": {"grid": [4, 1, 1], "block": [128, 1, 1]}}]}\n'
} >"$out/kineto-long-name.json"

{
    printf '"ID","Process ID","Kernel Name","Metric Name","Metric Value"\n"0"'
    awk 'BEGIN { for (i = 1; i < 100000; i++) printf ",\"x\"" }'
    printf '\n'
} >"$out/ncu-wide-row.csv"

printf '%s' "$head" >"$out/sparse-2g.json"
truncate -s 2G "$out/sparse-2g.json"

mkfifo "$out/fifo-no-writer.json" "$out/fifo-yes-cli.json" "$out/fifo-yes-gui.json"
