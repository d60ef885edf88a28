# --help works on every subcommand.
slicescope_cli_test(help MATCH "run.*model.*occupancy.*export" ARGS --help)
foreach(sub devices run model occupancy export record project)
    slicescope_cli_test(help_${sub} MATCH "Usage|Options|OPTIONS" ARGS ${sub} --help)
endforeach()

# Usage errors: exit 2, a message on stderr.
slicescope_cli_test(no_subcommand EXIT 2 ARGS "")
slicescope_cli_test(unknown_subcommand EXIT 2 ARGS frobnicate)
slicescope_cli_test(run_missing_shape EXIT 2 STDERR "--shape" ARGS run --strategy cpu-serial -o @WORK@/t.json)
slicescope_cli_test(run_zero_dimension EXIT 2 STDERR "dimension C is 0" ARGS run --shape 100x0x5 --strategy cpu-serial -o @WORK@/t.json)
slicescope_cli_test(run_negative_dimension EXIT 2 STDERR "negative" ARGS run --shape 100x-4x5 --strategy cpu-serial -o @WORK@/t.json)
slicescope_cli_test(run_text_dimension EXIT 2 STDERR "not a whole number" ARGS run --shape 100xabcx5 --strategy cpu-serial -o @WORK@/t.json)
slicescope_cli_test(run_missing_dimension EXIT 2 STDERR "dimension N is missing" ARGS run --shape 100x4000 --strategy cpu-serial -o @WORK@/t.json)
slicescope_cli_test(run_overflow EXIT 2 STDERR "64 bits" ARGS run --shape 4294967296x4294967296x2 --strategy cpu-serial -o @WORK@/t.json)
slicescope_cli_test(run_bad_strategy EXIT 2 STDERR "unknown strategy 'slice-diagonal'" ARGS run --shape 2x2x2 --strategy slice-diagonal -o @WORK@/t.json)
slicescope_cli_test(run_bad_dtype EXIT 2 STDERR "unknown dtype" ARGS run --shape 2x2x2 --dtype f16 --strategy cpu-serial -o @WORK@/t.json)
slicescope_cli_test(run_bad_work EXIT 2 STDERR "work per element" ARGS run --shape 2x2x2 --work 0 --strategy cpu-serial -o @WORK@/t.json)
slicescope_cli_test(run_bad_block EXIT 2 STDERR "block size" ARGS run --shape 2x2x2 --block 2048 --strategy cpu-serial -o @WORK@/t.json)
slicescope_cli_test(run_bad_memory EXIT 2 STDERR "memory mode" ARGS run --shape 2x2x2 --memory swap --strategy cpu-serial -o @WORK@/t.json)
slicescope_cli_test(run_bad_repeat EXIT 2 STDERR "repeat" ARGS run --shape 2x2x2 --repeat 0 --strategy cpu-serial -o @WORK@/t.json)
slicescope_cli_test(run_bad_chunks EXIT 2 STDERR "--chunks must be from 1 to 4096 \\(got 0\\)" ARGS run --shape 2x2x2 --chunks 0 --strategy cpu-serial -o @WORK@/t.json)
slicescope_cli_test(run_absurd_chunks EXIT 2 STDERR "--chunks must be from 1 to 4096 \\(got 99999999999\\)" ARGS run --shape 2x2x2 --chunks 99999999999 --strategy cpu-serial -o @WORK@/t.json)
slicescope_cli_test(model_bad_streams EXIT 2 STDERR "--streams must be from 1 to 64 \\(got 65\\)" ARGS model --device h200 --shape 2x2x2 --streams 65 --strategy slice-outer -o @WORK@/t.json)
# A pipelined model records what it made (more chunks than rows: one per row) and what it achieved.
slicescope_cli_test(model_pipelined
    MATCH "pipeline: 4 chunks on 2 streams, overlap [0-9.]+% of copy time, bound"
    MATCH_FILE "@WORK@/pipe.json|\"chunks\": 4,[\n ]*\"streams\": 2,"
    ARGS model --device h200 --shape 4x4000x5 --strategy elementwise-broadcast --memory pinned --chunks 16 --streams 2 -o @WORK@/pipe.json)
slicescope_cli_test(run_too_large EXIT 1 STDERR "host memory" ARGS run --shape 1048576x1048576x1 --strategy cpu-serial -o @WORK@/t.json)
slicescope_cli_test(run_unwritable EXIT 1 STDERR "t.json" ARGS run --shape 2x2x2 --strategy cpu-serial -o /nonexistent-dir/t.json)

