/** \file fft_library_check.hpp
 *  \brief The check of a transform computed by a library (cuFFT on the GPU engine): per-element
 *  checksum weights computed on the fly, the per-signal bound for an algorithm we do not see,
 *  and the verdict (docs/ABFT.md §12). Host and device (ABFT_HD): the GPU kernels
 *  (cuda/fft_check.cuh) and the host emulation test (tests/checksum/fft_library_check_test.cpp)
 *  call these same functions.
 *
 *  A signal is one transform of a batch, of rank 1..3 (sizes n[0..rank), row-major, the last
 *  dimension fastest). Its check compares
 *      out = sum_k w_k y_k      against      in = sum_j v_j x_j ,     v = F^T w,
 *  with separable weights w = w_0 (x) w_1 (x) w_2 (so v = v_0 (x) v_1 (x) v_2, since the
 *  multi-dimensional DFT is the Kronecker product of the 1D ones):
 *   - C2C: per dimension the half-bin weights of §9.1, w_k = exp(s i pi k / n),
 *     v_j = 1 + s i cot(pi (2j+1) / (2n)); |w_k| = 1, |v_j| >= 1.
 *   - R2C: the output is the half spectrum (last index k <= h = n/2) of a real input, whose
 *     other half is its conjugate mirror. Weighting the stored half alone gives the input
 *     weights v_j = (1 - q_j^(h+1)) (1 + s i cot phi_j) / 2, q_j = exp(2 s i phi_j), which
 *     vanish at some j (n = 3 mod 4 at j = (n-1)/2, for instance): inputs the check could not
 *     see. Weighting the full spectrum instead (the mirror term w_m conj(y) for each stored
 *     y_k with 1 <= k_last <= n-h-1) makes v the C2C vector but leaves output faults of one
 *     phase unseen (w d + w_m conj(d) = 0). The check takes the middle: the mirror term at
 *     half weight, out = sum w y + 1/2 sum w_m conj(y). An output fault then moves out by at
 *     least |d| / 2, and the last dimension's input weight is the mean of the two,
 *     v_j = (1 + s i cot phi_j)(3 - q_j^(h+1)) / 4, |v_j| >= 1/2.
 *   - C2R (ranks 1..3): per-dimension tables of the output weights and their transforms, built
 *     on the host (abft/checksum/fft_c2r_weights.hpp: the gain construction, docs/ABFT.md §12.1).
 *  The weights are formed in double from exact integer angles: directly (sincospi of a reduced
 *  fraction, FftDirectWeights) or, on the GPU, as products of two short per-dimension tables of
 *  such values (FftTableWeights); every rounding is a few units of double precision.
 *
 *  The transform's own error is not the library's to tell us: the bound assumes an FFT
 *  algorithm of the usual class — per dimension one stage per prime factor (a butterfly of that
 *  radix, a twiddle product accurate to 2u), Bluestein on a power of two >= 2n-1 for prime
 *  factors above 127, and for real transforms one extra twist stage — with a factor 2 of
 *  margin (docs/ABFT.md §12.2). The fault matrix and the zero-false-positive tests of the GPU
 *  suite measure it against cuFFT (tests/cuda/fft_cuda_test.cpp).
 */
#pragma once
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <vector>

#include "abft/checksum/fft_bounds.hpp"
#include "abft/checksum/gemm_library_check.hpp"  // LineVerdict
#include "abft/checksum/host_device.hpp"

