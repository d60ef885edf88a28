# sweep: refusals, CPU and modelled sweeps, crossovers, progress, Ctrl+C; roofline.
set(seed --shape 100x4000x5)
slicescope_cli_test(sweep_help MATCH "--param.*--values.*--range" ARGS sweep --help)
slicescope_cli_test(sweep_unknown_param EXIT 2 STDERR "unknown sweep parameter 'registers'"
    ARGS sweep --param registers --values 1 ${seed} --strategy cpu-serial -o @WORK@/s.json)
slicescope_cli_test(sweep_no_values EXIT 2 STDERR "either --values or --range"
    ARGS sweep --param work ${seed} --strategy cpu-serial -o @WORK@/s.json)
slicescope_cli_test(sweep_values_and_range EXIT 2 STDERR "either --values or --range"
    ARGS sweep --param work --values 1 --range 1:4 ${seed} --strategy cpu-serial -o @WORK@/s.json)
slicescope_cli_test(sweep_empty_value EXIT 2 STDERR "empty value"
    ARGS sweep --param work --values 1,,4 ${seed} --strategy cpu-serial -o @WORK@/s.json)
slicescope_cli_test(sweep_range_never_ends EXIT 2 STDERR "factor must be a number above 1"
    ARGS sweep --param work --range 1:64:x1 ${seed} --strategy cpu-serial -o @WORK@/s.json)
slicescope_cli_test(sweep_range_zero_step EXIT 2 STDERR "step must be a whole number of at least 1"
    ARGS sweep --param work --range 1:64:+0 ${seed} --strategy cpu-serial -o @WORK@/s.json)
slicescope_cli_test(sweep_range_backwards EXIT 2 STDERR "START is above STOP"
    ARGS sweep --param work --range 64:1 ${seed} --strategy cpu-serial -o @WORK@/s.json)
slicescope_cli_test(sweep_too_many_points EXIT 2 STDERR "more than 1000 points"
    ARGS sweep --param rows --range 1:100000:+1 ${seed} --strategy cpu-serial -o @WORK@/s.json)
slicescope_cli_test(sweep_block_zero EXIT 2 STDERR "'0' is not a whole number from 1 to 1024"
    ARGS sweep --param block --values 0,32 ${seed} --strategy slice-2d --device h200 -o @WORK@/s.json)
slicescope_cli_test(sweep_block_2000 EXIT 2 STDERR "'2000' is not a whole number from 1 to 1024"
    ARGS sweep --param block --values 32,2000 ${seed} --strategy slice-2d --device h200 -o @WORK@/s.json)
slicescope_cli_test(sweep_dtype_f16 EXIT 2 STDERR "unknown dtype 'f16'"
    ARGS sweep --param dtype --values f64,f16 ${seed} --strategy cpu-serial -o @WORK@/s.json)
slicescope_cli_test(sweep_dtype_range EXIT 2 STDERR "--range needs a numeric parameter"
    ARGS sweep --param dtype --range 1:2 ${seed} --strategy cpu-serial -o @WORK@/s.json)
slicescope_cli_test(sweep_block_cpu_only EXIT 2 STDERR "--param block needs a GPU strategy"
    ARGS sweep --param block --values 32,64 ${seed} --strategy cpu-serial,cpu-parallel -o @WORK@/s.json)
# A preset and a CPU strategy: the GPU strategy modelled on the preset, the CPU one measured
# here, and the verdict says so first.
slicescope_cli_test(sweep_model_gpu_measure_cpu
    MATCH "Modelled GPU \\(NVIDIA H200\\) vs measured CPU on this host\\.\n"
    MATCH_FILE "@WORK@/s.json|\"id\": \"elementwise-broadcast@work=1\",[^{]*\"mode\": \"modelled\".*\"id\": \"cpu-serial@work=1\",[^{]*\"mode\": \"measured-cpu\""
    ARGS sweep --param work --values 1,2 --shape 10x20x5 --strategy elementwise-broadcast,cpu-serial
         --device h200 -q -o @WORK@/s.json)
# A CPU strategy alone with a preset: measured here, nothing modelled, no mixed label.
slicescope_cli_test(sweep_preset_cpu_only
    MATCH "^No crossover: cpu-serial is the only strategy\\.\n$"
    ARGS sweep --param work --values 1,2 --shape 10x20x5 --strategy cpu-serial --device h200 -q
         -o @WORK@/s.json)
