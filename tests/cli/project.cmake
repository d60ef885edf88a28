# `project`: measured GPU runs moved onto another GPU by the model's ratios (docs/model.md,
# "Projecting a measured run"), on the real H200 samples of resources/samples.
slicescope_cli_test(project_seed_onto_t4
    MATCH "slice-middle \\[projected\\].*\n  projected from slice-middle measured on the NVIDIA H200: kernels x[0-9.]+, HtoD x[0-9.]+, DtoH x[0-9.]+.*cpu-serial \\[measured-cpu\\].*copied as it was.*wrote .*t4.json \\(projected onto the Tesla T4: predictions, not measurements\\)"
    MATCH_FILE "@WORK@/t4.json|\"id\": \"one-worker\",\n *\"strategy\": \"one-worker\",\n *\"mode\": \"projected\".*\"projection\": {\"source_run\": \"one-worker\", \"source_device\": \"NVIDIA H200\", \"source_preset\": \"h200\", \"target_preset\": \"t4\"}.*\"mode\": \"measured-cpu\""
    ARGS project @DATA@/../../resources/samples/seed-100x4000x5-f64-pageable.json --device t4 -o @WORK@/t4.json)
slicescope_cli_test(project_without_measured_gpu_runs EXIT 1
    STDERR "no measured GPU run to project \\(it holds 6 measured-cpu\\)"
    ARGS project @DATA@/cpu-parallel-h200-work-sweep.json --device t4 -o @WORK@/out.json)
slicescope_cli_test(project_an_import EXIT 1
    STDERR "no measured GPU run to project \\(it holds 1 imported\\)"
    ARGS project @DATA@/import/kineto-cnn.json --device t4 -o @WORK@/out.json)
slicescope_cli_test(project_unknown_preset EXIT 1
    STDERR "unknown device preset 'no-such-gpu'"
    ARGS project @DATA@/../../resources/samples/seed-100x4000x5-f64-pageable.json --device no-such-gpu -o @WORK@/out.json)
slicescope_cli_test(project_unreadable_trace EXIT 1
    STDERR "project.cmake: byte 0: expected a JSON object"
    ARGS project ${CMAKE_CURRENT_SOURCE_DIR}/project.cmake --device t4 -o @WORK@/out.json)
slicescope_cli_test(project_missing_trace EXIT 1
    STDERR "no-such-trace.json"
    ARGS project @WORK@/no-such-trace.json --device t4 -o @WORK@/out.json)
slicescope_cli_test(project_onto_itself EXIT 2
    STDERR "is the trace to project"
    ARGS project @DATA@/cpu-parallel-h200-work-sweep.json --device t4 -o @DATA@/cpu-parallel-h200-work-sweep.json)
