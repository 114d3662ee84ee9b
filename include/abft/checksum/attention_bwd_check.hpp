/** \file attention_bwd_check.hpp
 *  \brief The verdicts of the GPU attention backward's gradient checks (dV, dK per key block,
 *  dQ per query block), host and device (ABFT_HD): cuda/attention_backward.cu calls them on its
 *  column sums, tests/checksum/attention_bwd_check_test.cpp on a host emulation of the kernels'
 *  arithmetic. The bound is attn_bwd_accumulated_coefficient (attention_bounds.hpp); the score
 *  and dP tiles use attn_tile_verdict (attention_row_check.hpp), as the forward does.
 */
#pragma once
#include <cfloat>
#include <cmath>
#include <cstdint>

#include "abft/checksum/attention_row_check.hpp"
#include "abft/checksum/host_device.hpp"
#include "abft/checksum/num_format.hpp"

namespace abft::checksum {

/** How a gradient computed in float is stored: the extra rounding's unit roundoff (0 when the
 *  storage is float itself), the largest finite stored value, and the absolute error of that
 *  rounding below the normal range (half the subnormal quantum, 2^(emin - p)). */
struct AttnGradStorage {
  double u = 0.0;
  double max = double(FLT_MAX);
  double tiny = 0.0;
};

ABFT_HD AttnGradStorage attn_grad_storage(NumFormat f) {
  AttnGradStorage s;
  if (f == NumFormat::F32 || f == NumFormat::F64) return s;
  s.u = format_unit_roundoff(f);
  s.max = format_max(f);
  s.tiny = std::ldexp(1.0, format_emin(f) - format_digits(f));
  return s;
}

/** One column of a finished gradient block (dV, dK: a key block's keys; dQ: a query block's
 *  queries), every sum in double. */
struct AttnGradColumn {
  double obs = 0.0;     ///< sum over the block's rows of the values as computed (float)
  double stored = 0.0;  ///< the same sum over the values as stored (rounded to the storage format)
  double ref = 0.0;     ///< the reference, scaled like the stored values
  double mag = 0.0;     ///< X, scaled like the stored values
  double peak = 0.0;    ///< X of the float accumulator before its scaling (max with mag): how
                        ///< large an intermediate float value of the column may legitimately be
};

/** |obs - ref| <= coef X + abs on the values as computed (a fault in the float accumulation is
 *  seen at float resolution), then the stored values against the computed ones: each element
 *  rounds by at most storage.u of itself (sum |y^| <= (1 + coef) X) or storage.tiny below the
 *  normal range, over `rows` elements. Skip when the reference or X is not finite (non-finite
 *  data whose other checks did not say so), or when a non-finite sum may be a legitimate
 *  overflow: of a float accumulator when (1 + coef) peak reaches FLT_MAX / 2, of the storage
 *  format when (1 + coef) X reaches its largest value / 2. Any other non-finite sum fails. */
ABFT_HD AttnVerdict attn_grad_verdict(const AttnGradColumn& g, double coef, double abs, int64_t rows,
                                      const AttnGradStorage& storage) {
  if (!(g.mag <= 1e300) || !(g.peak <= 1e300) || !(std::fabs(g.ref) <= 1e300)) return AttnVerdict::Skip;
  const double grow = 1.0 + coef;
  if (!(std::fabs(g.obs) <= DBL_MAX))
    return grow * g.peak >= double(FLT_MAX) / 2.0 ? AttnVerdict::Skip : AttnVerdict::Fail;
  if (!(std::fabs(g.obs - g.ref) <= coef * g.mag + abs)) return AttnVerdict::Fail;
  if (!(std::fabs(g.stored) <= DBL_MAX))
    return grow * g.mag >= storage.max / 2.0 ? AttnVerdict::Skip : AttnVerdict::Fail;
  const double lim = storage.u * 1.01 * grow * g.mag + double(rows) * storage.tiny + abs;
  return std::fabs(g.stored - g.obs) <= lim ? AttnVerdict::Pass : AttnVerdict::Fail;
}

/** A unit's outcome from its flags: `skip_in` (non-finite inputs, or a score / dP tile whose
 *  magnitudes may overflow float: data, decided before any result), `bad` (a check failed),
 *  `skip_out` (a gradient verdict said Skip), `hard` (an exact check failed: a fingerprint of a
 *  copy, never data). A Skip downstream of a failure is the failure's echo (a corrupt value grown
 *  into an overflow), never data: it does not hide the failure; nothing hides a hard failure. */
struct AttnUnitOutcome {
  bool failed = false, skipped = false;
};
ABFT_HD AttnUnitOutcome attn_unit_outcome(bool skip_in, bool bad, bool skip_out, bool hard = false) {
  AttnUnitOutcome o;
  o.failed = hard || (bad && !skip_in);
  o.skipped = !hard && (skip_in || (!bad && skip_out));
  return o;
}

}  // namespace abft::checksum
