# `import`: other tools' files converted to SliceScope traces (docs/import.md), and the commands
# that read traces opening them directly. The files are the real ones of tests/data/import.
slicescope_cli_test(import_kineto
    MATCH "kineto-cnn \\(PyTorch profiler \\(Kineto\\) trace, kineto-cnn.json\\)\nkineto-cnn \\[imported\\] .*kernels .* \\(30\\).*note: imported from a PyTorch profiler.*not by SliceScope.*wrote .*out.json"
    MATCH_FILE "@WORK@/out.json|\"mode\": \"imported\".*\"source\": {\"format\": \"kineto\", \"file\": \"kineto-cnn.json\"}.*\"estimated_occupancy_percent\":6"
    ARGS import @DATA@/import/kineto-cnn.json -o @WORK@/out.json)
slicescope_cli_test(import_ncu_details_with_a_device
    MATCH "ncu-cnn \\(Nsight Compute CSV, ncu-cnn.csv\\)\n.*device 0: NVIDIA H200, the chosen device.*laid out one after another.*wrote"
    MATCH_FILE "@WORK@/ncu.json|\"id\":\"h200\".*\"source\": {\"format\": \"ncu-csv\", \"file\": \"ncu-cnn.csv\"}"
    ARGS import @DATA@/import/ncu-cnn.csv --device h200 -o @WORK@/ncu.json)
slicescope_cli_test(import_ncu_raw
    MATCH "ncu-cnn-raw \\[imported\\] no wall time, kernels .*\\(30\\).*figures from Nsight Compute's device attributes"
    ARGS import @DATA@/import/ncu-cnn-raw.csv -o @WORK@/raw.json)
slicescope_cli_test(import_unknown_device EXIT 1
    STDERR "unknown device preset"
    ARGS import @DATA@/import/ncu-cnn.csv --device no-such-gpu -o @WORK@/out.json)
slicescope_cli_test(import_onto_itself EXIT 2
    STDERR "is the file to import"
    ARGS import @DATA@/import/ncu-cupy.csv -o @DATA@/import/ncu-cupy.csv)
slicescope_cli_test(import_malformed EXIT 1
    STDERR "import.cmake: byte 0: expected a JSON object"
    ARGS import ${CMAKE_CURRENT_SOURCE_DIR}/import.cmake -o @WORK@/out.json)

# Every command that reads a trace opens these files as they are.
slicescope_cli_test(export_kineto_directly
    MATCH "wrote .*kineto.csv"
    MATCH_FILE "@WORK@/kineto.csv|implicit_convolve_sgemm.*,kineto-cnn,imported\n"
    ARGS export @DATA@/import/kineto-cnn.json --csv @WORK@/kineto.csv)
slicescope_cli_test(export_ncu_directly
    MATCH "wrote .*ncu.json"
    MATCH_FILE "@WORK@/ncu.json|\"traceEvents\".*ncu-cupy \\[imported\\]"
    ARGS export @DATA@/import/ncu-cupy.csv --chrome @WORK@/ncu.json)
slicescope_cli_test(roofline_reads_an_import EXIT 1
    STDERR "kineto-cnn.json has no GPU run with roofline ceilings"
    ARGS roofline @DATA@/import/kineto-cnn.json)
