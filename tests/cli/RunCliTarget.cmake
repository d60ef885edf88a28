# Runs slicescope-cli with ARGS against an output TARGET (@WORK@/target) made beforehand as KIND,
# then checks the exit status, stderr, and that the target is still what it was: a writer must
# not replace a device, a FIFO, a link or a read-only file (docs/reliability.md, "Writing files").
#   KIND: fifo (no reader), fifo-read (a reader copies it to @WORK@/read), chardev (made with
#         mknod like /dev/null: 1,3), symlink (a link to @WORK@/real, which holds "old"),
#         readonly (mode 0444, holds "old"), readonly-link (a link to a read-only file), trace (a
#         copy of @DATA@/format-example.json, with a hard link @WORK@/hardlink and a symbolic
#         link @WORK@/softlink to it; it must be left unchanged), dangling-link (a link to
#         @WORK@/real, which does not exist: nothing may be created there when refused)
# Special files are made in the test's own folder, never in the machine's /dev. Where mknod is
# not permitted the test prints SKIPPED (the test's SKIP_REGULAR_EXPRESSION).
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
string(REPLACE "^^" ";" ARGS "${ARGS}")
string(REPLACE "@WORK@" "${WORK_DIR}" ARGS "${ARGS}")
string(REPLACE "@DATA@" "${DATA_DIR}" ARGS "${ARGS}")
set(target ${WORK_DIR}/target)

function(run_checked)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE status ERROR_VARIABLE err)
    if(NOT status EQUAL 0)
        message(FATAL_ERROR "${ARGN}: ${status} ${err}")
    endif()
endfunction()

if(KIND STREQUAL "fifo" OR KIND STREQUAL "fifo-read")
    run_checked(mkfifo ${target})
elseif(KIND STREQUAL "chardev")
    execute_process(COMMAND mknod ${target} c 1 3 RESULT_VARIABLE status ERROR_VARIABLE err)
    if(NOT status EQUAL 0)
        message(STATUS "SKIPPED: mknod is not permitted here (${err})")
        return()
    endif()
    # On a file system mounted nodev the node exists but cannot be opened.
    execute_process(COMMAND sh -c "echo probe > '${target}'" RESULT_VARIABLE status ERROR_VARIABLE err)
    if(NOT status EQUAL 0)
        message(STATUS "SKIPPED: device nodes cannot be opened in ${WORK_DIR} (${err})")
        return()
    endif()
elseif(KIND STREQUAL "symlink")
    file(WRITE ${WORK_DIR}/real "old")
    file(CREATE_LINK real ${target} SYMBOLIC)
elseif(KIND STREQUAL "readonly")
    file(WRITE ${target} "old")
    run_checked(chmod 0444 ${target})
elseif(KIND STREQUAL "readonly-link")
    file(WRITE ${WORK_DIR}/real "old")
    run_checked(chmod 0444 ${WORK_DIR}/real)
    file(CREATE_LINK real ${target} SYMBOLIC)
elseif(KIND STREQUAL "dangling-link")
    file(CREATE_LINK real ${target} SYMBOLIC)
elseif(KIND STREQUAL "trace")
    file(COPY_FILE ${DATA_DIR}/format-example.json ${target})
    file(CREATE_LINK ${target} ${WORK_DIR}/hardlink)
    file(CREATE_LINK target ${WORK_DIR}/softlink SYMBOLIC)
else()
    message(FATAL_ERROR "unknown KIND ${KIND}")
endif()

if(KIND STREQUAL "fifo-read")
    # A reader copies what the CLI writes. The shell opens the FIFO read-write first (which does
    # not wait) so that the reader's end is open before the CLI starts, and closes it once the
    # CLI has ended, so that the reader sees the end of the data.
    string(REPLACE ";" "' '" quoted "${ARGS}")
    set(script "exec 4<>'${target}'; exec 3<'${target}'; cat <&3 >'${WORK_DIR}/read' 4>&- &")
    string(APPEND script " exec 3<&-; '${CLI}' '${quoted}' 4>&-; s=$?; exec 4>&-; wait; exit $s")
    execute_process(COMMAND sh -c "${script}"
        WORKING_DIRECTORY ${WORK_DIR}
        RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
else()
    execute_process(COMMAND ${CLI} ${ARGS}
        WORKING_DIRECTORY ${WORK_DIR}
        RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
endif()
message(STATUS "exit ${status}\n--- stdout\n${out}--- stderr\n${err}")
if(err MATCHES "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error: |SUMMARY: UndefinedBehaviorSanitizer")
    message(FATAL_ERROR "a sanitizer reported an error (see stderr above)")
endif()
if(NOT "${status}" STREQUAL "${EXPECT_EXIT}")
    message(FATAL_ERROR "expected exit status ${EXPECT_EXIT}, got ${status}")
endif()
if(EXPECT_STDERR AND NOT err MATCHES "${EXPECT_STDERR}")
    message(FATAL_ERROR "stderr does not match: ${EXPECT_STDERR}")
endif()

# The target is still what it was.
if(KIND MATCHES "^fifo")
    execute_process(COMMAND test -p ${target} RESULT_VARIABLE kept)
elseif(KIND STREQUAL "chardev")
    execute_process(COMMAND test -c ${target} RESULT_VARIABLE kept)
elseif(KIND MATCHES "link$")
    execute_process(COMMAND test -L ${target} RESULT_VARIABLE kept)
else()
    execute_process(COMMAND test -f ${target} -a ! -L ${target} RESULT_VARIABLE kept)
endif()
if(NOT kept EQUAL 0)
    message(FATAL_ERROR "${target} is no longer a ${KIND}: it was replaced")
endif()
if(KIND MATCHES "^readonly")
    file(READ ${target} text)
    if(NOT text STREQUAL "old")
        message(FATAL_ERROR "the read-only file was changed: ${text}")
    endif()
elseif(KIND STREQUAL "dangling-link" AND NOT EXPECT_EXIT EQUAL 0 AND EXISTS ${WORK_DIR}/real)
    message(FATAL_ERROR "refused, yet ${WORK_DIR}/real was written")
elseif(KIND STREQUAL "trace")
    file(READ ${target} text)
    file(READ ${DATA_DIR}/format-example.json original)
    if(NOT text STREQUAL original)
        message(FATAL_ERROR "the input trace was changed")
    endif()
endif()
if(EXPECT_WRITTEN)
    # "path|regex": what reached the target (through the link, or the FIFO's reader).
    string(REPLACE "@WORK@" "${WORK_DIR}" EXPECT_WRITTEN "${EXPECT_WRITTEN}")
    string(FIND "${EXPECT_WRITTEN}" "|" bar)
    string(SUBSTRING "${EXPECT_WRITTEN}" 0 ${bar} path)
    math(EXPR rest "${bar} + 1")
    string(SUBSTRING "${EXPECT_WRITTEN}" ${rest} -1 regex)
    file(READ ${path} text)
    if(NOT text MATCHES "${regex}")
        message(FATAL_ERROR "${path} does not match: ${regex}")
    endif()
endif()