slicescope_cli_test(sweep_unknown_preset EXIT 1 STDERR "unknown device preset 'h900'"
    ARGS sweep --param work --values 1,2 ${seed} --strategy slice-2d --device h900 -o @WORK@/s.json)
slicescope_cli_test(sweep_rows_overflow EXIT 2 STDERR "64 bits"
    ARGS sweep --param rows --values 18446744073709551615 ${seed} --strategy cpu-serial -o @WORK@/s.json)

# A modelled block sweep: one trace, every run with its point, the sweep on top.
slicescope_cli_test(sweep_model_block
    MATCH "slice-2d@block=32 \\[modelled\\].*elementwise-broadcast@block=1024 \\[modelled\\].*sweep of block over 6 points, 3 strategies.*wrote 18 runs"
    MATCH_FILE "@WORK@/s.json|\"sweep\": {\"index\":0,\"param\":\"block\",\"value\":32}.*\"sweep\": {\"index\":5,\"param\":\"block\",\"value\":1024}.*\"sweeps\": .{\"complete\":true,[^\n]*\"scale\":\"log\",\"strategies\":.\"slice-2d\",\"slice-outer\",\"elementwise-broadcast\".,\"values\":.32,64,128,256,512,1024."
    ARGS sweep --param block --range 32:1024 ${seed} --strategy slice-2d,slice-outer,elementwise-broadcast
         --device h200 -o @WORK@/s.json)
# 'all' with a preset: the GPU strategies.
slicescope_cli_test(sweep_model_all MATCH "sweep of memory over 2 points, 8 strategies.*wrote 16 runs"
    ARGS sweep --param memory --values pageable,pinned ${seed} --strategy all --device h200 -o @WORK@/s.json)
# ... and a CPU strategy named beside 'all' is measured beside them ('cpu-parallel' holds "all").
slicescope_cli_test(sweep_model_all_and_cpu MATCH "sweep of work over 2 points, 9 strategies.*wrote 18 runs"
    ARGS sweep --param work --values 1,2 --shape 10x20x5 --strategy cpu-parallel,all --device h200 -o @WORK@/s.json)
# A modelled crossover: with few columns slice-outer's 1000 row workers win; with many,
# slice-middle's column workers take over. Where between two neighbouring points is the model's
# (it moves with the fitted constants): the check is that it is one interval of the range.
slicescope_cli_test(sweep_model_crossover
    MATCH "Crossover: from columns ≈ [0-9.e+]+ slice-middle-strided beats slice-outer \\(interpolated between (1 and 4|4 and 16|16 and 64|64 and 256|256 and 1024|1024 and 4096)\\)"
    MATCH_FILE "@WORK@/s.json|\"crossovers\":.{\"at\":[0-9.e+]+,\"from\":\"slice-outer\",\"high_value\":[0-9]+,\"interpolated\":true,\"low_value\":[0-9]+,"
    ARGS sweep --param columns --range 1:4096:x4 --shape 100x1x5 --strategy slice-outer,slice-middle-strided --device h200 -q -o @WORK@/s.json)
# CPU sweeps, with progress lines saying the point and the runs of the whole sweep done.
slicescope_cli_test(sweep_cpu_progress
    MATCH "progress {[^\n]*\"point\":0,\"points\":2,\"runs\":2,\"runs_done\":0[^\n]*\"strategy\":\"cpu-serial\".*progress {[^\n]*\"point\":1,\"points\":2,\"runs\":2,\"runs_done\":1[.0-9]*,.*sweep of work over 2 points"
    MATCH_FILE "@WORK@/s.json|\"id\": \"cpu-serial@work=1\".*\"mode\": \"measured-cpu\".*\"id\": \"cpu-serial@work=4\""
    ARGS sweep --param work --values 1,4 --shape 10x20x5 --strategy cpu-serial --progress -o @WORK@/s.json)
