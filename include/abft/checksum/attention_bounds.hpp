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

}  // namespace abft::checksum
