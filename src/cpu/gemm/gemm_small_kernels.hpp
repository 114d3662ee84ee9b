/** \file gemm_small_kernels.hpp
 *  \brief ISA-generic kernels of the small-M GEMM path (gemm_small.cpp): a few rows of C,
 *  B streamed as it lies (no packing), the checksum row s = e^T A riding along as one more
 *  row of A. Instantiated per ISA with a SIMD traits class, like microkernel.hpp.
 *
 *  Each output is a fixed arithmetic of its own inputs only — independent of which other
 *  rows or columns are computed with it — so gemm_small.cpp mirrors it element by element
 *  (for injected faults) and recomputes a column with the same bits (repair).
 */
#pragma once
#include <cmath>
#include <cstdint>

namespace abft::cpu::gemm {
inline namespace ABFT_TARGET_NS {

/** N orientation (B rows contiguous): `nchunks` chunks of W consecutive columns, lanes =
 *  columns; every lane an FMA chain over p = 0..K-1 from zero. Two chunks run together
 *  (a whole cache line of a row of B per step), in k-blocks whose running accumulators wait
 *  in `out` (the chunks of one call share the lines of each row of B). ap is p-major
 *  (ap[p*R + r]); out[(c*R + r)*W + l] receives chunk c's accumulators. */
template <class S, int R>
void small_n_fixed(int64_t K, int nchunks, const typename S::T* __restrict ap,
                   const typename S::T* __restrict b, int64_t rsb, typename S::T* __restrict out) {
  using T = typename S::T;
  using V = typename S::V;
  constexpr int W = S::W;
  constexpr int64_t kPb = 128;
  for (int64_t p0 = 0; p0 < K; p0 += kPb) {
    const int64_t p1 = p0 + kPb < K ? p0 + kPb : K;
    int c = 0;
    for (; c + 2 <= nchunks; c += 2) {
      V x[R], y[R];
      T* o = out + int64_t(c) * R * W;
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) {
        x[r] = p0 == 0 ? S::zero() : S::loadu(o + r * W);
        y[r] = p0 == 0 ? S::zero() : S::loadu(o + (R + r) * W);
      }
      const T* bc = b + int64_t(c) * W;
      for (int64_t p = p0; p < p1; ++p) {
        const V b0 = S::loadu(bc + p * rsb), b1 = S::loadu(bc + p * rsb + W);
        const T* a = ap + p * R;
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
          const V av = S::set1(a[r]);
          x[r] = S::fma(av, b0, x[r]);
          y[r] = S::fma(av, b1, y[r]);
        }
      }
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) {
        S::storeu(o + r * W, x[r]);
        S::storeu(o + (R + r) * W, y[r]);
      }
    }
    for (; c < nchunks; ++c) {
      V x[R];
      T* o = out + int64_t(c) * R * W;
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) x[r] = p0 == 0 ? S::zero() : S::loadu(o + r * W);
      const T* bc = b + int64_t(c) * W;
      for (int64_t p = p0; p < p1; ++p) {
        const V b0 = S::loadu(bc + p * rsb);
        const T* a = ap + p * R;
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) x[r] = S::fma(S::set1(a[r]), b0, x[r]);
      }
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) S::storeu(o + r * W, x[r]);
    }
  }
}

/** The reduction of one T-orientation accumulator: lanes added in order 0..W-1 in T, then the
 *  tail p = Kv..K-1 chained on by FMA. */
template <class S>
typename S::T small_t_finish(typename S::V acc, int64_t Kv, int64_t K, const typename S::T* a,
                             const typename S::T* b) {
  using T = typename S::T;
  alignas(64) T lane[S::W];
  S::storeu(lane, acc);
  T s = lane[0];
  for (int l = 1; l < S::W; ++l) s = s + lane[l];
  for (int64_t p = Kv; p < K; ++p) s = std::fma(a[p], b[p], s);
  return s;
}

/** T orientation (B columns contiguous): `ncols` columns (ldb apart), lanes = k positions.
 *  Lane l of a column chains p = l, l + W, ... below Kv = K - K % W (small_t_finish adds
 *  the rest). Two columns run together so that each row of A loaded serves both. arows is
 *  row-major (row r at arows + r*lda); out[c*R + r]. */
template <class S, int R>
void small_t_fixed(int64_t K, int ncols, const typename S::T* __restrict arows, int64_t lda,
                   const typename S::T* __restrict b, int64_t ldb, typename S::T* __restrict out) {
  using V = typename S::V;
  constexpr int W = S::W;
  const int64_t Kv = K - K % W;
  int c = 0;
  for (; c + 2 <= ncols; c += 2) {
    const typename S::T* b0 = b + int64_t(c) * ldb;
    const typename S::T* b1 = b0 + ldb;
    V x[R], y[R];
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) x[r] = y[r] = S::zero();
    for (int64_t p = 0; p < Kv; p += W) {
      const V v0 = S::loadu(b0 + p), v1 = S::loadu(b1 + p);
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) {
        const V av = S::loadu(arows + r * lda + p);
        x[r] = S::fma(av, v0, x[r]);
        y[r] = S::fma(av, v1, y[r]);
      }
    }
    for (int r = 0; r < R; ++r) {
      out[c * R + r] = small_t_finish<S>(x[r], Kv, K, arows + r * lda, b0);
      out[(c + 1) * R + r] = small_t_finish<S>(y[r], Kv, K, arows + r * lda, b1);
    }
  }
  for (; c < ncols; ++c) {
    const typename S::T* b0 = b + int64_t(c) * ldb;
    V x[R];
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) x[r] = S::zero();
    for (int64_t p = 0; p < Kv; p += W) {
      const V v0 = S::loadu(b0 + p);
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) x[r] = S::fma(S::loadu(arows + r * lda + p), v0, x[r]);
    }
    for (int r = 0; r < R; ++r) out[c * R + r] = small_t_finish<S>(x[r], Kv, K, arows + r * lda, b0);
  }
}

/** Dispatch on the row count (1 <= R <= kSmallMaxRows + 1). */
template <class S>
void small_n(int R, int64_t K, int nchunks, const typename S::T* ap, const typename S::T* b,
             int64_t rsb, typename S::T* out) {
  switch (R) {
#define ABFT_SMALL_CASE(n) case n: small_n_fixed<S, n>(K, nchunks, ap, b, rsb, out); break;
    ABFT_SMALL_CASE(1) ABFT_SMALL_CASE(2) ABFT_SMALL_CASE(3) ABFT_SMALL_CASE(4) ABFT_SMALL_CASE(5)
    ABFT_SMALL_CASE(6) ABFT_SMALL_CASE(7) ABFT_SMALL_CASE(8) ABFT_SMALL_CASE(9)
#undef ABFT_SMALL_CASE
    default: break;
  }
}
template <class S>
void small_t(int R, int64_t K, int ncols, const typename S::T* arows, int64_t lda,
             const typename S::T* b, int64_t ldb, typename S::T* out) {
  switch (R) {
#define ABFT_SMALL_CASE(n) case n: small_t_fixed<S, n>(K, ncols, arows, lda, b, ldb, out); break;
    ABFT_SMALL_CASE(1) ABFT_SMALL_CASE(2) ABFT_SMALL_CASE(3) ABFT_SMALL_CASE(4) ABFT_SMALL_CASE(5)
    ABFT_SMALL_CASE(6) ABFT_SMALL_CASE(7) ABFT_SMALL_CASE(8) ABFT_SMALL_CASE(9)
#undef ABFT_SMALL_CASE
    default: break;
  }
}

}  // namespace ABFT_TARGET_NS
}  // namespace abft::cpu::gemm
