# What writers may replace (docs/reliability.md, "Writing files"): -o of run, model and record,
# and export --csv/--chrome, on a FIFO, a character device, a link and a read-only file made in
# the test's folder; an export output that is the input trace, or the other output.
set(model_o model --device h200 --shape 100x4000x5 --strategy slice-outer -q)
set(export_in export @DATA@/format-example.json)

# A character device (like /dev/null) is written to, never replaced.
slicescope_cli_target_test(writer_model_chardev KIND chardev ARGS ${model_o} -o @WORK@/target)
slicescope_cli_target_test(writer_export_chardev KIND chardev
    ARGS ${export_in} --csv @WORK@/target --chrome @WORK@/target)
# A FIFO is written through to its reader; with no reader the writer says so instead of waiting.
slicescope_cli_target_test(writer_model_fifo KIND fifo-read
    WRITTEN "@WORK@/read|\"format\": *\"slicescope-trace\""
    ARGS ${model_o} -o @WORK@/target)
slicescope_cli_target_test(writer_export_fifo KIND fifo-read
    WRITTEN "@WORK@/read|^Start,Duration,.*one_worker"
    ARGS ${export_in} --csv @WORK@/target)
slicescope_cli_target_test(writer_model_fifo_no_reader KIND fifo EXIT 1
    STDERR "cannot write .*target: it is a FIFO that no process is reading"
    ARGS ${model_o} -o @WORK@/target)
slicescope_cli_target_test(writer_export_fifo_no_reader KIND fifo EXIT 1
    STDERR "cannot write .*target: it is a FIFO that no process is reading"
    ARGS ${export_in} --chrome @WORK@/target)
# A link is followed: the file it names is replaced, the link stays.
slicescope_cli_target_test(writer_model_symlink KIND symlink
    WRITTEN "@WORK@/real|\"format\": *\"slicescope-trace\""
    ARGS ${model_o} -o @WORK@/target)
slicescope_cli_target_test(writer_export_symlink KIND symlink
    WRITTEN "@WORK@/real|\"traceEvents\""
    ARGS ${export_in} --chrome @WORK@/target)
# A read-only file is refused, even for root, and before any work is done.
slicescope_cli_target_test(writer_model_readonly KIND readonly EXIT 1
    STDERR "cannot write .*target: it is read-only \\(mode 0444\\)"
    ARGS ${model_o} -o @WORK@/target)
slicescope_cli_target_test(writer_run_readonly KIND readonly EXIT 1
    STDERR "cannot write .*target: it is read-only"
    ARGS run --shape 2x2x2 --strategy cpu-serial -o @WORK@/target)
slicescope_cli_target_test(writer_model_readonly_link KIND readonly-link EXIT 1
    STDERR "cannot write .*target: it is read-only"
    ARGS ${model_o} -o @WORK@/target)
slicescope_cli_target_test(writer_export_readonly KIND readonly EXIT 1
    STDERR "cannot write .*target: it is read-only"
    ARGS ${export_in} --csv @WORK@/target)
if(SLICESCOPE_HAVE_CUDA)
    slicescope_cli_target_test(writer_record_readonly KIND readonly EXIT 1
        STDERR "cannot write .*target: it is read-only"
        ARGS record -o @WORK@/target -- true)
    slicescope_cli_target_test(writer_record_symlink KIND symlink
        WRITTEN "@WORK@/real|\"mode\": *\"recorded\""
        ARGS record -q -o @WORK@/target -- true)
endif()
# A directory or a missing folder is refused.
slicescope_cli_test(writer_model_directory EXIT 1 STDERR "cannot write .*: it is a directory"
    ARGS ${model_o} -o @WORK@)

# An export output that is the input trace (by name, another spelling, a hard or a symbolic
# link) or the other output is refused before anything is written.
slicescope_cli_target_test(export_output_is_input KIND trace EXIT 2
    STDERR "--csv .*target is the input trace"
    ARGS export @WORK@/target --csv @WORK@/target)
slicescope_cli_target_test(export_output_is_input_spelled KIND trace EXIT 2
    STDERR "--chrome \\./target is the input trace"
    ARGS export @WORK@/target --chrome ./target)
slicescope_cli_target_test(export_output_is_input_hardlink KIND trace EXIT 2
    STDERR "--csv .*hardlink is the input trace"
    ARGS export @WORK@/target --csv @WORK@/hardlink)
slicescope_cli_target_test(export_output_is_input_symlink KIND trace EXIT 2
    STDERR "--chrome .*target is the input trace .*softlink"
    ARGS export @WORK@/softlink --chrome @WORK@/target)
# One output named through a dangling link to the other's name: the same new file.
slicescope_cli_target_test(export_same_output_through_a_dangling_link KIND dangling-link EXIT 2
    STDERR "--csv and --chrome name the same file"
    ARGS ${export_in} --csv @WORK@/target --chrome @WORK@/real)
slicescope_cli_test(export_same_output_twice EXIT 2
    STDERR "--csv and --chrome name the same file"
    ARGS ${export_in} --csv @WORK@/out --chrome ./out)
