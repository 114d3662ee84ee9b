/** \file fft.h
 *  \brief C API of the protected FFT: plans (create / execute / execute on new
 *         arrays / destroy) for complex and real transforms, any size, 1D to
 *         nD, batched with FFTW's "many"/"guru" stride semantics.
 *
 *  Transforms are unnormalized, as FFTW's: forward then backward multiplies
 *  by the product of the lengths. The forward transform (sign -1) computes
 *      y[k] = sum_j x[j] exp(-2 pi i j k / n),
 *  the backward one (sign +1) the same with exp(+2 pi i j k / n).
 *
 *  Every 1D line a plan computes (each signal of a batch, each row/column pass
 *  of a multi-dimensional transform, each sub-transform of a large four-step
 *  decomposition) is a checked *unit*: weighted input and output checksums are
 *  compared against a bound from the FFT's round-off analysis (docs/ABFT.md);
 *  a failing unit is recomputed from data kept for that purpose and
 *  re-verified. Statistics go to ABFT_KERNEL_SFFT / ABFT_KERNEL_DFFT.
 *
 *  Complex data are interleaved (re, im) pairs: C99 `float _Complex`,
 *  `std::complex<float>` and `fftwf_complex` all have this layout.
 */
#pragma once
#include "abft/abft.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct abft_fft_plan_s* abft_fft_plan_t; /* opaque */

typedef enum abft_precision { ABFT_PRECISION_FLOAT = 0, ABFT_PRECISION_DOUBLE = 1 } abft_precision;

typedef enum abft_fft_kind {
  ABFT_FFT_C2C = 0, /**< complex -> complex, sign -1 or +1 */
  ABFT_FFT_R2C = 1, /**< real -> half complex (n/2+1 along the last dimension), forward */
  ABFT_FFT_C2R = 2  /**< half complex -> real, backward */
} abft_fft_kind;

#define ABFT_FFT_FORWARD (-1)
#define ABFT_FFT_BACKWARD (+1)

/** Plan flags (bit set). */
enum {
  /** FFTW's rule lets C2R of rank >= 2 use its input as scratch unless this
   *  is given. This engine never writes the input of an out-of-place
   *  transform (C2R of rank >= 2 works on a copy), so the flag is accepted
   *  and always honoured. */
  ABFT_FFT_PRESERVE_INPUT = 1u << 0,
  /** Allows the plan to overwrite the input of an out-of-place transform. */
  ABFT_FFT_DESTROY_INPUT = 1u << 1,
  /** Arrays may have any alignment (the engine never assumes more than the
   *  element's own alignment anyway; accepted for FFTW compatibility). */
  ABFT_FFT_UNALIGNED = 1u << 2,
  ABFT_FFT_FLAGS_ALL_ = (1u << 3) - 1
};

/** One dimension of FFTW's guru interface: length and strides, in elements
 *  of the array they index (real elements for a real array, complex pairs
 *  for a complex one). Strides may be negative or zero only where FFTW
 *  allows it: a transform dimension needs a nonzero stride. */
typedef struct abft_fft_dim {
  int64_t n;
  int64_t is; /**< input stride */
  int64_t os; /**< output stride */
} abft_fft_dim;

/** General plan (FFTW "guru64" semantics). `dims[0..rank)` are the transform
 *  dimensions (row-major: the last varies fastest in a contiguous layout);
 *  for R2C/C2R `dims[rank-1].n` is the *real* length and the complex side has
 *  n/2+1 elements along it. `howmany[0..howmany_rank)` are loop dimensions
 *  (the batch). rank 1..3 (higher ranks are accepted too), howmany_rank 0..3.
 *  sign: -1 / +1 for C2C; for R2C it must be -1 (or 0), for C2R +1 (or 0).
 *  h may be NULL (process defaults); the plan copies the handle's policy,
 *  thread count and injection hook *by reference*: changes to the handle
 *  apply to later executions. */
ABFT_API abft_status abft_fft_plan_guru(abft_fft_plan_t* out, abft_handle_t h,
                                        abft_precision prec, abft_fft_kind kind, int rank,
                                        const abft_fft_dim* dims, int howmany_rank,
                                        const abft_fft_dim* howmany, int sign, unsigned flags);

/** FFTW "plan_many" semantics: `howmany` transforms of size n[0..rank), element
 *  j of transform b at in[b*idist + istride*(index in inembed layout)]. NULL
 *  inembed/onembed mean the arrays have the logical shape (for R2C/C2R the
 *  complex side's last dimension is n/2+1). */
