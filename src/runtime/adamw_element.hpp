/** \file adamw_element.hpp
 *  \brief One element's AdamW update (optimizer.cpp's formulas), host and device (ABFT_HD): the
 *  host's step loop and the device's (cuda/runtime_ops.cu, AdamW::step_device) call this one
 *  function, so the two updates are the same expressions in the same order.
 */
#pragma once
#include <cmath>
#include <cstdint>

#include "abft/checksum/host_device.hpp"

namespace abft::transformer {

/** w, m, v of one parameter from its (already clipped) gradient g, in double: w *= shrink when
 *  decayed, m = b1 m + (1 - b1) g, v = b2 v + (1 - b2) g^2, w -= step_size m / (sqrt(v)
 *  inv_sqrt_bc2 + eps). */
ABFT_HD void adamw_element(float& w, float g, float& m, float& v, bool decayed, double b1, double b2,
                           double step_size, double inv_sqrt_bc2, double shrink, double eps) {
  const double gi = g;
  double wi = w;
  if (decayed) wi *= shrink;
  const double mi = b1 * double(m) + (1.0 - b1) * gi;
  const double vi = b2 * double(v) + (1.0 - b2) * gi * gi;
  m = static_cast<float>(mi);
  v = static_cast<float>(vi);
  wi -= step_size * mi / (sqrt(vi) * inv_sqrt_bc2 + eps);
  w = static_cast<float>(wi);
}

}  // namespace abft::transformer
