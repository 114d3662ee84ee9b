/** \file attention_row_check.hpp
 *  \brief The verdicts of the attention forward's checks on one query row, host and device
 *  (ABFT_HD): the GPU kernel calls them on its registers, the host tests call them on an
 *  emulation of the kernel's arithmetic, so CI runs the device path's decision code.
 *  The bounds are attention_bounds.hpp's; docs/ABFT.md §10 and §13 derive them.
 */
#pragma once
#include <cfloat>
#include <cmath>
#include <cstdint>

#include "abft/checksum/host_device.hpp"

namespace abft::checksum {

enum class AttnVerdict : int { Pass = 0, Fail = 1, Skip = 2 };

/** One product tile's query-side check: observed sum of the row's scores over the tile's keys,
 *  reference (e^T K_blk) q and magnitude X = (e^T |K_blk|) |q|, all in double. Skip when the
 *  inputs are not finite or the float scores could overflow (X > FLT_MAX / 4): data, not a
 *  fault. A NaN or infinite observed sum from finite inputs fails. */
ABFT_HD AttnVerdict attn_tile_verdict(double obs, double ref, double mag, double coef, double abs) {
  if (!(mag <= double(FLT_MAX) / 4.0) || !(std::fabs(ref) <= 1e300)) return AttnVerdict::Skip;
  return std::fabs(obs - ref) <= coef * mag + abs ? AttnVerdict::Pass : AttnVerdict::Fail;
}

/** What the forward sweep leaves for one query row that attended at least one key. */
struct AttnRowState {
  float m = 0, m2 = 0;  ///< the running maximum and its duplicate
  float l = 0, l2 = 0;  ///< the normalizer and its re-sum from the stored probabilities
  double rowsum = 0;    ///< sum_c O_ic of the output row as computed (float), in double
  double stored = 0;    ///< sum_c of the row as stored (rounded to the storage format), in double
  float accv = 0;       ///< sum_j P_ij v_j through the output's rescaling
  float acca = 0;       ///< sum_j P_ij a_j (a_j = sum_c |V_jc|), the output's magnitude
  /// The least normalizer a clean row can have: 1 where the maximum's own probability is
  /// exactly exp(0) = 1; below 1 where it is formed as exp2(fma(s, c, -m c)), whose argument at
  /// the maximum is the rounding of m c (the mma kernel, ABFT.md §13.4).
  double l_min = 1.0;
};

/** The end-of-row checks (docs/ABFT.md §10.2, §13): the duplicate maximum bit for bit, l >= l_min
 *  (1) and finite, |l - l2| <= c_norm l, |sum_c O_ic - accv / l| <= c_out acca / l + abs on the row
 *  as computed, and, when it is stored in a narrower format of unit roundoff storage_u (0: the
 *  same format), the stored row against the computed one: each element rounds by at most
 *  storage_u of itself and sum_c |O_ic| <= (1 + c_out) acca / l. Two checks rather than one
 *  loose one: a fault in the float accumulation is seen at float resolution, not at the
 *  storage format's. storage_abs: the absolute part of the storage rounding summed over the
 *  row (binary16's subnormals: head_dim x 2^-25). Skip when the magnitude column is not finite
 *  (V not finite, or its sums overflow): data. */
ABFT_HD AttnVerdict attn_row_verdict(const AttnRowState& s, double c_out, double c_norm, double abs,
                                     double storage_u, double storage_abs = 0.0) {
  if (!(s.m == s.m2)) return AttnVerdict::Fail;
  if (!(double(s.l) >= s.l_min) || !(s.l <= FLT_MAX)) return AttnVerdict::Fail;
  if (!(std::fabs(double(s.l) - double(s.l2)) <= c_norm * double(s.l))) return AttnVerdict::Fail;
  if (!(double(s.acca) <= double(FLT_MAX))) return AttnVerdict::Skip;
  const double l = double(s.l);
  const double mag = double(s.acca) / l;
  if (!(std::fabs(s.rowsum - double(s.accv) / l) <= c_out * mag + abs)) return AttnVerdict::Fail;
  const double store_lim = storage_u * 1.01 * (1.0 + c_out) * mag + abs + storage_abs;
  return std::fabs(s.stored - s.rowsum) <= store_lim ? AttnVerdict::Pass : AttnVerdict::Fail;
}

}  // namespace abft::checksum
