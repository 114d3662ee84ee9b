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
  double rowsum = 0;    ///< sum_c O_ic of the stored (rounded) output row, in double
  float accv = 0;       ///< sum_j P_ij v_j through the output's rescaling
  float acca = 0;       ///< sum_j P_ij a_j (a_j = sum_c |V_jc|), the output's magnitude
};

/** The end-of-row checks (docs/ABFT.md §10.2): the duplicate maximum bit for bit, l >= 1 and
 *  finite, |l - l2| <= c_norm l, and |sum_c O_ic - accv / l| <= c_out acca / l + abs. Skip when
 *  the magnitude column is not finite (V not finite, or its sums overflow): data. */
ABFT_HD AttnVerdict attn_row_verdict(const AttnRowState& s, double c_out, double c_norm, double abs) {
  if (!(s.m == s.m2)) return AttnVerdict::Fail;
  if (!(s.l >= 1.0f) || !(s.l <= FLT_MAX)) return AttnVerdict::Fail;
  if (!(std::fabs(double(s.l) - double(s.l2)) <= c_norm * double(s.l))) return AttnVerdict::Fail;
  if (!(double(s.acca) <= double(FLT_MAX))) return AttnVerdict::Skip;
  const double l = double(s.l);
  const double diff = std::fabs(s.rowsum - double(s.accv) / l);
  return diff <= c_out * double(s.acca) / l + abs ? AttnVerdict::Pass : AttnVerdict::Fail;
}

}  // namespace abft::checksum
