/** \file attention_bounds.hpp
 *  \brief Rounding-error bounds of the attention checksums (docs/ABFT.md, "Attention"), in
 *  the same standard model and gamma_n notation as bounds.hpp, whose GEMM coefficient the
 *  single-tile checks reuse. Every check is |observed - reference| <= c * X + abs, X a sum
 *  of magnitudes computed beside the checksum.
 */
#pragma once
#include <cstdint>
#include <limits>

#include "abft/checksum/bounds.hpp"

namespace abft::checksum {

/** Relative error of a float sum X of nonnegative terms formed with `ops` roundings,
 *  as a factor that makes the computed X an upper bound of the exact one. */
template <class T>
ABFT_HD double magnitude_inflation(double ops) {
  const double g = gamma(ops, unit_roundoff<T>());
  return g < 1.0 ? 1.0 / (1.0 - g) : std::numeric_limits<double>::infinity();
}

/** One product tile checked by its query-side sums: S^T = K_blk Q^T (or dP^T = V_blk dO^T),
 *  nk keys x head_dim terms, column sums of MR-row register slices added in double, the
 *  reference (e^T K_blk) Q^T with e^T K_blk summed in double and rounded to T. This is the
 *  GEMM column check with mb = nk, k = kc = head_dim (bounds.hpp). */
template <class T>
ABFT_HD double attn_tile_coefficient(int64_t nk, int64_t head_dim, int64_t mr) {
  GemmShape s;
  s.mb = nk;
  s.k = head_dim;
  s.kc = head_dim;
  s.mr = mr;
  return gemm_column_coefficient<T>(s) * magnitude_inflation<T>(double(head_dim) + 2.0);
}

/** The head-dim bucket the GPU engine's attention kernels are compiled for (its columns past
 *  head_dim padded with zeros): 32, 64, 128 or 256. Its checks' bounds count DM terms. */
ABFT_HD int attn_head_dim_bucket(int64_t d) { return d <= 32 ? 32 : d <= 64 ? 64 : d <= 128 ? 128 : 256; }

/** The GPU engine's score and dP tile checks, formed in T (cuda/attention_forward.cu and
 *  cuda/attention_backward.cu, docs/ABFT.md §13.3). Each score s_j is one dot product of
 *  `terms` products (the head-dim bucket's DM fused multiply-adds in order; 3 DM for the
 *  tensor cores' own order), |s_j - S_j| <= g_p sum_c |q_c k_jc|. A row's `lanes` threads each
 *  sum their ceil(nk / lanes) scores in T in order, then the lanes' butterfly adds twice: obs is
 *  within g_o sum_j |s_j| <= g_o (1 + g_p) X of sum_j s_j, g_o = gamma_{nk / lanes + 2}. The
 *  reference: e^T K_blk summed in double over nk keys and rounded to T once,
 *  |k~_c - sum_j k_jc| <= e1 sum_j |k_jc|, e1 = u + gamma_nk(u_d) (1 + u); then sum_c q_c k~_c by
 *  fused multiply-adds in T over each lane's dm / lanes columns and the butterfly, within
 *  g_r (1 + e1) X of the exact sum_c q_c k~_c, g_r = gamma_{dm / lanes + 2}. So
 *  |obs - ref| <= (g_p + g_o (1 + g_p) + e1 + g_r (1 + e1)) X, X = sum_c |q_c| sum_j |k_jc|
 *  exactly. X is formed like the reference from e^T |K_blk| (all terms nonnegative): the
 *  computed X~ >= (1 - g_r)(1 - u)(1 - gamma_nk(u_d)) X, hence the division; (1 + 8 u_d) covers
 *  the verdict's own double arithmetic. Against the same check in double (its former form,
 *  (g_p + 2 g_d)(1 + 2 g_d), g_d = gamma_{nk + DM + 4}(u_d)) the threshold grows by about
 *  (g_o + g_r + u) / g_p: 1.45x at DM = 64, 1.35x at 128, 1.15x and 1.12x on tensor cores; in
 *  exchange no double operation or conversion is left in the sweep's per-block check. */
template <class T>
ABFT_HD double attn_float_tile_coefficient(int64_t nk, int64_t terms, int64_t dm, int64_t lanes) {
  const double u = unit_roundoff<T>(), ud = unit_roundoff<double>();
  const double g_p = gamma(double(terms), u);
  const double g_o = gamma(double((nk + lanes - 1) / lanes) + 2.0, u);
  const double g_k = gamma(double(nk), ud);
  const double e1 = u + g_k * (1.0 + u);
  const double g_r = gamma(double(dm / lanes) + 2.0, u);
  const double shrink = (1.0 - g_r) * (1.0 - u) * (1.0 - g_k);
  if (!(shrink > 0.0)) return std::numeric_limits<double>::infinity();
  return (g_p + g_o * (1.0 + g_p) + e1 + g_r * (1.0 + e1)) / shrink * (1.0 + 8.0 * ud);
}

/** An accumulated product C += A_t B_t over `chunks` tiles (dV, dK over query blocks; dQ
 *  over key blocks): each tile is kc FMAs from zero in a register, then one add into C;
 *  the stored result may be scaled once more (the softmax scale). Observed: column sums
 *  of the stored C in double over `rows`. Reference per tile: v = e^T A_t summed in T over
 *  `v_terms` values (|error| <= gamma(v_terms) e^T|A_t|), then v^T B_t in T over kc terms,
 *  added in double. X = sum_t (e^T|A_t|) |B_t|, formed in T the same way. */
template <class T>
ABFT_HD double attn_accumulated_coefficient(int64_t kc, int64_t chunks, int64_t v_terms,
                                            int64_t rows) {
  const double u = unit_roundoff<T>(), ud = unit_roundoff<double>();
  const double g_elem = gamma(double(kc + chunks) + 2.0, u) + u;  // + the final scaling
  const double g_obs = gamma(double(rows + chunks) + 4.0, ud) * 2.0;
  const double g_v = gamma(double(v_terms), u);
  const double g_ref = g_v + gamma(double(kc), u) * (1.0 + g_v);
  return (g_elem + g_obs + g_ref) * magnitude_inflation<T>(double(kc + v_terms) + 2.0);
}

/** Forward output check: sum_c O_ic against accv_i / l_i, X = accabs_i / l_i. Each of acc,
 *  accv, accabs passes through bc FMAs per key block and two roundings per rescale over
 *  `blocks` key blocks; O = acc / l rounds once, the row sum is in double over head_dim. */
template <class T>
ABFT_HD double attn_output_coefficient(int64_t bc, int64_t blocks, int64_t head_dim) {
  const double u = unit_roundoff<T>(), ud = unit_roundoff<double>();
  const double ops = double(bc + 2 * blocks) + 4.0;
  const double g = gamma(ops, u);
  return (2.0 * g + 3.0 * u + gamma(double(head_dim) + 4.0, ud)) * magnitude_inflation<T>(ops);
}

/** The normalizer against its re-summed duplicate: the same values in the same order, so
 *  equal unless corrupted; the bound only absorbs a different association. */
template <class T>
ABFT_HD double attn_normalizer_coefficient(int64_t bc, int64_t blocks) {
  return 2.0 * gamma(double(bc + 2 * blocks) + 2.0, unit_roundoff<T>());
}

/** Absolute term for underflow in a check over `terms` products (every rounding may add up
 *  to the smallest normal number of T, covering flush-to-zero too). */
template <class T>
ABFT_HD double attn_abs_term(double terms, double scale_abs) {
  return 4.0 * (terms + 16.0) * (scale_abs + 1.0) * static_cast<double>(std::numeric_limits<T>::min());
}

/** Underflow in the float tile check (attn_float_tile_coefficient): the scores' nk x terms
 *  roundings, the observed sum's nk, the reference's and the magnitude's dm + 2 each
 *  (attn_abs_term's smallest normal number per rounding, flush-to-zero included). */
template <class T>
ABFT_HD double attn_float_tile_abs_term(int64_t nk, int64_t terms, int64_t dm) {
  return attn_abs_term<T>(double(nk) * double(terms) + double(nk) + 2.0 * double(dm) + 8.0, 0.0);
}

/** The GPU backward's accumulated gradients as its kernels compute them
 *  (cuda/attention_backward.cu): dV = sum_t P_t^T dO_t and dK = s sum_t dS_t^T Q_t over
 *  `chunks` query tiles, dQ = s sum_t dS_t K_t over `chunks` key tiles. One element (row j,
 *  column c, M_jc = |s| sum over every tile of |a_ij b_ic|): kc fused multiply-adds in float
 *  from zero (the tile's partial), one add of it into the running float sum per tile, one
 *  scaling by s (dK, dQ; harmless for dV): |y^ - y| <= gamma_{kc + chunks + 1} M_jc.
 *  Observed: the column sum over `rows` of the values as computed, in double
 *  (gamma_rows(u_d) sum |y^| <= gamma_rows(u_d) (1 + g_elem) X). Reference: per tile the other
 *  operand's sums v_i = sum_j a_ij in double over at most `v_terms` float values (the very
 *  values the product reads), then s sum_t sum_i v_i b_ic in double, kc * chunks terms:
 *  |error| <= (g_v + gamma_{kc chunks + 2}(u_d)(1 + g_v)) X, X = |s| sum_t sum_i
 *  (sum_j |a_ij|) |b_ic| = sum_j M_jc exactly, formed in double with the same operations and
 *  inflated so that the computed X bounds the exact one. (The storage format's rounding is
 *  checked apart, attn_grad_verdict in attention_bwd_check.hpp.) */
template <class T>
ABFT_HD double attn_bwd_accumulated_coefficient(int64_t kc, int64_t chunks, int64_t v_terms,
                                                int64_t rows) {
  const double u = unit_roundoff<T>(), ud = unit_roundoff<double>();
  const double g_elem = gamma(double(kc + chunks) + 1.0, u);
  const double g_obs = gamma(double(rows) + 1.0, ud) * (1.0 + g_elem);
  const double g_v = gamma(double(v_terms) + 1.0, ud);
  const double n_ref = double(kc) * double(chunks) + 2.0;
  const double g_ref = g_v + gamma(n_ref, ud) * (1.0 + g_v);
  const double g_x = gamma(n_ref + double(v_terms) + 2.0, ud);
  return g_x < 1.0 ? (g_elem + g_obs + g_ref) / (1.0 - g_x) : std::numeric_limits<double>::infinity();
}

/** Underflow in one such column check: every float rounding of an element (kc + chunks + 2 of
 *  them) may lose up to the smallest normal number, times the scaling, over `rows` elements. */
template <class T>
ABFT_HD double attn_bwd_abs_term(int64_t kc, int64_t chunks, int64_t rows, double scale_abs) {
  return attn_abs_term<T>(double(rows) * double(kc + chunks + 4), scale_abs);
}

/** The mma.sync backward's gradient rows (cuda/attention_backward_mma.cu). A row of dV, dK or dQ
 *  is y_j. = s sum_t W_t B_t over `chunks` tiles of 64 (dV: W = P^T, B = dO, s = 1; dK: dS^T and
 *  Q; dQ: dS and K, s the softmax scale): each tile's product on tensor cores from zero (kc =
 *  3 x 64 terms: 3u per addition, ABFT.md §13.2), added once into a float accumulator, scaled
 *  once at the end. W holds the values the products read (rounded to the storage format); B the
 *  storage values. The check: the row's sum over its dm columns, in double, against one more
 *  n-tile of the same products on B's per-row checksum columns in the storage format, x_i =
 *  sum_c B_ic (a double sum rounded to float, scaled by sigma = 2^-8 for binary16, split into
 *  x_hi + x_lo) and a_i = sum_c |B_ic| (likewise, rounded to nearest), read back as
 *  s (hi + lo) / sigma and |s| a / sigma (for a signed W, a further n-tile on |W|, the same
 *  fragments with their sign bits cleared). With M_jc = sum_i |w_ji b_ic| and
 *  X = sum_c M_jc = sum_i |w_ji| a_i exactly, g_t = gamma_{kc + chunks}:
 *  - element: |y^ - y| <= gamma_{kc + chunks + 1} |s| M_jc (g_elem, the scaling included);
 *  - observed: the double sum over dm elements, within gamma_dm(u_d)(1 + g_elem) |s| X;
 *  - reference: the hi and lo columns through the same products and accumulation, within
 *    g_t sum_i |w_ji| (|hi_i| + |lo_i|) <= g_t (1 + 3 u_st)(1 + 2u) sigma X; the columns'
 *    representation, |(hi_i + lo_i) / sigma - x_i| <= rep a_i with rep = gamma_dm(u_d) (the
 *    double sum) + (u + u_st^2)(1 + 2u) (its float rounding; x_lo rounded to the storage format,
 *    u_st of |x_lo| <= u_st |x|); the float add of hi and lo and the scaling by s, 2 roundings
 *    of the whole: |ref - s sum_c Y_jc| <= ((g_t (1 + 3 u_st)(1 + 2u) + rep)(1 + g_2) + g_2) |s| X;
 *  - magnitude: a_i rounded to float (1 - u), to nearest in the storage format (1 - u_st), from a
 *    double sum (1 - gamma_dm(u_d)); the products and accumulation of nonnegative terms (1 - g_t);
 *    the scaling by |s| (1 - u): the computed X is at least shrink X.
 *  So |obs - ref| <= (g_elem + g_obs + g_ref) / shrink X~, (1 + 8 u_d) for the verdict's own
 *  double arithmetic. The stored row's rounding is attn_grad_verdict's; underflow and the
 *  columns' subnormals are attn_mma_grad_abs_term's. */
template <class T>
ABFT_HD double attn_mma_grad_coefficient(int64_t kc, int64_t chunks, int64_t dm, double storage_u) {
  const double u = unit_roundoff<T>(), ud = unit_roundoff<double>();
  const double g_t = gamma(double(kc + chunks), u);
  const double g_elem = gamma(double(kc + chunks) + 1.0, u);
  const double g_d = gamma(double(dm), ud);
  const double g_obs = g_d * (1.0 + g_elem);
  const double g_2 = gamma(2.0, u);
  const double rep = g_d + (u + storage_u * storage_u) * (1.0 + 2.0 * u);
  const double g_ref = (g_t * (1.0 + 3.0 * storage_u) * (1.0 + 2.0 * u) + rep) * (1.0 + g_2) + g_2;
  const double shrink = (1.0 - g_t) * (1.0 - u) * (1.0 - u) * (1.0 - storage_u) * (1.0 - g_d);
  if (!(shrink > 0.0)) return std::numeric_limits<double>::infinity();
  return (g_elem + g_obs + g_ref) / shrink * (1.0 + 8.0 * ud);
}

/** Underflow in one attn_mma_grad_coefficient check: every float rounding of the row's dm
 *  elements and of its three checksum columns (kc + chunks + 4 each) may lose up to the smallest
 *  normal number (flush-to-zero included), times |s|; and the columns' storage values below the
 *  format's normal range (x_hi, x_lo, a: `column_tiny` each, half the subnormal quantum divided
 *  by sigma: 2^-17 for binary16, 2^-134 for bfloat16) weighted by sum_i |w_ji| <= weight_abs. */
template <class T>
ABFT_HD double attn_mma_grad_abs_term(int64_t kc, int64_t chunks, int64_t dm, double scale_abs, double weight_abs,
                                      double column_tiny) {
  return attn_abs_term<T>(double(dm + 3) * double(kc + chunks + 4), scale_abs) +
         (scale_abs > 1.0 ? scale_abs : 1.0) * weight_abs * 3.0 * column_tiny;
}

/** The mma.sync backward's elementwise steps (P, dS): the ones column of a checksum n-tile
 *  gives sum_i w~_i over the values a product read, w~ = w rounded to the storage format
 *  (|w~ - w| <= u_st |w| + tiny), through the tiles' products on tensor cores and the float
 *  accumulation, within g_t sum |w~|, g_t = gamma_{kc + chunks}; the kernel's own float sum f of
 *  the values as produced (each lane `lane_terms` values in order into a partial, `partials`
 *  partials added into its running sum, a butterfly over four lanes) is within g_f sum |w| of
 *  the exact one, g_f = gamma_{lane_terms + partials + 2}, and the float sum W of |w| formed the
 *  same way is at
 *  least (1 - g_f) sum |w|. So |tc - f| <= (u_st + g_t (1 + u_st) + g_f) / (1 - g_f) W
 *  + n tiny (1 + g_t), n values (attn_mma_weight_sum_abs_term). A value corrupted after its sums
 *  (ATTN_PROBS, ATTN_DS) enters tc only. */
template <class T>
ABFT_HD double attn_mma_weight_sum_coefficient(int64_t kc, int64_t chunks, int64_t lane_terms, int64_t partials,
                                               double storage_u) {
  const double u = unit_roundoff<T>(), ud = unit_roundoff<double>();
  const double g_t = gamma(double(kc + chunks), u);
  const double g_f = gamma(double(lane_terms + partials) + 2.0, u);
  if (!(g_f < 1.0)) return std::numeric_limits<double>::infinity();
  return (storage_u + g_t * (1.0 + storage_u) + g_f) / (1.0 - g_f) * (1.0 + 8.0 * ud);
}

/** The absolute part of that check over n values: each value's rounding to the storage format
 *  below its normal range (`storage_tiny`, half its subnormal quantum) and the float roundings'
 *  underflow (two sums, each value's, and each partial's). */
template <class T>
ABFT_HD double attn_mma_weight_sum_abs_term(int64_t n, int64_t partials, double storage_tiny) {
  return double(n) * storage_tiny * 1.01 + attn_abs_term<T>(2.0 * double(n) + 4.0 * double(partials), 0.0);
}

}  // namespace abft::checksum
