/** \file microkernel.hpp
 *  \brief ISA-generic register-blocked GEMM micro-kernel and checksum-reference kernel,
 *  instantiated per ISA with a SIMD traits class (see simd_*.hpp).
 *
 *  The tile is MR rows x NR = NV*W columns of row-major C; each accumulator
 *  vector holds W consecutive columns of one row, so the column checksums of
 *  the tile are vertical adds of the MR row vectors (no shuffles) — the
 *  cheapest checksum orientation for this kernel shape.
 */
#pragma once
#include <cstdint>

#include "abft/checksum/fingerprint.hpp"
#include "cpu/gemm/gemm_kernels.hpp"
#include "cpu/gemm/gemm_pack.hpp"
#include "cpu/gemm/gemm_small_kernels.hpp"

namespace abft::cpu::gemm {
inline namespace ABFT_TARGET_NS {

/** ref[j] += alpha * (column j of the NV vectors acc), j < ncols: where the reference tile
 *  and colref leave a sliver's column reference. */
template <class S, int NV>
inline void add_ref_sums(const typename S::V* acc, int64_t ncols, double alpha, double* ref) {
  alignas(64) typename S::T tmp[NV * S::W];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) S::storeu(tmp + v * S::W, acc[v]);
  for (int64_t j = 0; j < ncols; ++j) ref[j] += alpha * static_cast<double>(tmp[j]);
}

/** kRef: also ref[j] += alpha * sum_p v[p] b[p][j] over the tile's NR columns, from the B
 *  vectors the loop loads anyway (NV more accumulators and one broadcast per p, no load of B):
 *  the column reference of the sliver at a fraction of colref_sliver's cost, which reads the
 *  sliver again. One FMA chain per vector in k order, kb <= kc terms: inside the bound's
 *  gamma(kc + 1) for the reference (docs/ABFT.md section 2).
 *  kFp (AVX-512 builds only): also the fingerprint of the sliver as this tile reads it, from
 *  the B vectors in registers (four more zmm and three integer operations a vector, on the
 *  ports the FMAs leave), into *e.fp: the driver's re-check of the packed copy without a pass
 *  of its own (gemm_driver.cpp).
 *  kHalf (AVX-512 kernel sets only, whose traits have swap_neg): the B sliver is a complex
 *  expansion's half sliver (ComplexB::half); see the k loop. */
template <class S, int MR, int NV, bool kRef = false, bool kFp = false, bool kHalf = false>
void ukr_tile(int64_t kb, const typename S::T* __restrict a, const typename S::T* __restrict b,
              typename S::T* __restrict c, int64_t ldc, const Epi<typename S::T>& e) {
  using V = typename S::V;
  constexpr int W = S::W;
  constexpr int NR = NV * W;
  static_assert(!(kRef && kFp), "the reference and the fingerprint tiles are distinct tiles");
  V acc[MR][NV];
  V rf[NV];
#if defined(ABFT_FINGERPRINT_AVX512)
  checksum::FingerprintLanes lanes;
#endif
  const typename S::T* __restrict vp = e.v;
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) rf[v] = S::zero();
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[i][v] = S::zero();
  // Every cache line of the tile's rows, also when a row starts off a line boundary (C from
  // malloc is 16-byte aligned: a 128-byte row then spans three lines). The lines arrive while
  // the k loop runs; a row that misses here stalls the epilogue for a memory latency.
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) {
    const char* row = reinterpret_cast<const char*>(c + i * ldc);
#pragma GCC unroll 4
    for (int b = 0; b < NR * int(sizeof(typename S::T)); b += 64) S::prefetch(row + b);
    S::prefetch(row + NR * sizeof(typename S::T) - 1);
  }

  // The next sliver's row p is NR values, like this one's. The test is loop-invariant: the
  // compiler unswitches the loop, so the other tiles run without the prefetches' load slots.
  // kHalf: the sliver is a complex expansion's half (ComplexB::half): its row t is the
  // expansion's row 2t, and row 2t + 1 is formed here (S::swap_neg). The accumulators see
  // the expanded rows in k order, so the tile's arithmetic is the full expansion's, bit for
  // bit; the loop takes two steps of k a row.
  const char* __restrict pf = reinterpret_cast<const char*>(e.b_next);
  // The caller's C0 (kSaveC0) goes to the backup one vector per chunk of `step` k-steps,
  // starting three chunks in (the rows prefetched above have arrived by then), rather than as
  // a burst of MR x NV non-temporal stores in the epilogue, which stalled the tile on
  // write-combining buffers draining to memory. Protected 1024^3 with beta = 1 over
  // unprotected: +3.9 % -> +1.4..1.9 % float, +3.1..3.5 % -> +0.2..0.4 % double (Zen 5,
  // docs/PERFORMANCE.md). What a short k loop leaves goes in the epilogue as before.
  const bool save = (e.flags & kSaveC0) != 0;
  const int64_t step = kb >= 128 ? ((kb / 32) & ~int64_t(3)) : 4;
  int copied = 0;  // C0 vectors of the tile (row-major, NV a row) already in the backup
  // One step of k: the tile's MR x NV FMAs with A's column ar (MR values) and B's row bb.
  auto sweep = [&](const typename S::T* __restrict ar, const V* bb) __attribute__((always_inline)) {
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      const V ai = S::set1(ar[i]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[i][v] = S::fma(ai, bb[v], acc[i][v]);
    }
  };
  for (int64_t p0 = 0; p0 < kb; p0 += step) {
    const int64_t pe = p0 + step < kb ? p0 + step : kb;
#pragma GCC unroll 4
    for (int64_t p = p0; p < pe; p += (kHalf ? 2 : 1)) {
      const int64_t row = kHalf ? p / 2 : p;  // the sliver's row
      if (pf) {
#pragma GCC unroll 4
        for (int l = 0; l < NR * int(sizeof(typename S::T)); l += 64)
          S::prefetch_l2(pf + row * NR * int64_t(sizeof(typename S::T)) + l);
      }
      V bv[NV];
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) bv[v] = S::load(b + v * W);
      sweep(a, bv);
      if constexpr (kHalf) {  // the expansion's next row, formed from this one
        V bo[NV];
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) bo[v] = S::swap_neg(bv[v]);
        sweep(a + MR, bo);
        if constexpr (kRef) {
          const V v0 = S::set1(vp[p]), v1 = S::set1(vp[p + 1]);
#pragma GCC unroll 4
          for (int v = 0; v < NV; ++v) rf[v] = S::fma(v1, bo[v], S::fma(v0, bv[v], rf[v]));
        }
      } else if constexpr (kRef) {
        const V vv = S::set1(vp[p]);
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) rf[v] = S::fma(vv, bv[v], rf[v]);
      }
