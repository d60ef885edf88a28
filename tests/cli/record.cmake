# `record` (docs/recording.md) with programs that use no CUDA: these run everywhere, with or without a GPU.
if(SLICESCOPE_HAVE_CUDA)
    # A program with no CUDA gives a valid recorded trace with no GPU activity; its stdout passes
    # through untouched.
    slicescope_cli_test(record_no_cuda
        MATCH "^hello from echo\n$"
        STDERR "recorded 0 kernels.*never initialised CUDA"
        MATCH_FILE "@WORK@/echo.json|\"mode\": *\"recorded\".*\"command\": *\"echo hello from echo\".*\"exit_status\": *0.*\"activities\": *\\[\\]"
        ARGS record -o @WORK@/echo.json -- echo hello from echo)
    slicescope_cli_test(record_exit_status EXIT 3
        MATCH_FILE "@WORK@/t.json|\"exit_status\": *3"
        ARGS record -o @WORK@/t.json -- sh -c "exit 3")
    slicescope_cli_test(record_signal EXIT 143 STDERR "killed by SIGTERM"
        MATCH_FILE "@WORK@/t.json|\"exit_status\": *143.*killed by SIGTERM"
        ARGS record -o @WORK@/t.json -- sh -c "kill -TERM $$")
    # Above 128 but not a signal: `exit 200` is exit status 200, not "killed by signal 72".
    slicescope_cli_test(record_exit_status_above_128 EXIT 200
        STDERR "the program exited with status 200"
        MATCH_FILE "@WORK@/t.json|\"exit_status\": *200"
        ARGS record -o @WORK@/t.json -- sh -c "exit 200")
    slicescope_cli_test(record_env_cwd MATCH "^/\nforty-two\n$"
        ARGS record -q --cwd / --env SLICESCOPE_X=forty-two -o @WORK@/t.json -- sh -c "pwd && printenv SLICESCOPE_X")
    # Everything after `--` is the program's, even right after a repeated --env (the GUI's Record
    # dialog puts its --env options last).
    slicescope_cli_test(record_env_before_program_arguments MATCH "^one two\n$"
        ARGS record -q -o @WORK@/t.json --env SLICESCOPE_X=one --env SLICESCOPE_Y=two -- sh -u -c "echo $SLICESCOPE_X $SLICESCOPE_Y")
    slicescope_cli_test(record_progress STDERR "progress \\{[^\n]*\"stage\":\"trace\""
        ARGS record --progress -o @WORK@/t.json -- true)
    # A program that cannot be started: a shell's status and a clear message, no trace.
    slicescope_cli_test(record_missing_program EXIT 127 STDERR "cannot start 'slicescope-no-such-program': command not found"
        ARGS record -o @WORK@/t.json -- slicescope-no-such-program --flag)
    slicescope_cli_test(record_not_executable EXIT 126 STDERR "cannot start '/etc/hostname'"
        ARGS record -o @WORK@/t.json -- /etc/hostname)
    slicescope_cli_test(record_bad_env EXIT 2 STDERR "--env takes NAME=VALUE"
        ARGS record --env NOVALUE -o @WORK@/t.json -- true)
    # Refused before the program runs: it must not print.
    slicescope_cli_test(record_unwritable EXIT 1 MATCH "^$" STDERR "cannot write /nonexistent-dir/t.json"
        ARGS record -o /nonexistent-dir/t.json -- echo ran)
endif()
slicescope_cli_test(record_no_command EXIT 2 STDERR "record needs the program" ARGS record -o @WORK@/t.json)
# Cancel (SIGTERM, SIGINT) and death (SIGKILL) of `record` end the program's whole process group,
# grandchildren included, even when they ignore SIGTERM (record-signals.sh).
if(SLICESCOPE_HAVE_CUDA)
    foreach(case "TERM" "INT" "KILL" "TERM;ignore-term" "KILL;ignore-term")
        string(REPLACE ";" "_" name "${case}")
        string(TOLOWER "${name}" name)
        string(REPLACE "-" "_" name "${name}")
        add_test(NAME cli.record_sig${name}_ends_the_program_group
            COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/record-signals.sh $<TARGET_FILE:slicescope-cli>
                ${CMAKE_CURRENT_BINARY_DIR}/work/record_sig${name} ${case})
        set_tests_properties(cli.record_sig${name}_ends_the_program_group PROPERTIES LABELS cli TIMEOUT 60)
    endforeach()
endif()
