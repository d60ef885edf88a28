# The GUI links the engine's core alone (engine/CMakeLists.txt): fails when the built GUI binary
# holds any CUPTI symbol or any of the measurement library's code, or when the GUI's link closure,
# as CMake configured it, names a measurement-side library even though nothing of it was pulled in.
#   cmake -DBINARY=<slicescope> -DNM=<nm> -DLINKED=<a^^b^^...> -DFORBIDDEN=<a^^b> -P this-file
cmake_minimum_required(VERSION 3.25)
string(REPLACE "^^" ";" linked "${LINKED}")
string(REPLACE "^^" ";" forbidden "${FORBIDDEN}")
foreach(library IN LISTS forbidden)
    if(library IN_LIST linked)
        message(FATAL_ERROR "the GUI links ${library}: it may link the engine's core only")
    endif()
endforeach()

execute_process(COMMAND ${NM} -C ${BINARY} OUTPUT_VARIABLE symbols RESULT_VARIABLE result)
if(NOT result EQUAL 0 OR symbols STREQUAL "")
    message(FATAL_ERROR "nm -C ${BINARY} failed (${result}) or listed no symbols")
endif()
string(TOLOWER "${symbols}" lower)
string(REGEX MATCHALL "[^\n]*cupti[^\n]*" cupti "${lower}")
list(LENGTH cupti cuptiCount)
# The measurement library's own namespaces and entry points.
string(REGEX MATCHALL "[^\n]*slicescope::(cuda|record)::[^\n]*" measurement "${symbols}")
string(REGEX MATCHALL "[^\n]*slicescope::backend::(rungpu|detectdevices)[^\n]*" backend "${lower}")
list(APPEND measurement ${backend})
list(LENGTH measurement measurementCount)
message(STATUS "nm -C ${BINARY}: ${cuptiCount} CUPTI symbol(s), ${measurementCount} of the "
               "measurement library")
if(cuptiCount GREATER 0 OR measurementCount GREATER 0)
    list(SUBLIST cupti 0 5 someCupti)
    list(SUBLIST measurement 0 5 someMeasurement)
    message(FATAL_ERROR "the GUI binary holds measurement code:\n${someCupti}\n${someMeasurement}")
endif()
