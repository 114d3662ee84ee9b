/** \file fft_c2r_weights.hpp
 *  \brief The C2R check's weights, built on the host in double (docs/ABFT.md §9.1 and §12.1):
 *  the CPU engine's C2R lines by pushing bin pairs apart (fft_c2r_weights), the GPU engine by
 *  the gain construction (fft_c2r_gain_weights, every rank) in per-dimension tables
 *  (fft_c2r_tables, whose device view FftC2RWeights the check's term functions in
 *  fft_library_check.hpp read), and the smallest gain a table gives (fft_c2r_min_gain).
 *
 *  Why C2R needs designed weights: a stored bin k stands for itself and its conjugate mirror -k,
 *  so an error d there moves the check by W_k d + W_-k conj(d) (halved in a self-conjugate
 *  plane, where both are stored), whose smallest modulus over the phase of d is
 *  ||W_k| - |W_-k||: the moduli of W must differ between every bin and its mirror.
 */
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "abft/checksum/fft_library_check.hpp"

namespace abft::checksum {

/** C2R (rank 1) weights of the CPU engine's lines, built on the host in double (docs/ABFT.md
 *  §9.1, C2R; the GPU engine's are fft_c2r_tables below). An error d in a stored bin k moves the check by W_k d + W_{n-k} conj(d),
 *  at least ||W_k| - |W_{n-k}|| over the phase of d, where W = F w is the transform of the output
 *  weights. Unit pseudo-random phases w (seeded, as before) keep every coefficient large but
 *  leave that difference near zero for some bin (3e-4 of the error at n = 1000); a designed
 *  W (a stepped chirp) fixes it but its structure lets faults inside the transform cancel (a
 *  campaign found stage faults it did not see). So the random w is kept and each bin pair is
 *  pushed apart by kPush: the larger of |W_k|, |W_{n-k}| grows by kPush, the smaller shrinks by
 *  it (to zero at least), a self-mirrored bin is raised to kPush. That changes every |w_j| by at
 *  most kPush (a bin moves w by at most |dW| / n at every j), and w is rescaled to min |w_j| = 1:
 *  every bin then moves the check by at least kPush at any phase, every output by at least
 *  one. `dft(in, out, sign)` is an unnormalised DFT of length n in double (interleaved re, im).
 *  Outputs: the coefficient pairs of the half spectrum (A_k for Re X_k, B_k for Im X_k;
 *  2 (n/2 + 1) values), the output weights w (n values), their norms. False when dft fails. */
constexpr double kC2RPush = 0.25;
template <class Dft>
bool fft_c2r_weights(int64_t n, Dft&& dft, std::vector<Cd>& pairs, std::vector<Cd>& w, double& w_norm,
                     double& v_norm) {
  const int64_t h = n / 2;
  std::vector<double> W(static_cast<size_t>(2 * n)), x(static_cast<size_t>(2 * n));
  uint64_t st = 0x9E3779B97F4A7C15ull;  // seed 1 of the former search
  for (int64_t j = 0; j < n; ++j) {
    st ^= st << 13;
    st ^= st >> 7;
    st ^= st << 17;
    const Cd z = exp_i_pi(int64_t((st >> 11) % 65536), 32768, +1);
    x[size_t(2 * j)] = z.re;
    x[size_t(2 * j + 1)] = z.im;
  }
  if (!dft(x.data(), W.data(), +1)) return false;
  auto scale_to = [&](int64_t k, double mag) {  // |W_k| := mag, the phase kept (or 1 if none)
    double& re = W[size_t(2 * k)];
    double& im = W[size_t(2 * k + 1)];
    const double a = std::hypot(re, im);
    if (a > 0) re *= mag / a, im *= mag / a;
    else re = mag, im = 0;
  };
  for (int64_t k = 0; k <= h; ++k) {
    const int64_t kk = (n - k) % n;
    const double a = std::hypot(W[size_t(2 * k)], W[size_t(2 * k + 1)]);
    if (k == kk || 2 * k == n) {
      if (a < kC2RPush) scale_to(k, kC2RPush);
      continue;
    }
    const double b = std::hypot(W[size_t(2 * kk)], W[size_t(2 * kk + 1)]);
    const int64_t big = a >= b ? k : kk, small = a >= b ? kk : k;
    scale_to(big, std::fmax(a, b) + kC2RPush);
    scale_to(small, std::fmax(std::fmin(a, b) - kC2RPush, 0.0));
  }
  if (!dft(W.data(), x.data(), -1)) return false;  // n w (the inverse transform, unnormalised)
  double mn = 1e300;
  for (int64_t j = 0; j < n; ++j) mn = std::fmin(mn, std::hypot(x[size_t(2 * j)], x[size_t(2 * j + 1)]));
  if (!(mn > 0)) return false;
  for (double& t : x) t /= mn;
  if (!dft(x.data(), W.data(), +1)) return false;  // W = F w of the stored w, to double rounding
  w.resize(static_cast<size_t>(n));
  double wn = 0;
  for (int64_t j = 0; j < n; ++j) {
    w[size_t(j)] = {x[size_t(2 * j)], x[size_t(2 * j + 1)]};
    wn += x[size_t(2 * j)] * x[size_t(2 * j)] + x[size_t(2 * j + 1)] * x[size_t(2 * j + 1)];
  }
  pairs.assign(static_cast<size_t>(2 * (h + 1)), Cd{});
  double vn = 0;
  for (int64_t k = 0; k <= h; ++k) {
    const int64_t kk = (n - k) % n;
    const Cd a{W[size_t(2 * k)], W[size_t(2 * k + 1)]}, b{W[size_t(2 * kk)], W[size_t(2 * kk + 1)]};
    const bool self = k == 0 || 2 * k == n;
    const Cd A = self ? a : Cd{a.re + b.re, a.im + b.im};
    const Cd B = self ? Cd{} : Cd{-(a.im - b.im), a.re - b.re};  // i (a - b)
    pairs[size_t(2 * k)] = A;
    pairs[size_t(2 * k + 1)] = B;
    vn += A.re * A.re + A.im * A.im + B.re * B.re + B.im * B.im;
  }
  w_norm = std::sqrt(wn) * (1.0 + 1e-12);
  v_norm = std::sqrt(vn) * (1.0 + 1e-12);
  return true;
}


/** The gain construction's ratio |W_k| / |W_-k| for dimension d of a rank >= 2 C2R (d = 0, 1,
 *  2: 2, 4, 16, i.e. log ratios L_d = 2^d log 2). A bin's log ratio is sum_d e_d L_d with
 *  e_d in {-1, 0, +1} (0 where k_d is self-mirrored, 0 or n_d / 2), which is a nonzero multiple
 *  of log 2 unless every e_d is 0: every bin whose mirror differs from it sees a ratio of at
 *  least 2 between its two coefficients. */
inline double fft_c2r_gain_ratio(int d) { return d == 0 ? 2.0 : d == 1 ? 4.0 : 16.0; }

/** One dimension of the gain construction (ranks 2 and 3, docs/ABFT.md §12.1): output weights
 *  w (n values) and W = F_+ w (the unnormalised DFT of sign +1) with
 *      W_k = A_k (1 - g s_k),   g = (r - 1) / (r + 1),  r = fft_c2r_gain_ratio(d),
 *  s_k = +1 for 0 < k < n/2, -1 for n/2 < k < n, 0 at k = 0 and n/2, where A = F_+ a is the
 *  transform of a real pseudo-random +-1 sequence a whose every |A_k| was first raised to at
 *  least sqrt(n) / 2 (the phase kept, the Hermitian pairs kept conjugate, so a stays real).
 *  Then |W_k| / |W_-k| = (1 - g) / (1 + g) = 1 / r for 0 < k < n/2 exactly (to rounding), every
 *  |W_k| >= (1 - g) sqrt(n) / 2 before the scaling below, and w = a + i g h with h real (the
 *  odd part s A transforms to an imaginary sequence), so |w_j| >= |a_j|, which the raised bins
 *  moved from 1 by at most their total change / n. Of 16 seeds the one with the largest
 *  min |w_j| is kept and w scaled to min |w_j| = 1 (every output error then moves the check by
 *  at least itself); W is recomputed from the stored w. `dft(in, out, sign)`: an unnormalised
 *  DFT of length n in double (interleaved re, im). False when dft fails. */
template <class Dft>
bool fft_c2r_gain_weights(int64_t n, int d, Dft&& dft, std::vector<Cd>& w, std::vector<Cd>& W) {
  const double r = fft_c2r_gain_ratio(d), g = (r - 1) / (r + 1), floor = 0.5 * std::sqrt(double(n));
  const size_t N = static_cast<size_t>(n);
  std::vector<double> a(2 * N), A(2 * N), x(2 * N), best;
  double best_min = -1;
  for (uint64_t seed = 0; seed < 16; ++seed) {
    uint64_t st = 0x9E3779B97F4A7C15ull ^ (uint64_t(d + 1) * 0xD1B54A32D192ED03ull) ^ (seed * 0xA24BAED4963EE407ull);
    for (size_t j = 0; j < N; ++j) {
      st ^= st << 13;
      st ^= st >> 7;
      st ^= st << 17;
      a[2 * j] = (st >> 40) & 1 ? 1.0 : -1.0;
      a[2 * j + 1] = 0.0;
    }
    if (!dft(a.data(), A.data(), +1)) return false;
    for (int64_t k = 0; 2 * k <= n; ++k) {
      const size_t i = size_t(k), m = size_t((n - k) % n);
      double& re = A[2 * i];
      double& im = A[2 * i + 1];
      if (i == m || 2 * k == n) {  // self-mirrored: real; raise its size, keep its sign
        im = 0.0;
        if (std::fabs(re) < floor) re = re < 0 ? -floor : floor;
        continue;
      }
      const double mag = std::hypot(re, im);
      if (mag < floor) {
        if (mag > 0) re *= floor / mag, im *= floor / mag;
        else re = floor, im = 0.0;
      }
      A[2 * m] = re, A[2 * m + 1] = -im;  // the mirror: the conjugate (a stays real)
    }
    for (int64_t k = 0; k < n; ++k) {
      const double s = (k == 0 || 2 * k == n) ? 0.0 : (2 * k < n ? 1.0 : -1.0);
      A[2 * size_t(k)] *= 1.0 - g * s;
      A[2 * size_t(k) + 1] *= 1.0 - g * s;
    }
    if (!dft(A.data(), x.data(), -1)) return false;  // n w
    double mn = 1e300;
    for (size_t j = 0; j < N; ++j) mn = std::fmin(mn, std::hypot(x[2 * j], x[2 * j + 1]));
    if (mn > best_min) best_min = mn, best = x;
  }
  if (!(best_min > 0)) return false;
  w.resize(N);
  for (size_t j = 0; j < N; ++j) {
    best[2 * j] /= best_min, best[2 * j + 1] /= best_min;
    w[j] = {best[2 * j], best[2 * j + 1]};
  }
  if (!dft(best.data(), A.data(), +1)) return false;  // W = F_+ w of the stored w
  W.resize(N);
  for (size_t k = 0; k < N; ++k) W[k] = {A[2 * k], A[2 * k + 1]};
  return true;
}

/** The GPU engine's C2R tables (host copy): per dimension the output weights w[d] and their
 *  transforms W[d] (n_d values each), and the norms the bound takes. */
struct FftC2RTables {
  std::vector<Cd> w[3], W[3];
  double w_norm = 0, v_norm = 0;
  /** A view over these host vectors (the host tests; the engine copies them to the device). */
  FftC2RWeights view() const {
    FftC2RWeights v;
    for (int d = 0; d < 3; ++d) v.w[d] = w[d].empty() ? nullptr : w[d].data(), v.W[d] = W[d].empty() ? nullptr : W[d].data();
    return v;
  }
};

/** The GPU engine's C2R tables of a shape (kind 2, rank 1..3): fft_c2r_gain_weights per
 *  dimension (at rank 1 too: its smallest gain over bin and phase, 13.5 at n = 999, is far above
 *  the pushed-apart construction's floor of 0.2, which the CPU engine's lines keep). The norms: ||w|| = prod_d ||w[d]||, and ||v||, the
 *  norm over the stored bins of the input side's real-linear map x -> (its term), whose two
 *  columns A = h (W_k + W_-k), B = i h (W_k - W_-k) have |A|^2 + |B|^2 = 2 h^2 (|W_k|^2 +
 *  |W_-k|^2): ||v||^2 = 2 prod_{d < last} (sum_k |W[d]_k|^2) sum_{k <= n/2} h_k^2 (|W[L]_k|^2 +
 *  |W[L]_-k|^2), with h_k = 1/2 on the self-conjugate planes. `dft(n, in, out, sign)`: an
 *  unnormalised DFT of length n in double. False when a dft fails. */
template <class Dft>
bool fft_c2r_tables(const FftLibraryShape& sh, Dft&& dft, FftC2RTables& t) {
  for (int d = 0; d < 3; ++d) t.w[d].clear(), t.W[d].clear();
  t.w_norm = t.v_norm = 0;
  double wn = 1, outer = 1;
  const int L = sh.rank - 1;
  for (int d = 0; d < sh.rank; ++d) {
    const int64_t n = sh.n[d];
    auto dd = [&](const double* in, double* out, int sign) { return dft(n, in, out, sign); };
    if (!fft_c2r_gain_weights(n, d, dd, t.w[d], t.W[d])) return false;
    double s = 0;
    for (const Cd& z : t.w[d]) s += z.re * z.re + z.im * z.im;
    wn *= s;
    if (d < L) {
      double S = 0;
      for (const Cd& z : t.W[d]) S += z.re * z.re + z.im * z.im;
      outer *= S;
    }
  }
  const int64_t n = sh.n[L];
  double last = 0;
  for (int64_t k = 0; 2 * k <= n; ++k) {
    const Cd a = t.W[L][size_t(k)], b = t.W[L][size_t(fft_mirror_index(k, n))];
    const double h = (k == 0 || 2 * k == n) ? 0.5 : 1.0;
    last += h * h * (a.re * a.re + a.im * a.im + b.re * b.re + b.im * b.im);
  }
  t.w_norm = std::sqrt(wn) * (1.0 + 1e-12);
  t.v_norm = std::sqrt(2.0 * outer * last) * (1.0 + 1e-12);
  return true;
}

/** The smallest gain of the tables' check over every stored bin and the phase of its error:
 *  h ||W_k| - |W_-k|| (h = 1/2 in the self-conjugate planes), or |W_k| for a self-mirrored bin
 *  (its real part, all the transform uses). O(N) on the host (tests, campaign limits). */
inline double fft_c2r_min_gain(const FftLibraryShape& sh, const FftC2RTables& t) {
  const int L = sh.rank - 1;
  int64_t dims[3] = {1, 1, 1};
  for (int d = 0; d < sh.rank; ++d) dims[d] = sh.in_dim(d);
  double g = 1e300;
  for (int64_t e = 0; e < sh.in_count(); ++e) {
    int64_t idx[3] = {0, 0, 0};
    fft_unravel(e, sh.rank, dims, idx);
    Cd a{1, 0}, b{1, 0};
    bool self = true;
    for (int d = 0; d < sh.rank; ++d) {
      const int64_t m = fft_mirror_index(idx[d], sh.n[d]);
      self = self && m == idx[d];
      a = cmul(a, t.W[d][size_t(idx[d])]);
      b = cmul(b, t.W[d][size_t(m)]);
    }
    const double h = (idx[L] == 0 || 2 * idx[L] == sh.n[L]) ? 0.5 : 1.0;
    const double ma = std::hypot(a.re, a.im), mb = std::hypot(b.re, b.im);
    const double ge = self ? ma : h * std::fabs(ma - mb);
    g = ge < g ? ge : g;
  }
  return g;
}

/** Make one C2R input signal Hermitian-consistent in place, as a real signal's half spectrum is
 *  (host data: tests, campaigns): every bin of a self-conjugate plane (last index 0, and n/2
 *  for even n) whose mirror comes first set to the conjugate of that mirror, every
 *  self-mirrored bin to its real part. x: interleaved complex values of T, element idx (row-major
 *  over the half spectrum's dims) at x[2 * stride * flat(idx)]. */
template <class T>
void fft_c2r_make_hermitian(T* x, const FftLibraryShape& sh, int64_t stride = 1) {
  const int L = sh.rank - 1;
  const int64_t h1 = sh.n[L] / 2 + 1;
  int64_t outer = 1;
  for (int d = 0; d < L; ++d) outer *= sh.n[d];
  for (int64_t pl = 0; pl < (sh.n[L] % 2 == 0 && sh.n[L] > 1 ? 2 : 1); ++pl)
    for (int64_t o = 0; o < outer; ++o) {
      int64_t idx[3] = {0, 0, 0}, mir[3] = {0, 0, 0};
      const int64_t mo = fft_mirror_flat(o, L, sh.n, idx, mir);
      T* at = x + 2 * stride * (o * h1 + pl * (sh.n[L] / 2));
      const T* from = x + 2 * stride * (mo * h1 + pl * (sh.n[L] / 2));
      if (mo == o) at[1] = T(0);
      if (mo < o) at[0] = from[0], at[1] = -from[1];
    }
}

}  // namespace abft::checksum
