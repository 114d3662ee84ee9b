/** \file vendor_forwarders.cpp
 *  \brief Definitions, inside the preload library, of the vendor functions the engine calls and
 *  the library does not intercept: each forwards to the real function of the program's own copy
 *  (real_symbols.hpp). The static linker binds the engine's references (the cuda/ sources) to these, and
 *  the export map keeps them local, so the engine never reaches cuBLAS / cuFFT through a
 *  link-time dependency (which could load a second copy, whose handles must never meet the
 *  program's) and the program's own calls to them are not touched. The engine's calls to
 *  functions the library does intercept (cublasSgemm_v2, cufftXtExec, ...) bind to the exported
 *  entry points, whose recursion guard sends them to the real library.
 *  Link with --no-undefined: a vendor function the engine starts to use shows up as a link error
 *  here, never as a silent dependency.
 */
#include <cublas_v2.h>
#include <cufft.h>
#include <cufftXt.h>

#include "real_symbols.hpp"



extern "C" cublasStatus_t cublasCreate_v2(cublasHandle_t* handle) {
  const auto real = ABFT_REAL(Cublas, cublasCreate_v2);
  return real ? real(handle) : CUBLAS_STATUS_NOT_INITIALIZED;
}

extern "C" cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
  const auto real = ABFT_REAL(Cublas, cublasDestroy_v2);
  return real ? real(handle) : CUBLAS_STATUS_NOT_INITIALIZED;
}

extern "C" cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId) {
  const auto real = ABFT_REAL(Cublas, cublasSetStream_v2);
  return real ? real(handle, streamId) : CUBLAS_STATUS_NOT_INITIALIZED;
}

extern "C" cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t* streamId) {
  const auto real = ABFT_REAL(Cublas, cublasGetStream_v2);
  return real ? real(handle, streamId) : CUBLAS_STATUS_NOT_INITIALIZED;
}

extern "C" cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
  const auto real = ABFT_REAL(Cublas, cublasSetMathMode);
  return real ? real(handle, mode) : CUBLAS_STATUS_NOT_INITIALIZED;
}

extern "C" cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t* mode) {
  const auto real = ABFT_REAL(Cublas, cublasGetMathMode);
  return real ? real(handle, mode) : CUBLAS_STATUS_NOT_INITIALIZED;
}

extern "C" cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t* mode) {
  const auto real = ABFT_REAL(Cublas, cublasGetPointerMode_v2);
  return real ? real(handle, mode) : CUBLAS_STATUS_NOT_INITIALIZED;
}

extern "C" cufftResult cufftCreate(cufftHandle* handle) {
  const auto real = ABFT_REAL(Cufft, cufftCreate);
  return real ? real(handle) : CUFFT_NOT_SUPPORTED;
}

