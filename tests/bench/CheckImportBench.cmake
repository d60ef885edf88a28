# Runs slicescope-bench-import --kernels KERNELS --rounds 1: it must say its trace is synthetic
# and end with "kernels=N kineto_ms=X slicescope_ms=Y time_ratio=R kineto_mb=A slicescope_mb=B
# memory_ratio=M", N as asked and both load times above 0 (sane, not targets).
execute_process(COMMAND ${BENCH} --kernels ${KERNELS} --rounds 1
    RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 280)
message(STATUS "exit ${status}\n${out}${err}")
set(n "([0-9]+\\.[0-9]+)")
set(last "kernels=${KERNELS} kineto_ms=${n} slicescope_ms=${n} time_ratio=${n} kineto_mb=-?${n} slicescope_mb=-?${n} memory_ratio=-?${n}\n$")
if(NOT status EQUAL 0 OR NOT out MATCHES "synthetic \\(generated, not measured\\): ${KERNELS} kernels")
    message(FATAL_ERROR "it failed, or does not say its trace is synthetic")
endif()
if(NOT out MATCHES "${last}")
    message(FATAL_ERROR "the last line is not 'kernels=${KERNELS} kineto_ms=X slicescope_ms=Y ...'")
endif()
if(CMAKE_MATCH_1 LESS_EQUAL 0 OR CMAKE_MATCH_2 LESS_EQUAL 0)
    message(FATAL_ERROR "a load time is not above 0")
endif()
