/** \file fft_kernels.hpp
 *  \brief The FFT engine's per-ISA kernel table: one Stockham stage, the
 *  dot products and norms of the checks, pointwise products. Chosen at plan
 *  time from the CPU's ISA (abft_cpu_isa), like the GEMM micro-kernels.
 */
#pragma once
#include <complex>
#include <cstdint>

#include "abft/abft.h"

namespace abft::cpu::fft {

/** Constants of one stage's butterfly, in the working precision. */
template <class T>
struct BflyConst {
  T c3 = 0, s3 = 0;          // radix 3: -1/2 and sqrt(3)/2
  T c51 = 0, c52 = 0, s51 = 0, s52 = 0;  // radix 5
  T h8 = 0;                  // radix 8: 1/sqrt(2)
  const T* gc = nullptr;     // generic odd radix r: cos(2 pi t / r), t < r
  const T* gs = nullptr;     //                      sin(2 pi t / r), t < r
};

/** Block length of the separable output weights (a multiple of 2 x any lane count). */
constexpr int64_t kWeightBlock = 64;
/** Chunk of the four-step row twiddles (cmul_tw2; a multiple of any lane count). */
constexpr int64_t kTwiddleChunk = 64;

/** Where the first stage's folded input side (stage_first_csum) reads the weight factor of
 *  input element j: the stage has radix r and m butterflies (s == 1), vectorised over p in
 *  blocks of L lanes, and butterfly block p (a multiple of L) loads elements p + l + t m
 *  (t < r, l < L) as r vectors. A table in this order is read front to back, r L pairs per
 *  block, where the natural order would be r streams m elements apart (m up to n / 2: on
 *  a power-of-two length they fall into one cache set with the stage's other streams). */
struct FoldOrder {
  int r = 1;
  int64_t m = 1;
  int lanes = 1;
  int64_t pos(int64_t j) const {
    const int64_t t = j / m, q = j % m, l = q % lanes;
    return r * (q - l) + t * lanes + l;
  }
};

template <class T>
struct StageArgs {
  int radix = 2;
  int sign = -1;
  int64_t s = 1;          ///< stride: product of the earlier radices
  int64_t m = 1;          ///< butterflies per sub-problem
  /** Twiddles w^{p u}, u >= 1; null when m == 1. s == 1: (re, re) pairs
   *  [u-1][p], then (-im, im) pairs at offset 2 (r-1) m; else (re, re, -im, im) [p][u-1]. */
  const T* tw = nullptr;
  /** Last stage (m == 1): e_u = exp(sign i pi u / r) as (re, im) pairs, u < r, the
   *  output weights' factor that stage_last_cdot applies. */
  const T* half = nullptr;
  BflyConst<T> k;
};

/** The output side of a real line's check folded into the R2C split step: the split
 *  writes bins k in [1, h) and adds sum_k w_k y_k of the values it computed, with the
 *  complex line's weights w_k = exp(sign i pi k / n) (n = 2h) written as
 *      w_k = e1 R_b r_j           (k - 1 = bB + j, B = kWeightBlock),
 *  e1 = w_1, the block table r and factors R_b of cdot_sep. A block of L bins from the
 *  back (h - 1 - k' - l, l < L, with the front block at k' + 1) has the weights
 *  e_{h-1} conj(R_b r_j) (k' + l = bB + j, e_{h-1} = w_{h-1}): the same loads of r. */
template <class T>
struct SplitCheck {
  const T* rr = nullptr;  ///< block table r: (re, re) pairs, then (im, im) pairs at rr + 2B
  const T* ri = nullptr;
  const double* R = nullptr;  ///< R_b as (re, im), for the blocks of k - 1 < h
  std::complex<double> e1, eh1;  ///< w_1 and w_{h-1}
  std::complex<double> sum;      ///< out: sum_{k=1}^{h-1} w_k y_k
};

template <class T>
struct FftKernels {
  void (*stage)(const StageArgs<T>&, const T* x, T* y) = nullptr;
  /** sum_k w_k y_k with w_{bB+j} = R_b r_j (B = kWeightBlock): r as (re, re)
   *  and (im, im) pairs (2B scalars each), R complex double per block. */
  std::complex<double> (*cdot_sep)(const T* rr, const T* ri, const double* R, const T* y, int64_t n) = nullptr;
  /** sum x_j, sum c_j x_j (c given as (c, c) pairs) and sum |x_j|^2. */
  void (*csum)(const T* cdup, const T* x, int64_t n, std::complex<double>* sum,
               std::complex<double>* csum, double* x2) = nullptr;
  /** The first stage (s == 1) with csum's sums of its input folded into its loads, the
   *  factors c_j one per element in FoldOrder (duplicated in registers), except that *x2
   *  sums |x_j|^2 over j < m only (a lower bound of ||x||^2: the squares cost a multiply-add
   *  per vector, and the bound rarely needs more; LinePlan::judge_sampled); false (nothing
   *  done) where it cannot (a stage not vectorised over whole lanes, or a radix without a
   *  specialised butterfly): the caller runs stage and csum. */
  bool (*stage_first_csum)(const StageArgs<T>&, const T* x, T* y, const T* c, std::complex<double>* sum,
                           std::complex<double>* csum, double* x2) = nullptr;
  /** The same with a (re, im) pair of factors per element (an even R2C line's
   *  (c_2j, c_2j+1), in FoldOrder). */
  bool (*stage_first_csum_pairs)(const StageArgs<T>&, const T* x, T* y, const T* c, std::complex<double>* sum,
                                 std::complex<double>* csum, double* x2) = nullptr;
  /** Whether stage_first_csum takes this stage; its factors are then in FoldOrder
   *  {radix, m, lanes}. */
  bool (*first_foldable)(const StageArgs<T>&) = nullptr;
  /** The last stage (m == 1) with cdot_sep's sum of its output folded into its stores,
   *  the weights of a complex line's check (w_k = exp(sign i pi k / n)); false (nothing
   *  done) where it cannot. */
  bool (*stage_last_cdot)(const StageArgs<T>&, const T* x, T* y, const T* rr, const T* ri, const double* R,
                          std::complex<double>* out) = nullptr;
  /** sum_j (wr_j + i wi_j) x_j over real scalars; with x2 non-null also sum x_j^2. */
  std::complex<double> (*rdot)(const T* wr, const T* wi, const T* x, int64_t ns, double* x2) = nullptr;
  void (*cmul)(T* y, const T* a, const T* b, int64_t n) = nullptr;
  /** y_k = (a_k A_{k mod C}) B_{k / C}, C = kTwiddleChunk, k < n: a row of four-step
   *  twiddles w^{k} as the product of a chunk table A (C values, (re, re) pairs then
   *  (-im, im) pairs at A + 2C) and a chunk factor B ((re, im) per chunk). */
  void (*cmul_tw2)(T* y, const T* a, const T* A, const T* B, int64_t n) = nullptr;
  /** The wrapping sum of the 64-bit words of `scalars` values (an even number of float):
   *  the exact check of a four-step twiddle row; any order gives the same sum. */
  uint64_t (*word_sum)(const T* p, int64_t scalars) = nullptr;
  /** csum for nb signals interleaved element by element, fused with the copy that gathers
   *  them from rows of a larger array (src_row complex elements apart) into dst. x2[b] may
   *  sum a subset of the rows (a lower bound, as above). */
  void (*gather_csum_batch)(const T* src, int64_t src_row, T* dst, const T* cdup, int64_t n, int64_t nb,
                            std::complex<double>* sum, std::complex<double>* csum, double* x2) = nullptr;
  /** cdot_sep for nb signals interleaved element by element (contiguous). */
  void (*cdot_batch)(const T* src, const T* rr, const T* ri, const double* R, int64_t n, int64_t nb,
                     std::complex<double>* out) = nullptr;
  /** The real transform's split step, bins k in [1, h) of a length-2h R2C from the
   *  half-length complex spectrum Z: y_k = ((a + b) - i w_k (a - b)) / 2 with
   *  a = Z_k, b = conj Z_{h-k} (bins 0 and h are the caller's); the bins k and h - k
   *  from the pair (Z_k, Z_{h-k}) they share. y may be Z. With chk non-null it also forms
   *  the check's weighted sum of the y_k it computed (SplitCheck). */
  void (*r2c_twist)(const T* Z, const T* w, T* y, int64_t h, SplitCheck<T>* chk) = nullptr;
  /** Its inverse for C2R, k in [1, h): with x = X_k, y = conj X_{h-k},
   *  Z_k = (x + y) + i w_k (x - y) (k = 0 is the caller's), by pairs likewise. */
  void (*c2r_twist)(const T* X, const T* w, T* Z, int64_t h) = nullptr;
  /** dst[k ds + b] = src[b n + k] for b < nb, k < n (complex elements): nb rows of n
   *  stored as nb consecutive elements of n rows ds apart (a four-step pass's blocked output). */
  void (*transpose_rows)(const T* src, int64_t n, int64_t nb, T* dst, int64_t ds) = nullptr;
  int lanes = 1;
  const char* isa = "reference";
};

/** Kernels for an ISA (falls back to the best compiled-in one below it). */
template <class T>
const FftKernels<T>& fft_kernels(abft_isa isa);

// Per-ISA tables, defined in fft_kernels_{ref,avx2,avx512}.cpp.
const FftKernels<float>& fft_kernels_ref_f();
const FftKernels<double>& fft_kernels_ref_d();
const FftKernels<float>& fft_kernels_avx2_f();
const FftKernels<double>& fft_kernels_avx2_d();
const FftKernels<float>& fft_kernels_avx512_f();
const FftKernels<double>& fft_kernels_avx512_d();

template <>
inline const FftKernels<float>& fft_kernels<float>(abft_isa isa) {
  return isa == ABFT_ISA_AVX512 ? fft_kernels_avx512_f()
         : isa == ABFT_ISA_AVX2 ? fft_kernels_avx2_f() : fft_kernels_ref_f();
}
template <>
inline const FftKernels<double>& fft_kernels<double>(abft_isa isa) {
  return isa == ABFT_ISA_AVX512 ? fft_kernels_avx512_d()
         : isa == ABFT_ISA_AVX2 ? fft_kernels_avx2_d() : fft_kernels_ref_d();
}

}  // namespace abft::cpu::fft