#if defined(ABFT_FINGERPRINT_AVX512)
      if constexpr (kFp)
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) lanes.step2(S::bits(bv[v]));
#endif
      a += kHalf ? 2 * MR : MR;
      b += NR;
    }
    if (save && copied < MR * NV && p0 >= 3 * step) {
      const int i = copied / NV, v = copied % NV;
      S::stream(e.c0 + i * e.ldc0 + v * W, S::loadu(c + i * ldc + v * W));
      ++copied;
    }
  }
  if constexpr (kRef) add_ref_sums<S, NV>(rf, NR, static_cast<double>(e.alpha), e.ref);
#if defined(ABFT_FINGERPRINT_AVX512)
  if constexpr (kFp) *e.fp = lanes.finish();
#endif

  const unsigned fl = e.flags;
  const V va = S::set1(e.alpha);
  if (!(fl & kLoadC)) {
    V cs[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) cs[v] = S::zero();
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        const V out = S::mul(va, acc[i][v]);
        S::storeu(c + i * ldc + v * W, out);
        cs[v] = S::add(cs[v], out);
      }
    if (fl & kSumOut)
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) S::acc_add(e.obs + v * W, cs[v]);
    return;
  }
  const V vb = S::set1(e.beta);
  V cs[NV], s0[NV], a0[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) cs[v] = s0[v] = a0[v] = S::zero();
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      const V c0 = S::loadu(c + i * ldc + v * W);
      // The backup is read only on the repair path: stream it past the caches (what the k
      // loop has not copied yet).
      if ((fl & kSaveC0) && i * NV + v >= copied) S::stream(e.c0 + i * e.ldc0 + v * W, c0);
      if (fl & kSumC0) {
        s0[v] = S::add(s0[v], c0);
        a0[v] = S::add(a0[v], S::abs(c0));
      }
      const V out = S::fma(vb, c0, S::mul(va, acc[i][v]));
      S::storeu(c + i * ldc + v * W, out);
      cs[v] = S::add(cs[v], out);
    }
  if (fl & kSumOut)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) S::acc_add(e.obs + v * W, cs[v]);
  if (fl & kSumC0)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      S::acc_add(e.c0sum + v * W, s0[v]);
      S::acc_add(e.c0abs + v * W, a0[v]);
    }
}

/** ref[j] += alpha * sum_p v[p] * bp[p*NR + j] for j < ncols: the reference
 *  column checksum (e^T A_blk) B of one packed sliver, run while the sliver
 *  is still in L1 after its tiles. Four interleaved partial sums hide FMA
 *  latency; the error bound uses kc + 1 terms, which covers this order. */
template <class S, int NV>
void colref_sliver(int64_t kb, int64_t ncols, const typename S::T* __restrict v,
                   const typename S::T* __restrict bp, double alpha, double* __restrict ref) {
  using V = typename S::V;
  constexpr int W = S::W;
  constexpr int NR = NV * W;
  V acc[4][NV];
#pragma GCC unroll 4
  for (int u = 0; u < 4; ++u)
#pragma GCC unroll 4
    for (int q = 0; q < NV; ++q) acc[u][q] = S::zero();
  int64_t p = 0;
  for (; p + 4 <= kb; p += 4)
#pragma GCC unroll 4
    for (int u = 0; u < 4; ++u) {
      const V vp = S::set1(v[p + u]);
#pragma GCC unroll 4
      for (int q = 0; q < NV; ++q) acc[u][q] = S::fma(vp, S::load(bp + (p + u) * NR + q * W), acc[u][q]);
    }
  for (; p < kb; ++p) {
    const V vp = S::set1(v[p]);
#pragma GCC unroll 4
    for (int q = 0; q < NV; ++q) acc[0][q] = S::fma(vp, S::load(bp + p * NR + q * W), acc[0][q]);
  }
  V sum[NV];
#pragma GCC unroll 4
  for (int q = 0; q < NV; ++q) sum[q] = S::add(S::add(acc[0][q], acc[1][q]), S::add(acc[2][q], acc[3][q]));
  add_ref_sums<S, NV>(sum, ncols, alpha, ref);
}

