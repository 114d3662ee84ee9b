/** \file preload_runtime.hpp
 *  \brief Process-wide state of the preload library: the policy, the engine handles (one per
 *  vendor family, with the injector from ABFT_PRELOAD_INJECT), counters per intercepted entry
 *  point and the report printed at exit (ABFT_PRELOAD_REPORT).
 *
 *  Environment (read once):
 *    ABFT_POLICY          off | detect | correct (default correct). off: every call is forwarded to
 *                         the real library unchanged; the engine is never entered.
 *    ABFT_PRELOAD_INJECT  model[,site=output|a|b|input|all][,rate=P][,seed=N][,bit=B]: one fault
 *                         per protected call with probability P (default 1) — model bitflip |
 *                         bitflip2 | random | zero | nan | inf | -inf; site output (default: C of a
 *                         GEMM, the output of an FFT), a / b (a GEMM operand as the product reads
 *                         it), input (what cuFFT reads), all; bit -1 (default) draws a bit.
 *    ABFT_PRELOAD_REPORT  stderr | PATH (appended): the report at exit; unset: none. A process
 *                         that made no intercepted call writes none (wrappers such as timeout
 *                         or env inherit LD_PRELOAD too).
 *    ABFT_PRELOAD_CUBLAS / _CUBLASLT / _CUFFT: the real libraries' files (real_symbols.hpp).
 */
#pragma once
#include <cuda_runtime_api.h>

#include "abft/abft.h"
#include "translate.hpp"

namespace abft::preload {

/** The intercepted entry points that are counted (plan functions are not). */
enum class Entry : int {
  Sgemm,
  Dgemm,
  Hgemm,
  GemmEx,
  SgemmStridedBatched,
  DgemmStridedBatched,
  GemmStridedBatchedEx,
  GemmBatchedEx,
  Sgemm64,
  Dgemm64,
  Hgemm64,
  GemmEx64,
  SgemmStridedBatched64,
  DgemmStridedBatched64,
  GemmStridedBatchedEx64,
  GemmBatchedEx64,
  LtMatmul,
  ExecC2C,
  ExecZ2Z,
  ExecR2C,
  ExecD2Z,
  ExecC2R,
  ExecZ2D,
  XtExec,
  Count
};
const char* entry_name(Entry e);

/** The engine handle each family protects its calls on (device counters are per handle). */
enum class Family : int { Cublas = 0, CublasLt = 1, Cufft = 2, Count = 3 };

/** ABFT_POLICY=off (cached). */
bool policy_off();

void note_call(Entry e);
void note_protected(Entry e);
void note_unprotected(Entry e, Reason r);
void note_failed(Entry e);
void note_nested();

/** The engine handle of family f, prepared on first use: the injector attached, the exit
 *  report hooked after the CUDA runtime started (so that it runs before the runtime's own
 *  teardown). Also marks the family as used (its counters are read at exit). */
abft_handle_t engine_handle(Family f);

/** True once the process is exiting (set by an exit handler that runs before the static CUDA
 *  runtime's teardown): the library then frees no device memory of its own (shadow FFT plans). */
bool process_exiting();

/** True when `stream` is being captured into a CUDA graph (the engine allocates and, under
 *  injection, synchronizes: neither is allowed there). Errors count as "not capturing": the
 *  engine then meets the same error and the call is forwarded. */
bool stream_capturing(cudaStream_t stream);

}  // namespace abft::preload