# CPU runs on the seed shape write a verified trace.
slicescope_cli_test(run_cpu_seed
    MATCH "cpu-serial \\[measured-cpu\\].*verified.*cpu-parallel \\[measured-cpu\\].*verified"
    MATCH_FILE "@WORK@/seed.json|\"format\": *\"slicescope-trace\".*\"mode\": *\"measured-cpu\""
    ARGS run --shape 100x4000x5 --strategy cpu-serial,cpu-parallel --repeat 2 -o @WORK@/seed.json)
# Warm-up: one iteration by default, kept in the trace and marked; --warmup 0 runs as before; a
# model has none and records 0.
slicescope_cli_test(run_bad_warmup EXIT 2 STDERR "--warmup must be from 0 to 10000"
    ARGS run --shape 2x2x2 --warmup 10001 --strategy cpu-serial -o @WORK@/t.json)
slicescope_cli_test(run_cpu_warmup_default
    MATCH_FILE "@WORK@/w.json|\"warmup\": 1,.*\"warmup\":true"
    ARGS run --shape 10x100x5 --strategy cpu-parallel -o @WORK@/w.json)
slicescope_cli_test(run_cpu_warmup_zero NOMATCH_FILE "@WORK@/w.json|warmup"
    ARGS run --shape 10x100x5 --strategy cpu-parallel --warmup 0 -o @WORK@/w.json)
slicescope_cli_test(model_warmup_is_zero
    MATCH_FILE "@WORK@/m.json|no warm-up: a modelled run has no cold start"
    NOMATCH_FILE "@WORK@/m.json|\"warmup\""
    ARGS model --device h200 --shape 100x4000x5 --strategy slice-2d --warmup 2 -o @WORK@/m.json)
slicescope_cli_test(run_cpu_progress MATCH "progress \\{.*\"stage\":\"compute\""
    ARGS run --shape 10x10x10 --strategy cpu-serial --progress -o @WORK@/p.json)

# Occupancy.
slicescope_cli_test(occupancy_bad_block EXIT 2 STDERR "--block" ARGS occupancy --device h200 --block 2048 --regs 32)
slicescope_cli_test(occupancy_bad_regs EXIT 2 STDERR "--regs" ARGS occupancy --device h200 --block 256 --regs 300)
slicescope_cli_test(occupancy_unknown_device EXIT 1 STDERR "unknown device preset 'h900'" ARGS occupancy --device h900 --block 256 --regs 32)

# Export.
slicescope_cli_test(export_needs_target EXIT 2 STDERR "--csv" ARGS export @DATA@/none.json)
slicescope_cli_test(export_missing_file EXIT 1 STDERR "no-such-trace.json" ARGS export @WORK@/no-such-trace.json --csv @WORK@/out.csv)

# Modelled runs.
slicescope_cli_test(model_seed_all
    MATCH "one-worker \\[modelled\\].*elementwise-broadcast \\[modelled\\].*wrote 8 runs"
    MATCH_FILE "@WORK@/model.json|\"mode\": *\"modelled\".*\"mode\": *\"modelled\""
    ARGS model --device h200 --shape 100x4000x5 --strategy all -o @WORK@/model.json)
# 'all' anywhere in a list: every strategy not named before it, once.
slicescope_cli_test(model_all_twice MATCH "one-worker \\[modelled\\].*wrote 8 runs"
    ARGS model --device h200 --shape 100x4000x5 --strategy all,all -o @WORK@/model.json)
slicescope_cli_test(model_named_then_all
    MATCH "^slice-outer \\[modelled\\][^\n]*\none-worker \\[modelled\\].*wrote 8 runs"
    ARGS model --device h200 --shape 100x4000x5 --strategy slice-outer,all -o @WORK@/model.json)
slicescope_cli_test(model_gpu_trace MATCH "modelled"
    ARGS model --device gtx-970 --shape 100x4000x5 --strategy slice-outer --print-gpu-trace -o @WORK@/m.json)
slicescope_cli_test(model_cpu_strategy EXIT 2 STDERR "cannot be modelled"
    ARGS model --device h200 --shape 100x4000x5 --strategy cpu-serial -o @WORK@/m.json)
slicescope_cli_test(model_unknown_preset EXIT 1 STDERR "unknown device preset 'h900'"
    ARGS model --device h900 --shape 100x4000x5 --strategy all -o @WORK@/m.json)
slicescope_cli_test(model_too_large EXIT 1 STDERR "device memory"
    ARGS model --device t4 --shape 100000x100000x10 --strategy elementwise-broadcast -o @WORK@/m.json)
# Refusals of what overflows: elements x work beyond 64 bits or beyond the 2^47 operations whose
# slowest figures a trace can still time (the seed's shape with --work 4294967295 lost every run
# with an error about wall_ns), refused by run, model and sweep alike; a modelled timeline beyond
# 64-bit nanoseconds (--repeat on a problem at that limit); exit 2 as an overflowing --shape.
slicescope_cli_test(model_work_overflow EXIT 2 STDERR "does not fit in 64 bits"
    ARGS model --device h200 --shape 1048576x1048576x1024 --dtype f32 --work 4294967295 --strategy slice-2d -o @WORK@/m.json)
