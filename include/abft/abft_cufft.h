/** \file abft_cufft.h
 *  \brief Protected FFT with cuFFT's own signatures (abft_-prefixed): a cuFFT user protects a
 *  transform by renaming its plan, exec, stream and destroy calls (issue 10, first part; not yet
 *  run on a GPU).
 *
 *  Plans made by abft_cufftPlan1d/2d/3d/Many are cuFFT plans registered with the library: their
 *  abft_cufftExec* calls run checked (docs/ABFT.md §12) on the process handle
 *  abft_cufft_handle() (policy from ABFT_POLICY, default correct; its counters are read by
 *  abft_cuda_sync(abft_cufft_handle(), stream, &report)). Any other cuFFT handle passed to
 *  abft_cufftExec* runs as plain cuFFT, unprotected. Every C2C, R2C and C2R plan of rank 1..3 in
 *  single or double precision is protected. Set a registered plan's stream with
 *  abft_cufftSetStream (cuFFT cannot be asked for a plan's stream: a cufftSetStream made behind
 *  the library's back is overridden by the stream the library recorded).
 */
#pragma once
#include <cufft.h>

#include "abft/abft.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The process-wide handle of the cuFFT-signature entry points (policy, injection, counters). */
ABFT_API abft_handle_t abft_cufft_handle(void);

ABFT_API cufftResult abft_cufftPlan1d(cufftHandle* plan, int nx, cufftType type, int batch);
ABFT_API cufftResult abft_cufftPlan2d(cufftHandle* plan, int nx, int ny, cufftType type);
ABFT_API cufftResult abft_cufftPlan3d(cufftHandle* plan, int nx, int ny, int nz, cufftType type);
ABFT_API cufftResult abft_cufftPlanMany(cufftHandle* plan, int rank, int* n, int* inembed, int istride, int idist,
                                        int* onembed, int ostride, int odist, cufftType type, int batch);
ABFT_API cufftResult abft_cufftSetStream(cufftHandle plan, cudaStream_t stream);
ABFT_API cufftResult abft_cufftDestroy(cufftHandle plan);
ABFT_API cufftResult abft_cufftExecC2C(cufftHandle plan, cufftComplex* idata, cufftComplex* odata, int direction);
ABFT_API cufftResult abft_cufftExecZ2Z(cufftHandle plan, cufftDoubleComplex* idata, cufftDoubleComplex* odata,
                                       int direction);
ABFT_API cufftResult abft_cufftExecR2C(cufftHandle plan, cufftReal* idata, cufftComplex* odata);
ABFT_API cufftResult abft_cufftExecD2Z(cufftHandle plan, cufftDoubleReal* idata, cufftDoubleComplex* odata);
ABFT_API cufftResult abft_cufftExecC2R(cufftHandle plan, cufftComplex* idata, cufftReal* odata);
ABFT_API cufftResult abft_cufftExecZ2D(cufftHandle plan, cufftDoubleComplex* idata, cufftDoubleReal* odata);

#ifdef __cplusplus
}
#endif
