# `slicescope --help` and `--version` print and exit 0 on a machine with no display: no DISPLAY,
# no WAYLAND_DISPLAY and QT_QPA_PLATFORM unset (a server, a CI job, an ssh session).
unset(ENV{DISPLAY})
unset(ENV{WAYLAND_DISPLAY})
unset(ENV{QT_QPA_PLATFORM})
foreach(option --help --version)
    execute_process(COMMAND ${GUI} ${option}
        RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
    message(STATUS "${option}: exit ${status}\n--- stdout\n${out}--- stderr\n${err}")
    if(NOT "${status}" STREQUAL "0")
        message(FATAL_ERROR "slicescope ${option} with no display: expected exit 0, got ${status}")
    endif()
    if(option STREQUAL "--help" AND NOT out MATCHES "Usage: [^\n]*slicescope.*--export-image")
        message(FATAL_ERROR "slicescope --help printed no usage text")
    endif()
    if(option STREQUAL "--version" AND NOT out MATCHES "SliceScope [0-9]+\\.[0-9]+")
        message(FATAL_ERROR "slicescope --version printed no version")
    endif()
endforeach()
