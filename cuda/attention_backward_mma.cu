/** \file attention_backward_mma.cu
 *  \brief The fast protected attention backward: the counterpart of attention_forward_mma.cu on
 *  the tensor cores' warp-level `mma.sync` (m16n8k16, float accumulation; warp_mma.cuh), two
 *  kernels as attention_backward.cu's (one owner per gradient, no atomics, deterministic), each
 *  a block of 4 warps x 16 rows and tiles of 64, recomputing S and P from lse:
 *    - dK/dV: a block per (batch, KV head, 64 keys), each warp 16 keys, sweeping the query
 *      blocks of every query head of the group (those causality hides entirely skipped):
 *      S^T = K_w Q^T, dP^T = V_w dO^T, P^T = exp2(S^T scale log2 e - lse log2 e),
 *      dS^T = P^T o (dP^T - D), dV_w += P^T dO, dK_w += dS^T Q (scaled at the end);
 *    - dQ: a block per (batch, head, 64 queries), each warp 16 queries, sweeping its key blocks:
 *      S = Q_w K^T, dP = dO_w V^T, P, dS, dQ_w += dS K (scaled at the end).
 *  The C fragments of S^T and dP^T (S and dP), turned into P and dS and rounded to the storage
 *  type, are the A fragments of the gradient products (the forward's trick); each tile's product
 *  is formed from zero per 8 output columns and added once. The other operand's tiles pass
 *  through shared memory by cp.async, two stages (the next tile loads while this one computes).
 *  D_i = dO_i . O_i comes from a pre-pass (attention_backward_mma_sums.cu), in double rounded to
 *  float, beside -lse_i log2 e.
 *
 *  The checks (the protected instantiations only), on registers, with records from one pre-pass
 *  per call (docs/ABFT.md §10.3, §13.1 for the algebra; the bounds in attention_bounds.hpp):
 *  - S and dP tiles (each formed in two halves of 32 columns: half the live registers): each
 *    row's sum of its raw values over the swept side, every 8 tiles (512
 *    rows of the swept side, aligned to its row 0) and at the end of a head's sweep, against
 *    row . (column sums of the swept operand) with magnitude |row| . (abs column sums), from the
 *    pre-pass's float records (double sums rounded once; per group of 8 blocks, a suffix of the
 *    group for the dK/dV kernel, whose causal sweeps start anywhere and end at the last block, a
 *    prefix for dQ's, which start at 0) and the row's own values from the A fragments the
 *    products read (attn_float_tile_coefficient, attn_tile_verdict, as the forward);
 *  - gradients: one more n-tile of each gradient product on the other operand's per-row
 *    checksum columns in the storage type (x = sum_c B_ic split into x_hi + x_lo, a = sum_c
 *    |B_ic|, binary16's scaled by 2^-8): dO's [x_hi, x_lo, a, 1, 0, 0, 0, 0] for P^T dO; for dS,
 *    which is signed, Q's (K's) [x_hi, x_lo, 0, 1, 0, 0, 0, 0] on dS plus [0, 0, a, 0, 0, 0, 0, 0]
 *    on |dS| (the same fragments, sign bits cleared), both into one C fragment, so that column 2
 *    is a magnitude: each gradient row's sum, as computed and as stored, against (hi + lo) / sigma
 *    (times scale for dK, dQ), magnitude a / sigma (attn_mma_grad_coefficient,
 *    attn_grad_verdict);
 *  - the elementwise steps: the ones column gives, through the same products, sum_i P_ji and
 *    sum_i dS_ji of the rounded values the products read; each row compares them with the float
 *    sums of the values as produced (attn_mma_weight_sum_coefficient; |dS|'s float sum is the
 *    magnitude): a probability or dS corrupted after it was produced (ATTN_PROBS, ATTN_DS)
 *    enters only the former, which the gradient checks cannot see (their reference reads the
 *    same corrupt value). NaN / Inf propagates into these sums.
 *  Non-finite data (Q, K, V, O, dO, an lse of NaN or +inf; a record or magnitude that is not
 *  finite) skips the unit's checks, as attention_backward.cu's rules (attn_unit_outcome): a
 *  unit that fails is recomputed by the same block (faults land on the first pass only),
 *  re-verified and counted under ABFT_KERNEL_ATTN_BWD. The unprotected instantiation (kCheck
 *  false, the benchmarks' baseline) has no records, checksum n-tiles or sums; injection has an
 *  instantiation of its own (kInject). Injection sites and coordinates: attention_backward.cu's.
 *
 *  Scope: binary16 and bfloat16 storage, head-dim buckets 64 and 128 (head_dim a multiple of 8),
 *  no additive mask, a positive finite scale, unit stride along head_dim and 16-byte aligned rows
 *  for Q, K, V, O and dO (dQ, dK, dV are written element-wise with their strides), neither side
 *  empty. Anything else takes attention_backward.cu's kernels (backward_launch decides).
 *  Selected by ABFT_CUDA_ATTN_TC=mma. Status: compiled for sm_90 by nvcc, run only on the CUDA
 *  emulator (tests/emu); never on a GPU.
 */
#include <cuda_runtime.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "abft/abft_cuda.h"
#include "abft/checksum/attention_bounds.hpp"
#include "abft/checksum/attention_bwd_check.hpp"
#include "abft/checksum/attention_row_check.hpp"
#include "attention_device.cuh"
#include "attention_launch.hpp"
#include "attention_backward_mma.cuh"
#include "attention_mma.cuh"
#include "device_state.hpp"
#include "warp_mma.cuh"

