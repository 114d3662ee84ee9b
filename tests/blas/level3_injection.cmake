# Level-3 protection under injected faults, included from tests/blas/CMakeLists.txt; also
# run in script mode (cmake -P) to judge the report the shim writes at exit.
#
# For each fault model, three ctest entries chained by fixtures:
#   BlasLevel3Injection.<model>.clean   removes the previous run's report
#   BlasLevel3Injection.<model>         runs blas_level3_test's *Injection* cases with
#                                       ABFT_INJECT=<model>, ABFT_INJECT_RATE=1 (one fault in
#                                       every protected kernel call: each GEMM the routines
#                                       are built from and each checked TRSM diagonal block)
#                                       and ABFT_REPORT=<file>: results must match the oracle
#   BlasLevel3Injection.<model>.report  this file in script mode: the report must show the
#                                       repairs and nothing uncorrectable
# Models: nan (every fault is detected: every routine row must show detections and
# repairs, and results match the oracle as tightly as clean ones) and bitflip (a flip below
# the checksum bound is not detected by design: repairs are required in total, results
# must be within the certified bound).
#
# And no false alarm: BlasLevel3NoFalseAlarm runs the *Adversarial* cases (subnormal,
# sparse, wide-range, ill-conditioned, near-overflow data, with and without FTZ/DAZ)
# without injection; its .report entry requires zero detections for every routine they
# call (CLEAN=ON).

if(CMAKE_SCRIPT_MODE_FILE)
  # Script mode: -DREPORT=<json> -DROUTINES=<a,b,...> -DEACH=ON|OFF [-DCLEAN=ON]
  if(NOT EXISTS "${REPORT}")
    message(FATAL_ERROR "no report ${REPORT}: the injected run did not exit normally")
  endif()
  file(READ "${REPORT}" json)
  string(REPLACE "," ";" routines "${ROUTINES}")
  set(problems "")
  set(total_repaired 0)
  foreach(r IN LISTS routines)
    string(REGEX MATCH "\"${r}\":{[^}]*}" row "${json}")
    if(NOT row)
      list(APPEND problems "${r}: no calls recorded")
      continue()
    endif()
    foreach(k calls detected corrected recomputed uncorrectable failed)
      string(REGEX MATCH "\"${k}\":([0-9]+)" unused "${row}")
      set(${k} "${CMAKE_MATCH_1}")
    endforeach()
    math(EXPR repaired "${corrected} + ${recomputed}")
    math(EXPR total_repaired "${total_repaired} + ${repaired}")
    message(STATUS "${r}: calls ${calls}, detected ${detected}, corrected ${corrected}, recomputed ${recomputed}, uncorrectable ${uncorrectable}, failed ${failed}")
    if(CLEAN AND NOT detected EQUAL 0)
      list(APPEND problems "${r}: ${detected} detections without any fault injected (false alarms)")
    endif()
    if(EACH AND (detected EQUAL 0 OR repaired EQUAL 0))
      list(APPEND problems "${r}: no detection or repair under injection")
    endif()
    if(NOT uncorrectable EQUAL 0 OR NOT failed EQUAL 0)
      list(APPEND problems "${r}: ${uncorrectable} uncorrectable, ${failed} failed calls")
    endif()
  endforeach()
  if(NOT CLEAN AND total_repaired EQUAL 0)
    list(APPEND problems "no repair counted at all")
  endif()
  if(problems)
    string(REPLACE ";" "\n  " text "${problems}")
    message(FATAL_ERROR "injection report ${REPORT}:\n  ${text}")
  endif()
  message(STATUS "report ${REPORT}: ${total_repaired} repairs, none uncorrectable")
  return()
endif()

set(_l3_routines "sgemm,dgemm,cgemm,zgemm,ssymm,dsymm,csymm,zsymm,chemm,zhemm,ssyrk,dsyrk,csyrk,zsyrk,cherk,zherk,ssyr2k,dsyr2k,csyr2k,zsyr2k,cher2k,zher2k,strmm,dtrmm,ctrmm,ztrmm,strsm,dtrsm,ctrsm,ztrsm")
set(_l3_dir ${CMAKE_CURRENT_BINARY_DIR}/level3_injection)
foreach(_l3_model nan bitflip)
  set(_l3_report ${_l3_dir}/${_l3_model}.json)
  set(_l3_name BlasLevel3Injection.${_l3_model})
  if(_l3_model STREQUAL "nan")
    set(_l3_each ON)
  else()
    set(_l3_each OFF)
  endif()
  add_test(NAME ${_l3_name}.clean COMMAND ${CMAKE_COMMAND} -E rm -f ${_l3_report})
  add_test(NAME ${_l3_name}
           COMMAND blas_level3_test --gtest_filter=*Injection*)
  add_test(NAME ${_l3_name}.report
           COMMAND ${CMAKE_COMMAND} -DREPORT=${_l3_report} -DROUTINES=${_l3_routines}
                   -DEACH=${_l3_each} -P ${CMAKE_CURRENT_LIST_FILE})
  set_tests_properties(${_l3_name}.clean PROPERTIES FIXTURES_SETUP ${_l3_name}.clean)
  set_tests_properties(${_l3_name} PROPERTIES
    FIXTURES_REQUIRED ${_l3_name}.clean FIXTURES_SETUP ${_l3_name}
    LABELS "blas;injection" TIMEOUT 300
    ENVIRONMENT "ABFT_INJECT=${_l3_model};ABFT_INJECT_RATE=1;ABFT_INJECT_SEED=11;ABFT_REPORT=${_l3_report};OMP_WAIT_POLICY=PASSIVE")
  set_tests_properties(${_l3_name}.report PROPERTIES FIXTURES_REQUIRED ${_l3_name} LABELS "blas;injection")
endforeach()

set(_l3_report ${_l3_dir}/no_false_alarm.json)
set(_l3_name BlasLevel3NoFalseAlarm)
add_test(NAME ${_l3_name}.clean COMMAND ${CMAKE_COMMAND} -E rm -f ${_l3_report})
add_test(NAME ${_l3_name} COMMAND blas_level3_test --gtest_filter=*Adversarial*)
add_test(NAME ${_l3_name}.report
         COMMAND ${CMAKE_COMMAND} -DREPORT=${_l3_report}
                 -DROUTINES=strsm,dtrsm,ctrsm,ztrsm,ssyrk,dsyrk,csyrk,zsyrk,ssymm,dsymm,csymm,zsymm,strmm,dtrmm,ctrmm,ztrmm
                 -DEACH=OFF -DCLEAN=ON -P ${CMAKE_CURRENT_LIST_FILE})
set_tests_properties(${_l3_name}.clean PROPERTIES FIXTURES_SETUP ${_l3_name}.clean)
set_tests_properties(${_l3_name} PROPERTIES
  FIXTURES_REQUIRED ${_l3_name}.clean FIXTURES_SETUP ${_l3_name}
  LABELS "blas;injection" TIMEOUT 300
  ENVIRONMENT "ABFT_INJECT=off;ABFT_REPORT=${_l3_report};OMP_WAIT_POLICY=PASSIVE")
set_tests_properties(${_l3_name}.report PROPERTIES FIXTURES_REQUIRED ${_l3_name} LABELS "blas;injection")
file(MAKE_DIRECTORY ${_l3_dir})
