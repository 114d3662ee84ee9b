# A campaign's trials can be replayed one by one: run a small campaign with --csv and --json,
# replay a few of its trials with --replay, and require the replayed CSV line to be the
# campaign's line (all columns but the wall time). Also checks the JSON summary's verdict.
# cmake -DABFT=<abft binary> -DWORK=<dir> -DARGS="--kernel;gemm;..." -DIDS="3;17" -P replay_check.cmake
file(MAKE_DIRECTORY "${WORK}")
execute_process(COMMAND "${ABFT}" campaign ${ARGS} --no-progress --csv "${WORK}/trials.csv"
                        --json "${WORK}/summary.json"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "campaign failed (${rc}):\n${out}\n${err}")
endif()
file(READ "${WORK}/summary.json" json)
if(NOT json MATCHES "\"pass\":true")
  message(FATAL_ERROR "JSON summary does not say pass:\n${json}")
endif()
file(STRINGS "${WORK}/trials.csv" lines)
# Drop the two last columns (ms, signal) before comparing.
function(strip_time line outvar)
  string(REGEX REPLACE ",[^,]*,[^,]*$" "" s "${line}")
  set(${outvar} "${s}" PARENT_SCOPE)
endfunction()
foreach(id IN LISTS IDS)
  set(want "")
  foreach(l IN LISTS lines)
    if(l MATCHES "^${id},")
      strip_time("${l}" want)
    endif()
  endforeach()
  if(want STREQUAL "")
    message(FATAL_ERROR "trial ${id} is not in the CSV")
  endif()
  execute_process(COMMAND "${ABFT}" campaign ${ARGS} --replay ${id}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REGEX MATCH "\n${id},[^\n]*" got "${out}")
  string(STRIP "${got}" got)
  strip_time("${got}" got)
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "replay of trial ${id} differs:\n campaign: ${want}\n replay:   ${got}\n${out}")
  endif()
  message(STATUS "trial ${id} replayed: ${got}")
endforeach()
