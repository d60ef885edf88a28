# `export`: a trace to CSV (nvprof --print-gpu-trace columns) and Chrome Trace Event JSON.
slicescope_cli_test(export_csv
    MATCH "wrote .*out.csv"
    MATCH_FILE "@WORK@/out.csv|^Start,Duration,Grid X,Grid Y,Grid Z,Block X,Block Y,Block Z,Registers Per Thread,Static SMem,Dynamic SMem,Size,Throughput,SrcMemType,DstMemType,Device,Context,Stream,Name,Run,Mode\nus,us,.*\n6200.000,47000.250,2,1,1,64,1,1,40,0,16,.*\"slice_outer<double, \"\"rcn\"\">.*,one_worker,one-worker,modelled\n"
    ARGS export @DATA@/format-example.json --csv @WORK@/out.csv)
slicescope_cli_test(export_chrome
    MATCH "wrote .*out.json"
    MATCH_FILE "@WORK@/out.json|\"traceEvents\".*\"name\":\"one-worker \\[modelled\\]\".*\"ph\":\"X\",\"name\":\"one_worker\""
    ARGS export @DATA@/format-example.json --chrome @WORK@/out.json)
slicescope_cli_test(export_both
    MATCH "wrote .*both.csv.*wrote .*both.json"
    MATCH_FILE "@WORK@/both.json|\"displayTimeUnit\""
    ARGS export @DATA@/format-example.json --csv @WORK@/both.csv --chrome @WORK@/both.json)

# Bad input: exit 1 and a message naming the file, where it broke and why.
slicescope_cli_test(export_truncated_trace EXIT 1
    STDERR "malformed-truncated.json: byte [0-9]+ \\(run 0, activity 2\\): unexpected end of file.*truncated"
    ARGS export @DATA@/malformed-truncated.json --csv @WORK@/out.csv)
slicescope_cli_test(export_unsupported_version EXIT 1
    STDERR "malformed-version.json: byte [0-9]+: unsupported trace version 2"
    ARGS export @DATA@/malformed-version.json --chrome @WORK@/out.json)
slicescope_cli_test(export_not_a_trace EXIT 1
    STDERR "export.cmake: byte 0: expected a JSON object"
    ARGS export ${CMAKE_CURRENT_SOURCE_DIR}/export.cmake --csv @WORK@/out.csv)
slicescope_cli_test(export_missing_file_chrome EXIT 1
    STDERR "cannot read .*no-such-trace.json: No such file or directory"
    ARGS export @WORK@/no-such-trace.json --chrome @WORK@/out.json)
slicescope_cli_test(export_unwritable EXIT 1
    STDERR "cannot write /nonexistent-dir/out.csv: No such file or directory"
    ARGS export @DATA@/format-example.json --csv /nonexistent-dir/out.csv)

# An empty trace name is a usage error (it was "internal error: filesystem error"). The ARGS of
# slicescope_cli_test cannot hold an empty argument (CMake drops empty list elements): sh does.
add_test(NAME cli.export_empty_trace_name
    COMMAND sh -c "\"$0\" export '' --csv \"$1\" 2>&1; echo \"exit $?\""
        $<TARGET_FILE:slicescope-cli> ${CMAKE_CURRENT_BINARY_DIR}/work/export_empty_trace_name.csv)
set_tests_properties(cli.export_empty_trace_name PROPERTIES LABELS cli
    PASS_REGULAR_EXPRESSION "error: export needs a trace file: TRACE is an empty name\nexit 2")