slicescope_cli_test(model_work_beyond_timing EXIT 2
    STDERR "2000000 elements x 4294967295 operations each is more than a run can time: at most 2\\^47"
    ARGS model --device h200 --shape 100x4000x5 --work 4294967295 --strategy all -o @WORK@/m.json)
slicescope_cli_test(sweep_work_beyond_timing EXIT 2 STDERR "work 4294967295: .*at most 2\\^47"
    ARGS sweep --param work --values 1,4294967295 --shape 100x4000x5 --strategy cpu-serial -o @WORK@/s.json)
slicescope_cli_test(model_repeat_overflow EXIT 2
    STDERR "--repeat 10000 is too many: one-worker on 32768x1x1 f64, work 4294967295 would be modelled as .* s, beyond the 9007199254740992 ns"
    ARGS model --device h200 --shape 32768x1x1 --work 4294967295 --repeat 10000 --strategy one-worker -o @WORK@/m.json)
# The model's own bound was 2^62 ns, the trace's 2^53: a timeline between the two was modelled,
# then refused by the writer ("wall_ns" is ...), losing every run. One bound now: refused before
# anything is modelled, naming the option and how many repetitions fit; nothing written.
slicescope_cli_test(model_repeat_beyond_trace EXIT 2
    STDERR "--repeat 100 is too many: .*beyond the 9007199254740992 ns \\(2\\^53, about 104 days\\) a trace can hold; at most [0-9]+ repetitions fit: lower --repeat, or --work or --shape"
    ARGS model --device h200 --shape 32768x1x1 --work 4294967295 --repeat 100 --strategy one-worker -o @WORK@/m.json)
# In a sweep, the point beyond the trace's bound is refused and the others are kept.
slicescope_cli_test(sweep_point_beyond_trace EXIT 1
    STDERR "--repeat 100 is too many"
    MATCH_FILE "@WORK@/s.json|one-worker@work=1\""
    ARGS sweep --param work --values 1,4294967295 --shape 32768x1x1 --repeat 100 --device h200 --strategy one-worker -o @WORK@/s.json)
slicescope_cli_test(run_work_overflow EXIT 2 STDERR "does not fit in 64 bits"
    ARGS run --shape 1048576x1048576x1024 --dtype f32 --work 4294967295 --strategy cpu-serial -o @WORK@/t.json)
slicescope_cli_test(run_work_beyond_timing EXIT 2 STDERR "more than a run can time: at most 2\\^47"
    ARGS run --shape 100x4000x5 --work 4294967295 --strategy cpu-serial -o @WORK@/t.json)
# The model is never faster than the FMA count allows (checked against the preset's figures).
add_test(NAME cli.model_fma_bound
    COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:slicescope-cli> -DPRESET=t4
        -DDEVICES=${PROJECT_SOURCE_DIR}/resources/devices.json
        -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/work/model_fma_bound
        -P ${CMAKE_CURRENT_SOURCE_DIR}/ModelFmaBound.cmake)
set_tests_properties(cli.model_fma_bound PROPERTIES LABELS cli)
# Issue 27: the summary line gives the launch's own occupancy of the GPU first (one-worker: 1 block
# of 64 threads on 132 SMs), then CUDA's theoretical occupancy, named as the per-SM limit it is.
slicescope_cli_test(model_one_worker_launch_occupancy
    MATCH "one-worker \\[modelled\\][^\n]*, occupancy 0\\.024% of the GPU \\(launch, limited by the grid\\), per-SM limit 100% \\(CUDA's theoretical occupancy\\)"
    ARGS model --device h200 --shape 100x4000x5 --strategy one-worker -o @WORK@/m.json)
# The same figures as the window: slice-middle's 1.48 % of the GPU reads 1.4 % there (floored, so
# 99.96 % never reads as 100 %), and read 1.5% here.
slicescope_cli_test(model_launch_occupancy_as_the_window_says_it
    MATCH "slice-middle \\[modelled\\][^\n]*, occupancy 1\\.4% of the GPU"
    ARGS model --device h200 --shape 100x4000x5 --strategy slice-middle -o @WORK@/m.json)

# The version handshake of --host (docs/remote.md): one line of JSON with the trace format; the
# plain --version is unchanged.
slicescope_cli_test(version_json
    MATCH "^\\{\"program\":\"slicescope-cli\",\"trace_format\":1,\"trace_format_name\":\"slicescope-trace\",\"version\":\"0\\.1\\.0\"\\}\n$"
    ARGS --version --json)
slicescope_cli_test(version MATCH "^slicescope-cli 0\\.1\\.0\n$" ARGS --version)
