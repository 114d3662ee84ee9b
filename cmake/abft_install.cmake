# \brief Install rules and package files: what `cmake --install` puts where, so that
# find_package(abft) and `pkg-config abft-blas` work from the installed tree.
#
# Layout under the prefix (GNUInstallDirs):
#   include/abft/...                   the public headers (C API, C++ API, CBLAS)
#   <libdir>/libabft.a                 the core library (static; C++ with OpenMP)
#   <libdir>/libabft_transformer.a     the transformer runtime over it (C++)
#   <libdir>/libabft_blas.so.0         the BLAS/CBLAS shim, linked by name (-labft_blas)
#   <libdir>/abft/libblas.so.3         drop-in copies with the system BLAS's sonames; in
#   <libdir>/abft/libcblas.so.3        their own folder so they never replace the system
#                                      BLAS: a user opts in with
#                                      LD_LIBRARY_PATH=<libdir>/abft (no -lblas namelinks)
#   <libdir>/libabft_fftw3.so.0        the FFTW3 interface, both precisions (-labft_fftw3)
#   <libdir>/abft/libfftw3.so.3 ...    drop-ins for FFTW's double and float libraries and
#                                      their _threads/_omp companions (same opt-in)
#   include/abft/fftw/fftw3.h          abft's FFTW3-compatible header, under the standard
#                                      name: -I<includedir>/abft/fftw, #include <fftw3.h>
#   <bindir>/abft                      the command-line tool (`abft info`, `abft demo`)
#   <libdir>/pkgconfig/abft-blas.pc    Libs: -labft_blas   Cflags: -I<includedir>
#   <libdir>/pkgconfig/abft-fftw3.pc   Libs: -labft_fftw3      Cflags: -I<includedir>/abft/fftw
#   <libdir>/pkgconfig/abft.pc         the static core (Libs carry its C++/OpenMP runtime)
#   <libdir>/cmake/abft/               abftConfig.cmake (+Version), exported targets:
#                                      abft::blas (shared shim), abft::fftw3 (FFTW3
#                                      interface), abft::abft (static core),
#                                      abft::transformer (the runtime)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(ABFT_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/abft)

# Exported names: abft::abft and abft::blas.
set_target_properties(abft PROPERTIES EXPORT_NAME abft)
set_target_properties(abft_blas PROPERTIES EXPORT_NAME blas)
set_target_properties(abft_fftw3 PROPERTIES EXPORT_NAME fftw3)
set_target_properties(abft_transformer PROPERTIES EXPORT_NAME transformer)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/abft
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT devel)

# The targets carry their include directory themselves ($<INSTALL_INTERFACE:include>).
# Two export sets: the shim has no link dependencies a consumer must find (a C program
# can use it), the static core needs OpenMP for C++ (abftConfig.cmake finds it only when
# the consumer enables C++).
install(TARGETS abft_blas EXPORT abftBlasTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime)
install(TARGETS abft_fftw3 EXPORT abftFftwTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime)
install(FILES ${PROJECT_SOURCE_DIR}/include/abft/fftw3.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/abft/fftw COMPONENT devel)
install(TARGETS abft abft_transformer EXPORT abftCoreTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT devel)
install(TARGETS abft_blas_compat abft_cblas_compat abft_fftw3_compat abft_fftw3f_compat
                abft_fftw3_threads_compat abft_fftw3f_threads_compat abft_fftw3_omp_compat
                abft_fftw3f_omp_compat
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/abft NAMELINK_SKIP COMPONENT runtime)
install(TARGETS abft_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)

install(EXPORT abftBlasTargets NAMESPACE abft:: FILE abftBlasTargets.cmake
        DESTINATION ${ABFT_INSTALL_CMAKEDIR} COMPONENT devel)
install(EXPORT abftFftwTargets NAMESPACE abft:: FILE abftFftwTargets.cmake
        DESTINATION ${ABFT_INSTALL_CMAKEDIR} COMPONENT devel)
install(EXPORT abftCoreTargets NAMESPACE abft:: FILE abftCoreTargets.cmake
        DESTINATION ${ABFT_INSTALL_CMAKEDIR} COMPONENT devel)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/abftConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/abftConfig.cmake
                              INSTALL_DESTINATION ${ABFT_INSTALL_CMAKEDIR})
# 0.x: minor versions may break the interface.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/abftConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/abftConfig.cmake ${PROJECT_BINARY_DIR}/abftConfigVersion.cmake
        DESTINATION ${ABFT_INSTALL_CMAKEDIR} COMPONENT devel)

# pkg-config files. The prefix is found from the .pc file's own place (${pcfiledir}), so
# the tree stays valid wherever `cmake --install --prefix` (or DESTDIR) puts it.
file(RELATIVE_PATH ABFT_PC_TO_PREFIX
     /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)   # "../.." (or "../../.." for lib/<multiarch>)
string(REGEX REPLACE "/$" "" ABFT_PC_TO_PREFIX "${ABFT_PC_TO_PREFIX}")
# The static core's link line for C consumers: the C++ runtime and OpenMP's runtime.
set(ABFT_PC_CORE_LIBS "")
foreach(lib ${OpenMP_CXX_LIB_NAMES})
  string(APPEND ABFT_PC_CORE_LIBS " -l${lib}")
endforeach()
configure_file(${CMAKE_CURRENT_LIST_DIR}/abft-blas.pc.in ${PROJECT_BINARY_DIR}/abft-blas.pc @ONLY)
configure_file(${CMAKE_CURRENT_LIST_DIR}/abft-fftw3.pc.in ${PROJECT_BINARY_DIR}/abft-fftw3.pc @ONLY)
configure_file(${CMAKE_CURRENT_LIST_DIR}/abft.pc.in ${PROJECT_BINARY_DIR}/abft.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/abft-blas.pc ${PROJECT_BINARY_DIR}/abft-fftw3.pc ${PROJECT_BINARY_DIR}/abft.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT devel)
