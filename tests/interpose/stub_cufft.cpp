/** \file stub_cufft.cpp
 *  \brief A stand-in for libcufft in the host-side tests of the preload library: plan handles are
 *  consecutive integers, every function records its call (stub_log.hpp) and returns CUFFT_SUCCESS.
 */
#include <cufft.h>
#include <cufftXt.h>

#include <atomic>

#include "stub_log.hpp"

#ifndef STUB_IDENTITY
#define STUB_IDENTITY "main"
#endif

STUB_DEFINE_LOG(stub_cufft)

namespace {
std::atomic<int> g_next{100};
cufftResult make(cufftHandle* plan) {
  if (!plan) return CUFFT_INVALID_VALUE;
  *plan = g_next++;
  return CUFFT_SUCCESS;
}
}  // namespace

#define LOG(...) stub_cufft_log().add(stub::describe(__VA_ARGS__))

extern "C" cufftResult cufftCreate(cufftHandle* plan) {
  const cufftResult r = make(plan);
  LOG("cufftCreate", plan ? *plan : -1);
  return r;
}
extern "C" cufftResult cufftPlan1d(cufftHandle* plan, int nx, cufftType type, int batch) {
  const cufftResult r = make(plan);
  LOG("cufftPlan1d", plan ? *plan : -1, nx, type, batch);
  return r;
}
extern "C" cufftResult cufftPlan2d(cufftHandle* plan, int nx, int ny, cufftType type) {
  const cufftResult r = make(plan);
  LOG("cufftPlan2d", plan ? *plan : -1, nx, ny, type);
  return r;
}
extern "C" cufftResult cufftPlan3d(cufftHandle* plan, int nx, int ny, int nz, cufftType type) {
  const cufftResult r = make(plan);
  LOG("cufftPlan3d", plan ? *plan : -1, nx, ny, nz, type);
  return r;
}
extern "C" cufftResult cufftPlanMany(cufftHandle* plan, int rank, int* n, int* inembed, int istride, int idist,
                                     int* onembed, int ostride, int odist, cufftType type, int batch) {
  const cufftResult r = make(plan);
  LOG("cufftPlanMany", plan ? *plan : -1, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch);
  return r;
}
extern "C" cufftResult cufftMakePlan1d(cufftHandle plan, int nx, cufftType type, int batch, size_t* ws) {
  LOG("cufftMakePlan1d", plan, nx, type, batch, ws);
  return CUFFT_SUCCESS;
}
extern "C" cufftResult cufftMakePlan2d(cufftHandle plan, int nx, int ny, cufftType type, size_t* ws) {
  LOG("cufftMakePlan2d", plan, nx, ny, type, ws);
  return CUFFT_SUCCESS;
}
extern "C" cufftResult cufftMakePlan3d(cufftHandle plan, int nx, int ny, int nz, cufftType type, size_t* ws) {
  LOG("cufftMakePlan3d", plan, nx, ny, nz, type, ws);
  return CUFFT_SUCCESS;
}
extern "C" cufftResult cufftMakePlanMany(cufftHandle plan, int rank, int* n, int* inembed, int istride, int idist,
                                         int* onembed, int ostride, int odist, cufftType type, int batch,
                                         size_t* ws) {
  LOG("cufftMakePlanMany", plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, ws);
  return CUFFT_SUCCESS;
}
extern "C" cufftResult cufftMakePlanMany64(cufftHandle plan, int rank, long long* n, long long* inembed,
                                           long long istride, long long idist, long long* onembed, long long ostride,
                                           long long odist, cufftType type, long long batch, size_t* ws) {
  LOG("cufftMakePlanMany64", plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, ws);
  return CUFFT_SUCCESS;
}
extern "C" cufftResult cufftXtMakePlanMany(cufftHandle plan, int rank, long long* n, long long* inembed,
                                           long long istride, long long idist, cudaDataType inputtype,
                                           long long* onembed, long long ostride, long long odist,
                                           cudaDataType outputtype, long long batch, size_t* ws,
                                           cudaDataType executiontype) {
  LOG("cufftXtMakePlanMany", plan, rank, n, inembed, istride, idist, inputtype, onembed, ostride, odist, outputtype,
      batch, ws, executiontype);
  return CUFFT_SUCCESS;
}
extern "C" cufftResult cufftSetStream(cufftHandle plan, cudaStream_t stream) {
  LOG("cufftSetStream", plan, stream);
  return CUFFT_SUCCESS;
}
extern "C" cufftResult cufftDestroy(cufftHandle plan) {
  LOG("cufftDestroy", plan);
  return CUFFT_SUCCESS;
}
extern "C" cufftResult cufftExecC2C(cufftHandle plan, cufftComplex* in, cufftComplex* out, int dir) {
  LOG("cufftExecC2C", plan, in, out, dir);
  return CUFFT_SUCCESS;
}
extern "C" cufftResult cufftExecZ2Z(cufftHandle plan, cufftDoubleComplex* in, cufftDoubleComplex* out, int dir) {
  LOG("cufftExecZ2Z", plan, in, out, dir);
  return CUFFT_SUCCESS;
}
extern "C" cufftResult cufftExecR2C(cufftHandle plan, cufftReal* in, cufftComplex* out) {
  LOG("cufftExecR2C", plan, in, out);
  return CUFFT_SUCCESS;
}
extern "C" cufftResult cufftExecD2Z(cufftHandle plan, cufftDoubleReal* in, cufftDoubleComplex* out) {
  LOG("cufftExecD2Z", plan, in, out);
  return CUFFT_SUCCESS;
}
extern "C" cufftResult cufftExecC2R(cufftHandle plan, cufftComplex* in, cufftReal* out) {
  LOG("cufftExecC2R", plan, in, out);
  return CUFFT_SUCCESS;
}
extern "C" cufftResult cufftExecZ2D(cufftHandle plan, cufftDoubleComplex* in, cufftDoubleReal* out) {
  LOG("cufftExecZ2D", plan, in, out);
  return CUFFT_SUCCESS;
}
extern "C" cufftResult cufftXtExec(cufftHandle plan, void* in, void* out, int dir) {
  LOG("cufftXtExec", plan, in, out, dir);
  return CUFFT_SUCCESS;
}
extern "C" cufftResult cufftGetVersion(int* version) {
  if (version) *version = 12000;  // (CUDA 13's cuFFT)
  return CUFFT_SUCCESS;
}
extern "C" cufftResult cufftXtSetCallback(cufftHandle plan, void** routine, cufftXtCallbackType type, void** info) {
  LOG("cufftXtSetCallback", plan, routine, int(type), info);
  return CUFFT_SUCCESS;
}
extern "C" cufftResult cufftXtClearCallback(cufftHandle plan, cufftXtCallbackType type) {
  LOG("cufftXtClearCallback", plan, int(type));
  return CUFFT_SUCCESS;
}
extern "C" cufftResult cufftXtSetJITCallback(cufftHandle plan, const char* name, const void* fatbin, size_t size,
                                             cufftXtCallbackType type, void** info) {
  LOG("cufftXtSetJITCallback", plan, name, fatbin, size, int(type), info);
  return CUFFT_SUCCESS;
}