ABFT_API abft_status abft_fft_plan_many(abft_fft_plan_t* out, abft_handle_t h,
                                        abft_precision prec, abft_fft_kind kind, int rank,
                                        const int64_t* n, int64_t howmany,
                                        const int64_t* inembed, int64_t istride, int64_t idist,
                                        const int64_t* onembed, int64_t ostride, int64_t odist,
                                        int sign, unsigned flags);

/** Contiguous transform of rank 1..3 (n[0] x n[1] x ..., row-major), batch 1. */
ABFT_API abft_status abft_fft_plan_dft(abft_fft_plan_t* out, abft_handle_t h,
                                       abft_precision prec, abft_fft_kind kind, int rank,
                                       const int64_t* n, int sign, unsigned flags);
/** Contiguous 1D transform of length n. */
ABFT_API abft_status abft_fft_plan_1d(abft_fft_plan_t* out, abft_handle_t h, abft_precision prec,
                                      abft_fft_kind kind, int64_t n, int sign, unsigned flags);

ABFT_API abft_status abft_fft_destroy(abft_fft_plan_t p);

/** Execute on the given arrays. in == out is an in-place transform (the
 *  arrays must then describe the same memory as FFTW requires: for in-place
 *  R2C/C2R the real side is padded to 2*(n/2+1) along the last dimension;
 *  otherwise INVALID_LD); out of place they must not overlap (INVALID_VALUE).
 *  An out-of-place input is never written.
 *  Returns SUCCESS (possibly after repairs: see report), FAULT_DETECTED
 *  (policy detect) or FAULT_UNCORRECTABLE; negative on bad arguments, with
 *  nothing written. report may be NULL. */
ABFT_API abft_status abft_fft_execute(abft_fft_plan_t p, const void* in, void* out,
                                      abft_report* report);

/** Policy for this plan's executions (DEFAULT: the handle's, then env, then CORRECT). */
ABFT_API abft_status abft_fft_set_policy(abft_fft_plan_t p, abft_policy policy);
/** Threads for this plan's executions (0: the handle's, else OpenMP's default). */
ABFT_API abft_status abft_fft_set_threads(abft_fft_plan_t p, int nthreads);

/** Description of the plan: kind, sizes, the decomposition of each distinct
 *  line (radices, Bluestein, four-step) and the ISA, e.g.
 *  "c2c double n=[1000] batch=1 line0(1000): stockham 8x5x5x5 isa=avx2".
 *  Valid until the plan is destroyed. */
ABFT_API const char* abft_fft_describe(abft_fft_plan_t p);

/** Real floating-point operations of one execution, counted FFTW's way
 *  (5 n log2 n for a complex transform of size n, half that for real ones),
 *  and the number of checked units one execution verifies (lines, or the
 *  sub-transforms of four-step lines; an odd-length R2C line also counts its
 *  inner complex transform). */
ABFT_API abft_status abft_fft_flops(abft_fft_plan_t p, double* flops, int64_t* units);

/** Size in scalar elements (float or double) an input / output array must
 *  span for this plan, counting from the pointer passed (largest index + 1;
 *  complex arrays count two scalars per element). */
ABFT_API abft_status abft_fft_array_sizes(abft_fft_plan_t p, int64_t* in_scalars,
                                          int64_t* out_scalars);

/* Fault injection (the handle's injector or hook) addresses FFT calls as:
 *   abft_call_info.kernel = ABFT_KERNEL_SFFT / ABFT_KERNEL_DFFT,
 *   .m = lines of the call (the 1D transforms over all passes: each signal
 *        of a batch, each row/column of a multi-dimensional transform),
 *   .n = scalars of the longest line (2 x its complex length),
 *   .k = stages of the longest line (a four-step line counts its column
 *        stages, then its row stages).
 * A fault's row = line index, col = scalar index in that line's data
 * (2*element + 0 for the real part, + 1 for the imaginary part, wrapped to
 * the line's complex length; real outputs count scalars), kpos = stage. Sites:
 *   ABFT_SITE_OUTPUT      - the line's output value before verification,
 *   ABFT_SITE_FFT_STAGE   - the value stage kpos of the line wrote,
 *   ABFT_SITE_FFT_TWIDDLE - an entry of the twiddle/chirp tables the line's
 *                           transform reads (kpos picks the table; a memory
 *                           fault shared by every line using the table,
 *                           present for this call only).
 * A large complex line (four-step) is checked per column and row
 * sub-transform: abft_fft_flops counts those units, and a fault is repaired
 * by recomputing the one sub-transform it hit. */

#ifdef __cplusplus
}
#endif