# Ctrl+C: the points finished are written (atomically), the sweep marked incomplete, exit 130.
slicescope_cli_test(sweep_cpu_interrupted EXIT 130 STDERR "interrupted: 4 runs of the points finished were kept"
    MATCH_FILE "@WORK@/s.json|\"id\": \"cpu-parallel@rows=20\".*\"sweeps\": .{\"complete\":false"
    ARGS sweep --param rows --values 10,20,40,80 --shape 10x20x5 --strategy cpu-serial,cpu-parallel
         --test-interrupt-after 2 -o @WORK@/s.json)
# SIGTERM (the GUI's Cancel) keeps the points finished too.
slicescope_cli_test(sweep_cpu_terminated EXIT 130 STDERR "interrupted: 2 runs of the points finished were kept"
    MATCH_FILE "@WORK@/s.json|\"id\": \"cpu-serial@rows=20\".*\"sweeps\": .{\"complete\":false"
    ARGS sweep --param rows --values 10,20,40 --shape 10x20x5 --strategy cpu-serial
         --test-interrupt-after 2 --test-interrupt-signal terminate -o @WORK@/s.json)
# SIGHUP (a closed terminal) keeps them as well.
slicescope_cli_test(sweep_cpu_hung_up EXIT 130 STDERR "interrupted: 2 runs of the points finished were kept"
    MATCH_FILE "@WORK@/s.json|\"id\": \"cpu-serial@rows=20\".*\"sweeps\": .{\"complete\":false"
    ARGS sweep --param rows --values 10,20,40 --shape 10x20x5 --strategy cpu-serial
         --test-interrupt-after 2 --test-interrupt-signal hangup -o @WORK@/s.json)
slicescope_cli_test(sweep_model_interrupted EXIT 130 STDERR "interrupted: 1 runs"
    ARGS sweep --param work --values 1,2,4 ${seed} --strategy slice-2d --device h200
         --test-interrupt-after 1 -o @WORK@/s.json)
# roofline: the seed's modelled runs land far left of the host-link roof.
slicescope_cli_test(roofline_model_seed
    MATCH "elementwise-broadcast \\[modelled\\] whole run \\(pageable link\\): 0.06219 flop/B.*bandwidth-bound; ridge at 3706 flop/B; datasheet ceilings"
    ARGS roofline @DATA@/roofline-seed-model.json)
slicescope_cli_test(roofline_csv
    MATCH "Run,Mode,Point,Intensity \\(flop/B\\).*\nslice-outer,modelled,kernel \\(DRAM\\),0.06219,"
    ARGS roofline --csv @DATA@/roofline-seed-model.json)
slicescope_cli_test(roofline_missing_trace EXIT 1 STDERR "no-such-trace.json"
    ARGS roofline @WORK@/no-such-trace.json)
# Measured points warm up as `run` does (--warmup, default 1); out-of-range values are refused.
slicescope_cli_test(sweep_cpu_warmup
    MATCH_FILE "@WORK@/s.json|\"id\": \"cpu-serial@work=1\".*\"warmup\": 2.*\"warmup\":true"
    ARGS sweep --param work --values 1,2 --shape 10x20x5 --strategy cpu-serial --warmup 2 -o @WORK@/s.json)
slicescope_cli_test(sweep_warmup_refused EXIT 2 STDERR "--warmup must be from 0 to 10000"
    ARGS sweep --param work --values 1,2 --shape 10x20x5 --strategy cpu-serial --warmup 10001 -o @WORK@/s.json)
# The Slurm options say where the points run: without --launcher slurm each is refused before
# anything runs (the launcher itself: tests/slurm).
foreach(option "--partition;gpu" "--gpus-per-task;1" "--max-tasks;4" "--time;10"
               "--slurm-dir;@WORK@/parts")
    list(GET option 0 flag)
    string(REPLACE "-" "_" name "${flag}")
    slicescope_cli_test(sweep${name}_needs_slurm EXIT 2 STDERR "${flag} needs --launcher slurm"
        ARGS sweep --param work --values 1,2 --shape 10x20x5 --strategy cpu-serial ${option}
             -o @WORK@/s.json)
endforeach()
slicescope_cli_test(sweep_unknown_launcher EXIT 2 STDERR "--launcher: pbs not in"
    ARGS sweep --param work --values 1,2 --shape 10x20x5 --strategy cpu-serial --launcher pbs
         -o @WORK@/s.json)