/** colref_sliver for a complex expansion's half sliver (ComplexB::half): row t is the
 *  expansion's row 2t, S::swap_neg of it row 2t + 1; one FMA chain per vector in the
 *  expansion's k order, as the reference tile (the bound's kc + 1 terms). */
template <class S, int NV>
void colref_sliver_half(int64_t kb, int64_t ncols, const typename S::T* __restrict v,
                        const typename S::T* __restrict bp, double alpha, double* __restrict ref) {
  using V = typename S::V;
  constexpr int W = S::W;
  constexpr int NR = NV * W;
  V acc[NV];
#pragma GCC unroll 4
  for (int q = 0; q < NV; ++q) acc[q] = S::zero();
  for (int64_t p = 0; p < kb; p += 2) {
    const V v0 = S::set1(v[p]), v1 = S::set1(v[p + 1]);
#pragma GCC unroll 4
    for (int q = 0; q < NV; ++q) {
      const V x = S::load(bp + (p / 2) * NR + q * W);
      acc[q] = S::fma(v1, S::swap_neg(x), S::fma(v0, x, acc[q]));
    }
  }
  add_ref_sums<S, NV>(acc, ncols, alpha, ref);
}

/** The fingerprinting tile where this build can form it from registers (a row of the sliver
 *  is whole 64-byte vectors, AVX-512), else nullptr. */
template <class S, int MR, int NV, bool kFuse, bool kHalf = false>
constexpr auto fingerprint_tile() {
  using Fn = void (*)(int64_t, const typename S::T*, const typename S::T*, typename S::T*, int64_t,
                      const Epi<typename S::T>&);
#if defined(ABFT_FINGERPRINT_AVX512)
  if constexpr (kFuse && S::W * sizeof(typename S::T) == 64)
    return Fn(&ukr_tile<S, MR, NV, false, true, kHalf>);
  else return Fn(nullptr);
#else
  return Fn(nullptr);
#endif
}

/** The half-sliver tiles (kHalf) where the registers hold them (kFuse: the 32 of AVX-512,
 *  whose traits have swap_neg), else nullptr. */
template <class S, int MR, int NV, bool kFuse, bool kRef>
constexpr auto half_tile() {
  using Fn = void (*)(int64_t, const typename S::T*, const typename S::T*, typename S::T*, int64_t,
                      const Epi<typename S::T>&);
  if constexpr (kFuse) return Fn(&ukr_tile<S, MR, NV, kRef, false, true>);
  else return Fn(nullptr);
}
template <class S, int NV, bool kFuse>
constexpr auto half_colref() {
  using Fn = void (*)(int64_t, int64_t, const typename S::T*, const typename S::T*, double, double*);
  if constexpr (kFuse) return Fn(&colref_sliver_half<S, NV>);
  else return Fn(nullptr);
}

/** Fill a KernelSet for traits S. kFuseRef: the tile has the registers for the column
 *  reference's NV accumulators, or for a fingerprint's four (AVX-512's 32; AVX2's 16 hold
 *  only the tile). */
template <class S, int MR, int NV, bool kFuseRef = false>
constexpr KernelSet<typename S::T> make_kernel_set(abft_isa isa, int mc, int kc, int nc,
                                                   const char* desc) {
  return KernelSet<typename S::T>{isa,
                                  MR,
                                  NV * S::W,
                                  mc,
                                  kc,
                                  nc,
                                  &ukr_tile<S, MR, NV>,
                                  kFuseRef ? &ukr_tile<S, MR, NV, true> : nullptr,
                                  fingerprint_tile<S, MR, NV, kFuseRef>(),
                                  &colref_sliver<S, NV>,
                                  &pack_a<typename S::T, S>,
                                  &pack_b<typename S::T, NV * S::W>,
                                  &add_magnitudes<typename S::T>,
                                  &checksum::fingerprint<typename S::T>,
                                  desc,
                                  S::W,
                                  &small_n<S>,
                                  &small_t<S>,
                                  half_tile<S, MR, NV, kFuseRef, false>(),
                                  half_tile<S, MR, NV, kFuseRef, true>(),
                                  fingerprint_tile<S, MR, NV, kFuseRef, true>(),
                                  half_colref<S, NV, kFuseRef>()};
}

}  // namespace ABFT_TARGET_NS
}  // namespace abft::cpu::gemm