namespace abft::checksum {

/** A complex number in double, usable on both sides (no std::complex on the device). */
struct Cd {
  double re = 0, im = 0;
};
ABFT_HD Cd cmul(Cd a, Cd b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }

/** sin(pi x), cos(pi x) for a reduced fraction x in [0, 2). */
ABFT_HD void sincos_pi(double x, double* s, double* c) {
#if defined(__CUDA_ARCH__)
  sincospi(x, s, c);
#else
  // Fold into [0, 1/4] by symmetry so the host's sin / cos see a small argument.
  const double pi = 3.14159265358979323846;
  double sg_s = 1, sg_c = 1;
  if (x >= 1.0) x -= 1.0, sg_s = -1, sg_c = -1;  // sin(pi(x+1)) = -sin, cos likewise
  if (x > 0.5) x = 1.0 - x, sg_c = -sg_c;        // sin(pi - a) = sin a, cos(pi - a) = -cos a
  bool swap = false;
  if (x > 0.25) x = 0.5 - x, swap = true;  // sin(pi/2 - a) = cos a
  const double a = pi * x;
  const double sa = std::sin(a), ca = std::cos(a);
  *s = sg_s * (swap ? ca : sa);
  *c = sg_c * (swap ? sa : ca);
#endif
}

/** exp(s i pi num / den) for integers 0 <= num, den > 0 (reduced modulo 2 den exactly). */
ABFT_HD Cd exp_i_pi(int64_t num, int64_t den, int s) {
  const int64_t r = num < 2 * den ? num : num % (2 * den);  // (no 64-bit division when not needed)
  double sn, cs;
  sincos_pi(double(r) / double(den), &sn, &cs);
  return {cs, s < 0 ? -sn : sn};
}

/** Output weight of index k along a dimension of length n: exp(s i pi k / n). */
ABFT_HD Cd fft_out_weight(int64_t k, int64_t n, int s) { return exp_i_pi(k, n, s); }

/** C2C input weight v_j = 1 + s i cot(pi (2j+1) / (2n)). The angle is reduced in integers to
 *  (0, pi/2] first (cot(pi - t) = -cot t): near j = n-1 the fraction (2j+1)/(2n) is close to 1,
 *  and rounding it before the sine would make sin, hence cot, off by about 2n u_d relative. */
ABFT_HD Cd fft_c2c_in_weight(int64_t j, int64_t n, int s) {
  int64_t a = 2 * j + 1;
  double sg = double(s);
  if (a > n) a = 2 * n - a, sg = -sg;
  double sn, cs;
  sincos_pi(double(a) / double(2 * n), &sn, &cs);  // angle in (0, pi/2]: sin > 0
  return {1.0, sg * cs / sn};
}

/** The input weight that weighting the stored half spectrum of an R2C line alone would give
 *  (real input, output k <= h = n/2). Not used by the check — it vanishes at some j — but
 *  kept to show why the output side adds the mirrored half (tests/checksum):
 *  v_j = (1 - q^(h+1)) (1 + s i cot phi_j) / 2 with q^(h+1) = exp(s i pi (2j+1)(h+1) / n). */
ABFT_HD Cd fft_r2c_in_weight(int64_t j, int64_t n, int s) {
  const int64_t h = n / 2;
  const Cd q = exp_i_pi((2 * j + 1) * (h + 1), n, s);
  const Cd a{0.5 * (1.0 - q.re), -0.5 * q.im};
  return cmul(a, fft_c2c_in_weight(j, n, s));
}

/** The shape of one signal as the check sees it. kind: 0 C2C, 1 R2C, 2 C2R (abft_fft_kind). */
struct FftLibraryShape {
  int rank = 1;
  int64_t n[3] = {1, 1, 1};  ///< logical sizes (the real lengths for R2C / C2R)
  int kind = 0;
  int sign = -1;
  ABFT_HD int64_t total() const { return n[0] * (rank > 1 ? n[1] : 1) * (rank > 2 ? n[2] : 1); }
  /** Elements of the complex side's last dimension: n or n/2 + 1. */
  ABFT_HD int64_t half_last() const { return n[rank - 1] / 2 + 1; }
  /** Elements (complex or real) of one input / output signal. */
  ABFT_HD int64_t in_count() const { return kind == 2 ? total() / n[rank - 1] * half_last() : total(); }
  ABFT_HD int64_t out_count() const { return kind == 1 ? total() / n[rank - 1] * half_last() : total(); }
  ABFT_HD int64_t in_dim(int d) const { return (kind == 2 && d == rank - 1) ? half_last() : n[d]; }
  ABFT_HD int64_t out_dim(int d) const { return (kind == 1 && d == rank - 1) ? half_last() : n[d]; }
};

/** R2C's input weight along the halved dimension, with the mirror at half weight (see the
 *  file comment): v_j = (1 + s i cot phi_j)(3 - q_j^(h+1)) / 4, |v_j| >= 1/2. */
ABFT_HD Cd fft_r2c_mirror_in_weight(int64_t j, int64_t n, int s) {
  const int64_t h = n / 2;
  const Cd q = exp_i_pi((2 * j + 1) * (h + 1), n, s);
  return cmul(Cd{0.25 * (3.0 - q.re), -0.25 * q.im}, fft_c2c_in_weight(j, n, s));
}

/** The weights formed directly per element: sincospi of an exact integer fraction and a
 *  quotient (the functions above). The host's reference and the default of the functions below. */
struct FftDirectWeights {
  ABFT_HD Cd c2c_in(int, int64_t j, int64_t n, int s) const { return fft_c2c_in_weight(j, n, s); }
  ABFT_HD Cd r2c_in(int, int64_t j, int64_t n, int s) const { return fft_r2c_mirror_in_weight(j, n, s); }
  ABFT_HD Cd out(int, int64_t k, int64_t n, int s) const { return fft_out_weight(k, n, s); }
};

/** exp(i pi r / (2n)) for 0 <= r < 4n of one dimension, as the product of two short tables:
 *  r = h 2^shift + l, lo[l] = exp(i pi l / (2n)), hi[h] = exp(i pi h 2^shift / (2n)), each entry
 *  formed once on the host by exp_i_pi (about one ulp). 2^shift ~ 2 sqrt(n): for n = 2^22, two
 *  tables of 4096 entries (128 KB), read from cache, against a sincospi in double per element
 *  (the GPU engine's checksum sums were bound by that arithmetic, not by memory). */
struct FftTurnTable {
  const Cd* lo = nullptr;
  const Cd* hi = nullptr;
  int shift = 0;
};
ABFT_HD Cd fft_turn(const FftTurnTable& t, int64_t r) {
  return cmul(t.hi[r >> t.shift], t.lo[r & ((int64_t(1) << t.shift) - 1)]);
}

/** The weights of FftDirectWeights from the turn tables of each dimension (rank <= 3), with the
 *  same values to a few ulps (tests/checksum/fft_library_check_test.cpp measures it against a
 *  long-double reference; the bound allows 64 u_d, fft_library_bound's dw):
 *   - out: w_k = exp(s i pi k / n) = turn(2k), conjugated for s < 0 (|error| ~ 3u, |w| = 1).
 *   - c2c_in: cot(theta) with theta = pi a / (2n) in (0, pi/2] (a reduced as in
 *     fft_c2c_in_weight), from z = turn(2a) = (cos 2 theta, sin 2 theta): (1 + cos) / sin up to
 *     pi/4, where both terms are relatively accurate (sin of an angle <= pi/2 as a sum of two
 *     non-negative products), sin / (1 - cos) beyond, where cot <= 1 and the absolute error of
 *     sin counts against |v| >= 1. Neither form cancels where it is used.
 *   - r2c_in: q^(h+1) = exp(s i pi (2j+1)(h+1) / n) without the product's modulus: for even n,
 *     (h+1)/n = 1/2 + 1/n, so q^(h+1) = i (-1)^j turn(2 (2j+1)); for odd n, (h+1)/n =
 *     1/2 + 1/(2n), so q^(h+1) = i (-1)^j turn(2j+1) (both conjugated for s < 0). */
struct FftTableWeights {
  FftTurnTable t[3];
  ABFT_HD Cd out(int d, int64_t k, int64_t, int s) const {
    const Cd z = fft_turn(t[d], 2 * k);
    return {z.re, s < 0 ? -z.im : z.im};
  }
  ABFT_HD Cd c2c_in(int d, int64_t j, int64_t n, int s) const {
    int64_t a = 2 * j + 1;
    double sg = double(s);
    if (a > n) a = 2 * n - a, sg = -sg;
    const Cd z = fft_turn(t[d], 2 * a);
    const double cot = 2 * a <= n ? (1.0 + z.re) / z.im : z.im / (1.0 - z.re);
    return {1.0, sg * cot};
  }
  ABFT_HD Cd r2c_in(int d, int64_t j, int64_t n, int s) const {
    const Cd e = fft_turn(t[d], n % 2 == 0 ? 2 * (2 * j + 1) : 2 * j + 1);
    const double sj = (j & 1) ? -1.0 : 1.0;
    const Cd q{-sj * e.im, (s < 0 ? -sj : sj) * e.re};  // i (-1)^j e, conjugated for s < 0
    return cmul(Cd{0.25 * (3.0 - q.re), -0.25 * q.im}, c2c_in(d, j, n, s));
  }
};

/** The host's copy of one dimension's turn tables (FftTurnTable points into it). */
struct FftTurnTableData {
  int shift = 0;
  std::vector<Cd> lo, hi;
  explicit FftTurnTableData(int64_t n) {
    while ((int64_t(1) << (2 * shift)) < 4 * n) ++shift;
    const int64_t T = int64_t(1) << shift, H = (4 * n + T - 1) / T;
    lo.resize(static_cast<size_t>(T));
    hi.resize(static_cast<size_t>(H));
    for (int64_t l = 0; l < T; ++l) lo[size_t(l)] = exp_i_pi(l, 2 * n, +1);
    for (int64_t h = 0; h < H; ++h) hi[size_t(h)] = exp_i_pi(h * T, 2 * n, +1);
  }
  FftTurnTable view() const { return {lo.data(), hi.data(), shift}; }
};

/** The host's turn tables of every dimension of a shape, and the table weights over them (the
 *  host's view of what the GPU plan copies to the device; the host tests use it). Not copyable:
 *  the weights point into the tables. */
struct FftHostTables {
  std::vector<FftTurnTableData> d;
  FftTableWeights w;
  explicit FftHostTables(const FftLibraryShape& sh) {
    for (int k = 0; k < sh.rank; ++k) d.emplace_back(sh.n[k]);
    for (int k = 0; k < sh.rank; ++k) w.t[k] = d[size_t(k)].view();
  }
  FftHostTables(const FftHostTables&) = delete;
  FftHostTables& operator=(const FftHostTables&) = delete;
};

/** Input weight of the element with multi-index idx (C2C and R2C; C2R uses its table).
 *  R > 0 fixes the rank at compile time (sh.rank must equal it): the device kernels' rank-1
 *  instance then indexes no array at run time (which put the tables and the shape in a stack
 *  frame of every thread: measured, per-thread overhead that dominated small transforms). */
template <int R = 0, class W = FftDirectWeights>
ABFT_HD Cd fft_in_weight(const FftLibraryShape& sh, const int64_t* idx, const W& w = W{}) {
  Cd v{1.0, 0.0};
  const int rank = R > 0 ? R : sh.rank;
  for (int d = 0; d < rank; ++d) {
    const bool halved = sh.kind == 1 && d == rank - 1;
    v = cmul(v, halved ? w.r2c_in(d, idx[d], sh.n[d], sh.sign) : w.c2c_in(d, idx[d], sh.n[d], sh.sign));
  }
  return v;
}

/** Output weight of the element with multi-index idx (C2C and R2C; C2R uses its table). */
template <int R = 0, class W = FftDirectWeights>
ABFT_HD Cd fft_out_weight_md(const FftLibraryShape& sh, const int64_t* idx, const W& w = W{}) {
  Cd z{1.0, 0.0};
  const int rank = R > 0 ? R : sh.rank;
  for (int d = 0; d < rank; ++d) z = cmul(z, w.out(d, idx[d], sh.n[d], sh.sign));
  return z;
}

/** Index of -k modulo n along a dimension of length n (0 stays 0): a bin's conjugate mirror. */
ABFT_HD int64_t fft_mirror_index(int64_t k, int64_t n) { return k == 0 ? 0 : n - k; }

/** R2C: the weight of the conjugate mirror that the stored element idx also stands for
 *  (indices -idx modulo n), or false when it has none outside the stored half (last index 0,
 *  or n/2 for even n: the mirror is itself stored). The output side adds w conj(y) / 2. */
template <int R = 0, class W = FftDirectWeights>
ABFT_HD bool fft_r2c_mirror_weight(const FftLibraryShape& sh, const int64_t* idx, Cd* m, const W& w = W{}) {
  const int rank = R > 0 ? R : sh.rank;
  const int L = rank - 1;
  const int64_t k = idx[L], n = sh.n[L];
  if (k < 1 || k > n - n / 2 - 1) return false;
  Cd z{1.0, 0.0};
  for (int d = 0; d < rank; ++d) z = cmul(z, w.out(d, fft_mirror_index(idx[d], sh.n[d]), sh.n[d], sh.sign));
  *m = z;
  return true;
}

/** The output side's term of a stored element y (C2C, R2C): w y, plus w_mirror conj(y) / 2. */
template <int R = 0, class W = FftDirectWeights>
ABFT_HD Cd fft_out_term(const FftLibraryShape& sh, const int64_t* idx, Cd y, const W& w = W{}) {
  Cd t = cmul(y, fft_out_weight_md<R>(sh, idx, w));
  Cd m;
  if (sh.kind == 1 && fft_r2c_mirror_weight<R>(sh, idx, &m, w)) {
    const Cd u = cmul(Cd{y.re, -y.im}, m);
    t.re += 0.5 * u.re;
    t.im += 0.5 * u.im;
  }
  return t;
}

/** The C2R check's weights on the device (rank 1..3; docs/ABFT.md §12.1): per dimension d the
 *  output weights w[d] (n_d values) and their transforms W[d] = F_+ w[d] (n_d values, the
 *  backward sign of the C2R), so that an output element j has weight prod_d w[d][j_d] and
 *  sum_j w_j y_j = sum_k Xfull_k W_k over the Hermitian spectrum Xfull the half spectrum
 *  stands for, W_k = prod_d W[d][k_d]. Built on the host (fft_c2r_tables in
 *  abft/checksum/fft_c2r_weights.hpp). */
struct FftC2RWeights {
  const Cd* w[3] = {nullptr, nullptr, nullptr};
  const Cd* W[3] = {nullptr, nullptr, nullptr};
};

/** C2R: the input side's term of the stored bin X at multi-index idx (the last index <= n/2).
 *  A stored bin k with 1 <= k_last <= n - n/2 - 1 stands for itself and its conjugate mirror
 *  -k, which is not stored: X W_k + conj(X) W_-k. A bin of a self-conjugate plane (k_last = 0,
 *  or n/2 for even n) has its mirror stored in the same plane, and the transform acts on the
 *  Hermitian part (X_k + conj X_-k) / 2 there: each of the two stored bins gives half,
 *  (X W_k + conj(X) W_-k) / 2; a self-mirrored bin (k = -k) gives Re(X) W_k. */
template <int R = 0>
ABFT_HD Cd fft_c2r_in_term(Cd x, const FftLibraryShape& sh, const FftC2RWeights& t, const int64_t* idx) {
  const int rank = R > 0 ? R : sh.rank;
  const int64_t kl = idx[rank - 1];
  if (kl == 0 || 2 * kl == sh.n[rank - 1]) x.re *= 0.5, x.im *= 0.5;  // h = 1/2 (exact)
  // One product at a time (W_k x, then W_-k conj x): fewer values live at once, which the
  // callbacks inlined into cuFFT's kernels pay for in registers (forming W_k and W_-k first
  // took a double load and store callback from 68 to 74 registers; this, 68: linked by
  // nvJitLink for sm_90 with tests/cuda/fft_callback_driver.cu).
  Cd t1 = x;
  for (int d = 0; d < rank; ++d) t1 = cmul(t1, t.W[d][idx[d]]);
  Cd t2{x.re, -x.im};
  for (int d = 0; d < rank; ++d) t2 = cmul(t2, t.W[d][fft_mirror_index(idx[d], sh.n[d])]);
  return {t1.re + t2.re, t1.im + t2.im};
}

/** C2R: the output weight of the real output element at multi-index idx, prod_d w[d][idx_d]. */
template <int R = 0>
ABFT_HD Cd fft_c2r_out_weight(const FftLibraryShape& sh, const FftC2RWeights& t, const int64_t* idx) {
  const int rank = R > 0 ? R : sh.rank;
  Cd z = t.w[0][idx[0]];
  for (int d = 1; d < rank; ++d) z = cmul(z, t.w[d][idx[d]]);
  return z;
}

/** The input side's term of element x at multi-index idx: v x for C2C and R2C, and for C2R
 *  fft_c2r_in_term. One definition for the GPU engine's two ways of forming the sums (passes
 *  over memory, cuda/fft_check.cuh, and cuFFT's load callback, cuda/fft_callbacks.cu). */
template <int R = 0, class W = FftDirectWeights>
ABFT_HD Cd fft_in_term_of(Cd x, const FftLibraryShape& sh, const W& w, const FftC2RWeights& c2r, const int64_t* idx) {
  if (sh.kind == 2) return fft_c2r_in_term<R>(x, sh, c2r, idx);
  return cmul(x, fft_in_weight<R>(sh, idx, w));
}

/** The output side's term of a stored element y: fft_out_term (C2C, R2C), or for C2R y times
 *  fft_c2r_out_weight. */
template <int R = 0, class W = FftDirectWeights>
ABFT_HD Cd fft_out_term_of(Cd y, const FftLibraryShape& sh, const W& w, const FftC2RWeights& c2r, const int64_t* idx) {
  return sh.kind == 2 ? cmul(y, fft_c2r_out_weight<R>(sh, c2r, idx)) : fft_out_term<R>(sh, idx, y, w);
}

/** Multi-index of the linear (row-major) position e over the sizes dims[0..rank). */
ABFT_HD void fft_unravel(int64_t e, int rank, const int64_t* dims, int64_t* idx) {
  if (rank == 1) {  // (no 64-bit division on the common path)
    idx[0] = e;
    return;
  }
  for (int d = rank - 1; d >= 0; --d) {
    idx[d] = e % dims[d];
    e /= dims[d];
  }
}

/** The conjugate mirror of the linear (row-major) position o over the sizes dims[0..rank): its
 *  linear position, with both multi-indices in idx and mir. (rank 0: position 0, its own.) */
ABFT_HD int64_t fft_mirror_flat(int64_t o, int rank, const int64_t* dims, int64_t* idx, int64_t* mir) {
  fft_unravel(o, rank, dims, idx);
  int64_t m = 0;
  for (int d = 0; d < rank; ++d) {
    mir[d] = fft_mirror_index(idx[d], dims[d]);
    m = m * dims[d] + mir[d];
  }
  return m;
}

/** Relative 2-norm error of one dimension of length n computed by an FFT of the assumed class
 *  (see the file comment): stages per prime factor, Bluestein above 127, margin 2. */
template <class T>
double fft_library_rel_error(int64_t n) {
  const double mu = fft_twiddle_mu<T>();
  double eps = 0;
  bool bluestein = false;
  int64_t m = n;
  for (int64_t p = 2; p * p <= m; ++p)
    while (m % p == 0) {
      eps = fft_compose(eps, fft_stage_eta<T>(int(p), mu));
      m /= p;
    }
  if (m > 1) {
    if (m <= 127) eps = fft_compose(eps, fft_stage_eta<T>(int(m), mu));
    else bluestein = true;
  }
  if (bluestein) {
    // Two transforms of a power-of-two length L >= 2n - 1 (radix-2 stages), three pointwise
    // chirp products; intermediate norms grow by up to sqrt(L / n) (the chirp's spectrum).
    int64_t L = 1;
    int lg = 0;
    while (L < 2 * n - 1) L <<= 1, ++lg;
    double e = 0;
    for (int s = 0; s < 2 * lg + 3; ++s) e = fft_compose(e, fft_stage_eta<T>(2, mu));
    eps = 16.0 * e * std::sqrt(double(L) / double(n));
  }
  return 2.0 * eps;
}

/** Pieces of a signal's bound, fixed at plan time (host). For C2R, x is the half spectrum and
 *  the transform acts on the Hermitian spectrum it stands for (norm <= sqrt 2 times); for R2C
 *  the output side also sums the mirrored half (at weight 1/2), whose error is the stored
 *  half's: sqrt 2 on E covers both. sum_depth: the longest chain of double additions any term of the device's sums goes
 *  through (per-thread terms, the tree, the atomics: fft_library_sum_depth). */
template <class T>
FftUnitBound fft_library_bound(const FftLibraryShape& sh, double w_norm, double v_norm, double sum_depth) {
  double rel = 0;
  int stages = 0;
  int64_t rmax = 2;
  for (int d = 0; d < sh.rank; ++d) {
    rel = fft_compose(rel, fft_library_rel_error<T>(sh.n[d]));
    int64_t m = sh.n[d];
    for (int64_t p = 2; p * p <= m; ++p)
      while (m % p == 0) m /= p, ++stages, rmax = p > rmax ? p : rmax;
    if (m > 1) ++stages, rmax = m > rmax ? m : rmax;
  }
  if (sh.kind != 0) rel = fft_compose(rel, 2.0 * fft_stage_eta<T>(4, fft_twiddle_mu<T>()));  // the real twist
  const double N = double(sh.total());
  const double herm = sh.kind != 0 ? std::sqrt(2.0) : 1.0;
  FftUnitBound b;
  b.w_norm = w_norm;
  b.v_norm = v_norm * (sh.kind == 2 ? herm : 1.0);
  b.Y = std::sqrt(N) * herm;
  b.E = rel * std::sqrt(N) * herm;
  // The device sums: a product of a T value (exact in double) by a double weight, one rounding
  // (sqrt 2 for complex), then at most sum_depth additions in double, in any order.
  const double ud = unit_roundoff<double>();
  b.dot = std::sqrt(2.0) * (gamma(2.0, ud) + gamma(sum_depth + 4.0, ud) * (1.0 + gamma(2.0, ud)));
  // Weights formed in double: sincospi, a quotient, up to three complex products per side.
  b.dw = 64.0 * unit_roundoff<double>() + (sh.kind == 2 ? 4.0 * unit_roundoff<double>() : 0.0);
  const int rm = rmax > 127 ? 2 : int(rmax);
  b.abs = fft_abs_term<T>(4 * sh.total() + 4, stages + 8, rm < 16 ? 16 : rm) * (w_norm > 1 ? w_norm : 1.0);
  return b;
}

/** ||w||_2 of the output weights (each of modulus one: the square root of their number; R2C
 *  adds its mirrored terms at weight 1/2). */
inline double fft_library_w_norm(const FftLibraryShape& sh) {
  if (sh.kind != 1) return std::sqrt(double(sh.out_count()));
  const int64_t n = sh.n[sh.rank - 1], mirrored = (n - n / 2 - 1) * (sh.total() / n);
  return std::sqrt(double(sh.out_count()) + 0.25 * double(mirrored));
}

/** The longest chain of double additions in the device's per-signal sums (fft_check.cuh) over
 *  count elements cut into `slices` blocks of `threads`: the per-thread terms, the warp and
 *  block trees (10 levels at most), and one atomic addition per slice. */
inline double fft_library_sum_depth(int64_t count, int64_t slices, int64_t threads) {
  const int64_t per_thread = (count + slices * threads - 1) / (slices * threads);
  return double(per_thread + 10 + slices);
}

/** The GPU engine's launch geometry for the sums (cuda/fft_check.cuh): threads per block, and
 *  the slices (blocks) a signal of cnt elements is cut into — about 8 elements per thread, at
 *  most 1024 slices. */
constexpr int64_t kFftSumThreads = 256;
ABFT_HD int64_t fft_sum_slices(int64_t cnt) {
  const int64_t s = (cnt + kFftSumThreads * 8 - 1) / (kFftSumThreads * 8);
  return s < 1 ? 1 : s > 1024 ? 1024 : s;
}

/** Rank-1 signals with at most this many elements on a side are summed a warp per signal
 *  (cuda/fft_check.cuh, fft_warp_sums_kernel): chunks of 8 terms per lane summed pairwise, the
 *  chunks in order, then 5 levels of the warp: at most 3 + 3 + 5 = 11 additions, under the
 *  12 that the block path's fft_library_sum_depth gives any signal (1 + 10 + 1), so the depth
 *  below covers both. */
constexpr int64_t kFftWarpMaxCount = 1024;
inline constexpr int fft_warp_sum_depth(int64_t count) {
  return 3 + int((count + 255) / 256 - 1) + 5;
}
static_assert(fft_warp_sum_depth(kFftWarpMaxCount) <= 12, "the warp path must stay within the block path's depth");

/** The sum depth of the engine's bound for a signal with in_count input and out_count output
 *  elements: the longer of the sliced sums and of the re-check's one block per signal. */
inline double fft_engine_sum_depth(int64_t in_count, int64_t out_count) {
  double depth = 0;
  for (int64_t cnt : {in_count, out_count}) {
    const double a = fft_library_sum_depth(cnt, fft_sum_slices(cnt), kFftSumThreads);
    const double b = fft_library_sum_depth(cnt, 1, kFftSumThreads);
    depth = a > depth ? a : depth;
    depth = b > depth ? b : depth;
  }
  return depth;
}

/** ||v||_2 of the input weights (C2C, R2C): per dimension the sum of |v_j|^2 in double, O(n). */
inline double fft_library_v_norm(const FftLibraryShape& sh) {
  double prod = 1;
  for (int d = 0; d < sh.rank; ++d) {
    const bool halved = sh.kind == 1 && d == sh.rank - 1;
    double s = 0;
    for (int64_t j = 0; j < sh.n[d]; ++j) {
      const Cd v = halved ? fft_r2c_mirror_in_weight(j, sh.n[d], sh.sign) : fft_c2c_in_weight(j, sh.n[d], sh.sign);
      s += v.re * v.re + v.im * v.im;
    }
    prod *= s;
  }
  return std::sqrt(prod) * (1.0 + 1e-12);
}

/** The verdict of one signal: in = (in_re, in_im), out likewise, x2 = ||x||^2 (all in double).
 *  Skipped when the input holds Inf / NaN (data, not a fault) or when the output may overflow
 *  legitimately (Y ||x|| near the format's largest value) and is not finite; Failed when the
 *  residual exceeds coef ||x|| + abs (or is NaN from finite data). */
ABFT_HD LineVerdict fft_library_verdict(Cd in, Cd out, double x2, double coef, double abs, double Y,
                                               double t_max) {
  if (!(x2 <= 1.7976931348623157e308) || !(std::fabs(in.re) <= 1.7976931348623157e308) ||
      !(std::fabs(in.im) <= 1.7976931348623157e308))
    return LineVerdict::Skipped;
  const double X = std::sqrt(x2);
  const bool out_finite = std::fabs(out.re) <= 1.7976931348623157e308 && std::fabs(out.im) <= 1.7976931348623157e308;
  if (!out_finite && Y * X * 1.01 >= t_max) return LineVerdict::Skipped;
  const double dr = out.re - in.re, di = out.im - in.im;
  const double res = std::sqrt(dr * dr + di * di);
  return res <= coef * X + abs ? LineVerdict::Ok : LineVerdict::Failed;
}

}  // namespace abft::checksum
