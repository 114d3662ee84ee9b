/** \file fft_real_line_check_test.cpp
 *  \brief The CPU engine's whole-line checks of real lines see every input element and every
 *  output fault, whatever its phase (src/cpu/fft/fft_line.cpp, docs/ABFT.md §9.1, R2C and C2R).
 *
 *  Weighting only the stored half spectrum y_k, k <= n/2, gives input weights that vanish at
 *  some positions (n = 3 mod 4 at j = (n-1)/2; n = 6 mod 8 at (n-2)/4 and (3n-2)/4): an error
 *  entering the transform there would move every output by its size and the check by nothing.
 *  Weighting the conjugate mirror of the missing half at full weight instead cancels output
 *  faults of one phase. The engine adds the mirror at half weight; this test drives a LinePlan
 *  directly (the internal class the plans are made of) and checks both directions:
 *   - an input perturbation d at any position j (the transform applied to x + d e_j, the input
 *     side taken from x) moves check_out - check_in by at least |d| / 2, on the lengths where the
 *     old weights were blind and on a few others, float and double;
 *   - an output perturbation d e^{i theta} of any stored bin, for 16 phases, moves check_out by
 *     at least |d| / 2;
 *   - on clean data the residual stays below the line's bound.
 *  C2R (half spectrum in, real line out): an error d in a stored bin k moves the check by
 *  W_k d + W_{n-k} conj(d), smallest over the phase of d at ||W_k| - |W_{n-k}||; pseudo-random
 *  output weights alone left that near zero for some bin (3e-4 of the error at n = 1000);
 *  the engine pushes every pair apart (fft_c2r_weights), which keeps it >= 0.2 |d| with
 *  min |w_j| = 1. Checked: every bin at its worst phase (the smallest singular value of the
 *  2 x 2 real map from (Re d, Im d) to the check; bins 0 and n/2 only through their real part,
 *  which is all a C2R transform reads there), and every real output.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "abft/checksum/fft_c2r_weights.hpp"
#include "core/cpu_features.hpp"
#include "cpu/fft/fft_kernels.hpp"
#include "cpu/fft/fft_line.hpp"

namespace {

using abft::cpu::fft::LinePlan;

template <class T>
void check_line(int64_t n) {
  LinePlan<T> line(ABFT_FFT_R2C, n, -1, abft::cpu::fft::fft_kernels<T>(abft::cpu::active_isa()), 1);
  const int64_t h1 = n / 2 + 1;
  std::vector<T> x(static_cast<size_t>(n)), y(static_cast<size_t>(2 * h1)), yp(static_cast<size_t>(2 * h1));
  std::vector<T> work(static_cast<size_t>(line.work_scalars()) + 64);
  std::mt19937_64 g(uint64_t(n) * 7 + sizeof(T));
  std::uniform_real_distribution<double> u(-1, 1);
  for (T& v : x) v = T(u(g));
  line.compute(x.data(), y.data(), work.data(), nullptr);
  double x2 = 0;
  const std::complex<double> in = line.check_in(x.data(), &x2);
  const std::complex<double> out = line.check_out(y.data());
  const double bound = line.bound(std::sqrt(x2));
  EXPECT_LE(std::abs(out - in), bound) << "clean line n=" << n;

  // Input side: x + d e_j, transformed, against the clean input side. |d| is large against the
  // bound so the transform's own rounding does not matter.
  const double d = 1e3 * bound + 1.0;
  for (int64_t j = 0; j < n; ++j) {
    std::vector<T> xp = x;
    xp[size_t(j)] = T(double(xp[size_t(j)]) + d);
    const double moved = double(xp[size_t(j)]) - double(x[size_t(j)]);
    line.compute(xp.data(), yp.data(), work.data(), nullptr);
    const double shift = std::abs(line.check_out(yp.data()) - in);
    EXPECT_GE(shift, 0.5 * std::fabs(moved) * (1 - 1e-3) - 2 * bound) << "n=" << n << " input j=" << j;
  }
  // Output side: one stored bin moved by d e^{i theta}.
  for (int64_t k = 0; k < h1; ++k)
    for (int t = 0; t < 16; ++t) {
      yp = y;
      const double th = 2 * 3.14159265358979323846 * t / 16;
      yp[size_t(2 * k)] = T(double(yp[size_t(2 * k)]) + d * std::cos(th));
      yp[size_t(2 * k + 1)] = T(double(yp[size_t(2 * k + 1)]) + d * std::sin(th));
      const std::complex<double> moved(double(yp[size_t(2 * k)]) - double(y[size_t(2 * k)]),
                                       double(yp[size_t(2 * k + 1)]) - double(y[size_t(2 * k + 1)]));
      const double shift = std::abs(line.check_out(yp.data()) - out);
      EXPECT_GE(shift, 0.5 * std::abs(moved) * (1 - 1e-3)) << "n=" << n << " output k=" << k << " phase " << t;
    }
}

template <class T>
void check_c2r_line(int64_t n) {
  LinePlan<T> line(ABFT_FFT_C2R, n, +1, abft::cpu::fft::fft_kernels<T>(abft::cpu::active_isa()), 1);
  const int64_t h1 = n / 2 + 1;
  std::vector<T> X(static_cast<size_t>(2 * h1)), y(static_cast<size_t>(n)), yp(static_cast<size_t>(n));
  std::vector<T> work(static_cast<size_t>(line.work_scalars()) + 64);
  std::mt19937_64 g(uint64_t(n) * 11 + sizeof(T));
  std::uniform_real_distribution<double> u(-1, 1);
  for (T& v : X) v = T(u(g));
  X[1] = T(0);  // Hermitian-consistent: the self-mirrored bins are real
  if (n % 2 == 0) X[static_cast<size_t>(2 * (n / 2) + 1)] = T(0);
  line.compute(X.data(), y.data(), work.data(), nullptr);
  double x2 = 0;
  const std::complex<double> in = line.check_in(X.data(), &x2);
  const std::complex<double> out = line.check_out(y.data());
  const double bound = line.bound(std::sqrt(x2));
  EXPECT_LE(std::abs(out - in), bound) << "clean c2r line n=" << n;
  // The check moves linearly with the error (Re d, Im d) of a bin: probe both directions and
  // take the smallest singular value of that 2 x 2 real map, the exact worst phase (a grid of
  // phases can miss it by far).
  const double d = 1e3 * bound + 1.0;
  const double floor = abft::checksum::kC2RPush / (1 + abft::checksum::kC2RPush);
  for (int64_t k = 0; k < h1; ++k) {
    const bool self = k == 0 || 2 * k == n;
    std::complex<double> col[2];
    double moved[2] = {0, 0};
    for (int c = 0; c < (self ? 1 : 2); ++c) {
      std::vector<T> Xp = X;
      Xp[size_t(2 * k + c)] = T(double(Xp[size_t(2 * k + c)]) + d);
      moved[c] = double(Xp[size_t(2 * k + c)]) - double(X[size_t(2 * k + c)]);
      line.compute(Xp.data(), yp.data(), work.data(), nullptr);
      col[c] = (line.check_out(yp.data()) - in) / moved[c];  // per unit of error
    }
    double smin;
    if (self) {
      smin = std::abs(col[0]);  // only Re X is read at bins 0 and n/2
    } else {
      const double a = col[0].real(), b = col[1].real(), c = col[0].imag(), e = col[1].imag();
      const double fro = a * a + b * b + c * c + e * e, det = std::fabs(a * e - b * c);
      smin = std::sqrt(std::max(0.0, (fro - std::sqrt(std::max(0.0, fro * fro - 4 * det * det))) / 2));
    }
    // At least kC2RPush / (1 + kC2RPush) of the error's size (abft/checksum/fft_c2r_weights.hpp),
    // less the clean residual's share (2 bounds over an error of d).
    EXPECT_GE(smin, floor * (1 - 1e-3) - 4 * bound / d) << "n=" << n << " bin k=" << k;
  }
  for (int64_t j = 0; j < n; ++j) {
    yp = y;
    yp[size_t(j)] = T(double(yp[size_t(j)]) + d);
    const double moved = double(yp[size_t(j)]) - double(y[size_t(j)]);
    EXPECT_GE(std::abs(line.check_out(yp.data()) - out), std::fabs(moved) * (1 - 1e-3)) << "n=" << n << " output j=" << j;
  }
}

TEST(FftC2RCheck, SeesEveryBinAtEveryPhaseAndEveryOutput_f32) {
  for (int64_t n : {1, 2, 3, 8, 9, 64, 100, 243, 1000}) check_c2r_line<float>(n);
}
TEST(FftC2RCheck, SeesEveryBinAtEveryPhaseAndEveryOutput_f64) {
  for (int64_t n : {1, 2, 3, 8, 9, 64, 100, 243, 1000}) check_c2r_line<double>(n);
}

// Lengths where the stored half's own weights vanish (3, 7, 127, 243: n = 3 mod 4; 6, 30: n = 6
// mod 8), and others: even (the half-length path) and odd.
TEST(FftR2CCheck, SeesEveryInputAndEveryOutputFault_f32) {
  for (int64_t n : {3, 6, 7, 8, 30, 64, 100, 127, 243}) check_line<float>(n);
}
TEST(FftR2CCheck, SeesEveryInputAndEveryOutputFault_f64) {
  for (int64_t n : {3, 6, 7, 8, 30, 64, 100, 127, 243}) check_line<double>(n);
}

}  // namespace
