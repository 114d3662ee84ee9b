# Whole-program tests of the BLAS shim, included from tests/blas/CMakeLists.txt.
#
# 1. Conformance: the reference BLAS test programs of Debian's libblas-test package, run
#    unmodified against our libblas.so.3 (LD_LIBRARY_PATH=<build>/lib). One ctest entry
#    per program (labels blas, conformance):
#      BlasConformance.xblat1{s,d,c,z}     Fortran Level 1 (a PASS line per subprogram)
#      BlasConformance.xblat2{s,d,c,z}     Fortran Level 2, error exits included
#      BlasConformance.xblat3{s,d,c,z}     Fortran Level 3, error exits included
#      BlasConformance.x{s,d,c,z}cblat1    CBLAS Level 1
#      BlasConformance.x{s,d,c,z}cblat2    CBLAS Level 2, both layouts, error exits
#      BlasConformance.x{s,d,c,z}cblat3    CBLAS Level 3, both layouts, error exits
#    and, with faults injected into the protected Level-3 kernels (half the calls hit by a
#    NaN or an Inf, which every check must see), the Level-3 programs again: the results
#    they judge, element by element at 16 ulps, are the repaired ones. Random bit flips are
#    not used here: a flip below a checksum's rounding bound is by design not detected,
#    and these programs judge each element far tighter than any checksum can (see
#    docs/RELIABILITY.md; tests/blas/level3_injection.cmake and the unmodified-program
#    test judge bit flips at the scale ABFT guarantees).
#      BlasConformanceInjected.xblat3{s,d,c,z}, BlasConformanceInjected.x{s,d,c,z}cblat3
#    The runner (scripts/run_reference_blas_test.sh) says what each verdict rests on.
# 2. Unmodified programs under injection: unmodified/ (its CMakeLists says what runs).
#
# The programs are looked up at configure time in ABFT_BLAS_TEST_DIR (default: Debian's
# /usr/lib/<multiarch>/blas). When they are absent, one entry says so and is reported
# skipped (scripts/setup.sh installs libblas-test when run as root).

set(ABFT_BLAS_TEST_RUNNER ${CMAKE_CURRENT_SOURCE_DIR}/scripts/run_reference_blas_test.sh)
# Where our libblas.so.3 / libcblas.so.3 land (src/blas puts the shim libraries there).
set(ABFT_BLAS_TEST_LIBDIR $<TARGET_FILE_DIR:abft_blas_compat>)

find_path(ABFT_BLAS_TEST_DIR NAMES xblat1d
          PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/blas /usr/lib64/blas /usr/lib/blas
          NO_DEFAULT_PATH
          DOC "Folder of the reference BLAS test programs (Debian package libblas-test)")

# One entry per program: NAME, runner kind, stdin file (or ""), summary file (or ""), and
# optionally INJECT MODEL:RATE:SEED for an injected twin.
function(abft_blas_conformance_test prog kind input summary)
  cmake_parse_arguments(PARSE_ARGV 4 arg "" "INJECT" "")
  set(args --lib-dir ${ABFT_BLAS_TEST_LIBDIR} --program ${ABFT_BLAS_TEST_DIR}/${prog} --kind ${kind})
  if(input)
    list(APPEND args --input ${ABFT_BLAS_TEST_DIR}/${input})
  endif()
  if(summary)
    list(APPEND args --summary ${summary})
  endif()
  set(work ${CMAKE_CURRENT_BINARY_DIR}/conformance)
  add_test(NAME BlasConformance.${prog}
           COMMAND ${ABFT_BLAS_TEST_RUNNER} ${args} --work ${work}/${prog})
  set(names BlasConformance.${prog})
  if(arg_INJECT)
    add_test(NAME BlasConformanceInjected.${prog}
             COMMAND ${ABFT_BLAS_TEST_RUNNER} ${args} --work ${work}/${prog}_injected
                     --inject ${arg_INJECT})
    list(APPEND names BlasConformanceInjected.${prog})
  endif()
  # PASSIVE: idle OpenMP workers must not spin on the two cores the suite runs on.
  set_tests_properties(${names} PROPERTIES
                       LABELS "blas;conformance" TIMEOUT 300 SKIP_RETURN_CODE 77
                       ENVIRONMENT "OMP_WAIT_POLICY=PASSIVE")
endfunction()

if(ABFT_BLAS_TEST_DIR)
  message(STATUS "abft: reference BLAS test programs: ${ABFT_BLAS_TEST_DIR}")
  set(seed 1)
  foreach(p s d c z)
    abft_blas_conformance_test(xblat1${p} blat1 "" "")
    abft_blas_conformance_test(xblat2${p} blat ${p}blat2.in ${p}blat2.out)
    abft_blas_conformance_test(xblat3${p} blat ${p}blat3.in ${p}blat3.out INJECT nan:0.5:${seed})
    abft_blas_conformance_test(x${p}cblat1 blat1 "" "")
    abft_blas_conformance_test(x${p}cblat2 cblat ${p}in2 "")
    math(EXPR seed "${seed} + 1")
    abft_blas_conformance_test(x${p}cblat3 cblat ${p}in3 "" INJECT inf:0.5:${seed})
    math(EXPR seed "${seed} + 1")
  endforeach()
else()
  message(STATUS "abft: reference BLAS test programs not found (libblas-test); conformance tests will skip")
  add_test(NAME BlasConformance.reference_programs
           COMMAND ${ABFT_BLAS_TEST_RUNNER} --skip
                   "the reference BLAS test programs (xblat1d ...) are not installed: install Debian's libblas-test (scripts/setup.sh does, as root) or set ABFT_BLAS_TEST_DIR, then re-run cmake")
  set_tests_properties(BlasConformance.reference_programs PROPERTIES
                       LABELS "blas;conformance" SKIP_RETURN_CODE 77)
endif()

add_subdirectory(unmodified)
