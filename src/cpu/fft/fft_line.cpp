/** \file fft_line.cpp
 *  \brief Checked units: transforms of one line, their weights and bounds.
 *
 *  Real lines of even length n run through a complex kernel of length n/2:
 *  R2C packs z_j = x_2j + i x_2j+1 (the real array read as complex) and untwists
 *  X_k = E_k + w^k O_k with E_k = (Z_k + conj Z_{h-k})/2, O_k = (Z_k - conj Z_{h-k})/(2i);
 *  C2R builds Z_k = (X_k + X_{k+h}) + i (X_k - X_{k+h}) w^-k and its backward
 *  transform is x_even + i x_odd. Odd lengths use a complex kernel of length n.
 */
#include "cpu/fft/fft_line.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "abft/checksum/fft_c2r_weights.hpp"
#include "core/cpu_features.hpp"
#include "cpu/fft/fft_math.hpp"

namespace abft::cpu::fft {

namespace cs = abft::checksum;

template <class T>
LinePlan<T>::LinePlan(abft_fft_kind kind, int64_t n, int sign, const FftKernels<T>& K, int threads,
                      bool allow_fourstep)
    : kind_(kind), n_(n), h1_(n / 2 + 1), sign_(sign), K_(K) {
  half_ = (kind != ABFT_FFT_C2C) && (n % 2 == 0);
  const int64_t kn = half_ ? n / 2 : n;
  if (kind == ABFT_FFT_C2C && allow_fourstep && fourstep_split_for<T>(n, threads) > 0) {
    init_fourstep(fourstep_split_for<T>(n, threads), threads);
    return;
  }
  if (kind != ABFT_FFT_C2C && allow_fourstep && fourstep_split_for<T>(kn, threads) > 0)
    sub_ = std::make_unique<LinePlan<T>>(ABFT_FFT_C2C, kn, sign, K, threads);
  else if (kind == ABFT_FFT_R2C && !half_)
    // An odd real line runs a complex transform of its whole length, checked as a C2C unit of
    // its own: the whole-line check weights only the stored half spectrum, which sees faults
    // inside that transform less than the geometric-sum argument of docs/ABFT.md §9.1 needs
    // (odd R2C campaigns left 1-2 % of stage faults unseen in double, RELIABILITY.md §11).
    sub_ = std::make_unique<LinePlan<T>>(ABFT_FFT_C2C, kn, sign, K, threads, false);
  else
    kernel_ = make_kernel<T>(kn, sign, K, threads);
  if (half_) {
    const int64_t h = n / 2;
    split_e1_ = root<double>(1, 2 * n, sign);
    split_eh1_ = root<double>(h - 1, 2 * n, sign);
    twist_.make(size_t(2 * h), [=](T* w) {
      for (int64_t k = 0; k < h; ++k) {
        const auto z = root<T>(k, n, sign);
        w[2 * k] = z.real();
        w[2 * k + 1] = z.imag();
      }
    });
  }
  if (kind == ABFT_FFT_C2C) build_weights_c2c();
  else if (kind == ABFT_FFT_R2C) build_weights_r2c();
  else build_weights_c2r();
  abs_ = cs::fft_abs_term<T>(4 * n + 4, stages() + 4, kern_max_radix());
}

template <class T>
int LinePlan<T>::stages() const {
  return fourstep_ ? col_->stages() + row_->stages() : sub_ ? sub_->stages() : kernel_->stages();
}

template <class T>
void LinePlan<T>::set_threads(int nt) {
  if (fourstep_) threads_.store(nt, std::memory_order_relaxed);
  else if (sub_) sub_->set_threads(nt);
  else kernel_->set_threads(nt);
}

template <class T>
int64_t LinePlan<T>::work_scalars() const {
  if (fourstep_) return 2 * n_;
  // C2C: the kernel's; real lines: a complex buffer of the kernel's length
  // (two for odd lengths) before the kernel's own.
  const int64_t kn = kernel_n();
  const int64_t extra = kind_ == ABFT_FFT_C2C ? 0 : (half_ ? 2 * kn : 4 * kn);
  return extra + (sub_ ? sub_->work_scalars() : kernel_->work_scalars());
}

/** Output weights w_k = exp(s i pi k / n) = R_b r_j (k = bB + j) for k < count:
 *  the block table r and the block factors R (geometric sequences). */
template <class T>
void make_sep_weights(Table<T>& w, Table<double>& R, int64_t n, int64_t count, int s) {
  const int64_t B = kWeightBlock;
  w.make(size_t(4 * B), [=](T* t) {
    for (int64_t j = 0; j < B; ++j) {
      const auto z = root<T>(j, 2 * n, s);
      t[2 * j] = t[2 * j + 1] = z.real();
      t[2 * B + 2 * j] = t[2 * B + 2 * j + 1] = z.imag();
    }
  });
  const int64_t nb = (count + B - 1) / B;
  R.make(size_t(2 * nb), [=](double* t) {
    for (int64_t b = 0; b < nb; ++b) {
      const auto z = root<double>(b * B, 2 * n, s);
      t[2 * b] = z.real();
      t[2 * b + 1] = z.imag();
    }
  });
}

template <class T>
void LinePlan<T>::build_weights_c2c() {
  const int64_t n = n_;
  const int s = sign_;
  make_sep_weights<T>(w_, Rb_, n, n, s);
  // v_j = 1 + s i cot(phi_j), phi_j = pi (2j+1) / (2n): stored c_j = s cot(phi_j), paired;
  // for a kernel that folds the input side, c_j once per element in its order as well.
  v_.make(size_t(2 * n), [=](T* v) {
    for (int64_t j = 0; j < n; ++j) v[2 * j] = v[2 * j + 1] = input_cot<T>(j, n, s);
  });
  FoldOrder o;
  if (kernel_ && kernel_->fold_in_order(&o))
    vfold_.make(size_t(n), [=](T* v) {
      for (int64_t j = 0; j < n; ++j) v[o.pos(j)] = input_cot<T>(j, n, s);
    });
  double vn = 0;
  for (int64_t j = 0; j < n; ++j) vn += 1.0 + double(v_.data[size_t(2 * j)]) * v_.data[size_t(2 * j)];
  bound_.w_norm = std::sqrt(double(n));
  bound_.v_norm = std::sqrt(vn) * (1.0 + 1e-12);
  bound_.E = kern_E();
  bound_.Y = std::sqrt(double(n));
  bound_.dot = cs::fft_dot_coefficient<T>(n);
  // The rounded r_j, and the rounded e_u of the sum folded into the last stage (docs/ABFT.md §9.2).
  const double u = cs::unit_roundoff<T>();
  bound_.dw = std::sqrt(2.0) * 2.0 * u * (1.0 + u) + 16.0 * cs::unit_roundoff<double>();
}

template <class T>
void LinePlan<T>::build_weights_r2c() {
  const int64_t n = n_, h1 = h1_;
  const int s = sign_;
  make_sep_weights<T>(w_, Rb_, n, h1, s);
  // Weighting the stored half spectrum (k < h1) alone gives v_j = (1 - q^h1)(1 + s i cot phi_j)/2,
  // q = exp(s i pi (2j+1) / n), which vanishes at some j (n = 3 mod 4 at j = (n-1)/2, n = 6
  // mod 8 at two places): inputs the check could not see. Weighting the full spectrum (the
  // conjugate mirror y_{n-k} = conj(y_k) of the bins 1 <= k <= n - h1) gives the C2C vector
  // but an output fault of one phase would cancel against its mirror. check_out takes the
  // mirror at half weight: an output fault moves the sum by at least half of itself, and
  // v_j = (1 + s i cot phi_j)(3 - q^h1)/4, |v_j| >= 1/2 (docs/ABFT.md §9.1): re block, im block.
  v_.make(size_t(2 * n), [=](T* v) {
    for (int64_t j = 0; j < n; ++j) {
      const unsigned __int128 e = (unsigned __int128)(2 * j + 1) * (unsigned __int128)h1;
      const auto qh = root_ld(int64_t(e % (unsigned __int128)(2 * n)), 2 * n, s);
      const auto c = root_ld(2 * j + 1, 4 * n, +1);
      const std::complex<long double> g(1.0L, (long double)s * c.real() / c.imag());
      const std::complex<long double> val = (std::complex<long double>(3.0L, 0.0L) - qh) * g * 0.25L;
      v[j] = T(val.real());
      v[n + j] = T(val.imag());
    }
  });
  double vn = 0;
  for (int64_t j = 0; j < n; ++j)
    vn += double(v_.data[size_t(j)]) * v_.data[size_t(j)] + double(v_.data[size_t(n + j)]) * v_.data[size_t(n + j)];
  if (half_) {
    // For even n, q^h1 = s i (-1)^j exp(s i 2 phi_j) and (1 + s i cot phi) exp(s i 2 phi) =
    // -1 + s i cot phi, so with c_j = s cot phi_j
    //   4 v_j = (3 + s (-1)^j c_j) + i (3 c_j + s (-1)^j):
    // sum v_j x_j needs only sum x_j, sum (-1)^j x_j, sum c_j x_j and sum (-1)^j c_j x_j, which
    // the complex input fold gives from the packed z_j = x_2j + i x_2j+1 with (c_2j, c_2j+1)
    // pairs (compute_r2c_checked). Its rounding is at most g sum (1 + |c_j|) |x_j| against
    // g sum (|Re v_j| + |Im v_j|) |x_j| for the direct sum, so the bound takes
    // ||v||_2 >= ||(1 + |c_j|) / sqrt 2||_2 (docs/ABFT.md §9.2).
    FoldOrder o;
    if (kernel_ && kernel_->fold_in_order(&o))
      vfold_.make(size_t(n), [=](T* c) {
        for (int64_t j = 0; j < n / 2; ++j) {
          c[2 * o.pos(j)] = input_cot<T>(2 * j, n, s);
          c[2 * o.pos(j) + 1] = input_cot<T>(2 * j + 1, n, s);
        }
      });
    double vf = 0;
    for (int64_t j = 0; j < n; ++j) {
      const T c = vfold_.data.empty() ? input_cot<T>(j, n, s) : vfold_.data[size_t(j)];  // any order
      const double a = 1.0 + std::fabs(double(c));
      vf += 0.5 * a * a;
    }
    vn = std::max(vn, vf);
  }
  const double u = cs::unit_roundoff<T>(), mu = cs::fft_twiddle_mu<T>();
  const double eta_tw = 2.0 * (mu + std::sqrt(2.0) * cs::gamma(6.0, u) * (1.0 + mu));
  bound_.w_norm = std::sqrt(double(h1) + 0.25 * double(n - h1));
  bound_.v_norm = std::sqrt(vn) * (1.0 + 1e-12);
  // E bounds the stored half's error; the mirrored terms repeat it (sqrt 2 in the 2-norm).
  if (half_) {
    const double h = double(n / 2);
    const double eh = kern_E() / std::sqrt(h);
    bound_.E = std::sqrt(2.0) * 2.0 * std::sqrt(h) * (eh + eta_tw * (1.0 + eh));
  } else {
    bound_.E = std::sqrt(2.0) * kern_E();
  }
  bound_.Y = std::sqrt(double(n));
  bound_.dot = 2.0 * cs::fft_dot_coefficient<T>(n);  // the stored half's sum enters twice
  bound_.dw = std::sqrt(2.0) * 2.0 * u + 16.0 * cs::unit_roundoff<double>();
}

template <class T>
void LinePlan<T>::build_weights_c2r() {
  const int64_t n = n_, h1 = h1_;
  // Output weights on the real line: pseudo-random phases whose transform W has every bin pair
  // pushed apart (fft_c2r_weights in abft/checksum/fft_c2r_weights.hpp; docs/ABFT.md §9.1, C2R;
  // the GPU engine, which used it too, takes the gain construction since 2026-12-07, §12.1): an error d in a stored bin k moves the check by
  // W_k d + W_{n-k} conj(d), at least 0.2 |d| over the phase of d; min |w_j| = 1. The DFTs are
  // the double kernels.
  auto kd = make_kernel<double>(n, +1, fft_kernels<double>(abft::cpu::active_isa()), 1);
  auto kf = make_kernel<double>(n, -1, fft_kernels<double>(abft::cpu::active_isa()), 1);
  std::vector<double> wk(size_t(std::max(kd->work_scalars(), kf->work_scalars())));
  auto dft = [&](const double* in, double* out, int sign) {
    (sign < 0 ? kf : kd)->run(in, out, wk.data(), nullptr);
    return true;
  };
  std::vector<cs::Cd> pairs, wt;
  double w_norm = 0, v_norm = 0;
  cs::fft_c2r_weights(n, dft, pairs, wt, w_norm, v_norm);
  w_.make(size_t(2 * n), [wt, n](T* d) {
    for (int64_t j = 0; j < n; ++j) {
      d[j] = T(wt[size_t(j)].re);
      d[n + j] = T(wt[size_t(j)].im);
    }
  });
  v_.make(size_t(4 * h1), [pairs, h1](T* v) {
    for (int64_t k = 0; k < h1; ++k) {
      const cs::Cd A = pairs[size_t(2 * k)], B = pairs[size_t(2 * k + 1)];
      v[2 * k] = T(A.re);
      v[2 * h1 + 2 * k] = T(A.im);
      v[2 * k + 1] = T(B.re);
      v[2 * h1 + 2 * k + 1] = T(B.im);
    }
  });
  double vn = 0;
  for (int64_t i = 0; i < 4 * h1; ++i) vn += double(v_.data[size_t(i)]) * v_.data[size_t(i)];
  const double u = cs::unit_roundoff<T>(), mu = cs::fft_twiddle_mu<T>();
  const double eta_tw = 2.0 * (mu + std::sqrt(2.0) * cs::gamma(6.0, u) * (1.0 + mu));
  double wn = 0;
  for (int64_t i = 0; i < 2 * n; ++i) wn += double(w_.data[size_t(i)]) * w_.data[size_t(i)];
  bound_.w_norm = std::sqrt(wn) * (1.0 + 1e-12);
  bound_.v_norm = std::sqrt(vn) * (1.0 + 1e-12);
  if (half_) {
    const double h = double(n / 2);
    const double eh = kern_E() / std::sqrt(h);
    bound_.E = 4.0 * std::sqrt(h) * (eh + 2.0 * eta_tw) * (1.0 + eh);
  } else {
    bound_.E = std::sqrt(2.0) * kern_E();
  }
  bound_.Y = std::sqrt(2.0 * double(n));
  bound_.dot = cs::fft_dot_coefficient<T>(2 * n);
  bound_.dw = std::sqrt(2.0) * u + 4.0 * kd->error_E() / std::sqrt(double(n)) +
              16.0 * cs::unit_roundoff<double>();
}

namespace {
/** Passes stage faults through, drops output faults (the inner transform's
 *  output is an intermediate of the enclosing real line). */
template <class T>
struct InnerHook final : StageHook<T> {
  StageHook<T>* inner;
  explicit InnerHook(StageHook<T>* h) : inner(h) {}
  void after_stage(int stage, T* buf, int64_t n, int64_t off, int64_t str, int64_t bstr) override {
    inner->after_stage(stage, buf, n, off, str, bstr);
  }
  void at_output(T*, int64_t, int64_t, int64_t, bool) override {}
};
}  // namespace

template <class T>
void LinePlan<T>::kern_run(const T* in, T* out, T* work, StageHook<T>* hook, abft_policy pol,
                           abft_report* rep, abft_status* st, std::mutex* mu) const {
  if (!sub_) {
    kernel_->run(in, out, work, hook);
    return;
  }
  InnerHook<T> ih(hook);
  abft_report r0{};
  abft_status s0 = ABFT_STATUS_SUCCESS;
  std::mutex m0;
  if (sub_->is_fourstep()) {
    sub_->run_fourstep(in, out, work, rep ? pol : ABFT_POLICY_OFF, hook ? &ih : nullptr, rep ? *rep : r0,
                       st ? *st : s0, mu ? *mu : m0);
  } else if (rep && pol != ABFT_POLICY_OFF) {
    // The inner complex transform of an odd real line, a checked unit (repaired on its own).
    sub_->run_unit(in, out, work, pol, hook ? &ih : nullptr, *rep, st ? *st : s0, mu ? *mu : m0);
  } else {
    sub_->compute(in, out, work, hook);
  }
}

template <class T>
double LinePlan<T>::kern_E() const {
  return fourstep_ ? E_fs_ : sub_ ? sub_->kern_E() : kernel_->error_E();
}

template <class T>
int LinePlan<T>::kern_max_radix() const {
  if (fourstep_) return std::max(col_->kern_max_radix(), row_->kern_max_radix());
  return sub_ ? sub_->kern_max_radix() : kernel_->max_radix();
}

template <class T>
void LinePlan<T>::compute(const T* in, T* out, T* work, StageHook<T>* hook, abft_policy pol,
                          abft_report* rep, abft_status* st, std::mutex* mu) const {
  const int64_t n = n_;
  if (fourstep_) {
    abft_report rep{};
    abft_status st = ABFT_STATUS_SUCCESS;
    std::mutex mu;
    run_fourstep(in, out, work, ABFT_POLICY_OFF, hook, rep, st, mu);
    return;
  }
  if (kind_ == ABFT_FFT_C2C) {
    kern_run(in, out, work, hook, pol, rep, st, mu);
    return;
  }
  const T* tw = twist_.data.data();
  if (kind_ == ABFT_FFT_R2C) {
    if (half_) {
      const int64_t h = n / 2;
      // Bins 1 .. h-1 from Z_k and conj Z_{h-k}; bins 0 and h both come from Z_0 alone
      // (w^0 = 1, w^h = -1). Out of place, the half-length spectrum Z goes straight into
      // out and is split there (one buffer less to stream through); in place, it needs
      // the work buffer.
      T* Z = in == out ? work : out;
      kern_run(in, Z, in == out ? work + 2 * h : work, hook, pol, rep, st, mu);
      const T z0r = Z[0], z0i = Z[1];
      K_.r2c_twist(Z, tw, out, h, nullptr);
      out[0] = z0r + z0i;
      out[1] = T(0);
      out[2 * h] = z0r - z0i;
      out[2 * h + 1] = T(0);
    } else {
      T* xc = work;
      T* yc = work + 2 * n;
      for (int64_t j = 0; j < n; ++j) { xc[2 * j] = in[j]; xc[2 * j + 1] = T(0); }
      kern_run(xc, yc, work + 4 * n, hook, pol, rep, st, mu);
      std::copy(yc, yc + 2 * h1_, out);
    }
    return;
  }
  // C2R
  if (half_) {
    const int64_t h = n / 2;
    T* Z = work;
    // Z_k = (X_k + conj X_{h-k}) + i w^k (X_k - conj X_{h-k}) for k >= 1 (K_.c2r_twist);
    // k = 0 takes X_0 and X_h as real (their imaginary parts are ignored, as FFTW does).
    K_.c2r_twist(in, tw, Z, h);
    const T x0 = in[0], xh = in[2 * h];
    Z[0] = x0 + xh;
    Z[1] = x0 - xh;
    kern_run(Z, out, work + 2 * h, hook, pol, rep, st, mu);
  } else {
    T* xc = work;
    T* yc = work + 2 * n;
    xc[0] = in[0];
    xc[1] = T(0);
    for (int64_t k = 1; k < h1_; ++k) {
      xc[2 * k] = in[2 * k];
      xc[2 * k + 1] = in[2 * k + 1];
      xc[2 * (n - k)] = in[2 * k];
      xc[2 * (n - k) + 1] = -in[2 * k + 1];
    }
    kern_run(xc, yc, work + 4 * n, hook, pol, rep, st, mu);
    for (int64_t j = 0; j < n; ++j) out[j] = yc[2 * j];
  }
}

template <class T>
std::complex<double> LinePlan<T>::check_in(const T* in, double* x2) const {
  const T* v = v_.data.data();
  switch (kind_) {
    case ABFT_FFT_C2C: {
      std::complex<double> sum, csum;
      K_.csum(v, in, n_, &sum, &csum, x2);
      return sum + std::complex<double>(0.0, 1.0) * csum;
    }
    case ABFT_FFT_R2C: return K_.rdot(v, v + n_, in, n_, x2);
    default: return K_.rdot(v, v + 2 * h1_, in, 2 * h1_, x2);
  }
}

template <class T>
std::complex<double> LinePlan<T>::check_out(const T* out) const {
  const T* w = w_.data.data();
  switch (kind_) {
    case ABFT_FFT_C2C: return K_.cdot_sep(w, w + 2 * kWeightBlock, Rb_.data.data(), out, n_);
    case ABFT_FFT_R2C: return r2c_mirror(K_.cdot_sep(w, w + 2 * kWeightBlock, Rb_.data.data(), out, h1_), out);
    default: return K_.rdot(w, w + n_, out, n_, nullptr);
  }
}

template <class T>
std::complex<double> LinePlan<T>::r2c_mirror(std::complex<double> S, const T* out) const {
  // S = sum_{k<h1} w_k y_k plus half the mirror, sum_{1<=k<=n-h1} w_{n-k} conj(y_k)
  // = -conj(sum_{1<=k<=n-h1} w_k y_k) since w_{n-k} = -conj(w_k): S minus half the conjugate
  // of S without k = 0 (w_0 = 1) and, for even n, k = n/2 (w_{n/2} = s i). No extra products.
  std::complex<double> P = S - std::complex<double>(double(out[0]), double(out[1]));
  if (n_ % 2 == 0)
    P -= std::complex<double>(0.0, double(sign_)) *
         std::complex<double>(double(out[2 * (n_ / 2)]), double(out[2 * (n_ / 2) + 1]));
  return S - 0.5 * std::conj(P);
}

template <class T>
void LinePlan<T>::compute_r2c_checked(const T* in, T* out, T* work, abft_policy pol, abft_report& rep,
                                      abft_status& st, std::mutex& mu, std::complex<double>* cin, double* x2,
                                      std::complex<double>* cout, bool* in_folded) const {
  const int64_t n = n_, h = n / 2;
  // As compute(): out of place the half-length spectrum goes into out and is split there.
  T* Z = in == out ? work : out;
  T* kw = in == out ? work + 2 * h : work;
  bool folded = false;
  if (kernel_) {
    FoldedCheck<T> fc;
    if (!vfold_.data.empty()) fc.cw = vfold_.data.data();
    fc.pairs = true;
    kernel_->run_folded(in, Z, kw, fc);
    if ((folded = fc.in_done)) {
      // fc.sum = sum z_j = (sum x_even) + i (sum x_odd), fc.csum the same with c_j (vfold_).
      const double A = fc.sum.real() + fc.sum.imag(), Aa = fc.sum.real() - fc.sum.imag();
      const double C = fc.csum.real() + fc.csum.imag(), Ca = fc.csum.real() - fc.csum.imag();
      const double s = double(sign_);
      *cin = std::complex<double>(0.25 * (3.0 * A + s * Ca), 0.25 * (3.0 * C + s * Aa));
      *x2 = fc.x2;
    }
  } else {
    kern_run(in, Z, kw, nullptr, pol, &rep, &st, &mu);
  }
  if (!folded) *cin = check_in(in, x2);  // before the split, which may overwrite in
  if (in_folded) *in_folded = folded;
  SplitCheck<T> sc;
  sc.rr = w_.data.data();
  sc.ri = sc.rr + 2 * kWeightBlock;
  sc.R = Rb_.data.data();
  sc.e1 = split_e1_;
  sc.eh1 = split_eh1_;
  const T z0r = Z[0], z0i = Z[1];
  K_.r2c_twist(Z, twist_.data.data(), out, h, &sc);
  out[0] = z0r + z0i;
  out[1] = T(0);
  out[2 * h] = z0r - z0i;
  out[2 * h + 1] = T(0);
  // w_0 = 1, w_h = exp(s i pi / 2) = s i
  const std::complex<double> S = sc.sum + std::complex<double>(double(out[0]), 0.0) +
                                 std::complex<double>(0.0, double(sign_)) * double(out[2 * h]);
  *cout = r2c_mirror(S, out);
}

template <class T>
void LinePlan<T>::refresh_tables() const {
  if (fourstep_) {
    col_->refresh_tables();
    row_->refresh_tables();
    tw4a_.refresh();
    tw4b_.refresh();
    return;
  }
  std::vector<Table<T>*> tabs;
  if (sub_) sub_->refresh_tables();
  else kernel_->tables(tabs);
  for (Table<T>* t : tabs) t->refresh();
  const_cast<Table<T>&>(twist_).refresh();
  const_cast<Table<T>&>(w_).refresh();
  const_cast<Table<T>&>(v_).refresh();
  const_cast<Table<T>&>(vfold_).refresh();
  const_cast<Table<double>&>(Rb_).refresh();
}

template <class T>
std::string LinePlan<T>::describe() const {
  std::ostringstream o;
  if (fourstep_) {
    o << "fourstep " << n1_ << "x" << n2_ << " checked per sub-transform (" << col_->describe() << " | "
      << row_->describe() << ")";
    return o.str();
  }
  if (kind_ != ABFT_FFT_C2C && half_) o << "half-length ";
  o << (sub_ ? sub_->describe() : kernel_->describe());
  return o.str();
}


template class LinePlan<float>;
template class LinePlan<double>;

}  // namespace abft::cpu::fft
