/** \file c2r_tables.cpp
 *  \brief fft_c2r_tables over the library's CPU FFT (c2r_tables.hpp).
 */
#include "cpu/fft/c2r_tables.hpp"

#include "abft/fft.h"

namespace abft::fft::detail {

bool c2r_tables(const abft::checksum::FftLibraryShape& sh, abft::checksum::FftC2RTables& t) {
  abft_fft_plan_t plans[3][2] = {};  // by dimension (the first of equal lengths) and sign
  auto dft = [&](int64_t n, const double* in, double* out, int sign) {
    int d = 0;
    while (d < sh.rank - 1 && sh.n[d] != n) ++d;
    abft_fft_plan_t& p = plans[d][sign < 0 ? 0 : 1];
    if (!p) {
      if (abft_fft_plan_1d(&p, nullptr, ABFT_PRECISION_DOUBLE, ABFT_FFT_C2C, n, sign, 0) != ABFT_STATUS_SUCCESS)
        return false;
      abft_fft_set_policy(p, ABFT_POLICY_OFF);
    }
    return abft_fft_execute(p, in, out, nullptr) == ABFT_STATUS_SUCCESS;
  };
  const bool ok = abft::checksum::fft_c2r_tables(sh, dft, t);
  for (auto& pd : plans)
    for (abft_fft_plan_t p : pd)
      if (p) abft_fft_destroy(p);
  return ok;
}

}  // namespace abft::fft::detail