namespace abft::cuda::attn {

namespace ck = abft::checksum;
namespace mma = abft::cuda::mma;
using mma::cp_async_16;
using mma::cp_async_commit;
using mma::cp_async_wait;
using mma::pack2;
using mma::pack2_rn;

namespace {

using bwd_mma::BwdSums;
using bwd_mma::kRec;
using bwd_mma::kX;
using bwd_mma::kXS;
constexpr int kB = mma_tile::kRows;       ///< rows of a block (queries or keys; 16 per warp), and of a tile
constexpr int kT = mma_tile::kThreads;    ///< 4 warps
constexpr int kGroup = mma_tile::kGroup;  ///< blocks of the swept side per tile check (512 rows, aligned to 0)
constexpr int kHN = kB / 16;   ///< n-tiles of 8 columns in half a tile (32 columns)
constexpr float kNegInf = -INFINITY;
using mma_tile::kLog2e;

using mma_tile::a_fragment;
using mma_tile::load_tile;
using mma_tile::storage_max;
using mma_tile::storage_tiny;
using mma_tile::storage_u;

/** R = the warp's 16 rows (A fragments of `rows`) times rows [32 hf, 32 hf + 32) of `cols`,
 *  transposed (B fragments by non-transposed ldmatrix): half of S^T = K_w Q^T, S = Q_w K^T, dP,
 *  dP^T. (A tile is formed in two halves: half the live registers, the A fragments read twice.) */
template <class T, int DM, int RS>
__device__ __forceinline__ void row_products(float (&R)[kHN][4], const T* rows, const T* cols, int warp, int lane,
                                             int hf) {
#pragma unroll
  for (int n = 0; n < kHN; ++n)
#pragma unroll
    for (int e = 0; e < 4; ++e) R[n][e] = 0.0f;
#pragma unroll 1  // (unrolled, the B fragments of every k-chunk are loaded ahead: registers)
  for (int kc = 0; kc < DM / 16; ++kc) {
    uint32_t af[4];
    a_fragment<RS>(af, rows, warp, lane, kc);
#pragma unroll
    for (int np = 0; np < kHN / 2; ++np) {
      uint32_t bf[4];
      mma::ldmatrix_x4<false>(
          bf, cols + (32 * hf + np * 16 + (lane / 16) * 8 + lane % 8) * RS + kc * 16 + ((lane / 8) % 2) * 8);
      const uint32_t b0[2] = {bf[0], bf[1]}, b1[2] = {bf[2], bf[3]};
      mma::mma_16816<T>(R[2 * np], af, b0, R[2 * np]);
      mma::mma_16816<T>(R[2 * np + 1], af, b1, R[2 * np + 1]);
    }
  }
}

/** acc += W B for the warp's 16 rows: W the packed A fragments of the 64 columns, B the tile's
 *  64 rows (ldmatrix.trans), each 8 output columns' product from zero, added once. */
template <class T, int DM, int RS>
__device__ __forceinline__ void grad_product(float (&acc)[DM / 8][4], const uint32_t (&w)[kB / 16][4], const T* B,
                                             int lane) {
#pragma unroll
  for (int np = 0; np < DM / 16; ++np) {
    float t0[4] = {0.0f, 0.0f, 0.0f, 0.0f}, t1[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
    for (int kc = 0; kc < kB / 16; ++kc) {
      uint32_t bf[4];
      mma::ldmatrix_x4<true>(bf, B + (kc * 16 + ((lane / 8) % 2) * 8 + lane % 8) * RS + np * 16 + (lane / 16) * 8);
      const uint32_t b0[2] = {bf[0], bf[1]}, b1[2] = {bf[2], bf[3]};
      mma::mma_16816<T>(t0, w[kc], b0, t0);
      mma::mma_16816<T>(t1, w[kc], b1, t1);
    }
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      acc[2 * np][e] += t0[e];
      acc[2 * np + 1][e] += t1[e];
    }
  }
}

/** acc += W X: the checksum n-tile of dV's product (X the tile's kB x kX columns of dO). */
template <class T>
__device__ __forceinline__ void checksum_product(float (&acc)[4], const uint32_t (&w)[kB / 16][4], const T* X,
                                                 int lane) {
  float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
  for (int kc = 0; kc < kB / 16; ++kc) {
    uint32_t xf[2];
    mma::ldmatrix_x2_trans(xf, X + (kc * 16 + lane % 16) * kX);
    mma::mma_16816<T>(t, w[kc], xf, t);
  }
#pragma unroll
  for (int e = 0; e < 4; ++e) acc[e] += t[e];
}

/** acc += W X_s + |W| X_a: the checksum n-tile of a product of dS (X the tile's kB x kXS columns,
 *  X_s the first 8, X_a the last 8; |W| the fragments with their sign bits cleared). Each column
 *  takes one of the two products, the other adds exact zeros. */
template <class T>
__device__ __forceinline__ void checksum_product_signed(float (&acc)[4], const uint32_t (&w)[kB / 16][4], const T* X,
                                                        int lane) {
  float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
  for (int kc = 0; kc < kB / 16; ++kc) {
    uint32_t xf[4];
    mma::ldmatrix_x4<true>(xf, X + (kc * 16 + lane % 16) * kXS + (lane / 16) * 8);
    const uint32_t bs[2] = {xf[0], xf[1]}, ba[2] = {xf[2], xf[3]};
    const uint32_t wa[4] = {w[kc][0] & 0x7fff7fffu, w[kc][1] & 0x7fff7fffu, w[kc][2] & 0x7fff7fffu,
                            w[kc][3] & 0x7fff7fffu};
    mma::mma_16816<T>(t, w[kc], bs, t);
    mma::mma_16816<T>(t, wa, ba, t);
  }
#pragma unroll
  for (int e = 0; e < 4; ++e) acc[e] += t[e];
}

/** The C fragments of half a tile (32 columns) rounded to T and packed as the A fragments of
 *  the next product: k-chunks 2 hf and 2 hf + 1 (columns 16 kc .. 16 kc + 15 in chunk kc). */
template <class T>
__device__ __forceinline__ void pack_half(uint32_t (&w)[kB / 16][4], const float (&R)[kHN][4], int hf) {
#pragma unroll
  for (int k = 0; k < 2; ++k)
#pragma unroll
    for (int y = 0; y < 4; ++y) {
      const int n = 2 * k + y / 2, r = y % 2;
      w[2 * hf + k][y] = pack2_rn<T>(R[n][2 * r], R[n][2 * r + 1]);
    }
}

/** Land every fault of `site` in head instance bh on the element of a 16 x 32 C-fragment half
 *  tile this lane holds: its rows are the lane's `row` ids (valid ones only), its columns
 *  col0 + 8 n + 2 t4 + (e & 1), the first `ncols` of them live. A fault's (r, c) are (query,
 *  key): `rows_are_keys` says the tile's rows hold keys (dK/dV) rather than queries (dQ). */
__device__ __forceinline__ void land_tile(const DevFaultList& fl, int site, int64_t bh, const int64_t (&row)[2],
                                          const bool (&valid)[2], int64_t col0, int64_t ncols, bool rows_are_keys,
                                          int t4, float (&R)[kHN][4]) {
  for (int x = 0; x < fl.n; ++x) {
    const DevFault& f = fl.f[x];
    if (f.site != site || f.bh != bh) continue;
    const int64_t fr = rows_are_keys ? f.c : f.r, fc = rows_are_keys ? f.r : f.c;
    if (fc < col0 || fc >= col0 + ncols) continue;
    const int cc = int(fc - col0);
    if ((cc % 8) / 2 != t4) continue;
#pragma unroll
    for (int n = 0; n < kHN; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        if (n == cc / 8 && (e & 1) == (cc & 1) && valid[e / 2] && fr == row[e / 2]) R[n][e] = land<float>(fl, x, R[n][e]);
  }
}

/** Half a tile's S = A B^T and dP = C D^T for the warp's 16 rows (A, C its rows' tiles; B, D the
 *  swept side's, 32 columns from column c0 of which nc are valid), both kernels' first step: the
 *  planned score and dP faults landed before the sums (rows_are_keys: dK/dV's transposed
 *  coordinates), then each row's observed sums of both (kCheck). */
template <class T, int DM, int RS, bool kCheck>
__device__ __forceinline__ void scores_and_dp(float (&s)[kHN][4], float (&dp)[kHN][4], const T* A, const T* B,
                                              const T* C, const T* Dt, int warp, int lane, int hf, bool inject,
                                              const DevFaultList& fl, int64_t bh, const int64_t (&row)[2],
                                              const bool (&valid)[2], int64_t c0, int64_t nc, bool rows_are_keys,
                                              float (&obs_s)[2], float (&obs_p)[2]) {
  row_products<T, DM, RS>(s, A, B, warp, lane, hf);
  row_products<T, DM, RS>(dp, C, Dt, warp, lane, hf);
  if (inject) {
    land_tile(fl, ABFT_SITE_ATTN_SCORES, bh, row, valid, c0, nc, rows_are_keys, lane % 4, s);
    land_tile(fl, ABFT_SITE_ATTN_DP, bh, row, valid, c0, nc, rows_are_keys, lane % 4, dp);
  }
  if (kCheck) {
#pragma unroll
    for (int n = 0; n < kHN; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        obs_s[e / 2] += s[n][e];
        obs_p[e / 2] += dp[n][e];
      }
  }
}

/** Land every fault of `site` in head instance bh whose kpos is in [lo, hi) on this lane's
 *  element (row, column f.c) of a gradient accumulator (C fragments over DM columns). */
template <int DM>
__device__ __forceinline__ void land_acc(const DevFaultList& fl, int site, int64_t bh, const int64_t (&row)[2],
                                         const bool (&valid)[2], int64_t lo, int64_t hi, int D, int t4,
                                         float (&acc)[DM / 8][4]) {
  for (int x = 0; x < fl.n; ++x) {
    const DevFault& f = fl.f[x];
    if (f.site != site || f.bh != bh || f.c < 0 || f.c >= D || (f.c % 8) / 2 != t4) continue;
    if (f.kpos < lo || f.kpos >= hi) continue;
#pragma unroll
    for (int n = 0; n < DM / 8; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        if (n == f.c / 8 && (e & 1) == (f.c & 1) && valid[e / 2] && f.r == row[e / 2])
          acc[n][e] = land<float>(fl, x, acc[n][e]);
  }
}

/** One group's S and dP checks for the warp's rows: obs[r] the rows' observed sums (this
 *  lane's share; reset here), rec the group's record (x then y sums), A, B the row tiles. */
template <class T, int DM, int RS>
__device__ __forceinline__ void group_check(const T* rowsA, const T* rowsB, const float* rec, float (&obs_s)[2],
                                            float (&obs_p)[2], const bool (&valid)[2], const BwdSums& ms, int warp,
                                            int lane, bool& bad, bool& skip) {
  float rs[2], mgs[2], rp[2], mgp[2];
  mma_tile::tile_reference<T, DM, RS>(rowsA, rec, warp, lane, rs, mgs);
  mma_tile::tile_reference<T, DM, RS>(rowsB, rec + 2 * DM, warp, lane, rp, mgp);
  mma_tile::tile_verdicts(obs_s, rs, mgs, valid, ms.c_tile, ms.abs_tile, bad, skip);
  mma_tile::tile_verdicts(obs_p, rp, mgp, valid, ms.c_tile, ms.abs_tile, bad, skip);
}

/** The ones column's sum tc of the values a product read against the float sum f of the values
 *  as produced, w the float sum of their magnitudes (attn_mma_weight_sum_coefficient): Fail
 *  when they differ by more than the bound or f, w are NaN; Skip where w overflowed float, or tc
 *  is not finite and the rounding to the storage type may have overflowed (data). */
__device__ __forceinline__ ck::AttnVerdict weight_sum_verdict(float tc, float f, float w, double cw, double absw,
                                                              double tmax) {
  if (w == INFINITY) return ck::AttnVerdict::Skip;  // (an inf - inf in f from the same data)
  if (w != w || f != f) return ck::AttnVerdict::Fail;
  if (!(fabsf(tc) <= FLT_MAX)) return (1.0 + cw) * double(w) >= tmax / 2.0 ? ck::AttnVerdict::Skip : ck::AttnVerdict::Fail;
  return fabs(double(tc) - double(f)) <= cw * double(w) + absw ? ck::AttnVerdict::Pass : ck::AttnVerdict::Fail;
}

/** Store one gradient row's share of this lane (row `row`, columns 8 n + 2 t4 + {0, 1}) and sum
 *  what was computed and what was stored (in double). `pair`: unit column stride and 4-byte
 *  aligned pairs (one 32-bit store). */
template <class T, int DM, bool kCheck>
__device__ __forceinline__ void store_rows(T* G, const int64_t* gs, const float (&acc)[DM / 8][4], float scale,
                                           const int64_t (&row)[2], const bool (&valid)[2], int D, int t4, bool pair,
                                           double (&computed)[2], double (&stored)[2]) {
#pragma unroll
  for (int n = 0; n < DM / 8; ++n) {
    const int c = n * 8 + 2 * t4;
    if (c >= D) continue;
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      if (!valid[r]) continue;
      const float y0 = scale * acc[n][2 * r], y1 = scale * acc[n][2 * r + 1];
      const T s0 = from_f<T>(y0), s1 = from_f<T>(y1);
      T* p = G + row[r] * gs[2] + c * gs[3];
      if (pair) {
        *reinterpret_cast<uint32_t*>(p) = pack2(s0, s1);
      } else {
        p[0] = s0;
        p[gs[3]] = s1;
      }
      if (kCheck) {
        computed[r] += double(y0);
        computed[r] += double(y1);
        stored[r] += double(to_f(s0));
        stored[r] += double(to_f(s1));
      }
    }
  }
}

/** The end-of-unit verdicts of one gradient row: its elementwise sum (ones column `ones`
 *  against the float sums f, w) and its row check (checksum columns hi, lo, magnitude am, the
 *  row's computed and stored sums); `scale` applies to the reference (dK, dQ). Bit 0 of the
 *  result: a failure, bit 1: a skip. (Not inlined: once a unit, out of the sweep's registers.) */
template <class T>
__device__ __noinline__ int grad_verdicts(float hi, float lo, float am, float ones, float f, float w, double computed,
                                          double stored, float scale, int64_t chunks, int64_t nvalues, int dm, int D) {
  const float sigma_inv = 1.0f / mma_tile::checksum_scale<T>();
  // (Each lane sums a row's kB / 8 values of each half tile in order, then adds that partial.)
  const double cw = ck::attn_mma_weight_sum_coefficient<float>(3 * kB, chunks, kB / 8, 2 * chunks, storage_u<T>());
  const double absw = ck::attn_mma_weight_sum_abs_term<float>(nvalues, 2 * chunks, storage_tiny<T>());
  const ck::AttnVerdict ve = weight_sum_verdict(ones, f, w, cw, absw, storage_max<T>());
  ck::AttnGradColumn gc;
  gc.obs = computed;
  gc.stored = stored;
  gc.ref = double(scale * ((hi + lo) * sigma_inv));
  const double am_u = double(am * sigma_inv);
  const double sabs = fabs(double(scale));
  gc.mag = sabs * am_u;
  gc.peak = gc.mag > am_u ? gc.mag : am_u;
  const double coef = ck::attn_mma_grad_coefficient<float>(3 * kB, chunks, dm, storage_u<T>());
  const double wabs = 1.01 * double(w) + double(nvalues) * storage_tiny<T>();
  const double abs = ck::attn_mma_grad_abs_term<float>(3 * kB, chunks, dm, sabs, wabs, storage_tiny<T>() / mma_tile::checksum_scale<T>());
  const ck::AttnVerdict vg = ck::attn_grad_verdict(gc, coef, abs, D, ck::attn_grad_storage(
      std::is_same<T, __half>::value ? ck::NumFormat::F16 : ck::NumFormat::BF16));
  return (ve == ck::AttnVerdict::Fail || vg == ck::AttnVerdict::Fail ? 1 : 0) |
         (ve == ck::AttnVerdict::Skip || vg == ck::AttnVerdict::Skip ? 2 : 0);
}

/** Shared memory of either kernel: six 64-row tiles of stride DM + 8, two stages of checksum
 *  columns (kB x (kXS + kX)) and two stages of kB {-lse log2 e, D} pairs. */
template <int DM>
constexpr size_t bwd_mma_smem_bytes() {
  return size_t(6 * kB * (DM + 8)) * 2 + size_t(2 * kB * (kXS + kX)) * 2 + size_t(2 * kB * 2) * sizeof(float);
}

/** dK and dV of one key block per unit u = (b * kv_heads + hk) * nkb + kb. kCheck false: the
 *  unprotected kernel (the benchmarks' baseline); kInject: the one that lands planned faults. */
template <class T, int DM, bool kCheck, bool kInject>
__global__ void __launch_bounds__(kT, DM == 64 ? 3 : 2)
    attn_bwd_dkdv_mma_kernel(AttnArgs a, AttnBwdPtrs g, BwdSums ms, DevFaultList fl, DeviceCounters* cnt,
                             RepairCounters* rep, int correct) {
  constexpr int RS = DM + 8;  // shared-memory row stride (16 bytes more: no bank conflicts)
  constexpr int NO = DM / 8;  // n-tiles of a gradient row
  static_assert(DM == 64 || DM == 128, "head-dim buckets 64 and 128");
  extern __shared__ __align__(128) unsigned char smem[];
  T* Ks = reinterpret_cast<T*>(smem);
  T* Vs = Ks + kB * RS;
  T* St = Vs + kB * RS;                      // stage s: Q at St + 2 s kB RS, dO after it
  T* Xt = St + 4 * kB * RS;  // stage s: Q's columns at Xt + s kB (kXS + kX), dO's after them
  float* Lt = reinterpret_cast<float*>(Xt + 2 * kB * (kXS + kX));  // stage s: 2 kB floats at Lt + 2 s kB

  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, g4 = lane / 4, t4 = lane % 4;
  const int D = int(a.D);
  const float sl2 = a.scale * kLog2e;
  const int nqb = int(ms.nqb);
  const int64_t nkb = ms.nkb, units = a.B * a.HK * nkb;
  const bool pair = a.ks[3] == 1 && a.vs[3] == 1 && (a.ks[0] | a.ks[1] | a.ks[2] | a.vs[0] | a.vs[1] | a.vs[2]) % 2 == 0 &&
                    reinterpret_cast<uintptr_t>(g.dk) % 4 == 0 && reinterpret_cast<uintptr_t>(g.dv) % 4 == 0;

  for (int64_t u = blockIdx.x; u < units; u += gridDim.x) {
    // Causal calls take the key blocks with the longest sweeps (the first ones) of every KV head
    // first (u runs over KV heads fastest).
    const int64_t bhks = a.B * a.HK;
    const int64_t bhk = a.causal ? u % bhks : u / nkb, kb = a.causal ? u / bhks : u % nkb;
    const int64_t b = bhk / a.HK, hk = bhk % a.HK;
    const int64_t j0 = kb * kB;
    const int64_t key[2] = {j0 + 16 * warp + g4, j0 + 16 * warp + g4 + 8};
    const bool kvalid[2] = {key[0] < a.Lk, key[1] < a.Lk};
    // The first query block a query of which sees a key of the block (query i sees key j0 when
    // i >= j0 - off); none when that query is past q_len.
    int qs = 0;
    if (a.causal) {
      const int64_t imin = j0 - a.off;
      qs = imin <= 0 ? 0 : imin >= a.Lq ? nqb : int(imin / kB);
    }
    const int ntiles = int(a.G) * (nqb - qs);
    const T* K = static_cast<const T*>(a.k) + b * a.ks[0] + hk * a.ks[1];
    const T* V = static_cast<const T*>(a.v) + b * a.vs[0] + hk * a.vs[1];
    const int64_t jmax_w = j0 + 16 * warp + 15;  // the warp's last key (causal masking)

    // The copies of query block qb of head instance bh into stage st.
    auto issue = [&](int st, int64_t bh, int qb) {
      const int64_t b_ = b, h = bh - b * a.H, i0 = int64_t(qb) * kB;  // (the unit's batch)
      T* Qd = St + 2 * st * kB * RS;
      load_tile<T, DM, RS>(Qd, static_cast<const T*>(a.q) + b_ * a.qs[0] + h * a.qs[1] + i0 * a.qs[2], a.qs[2],
                           a.Lq - i0, D, tid);
      load_tile<T, DM, RS>(Qd + kB * RS, static_cast<const T*>(g.dO) + b_ * a.os[0] + h * a.os[1] + i0 * a.os[2],
                           a.os[2], a.Lq - i0, D, tid);
      const int64_t row0 = bh * nqb * kB + i0;
      if (kCheck) {
        T* Xd = Xt + st * kB * (kXS + kX);  // Q's rows two chunks each, dO's one
        cp_async_16(Xd + tid * 8, static_cast<const T*>(ms.xq) + row0 * kXS + tid * 8, true);
        if (tid < kB) cp_async_16(Xd + kB * kXS + tid * kX, static_cast<const T*>(ms.xo) + (row0 + tid) * kX, true);
      }
      if (tid >= kB && tid < kB + kB / 2)
        cp_async_16(Lt + 2 * st * kB + 4 * (tid - kB), ms.ld + 2 * row0 + 4 * (tid - kB), true);
    };
    const int64_t bh0 = b * a.H + hk * a.G;  // the group's first head instance

    for (int pass = 0;; ++pass) {
      const bool inject = kInject && pass == 0 && fl.n > 0;
      cp_async_wait<0>();
      __syncthreads();  // the previous unit or pass is done with shared memory
      load_tile<T, DM, RS>(Ks, K + j0 * a.ks[2], a.ks[2], a.Lk - j0, D, tid);
      load_tile<T, DM, RS>(Vs, V + j0 * a.vs[2], a.vs[2], a.Lk - j0, D, tid);
      if (ntiles > 0) issue(0, bh0, qs);
      cp_async_commit();

      float dv[NO][4], dk[NO][4];
#pragma unroll
      for (int n = 0; n < NO; ++n)
#pragma unroll
        for (int e = 0; e < 4; ++e) dv[n][e] = dk[n][e] = 0.0f;
      // Checking: the checksum n-tiles (P on dO's columns, dS and |dS| on Q's: one), the float sums
      // of P, dS, |dS| (this lane's share of each row), the S and dP rows' observed sums.
      float xv[4] = {0.0f, 0.0f, 0.0f, 0.0f}, xk[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      float sp[2] = {0.0f, 0.0f}, sd[2] = {0.0f, 0.0f}, sa[2] = {0.0f, 0.0f};
      float obs_s[2] = {0.0f, 0.0f}, obs_p[2] = {0.0f, 0.0f};
      bool bad = false, skip_in = false, skip_out = false;

      // Tile t: head instance bh, query block qb (every head of the group, blocks qs .. nqb - 1).
      int64_t bh = bh0;
      int qb = qs;
      for (int t = 0; t < ntiles; ++t) {
        const int st = t & 1;
        const int64_t i0 = int64_t(qb) * kB;
        const int nq = a.Lq - i0 < kB ? int(a.Lq - i0) : kB;
        const bool last_block = qb + 1 == nqb;
        if (t + 1 < ntiles) issue(st ^ 1, last_block ? bh + 1 : bh, last_block ? qs : qb + 1);
        cp_async_commit();
        cp_async_wait<1>();  // tile t (and, first, K and V)
        __syncthreads();
        const T* Qs = St + 2 * st * kB * RS;
        const T* dOs = Qs + kB * RS;
        const T* Xq = Xt + st * kB * (kXS + kX);
        const T* Xo = Xq + kB * kXS;
        const float* Ls = Lt + 2 * st * kB;
        if (kCheck && ms.qflag[bh * nqb + qb]) skip_in = true;

        // S^T = K_w Q^T and dP^T = V_w dO^T, 16 keys x 64 queries a warp, 32 queries at a time;
        // P^T = exp2(S^T scale log2 e - lse log2 e) and dS^T = P^T o (dP^T - D) per query column,
        // rounded to T and packed as the A fragments of the gradient products.
        uint32_t pa[kB / 16][4], da[kB / 16][4];
#pragma unroll
        for (int hf = 0; hf < 2; ++hf) {
          const int64_t c0 = i0 + 32 * hf;
          const int nc = nq - 32 * hf;
          float s[kHN][4], dp[kHN][4];
          scores_and_dp<T, DM, RS, kCheck>(s, dp, Ks, Qs, Vs, dOs, warp, lane, hf, inject, fl, bh, key, kvalid, c0, nc,
                                           true, obs_s, obs_p);
          // Keys after a query's position (causal): P = 0. (Queries past q_len have -lse log2 e
          // = -inf; keys past kv_len touch only their own rows, which are not stored.)
          if (a.causal && jmax_w > c0 + a.off) {
#pragma unroll
            for (int n = 0; n < kHN; ++n)
#pragma unroll
              for (int e = 0; e < 4; ++e)
                if (key[e / 2] > c0 + n * 8 + 2 * t4 + (e & 1) + a.off) s[n][e] = kNegInf;
          }
          float tp[2] = {0.0f, 0.0f}, td[2] = {0.0f, 0.0f}, ta[2] = {0.0f, 0.0f};  // this half's sums
#pragma unroll
          for (int n = 0; n < kHN; ++n) {
            const float4 l = *reinterpret_cast<const float4*>(Ls + 2 * (32 * hf + n * 8 + 2 * t4));  // {nl, D} x 2
#pragma unroll
            for (int e = 0; e < 4; ++e) {
              const float p = exp2f(fmaf(s[n][e], sl2, (e & 1) ? l.z : l.x));
              const float d = p * (dp[n][e] - ((e & 1) ? l.w : l.y));
              s[n][e] = p;
              dp[n][e] = d;
              if (kCheck) {
                tp[e / 2] += p;
                td[e / 2] += d;
                ta[e / 2] += fabsf(d);
              }
            }
          }
          if (kCheck)
#pragma unroll
            for (int r = 0; r < 2; ++r) {
              sp[r] += tp[r];
              sd[r] += td[r];
              sa[r] += ta[r];
            }
          if (inject) {  // a probability or a dS after its sums, as the products will read it
            land_tile(fl, ABFT_SITE_ATTN_PROBS, bh, key, kvalid, c0, nc, true, t4, s);
            land_tile(fl, ABFT_SITE_ATTN_DS, bh, key, kvalid, c0, nc, true, t4, dp);
          }
          pack_half<T>(pa, s, hf);
          pack_half<T>(da, dp, hf);
        }
        // dV_w += P^T dO, dK_w += dS^T Q (unscaled), each tile's product added once.
        // (Each packed tile's checksum n-tile right after its product: its registers free then.)
        grad_product<T, DM, RS>(dv, pa, dOs, lane);
        if (kCheck) checksum_product<T>(xv, pa, Xo, lane);
        grad_product<T, DM, RS>(dk, da, Qs, lane);
        if (kCheck) {
          checksum_product_signed<T>(xk, da, Xq, lane);
          if (qb % kGroup == kGroup - 1 || last_block) {  // the group's S and dP checks
            const int gs = qs > (qb & ~(kGroup - 1)) ? qs : (qb & ~(kGroup - 1));
            group_check<T, DM, RS>(Ks, Vs, ms.qrec + (bh * nqb + gs) * kRec * DM, obs_s, obs_p, kvalid, ms, warp,
                                   lane, bad, skip_in);
          }
        }
        if (inject) {  // a key's accumulators after head h's query block holding kpos
          const int64_t hi = last_block ? INT64_MAX : i0 + nq;
          land_acc<DM>(fl, ABFT_SITE_ATTN_DV, bh, key, kvalid, i0, hi, D, t4, dv);
          land_acc<DM>(fl, ABFT_SITE_ATTN_DK, bh, key, kvalid, i0, hi, D, t4, dk);
        }
        __syncthreads();  // every warp is done with stage st before it is loaded again
        if (last_block) {
          ++bh;
          qb = qs;
        } else {
          ++qb;
        }
      }
      cp_async_wait<0>();

      T* dK = static_cast<T*>(g.dk) + b * a.ks[0] + hk * a.ks[1];
      T* dV = static_cast<T*>(g.dv) + b * a.vs[0] + hk * a.vs[1];
      double cv[2] = {0.0, 0.0}, sv[2] = {0.0, 0.0}, ckk[2] = {0.0, 0.0}, skk[2] = {0.0, 0.0};
      store_rows<T, DM, kCheck>(dV, a.vs, dv, 1.0f, key, kvalid, D, t4, pair, cv, sv);
      store_rows<T, DM, kCheck>(dK, a.ks, dk, a.scale, key, kvalid, D, t4, pair, ckk, skk);
      if constexpr (!kCheck) {
        break;
      } else {
#pragma unroll
        for (int r = 0; r < 2; ++r) {
          const mma_tile::ChecksumRow cv_r = mma_tile::checksum_row(xv, r, lane);
          const mma_tile::ChecksumRow ck_r = mma_tile::checksum_row(xk, r, lane);
          const float fp = lane_sum(sp[r]), fd = lane_sum(sd[r]), fa = lane_sum(sa[r]);
          const double c1 = lane_sum(cv[r]), s1 = lane_sum(sv[r]), c2 = lane_sum(ckk[r]), s2 = lane_sum(skk[r]);
          if (!kvalid[r]) continue;
          const int64_t nvals = int64_t(ntiles) * kB;
          const int v = grad_verdicts<T>(cv_r.hi, cv_r.lo, cv_r.a, cv_r.ones, fp, fp, c1, s1, 1.0f, ntiles, nvals, DM, D) |
                        grad_verdicts<T>(ck_r.hi, ck_r.lo, ck_r.a, ck_r.ones, fd, fa, c2, s2, a.scale, ntiles, nvals, DM, D);
          bad |= (v & 1) != 0;
          skip_out |= (v & 2) != 0;
        }
        if (!finish_unit_pass(false, skip_in, bad, skip_out, pass, correct, cnt, rep)) break;
      }
    }
  }
}

/** dQ of one query block per unit u = (b * heads + h) * nqb + qb (causal: the longest blocks
 *  first, u = (nqb - 1 - qb) * batch * heads + b * heads + h). */
template <class T, int DM, bool kCheck, bool kInject>
__global__ void __launch_bounds__(kT, DM == 64 ? 3 : 2)
    attn_bwd_dq_mma_kernel(AttnArgs a, AttnBwdPtrs g, BwdSums ms, DevFaultList fl, DeviceCounters* cnt,
                           RepairCounters* rep, int correct) {
  constexpr int RS = DM + 8;
  constexpr int NO = DM / 8;
  static_assert(DM == 64 || DM == 128, "head-dim buckets 64 and 128");
  extern __shared__ __align__(128) unsigned char smem[];
  T* Qs = reinterpret_cast<T*>(smem);
  T* dOs = Qs + kB * RS;
  T* St = dOs + kB * RS;      // stage s: K at St + 2 s kB RS, V after it
  T* Xt = St + 4 * kB * RS;   // stage s: K's columns at Xt + s kB kXS

  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, g4 = lane / 4, t4 = lane % 4;
  const int D = int(a.D);
  const float sl2 = a.scale * kLog2e;
  const int64_t nqb = ms.nqb, nkb = ms.nkb, units = a.B * a.H * nqb;
  const bool pair = a.qs[3] == 1 && (a.qs[0] | a.qs[1] | a.qs[2]) % 2 == 0 && reinterpret_cast<uintptr_t>(g.dq) % 4 == 0;

  for (int64_t u = blockIdx.x; u < units; u += gridDim.x) {
    // Causal calls take the longest query blocks of every head first (u runs over heads fastest).
    const int64_t bh = a.causal ? u % (a.B * a.H) : u / nqb, b = bh / a.H, h = bh % a.H, hk = h / a.G;
    const int64_t bhk = b * a.HK + hk;
    const int64_t qb = a.causal ? nqb - 1 - u / (a.B * a.H) : u % nqb, i0 = qb * kB;
    const int64_t row[2] = {i0 + 16 * warp + g4, i0 + 16 * warp + g4 + 8};
    const bool valid[2] = {row[0] < a.Lq, row[1] < a.Lq};
    const int64_t ilast = (a.Lq < i0 + kB ? a.Lq : i0 + kB) - 1;
    int64_t kend = a.Lk;
    if (a.causal) {
      kend = ilast + a.off + 1;
      kend = kend < 0 ? 0 : kend > a.Lk ? a.Lk : kend;
    }
    const int nkbu = int((kend + kB - 1) / kB);
    const T* Q = static_cast<const T*>(a.q) + b * a.qs[0] + h * a.qs[1];
    const T* dO = static_cast<const T*>(g.dO) + b * a.os[0] + h * a.os[1];
    const T* K = static_cast<const T*>(a.k) + b * a.ks[0] + hk * a.ks[1];
    const T* V = static_cast<const T*>(a.v) + b * a.vs[0] + hk * a.vs[1];
    T* dQ = static_cast<T*>(g.dq) + b * a.qs[0] + h * a.qs[1];
    float nl[2], Dr[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const float2 l = *reinterpret_cast<const float2*>(ms.ld + 2 * (bh * nqb * kB + row[r]));
      nl[r] = l.x;
      Dr[r] = l.y;
    }
    const int64_t iw0 = i0 + 16 * warp;  // the warp's first query (causal masking)

    auto issue = [&](int kb) {
      const int st = kb & 1;
      const int64_t j0 = int64_t(kb) * kB;
      T* Kd = St + 2 * st * kB * RS;
      load_tile<T, DM, RS>(Kd, K + j0 * a.ks[2], a.ks[2], a.Lk - j0, D, tid);
      load_tile<T, DM, RS>(Kd + kB * RS, V + j0 * a.vs[2], a.vs[2], a.Lk - j0, D, tid);
      if (kCheck)  // two chunks a row
        cp_async_16(Xt + st * kB * kXS + tid * 8, static_cast<const T*>(ms.xk) + (bhk * nkb * kB + j0) * kXS + tid * 8,
                    true);
    };

    for (int pass = 0;; ++pass) {
      const bool inject = kInject && pass == 0 && fl.n > 0;
      cp_async_wait<0>();
      __syncthreads();  // the previous unit or pass is done with shared memory
      load_tile<T, DM, RS>(Qs, Q + i0 * a.qs[2], a.qs[2], a.Lq - i0, D, tid);
      load_tile<T, DM, RS>(dOs, dO + i0 * a.os[2], a.os[2], a.Lq - i0, D, tid);
      if (nkbu > 0) issue(0);
      cp_async_commit();

      float dq[NO][4];
#pragma unroll
      for (int n = 0; n < NO; ++n)
#pragma unroll
        for (int e = 0; e < 4; ++e) dq[n][e] = 0.0f;
      float xq[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      float sd[2] = {0.0f, 0.0f}, sa[2] = {0.0f, 0.0f};
      float obs_s[2] = {0.0f, 0.0f}, obs_p[2] = {0.0f, 0.0f};
      bool bad = false, skip_in = kCheck && ms.qflag[bh * nqb + qb] != 0, skip_out = false;

      for (int kb = 0; kb < nkbu; ++kb) {
        const int st = kb & 1;
        const int64_t j0 = int64_t(kb) * kB;
        const int64_t nk = a.Lk - j0 < kB ? a.Lk - j0 : kB;
        if (kb + 1 < nkbu) issue(kb + 1);
        cp_async_commit();
        cp_async_wait<1>();  // this key block (and, first, Q and dO)
        __syncthreads();
        const T* Ks = St + 2 * st * kB * RS;
        const T* Vs = Ks + kB * RS;
        const T* Xk = Xt + st * kB * kXS;

        // S = Q_w K^T and dP = dO_w V^T, 16 queries x 64 keys a warp, 32 keys at a time; P and
        // dS = P o (dP - D), rounded to T and packed as the A fragments of dS K.
        uint32_t da[kB / 16][4];
#pragma unroll
        for (int hf = 0; hf < 2; ++hf) {
          const int64_t c0 = j0 + 32 * hf;
          const int64_t nc = nk - 32 * hf;
          float s[kHN][4], dp[kHN][4];
          scores_and_dp<T, DM, RS, kCheck>(s, dp, Qs, Ks, dOs, Vs, warp, lane, hf, inject, fl, bh, row, valid, c0, nc,
                                           false, obs_s, obs_p);
          // Keys past kv_len and, causal, after the row's position: P = 0.
          if (c0 + 32 > a.Lk || (a.causal && c0 + 31 > iw0 + a.off)) {
#pragma unroll
            for (int n = 0; n < kHN; ++n)
#pragma unroll
              for (int e = 0; e < 4; ++e) {
                const int64_t key = c0 + n * 8 + 2 * t4 + (e & 1);
                if (key >= a.Lk || (a.causal && key > row[e / 2] + a.off)) s[n][e] = kNegInf;
              }
          }
          float td[2] = {0.0f, 0.0f}, ta[2] = {0.0f, 0.0f};  // this half's sums
#pragma unroll
          for (int n = 0; n < kHN; ++n)
#pragma unroll
            for (int e = 0; e < 4; ++e) {
              const int r = e / 2;
              const float p = exp2f(fmaf(s[n][e], sl2, nl[r]));
              const float d = p * (dp[n][e] - Dr[r]);
              dp[n][e] = d;
              if (kCheck) {
                td[r] += d;
                ta[r] += fabsf(d);
              }
            }
          if (kCheck)
#pragma unroll
            for (int r = 0; r < 2; ++r) {
              sd[r] += td[r];
              sa[r] += ta[r];
            }
          if (inject) land_tile(fl, ABFT_SITE_ATTN_DS, bh, row, valid, c0, nc, false, t4, dp);
          pack_half<T>(da, dp, hf);
        }
        // dQ_w += dS K (unscaled), the block's product added once.
        grad_product<T, DM, RS>(dq, da, Ks, lane);
        if (kCheck) {
          checksum_product_signed<T>(xq, da, Xk, lane);
          if (kb % kGroup == kGroup - 1 || kb + 1 == nkbu)  // the group's S and dP checks
            group_check<T, DM, RS>(Qs, dOs, ms.krec + (bhk * nkb + kb) * kRec * DM, obs_s, obs_p, valid, ms, warp,
                                   lane, bad, skip_in);
        }
        if (inject) {  // a query's accumulator after the key block holding kpos (past the last: after it)
          const int64_t hi = kb + 1 == nkbu ? INT64_MAX : j0 + kB;
          land_acc<DM>(fl, ABFT_SITE_ATTN_DQ, bh, row, valid, j0, hi, D, t4, dq);
        }
        __syncthreads();  // every warp is done with stage st before it is loaded again
      }
      cp_async_wait<0>();

      double cq[2] = {0.0, 0.0}, sq[2] = {0.0, 0.0};
      store_rows<T, DM, kCheck>(dQ, a.qs, dq, a.scale, row, valid, D, t4, pair, cq, sq);
      if constexpr (!kCheck) {
        break;
      } else {
#pragma unroll
        for (int r = 0; r < 2; ++r) {
          const mma_tile::ChecksumRow cq_r = mma_tile::checksum_row(xq, r, lane);
          const float fd = lane_sum(sd[r]), fa = lane_sum(sa[r]);
          const double c1 = lane_sum(cq[r]), s1 = lane_sum(sq[r]);
          if (!valid[r]) continue;
          const int v =
              grad_verdicts<T>(cq_r.hi, cq_r.lo, cq_r.a, cq_r.ones, fd, fa, c1, s1, a.scale, nkbu, int64_t(nkbu) * kB, DM, D);
          bad |= (v & 1) != 0;
          skip_out |= (v & 2) != 0;
        }
        if (!finish_unit_pass(false, skip_in, bad, skip_out, pass, correct, cnt, rep)) break;
      }
    }
  }
}

/** Whether `a` is inside the kernels' scope (see the file comment). */
bool bwd_mma_eligible(const AttnArgs& a, const AttnBwdPtrs& g) {
  if (a.mask || !(a.scale > 0.0f) || !std::isfinite(a.scale)) return false;
  if (a.D <= 32 || a.D % 8 || a.D > 128 || a.Lq <= 0 || a.Lk <= 0 || !a.lse) return false;
  const int64_t* st[5] = {a.qs, a.ks, a.vs, a.os, a.os};
  const void* p[5] = {a.q, a.k, a.v, a.o, g.dO};
  for (int x = 0; x < 5; ++x) {
    if (st[x][3] != 1 || reinterpret_cast<uintptr_t>(p[x]) % 16) return false;
    for (int y = 0; y < 3; ++y)
      if (st[x][y] % 8) return false;  // every row starts 16-byte aligned
  }
  return true;
}

template <class Kern>
bool allow_smem(Kern kern, size_t smem) {
  if (cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)) == cudaSuccess) return true;
  cudaGetLastError();
  return false;
}

template <class T, int DM>
abft_status launch_bwd_mma_dm(const AttnArgs& a, const AttnBwdPtrs& g, const DevFaultList& fl, State* st,
                              cudaStream_t stream, bool check, bool correct) {
  constexpr size_t smem = bwd_mma_smem_bytes<DM>();
  auto kv = !check ? attn_bwd_dkdv_mma_kernel<T, DM, false, false>
            : fl.n > 0 ? attn_bwd_dkdv_mma_kernel<T, DM, true, true>
                       : attn_bwd_dkdv_mma_kernel<T, DM, true, false>;
  auto kq = !check ? attn_bwd_dq_mma_kernel<T, DM, false, false>
            : fl.n > 0 ? attn_bwd_dq_mma_kernel<T, DM, true, true>
                       : attn_bwd_dq_mma_kernel<T, DM, true, false>;
  // Everything that can refuse before anything is enqueued (NOT_SUPPORTED: the SIMT kernels).
  if (!allow_smem(kv, smem) || !allow_smem(kq, smem)) return ABFT_STATUS_NOT_SUPPORTED;
  BwdSums ms;
  const abft_cuda_dtype dtype = std::is_same<T, __half>::value ? ABFT_CUDA_HALF : ABFT_CUDA_BFLOAT16;
  const abft_status pre = bwd_mma::pre_pass(dtype, DM, a, g, st, stream, check, &ms);
  if (pre != ABFT_STATUS_SUCCESS) return pre;
  auto grid_of = [](int64_t n) { return unsigned(n < 1 ? 1 : n < (1 << 20) ? n : (1 << 20)); };
  const int kid = ABFT_KERNEL_ATTN_BWD;
  const int ci = correct ? 1 : 0;
  kv<<<grid_of(a.B * a.HK * ms.nkb), kT, smem, stream>>>(a, g, ms, fl, st->counters + kid, st->repair + kid, ci);
  if (cudaGetLastError() != cudaSuccess) return ABFT_STATUS_INTERNAL_ERROR;
  kq<<<grid_of(a.B * a.H * ms.nqb), kT, smem, stream>>>(a, g, ms, fl, st->counters + kid, st->repair + kid, ci);
  return cudaGetLastError() == cudaSuccess ? ABFT_STATUS_SUCCESS : ABFT_STATUS_INTERNAL_ERROR;
}

}  // namespace

abft_status backward_mma_launch(abft_cuda_dtype dtype, const AttnArgs& a, const AttnBwdPtrs& g,
                                const DevFaultList& fl, State* st, cudaStream_t stream, bool check, bool correct) {
  if ((dtype != ABFT_CUDA_HALF && dtype != ABFT_CUDA_BFLOAT16) || !bwd_mma_eligible(a, g))
    return ABFT_STATUS_NOT_SUPPORTED;
  const int dm = int(attn_head_dim_bucket(a.D));
  if (dtype == ABFT_CUDA_HALF)
    return dm == 64 ? launch_bwd_mma_dm<__half, 64>(a, g, fl, st, stream, check, correct)
                    : launch_bwd_mma_dm<__half, 128>(a, g, fl, st, stream, check, correct);
  return dm == 64 ? launch_bwd_mma_dm<__nv_bfloat16, 64>(a, g, fl, st, stream, check, correct)
                  : launch_bwd_mma_dm<__nv_bfloat16, 128>(a, g, fl, st, stream, check, correct);
}

}  // namespace abft::cuda::attn
