/** \file fft_kernel1d.cpp
 *  \brief Stockham, Bluestein and four-step kernels (see fft_kernel1d.hpp).
 */
#include "cpu/fft/fft_kernel1d.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <sstream>

#include "abft/checksum/fft_bounds.hpp"
#include "core/cpu_features.hpp"
#include "cpu/fft/fft_math.hpp"

namespace abft::cpu::fft {
namespace {

namespace cs = abft::checksum;

/** Adds a stage offset and maps buffer indices of a sub-kernel to elements of
 *  the enclosing unit (element = offset + index * stride). */
template <class T>
struct MappedHook final : StageHook<T> {
  StageHook<T>* inner;
  int stage_offset;
  int64_t offset, stride;
  MappedHook(StageHook<T>* h, int so, int64_t off, int64_t str)
      : inner(h), stage_offset(so), offset(off), stride(str) {}
  void after_stage(int stage, T* buf, int64_t n, int64_t off, int64_t str, int64_t bstr) override {
    inner->after_stage(stage + stage_offset, buf, n, offset + off * stride, str * stride, bstr);
  }
  void at_output(T*, int64_t, int64_t, int64_t, bool) override {}  // sub-kernel outputs are intermediates
};


// ------------------------------------------------------------------ Stockham
/** A twiddle of a strided stage (s > 1, stage_q) at index idx of its [p][u-1] table:
 *  (re, re, -im, im), so that the stage loads it as two broadcasts. */
template <class T>
void put_strided_twiddle(T* w, int64_t idx, std::complex<T> z) {
  w[4 * idx] = w[4 * idx + 1] = z.real();
  w[4 * idx + 2] = -z.imag();
  w[4 * idx + 3] = z.imag();
}

template <class T>
class Stockham final : public Kernel1d<T> {
 public:
  Stockham(int64_t n, int sign, const FftKernels<T>& K, std::vector<int> radices)
      : Kernel1d<T>(n, sign), K_(K), radices_(std::move(radices)) {
    const int S = int(radices_.size());
    st_.resize(size_t(S));
    int64_t s = 1;
    double eps = 0;
    for (int t = 0; t < S; ++t) {
      Stage& g = st_[size_t(t)];
      const int r = radices_[size_t(t)];
      const int64_t m = n / (s * r);
      g.a.radix = r;
      g.a.sign = sign;
      g.a.s = s;
      g.a.m = m;
      const long double pi = 3.141592653589793238462643383279502884L;
      g.a.k.c3 = T(-0.5);
      g.a.k.s3 = T(std::sqrt(3.0L) / 2.0L);
      g.a.k.c51 = T(cosl(2 * pi / 5));
      g.a.k.c52 = T(cosl(4 * pi / 5));
      g.a.k.s51 = T(sinl(2 * pi / 5));
      g.a.k.s52 = T(sinl(4 * pi / 5));
      g.a.k.h8 = T(1.0L / std::sqrt(2.0L));
      if (r != 2 && r != 3 && r != 4 && r != 5 && r != 8) {
        g.gc.resize(size_t(r));
        g.gs.resize(size_t(r));
        for (int q = 0; q < r; ++q) {
          const auto z = root_ld(q, r, +1);
          g.gc[size_t(q)] = T(z.real());
          g.gs[size_t(q)] = T(z.imag());
        }
        g.a.k.gc = g.gc.data();
        g.a.k.gs = g.gs.data();
      }
      if (m > 1) {
        const bool first = (s == 1);
        // First stage (vectorized over p): (re, re) pairs then (-im, im)
        // pairs, [u-1][p], so a lane-wise product needs one shuffle. Other
        // stages: (re, re, -im, im) [p][u-1], two broadcast loads per twiddle.
        g.tw.make(size_t(4 * (r - 1) * m), [=](T* w) {
          const int64_t half = 2 * (r - 1) * m;
          for (int64_t p = 0; p < m; ++p)
            for (int u = 1; u < r; ++u) {
              const auto z = root<T>(p * u, int64_t(r) * m, sign);
              if (first) {
                const int64_t idx = int64_t(u - 1) * m + p;
                w[2 * idx] = w[2 * idx + 1] = z.real();
                w[half + 2 * idx] = -z.imag();
                w[half + 2 * idx + 1] = z.imag();
              } else {
                put_strided_twiddle(w, p * (r - 1) + (u - 1), z);
              }
            }
        });
        g.a.tw = g.tw.data.data();
      }
      if (m == 1) {
        // The last stage's factor of the output weights, e_u = exp(sign i pi u / r), for
        // the check sum it may fold into its stores (stage_last_cdot).
        g.half.resize(size_t(2 * r));
        for (int u = 0; u < r; ++u) {
          const auto z = root_ld(u, 2 * r, sign);
          g.half[size_t(2 * u)] = T(z.real());
          g.half[size_t(2 * u + 1)] = T(z.imag());
        }
        g.a.half = g.half.data();
      }
      eps = cs::fft_compose(eps, cs::fft_stage_eta<T>(r, cs::fft_twiddle_mu<T>()));
      s *= r;
    }
    E_ = eps * std::sqrt(double(n));
  }

  void run(const T* in, T* out, T* work, StageHook<T>* hook) const override {
    const int64_t n = this->n_;
    const int S = int(st_.size());
    if (S == 0) {
      out[0] = in[0];
      out[1] = in[1];
      if (hook) hook->after_stage(0, out, 1, 0, 1, 1);
      return;
    }
    each_stage(in, out, work, [&](int t, const T* src, T* dst) {
      K_.stage(st_[size_t(t)].a, src, dst);
      if (hook) hook->after_stage(t, dst, n, 0, 1, 1);
    });
  }
  /** The first stage folds the input side of the check into its loads, the last stage
   *  the output side into its stores (stage_first_csum / stage_last_cdot), where they can. */
  void run_folded(const T* in, T* out, T* work, FoldedCheck<T>& fc) const override {
    const int S = int(st_.size());
    fc.in_done = fc.out_done = false;
    if (S < 2) {
      run(in, out, work, nullptr);
      return;
    }
    each_stage(in, out, work, [&](int t, const T* src, T* dst) {
      const StageArgs<T>& a = st_[size_t(t)].a;
      if (t == 0 && fc.cw)
        fc.in_done = (fc.pairs ? K_.stage_first_csum_pairs : K_.stage_first_csum)(a, src, dst, fc.cw, &fc.sum, &fc.csum, &fc.x2);
      if (t == S - 1 && fc.rr) fc.out_done = K_.stage_last_cdot(a, src, dst, fc.rr, fc.ri, fc.R, &fc.out);
      if (!(t == 0 && fc.in_done) && !(t == S - 1 && fc.out_done)) K_.stage(a, src, dst);
    });
  }
  bool fold_in_order(FoldOrder* o) const override {
    if (st_.size() < 2 || !K_.first_foldable(st_[0].a)) return false;
    o->r = st_[0].a.radix;
    o->m = st_[0].a.m;
    o->lanes = K_.lanes;
    return true;
  }
  int64_t work_scalars() const override { return 2 * this->n_; }
  /** Batched form: the stages with every stride times nb; the first stage's
   *  twiddles in the [p][u-1] layout of the strided stages (built on first
   *  use, shared afterwards). */
  bool run_batch(const T* in, T* out, T* work, int64_t nb, StageHook<T>* hook) const override {
    if (nb == 1) {  // one signal: the plain pipeline (its first stage has s == 1)
      run(in, out, work, hook);
      return true;
    }
    const int64_t n = this->n_;
    const int S = int(st_.size());
    if (S == 0) {
      std::copy(in, in + 2 * nb, out);
      if (hook) hook->after_stage(0, out, nb, 0, 1, 1);
      return true;
    }
    std::call_once(tw0b_once_, [this] { build_tw0b(); });
    each_stage(in, out, work, [&](int t, const T* src, T* dst) {
      StageArgs<T> a = st_[size_t(t)].a;
      a.s *= nb;
      if (t == 0 && a.tw) a.tw = tw0b_.data.data();
      K_.stage(a, src, dst);
      if (hook) hook->after_stage(t, dst, n * nb, 0, 1, 1);
    });
    return true;
  }
  bool has_batch() const override { return true; }
  int stages() const override { return std::max<int>(1, int(st_.size())); }
  double error_E() const override { return E_; }
  void tables(std::vector<Table<T>*>& out) override {
    for (auto& g : st_)
      if (!g.tw.data.empty()) out.push_back(&g.tw);
    if (!tw0b_.data.empty()) out.push_back(&tw0b_);
  }
  int max_radix() const override {
    int r = 2;
    for (int x : radices_) r = std::max(r, x);
    return r;
  }
  std::string describe() const override {
    std::ostringstream o;
    o << "stockham ";
    for (size_t i = 0; i < radices_.size(); ++i) o << (i ? "x" : "") << radices_[i];
    if (radices_.empty()) o << "1";
    return o.str();
  }

 private:
  struct Stage {
    StageArgs<T> a;
    Table<T> tw;
    std::vector<T> gc, gs, half;
  };
  /** f(t, src, dst) for every stage t, ping-ponging between out and the work buffer so that
   *  the last stage writes out (stage t writes out when S-1-t is even); `in` is only read,
   *  by stage 0. */
  template <class F>
  void each_stage(const T* in, T* out, T* work, F&& f) const {
    const int S = int(st_.size());
    const T* src = in;
    for (int t = 0; t < S; ++t) {
      T* dst = ((S - 1 - t) % 2 == 0) ? out : work;
      f(t, src, dst);
      src = dst;
    }
  }
  void build_tw0b() const {
    const StageArgs<T>& a = st_[0].a;
    if (!a.tw) return;
    const int r = a.radix;
    const int64_t m = a.m;
    const int sign = this->sign_;
    tw0b_.make(size_t(4 * (r - 1) * m), [=](T* w) {
      for (int64_t p = 0; p < m; ++p)
        for (int u = 1; u < r; ++u) put_strided_twiddle(w, p * (r - 1) + (u - 1), root<T>(p * u, int64_t(r) * m, sign));
    });
  }
  const FftKernels<T>& K_;
  std::vector<int> radices_;
  std::vector<Stage> st_;
  mutable Table<T> tw0b_;
  mutable std::once_flag tw0b_once_;
  double E_ = 0;
};

// ------------------------------------------------------------------ Bluestein
/** In-place DFT of x (length M = 2^a 3^b 5^c) in long double, for plan-time
 *  tables: recursive decimation in time, twiddles from one table of
 *  exp(sign 2 pi i j / M). */
void fft_ld_rec(std::complex<long double>* x, int64_t n, int64_t stride_in_M,
                const std::vector<std::complex<long double>>& w, int64_t M,
                std::vector<std::complex<long double>>& tmp) {
  if (n == 1) return;
  int64_t p = n % 2 == 0 ? 2 : n % 3 == 0 ? 3 : n % 5 == 0 ? 5 : n;
  const int64_t m = n / p;
  // split x into p decimated sub-sequences (stored consecutively), transform each
  for (int64_t i = 0; i < n; ++i) tmp[size_t(i)] = x[i];
  for (int64_t r = 0; r < p; ++r)
    for (int64_t k = 0; k < m; ++k) x[r * m + k] = tmp[size_t(k * p + r)];
  for (int64_t r = 0; r < p; ++r) fft_ld_rec(x + r * m, m, stride_in_M * p, w, M, tmp);
  // combine: X[k + m q] = sum_r w_n^{r (k + m q)} S_r[k]
  std::complex<long double> t[5];
  std::vector<std::complex<long double>> big;
  if (p > 5) big.resize(size_t(p));
  std::complex<long double>* tv = p > 5 ? big.data() : t;
  for (int64_t k = 0; k < m; ++k) {
    for (int64_t r = 0; r < p; ++r) tv[r] = x[r * m + k];
    for (int64_t q = 0; q < p; ++q) {
      std::complex<long double> acc = 0;
      for (int64_t r = 0; r < p; ++r) {
        const int64_t e = (r * (k + m * q)) % n;
        acc += tv[r] * w[size_t(e * stride_in_M)];
      }
      x[k + m * q] = acc;
    }
  }
}

void fft_long_double(std::vector<std::complex<long double>>& x, int sign) {
  const int64_t M = int64_t(x.size());
  std::vector<std::complex<long double>> w(static_cast<size_t>(M)), tmp(static_cast<size_t>(M));
  for (int64_t j = 0; j < M; ++j) w[size_t(j)] = root_ld(j, M, sign);
  fft_ld_rec(x.data(), M, 1, w, M, tmp);
}

/** y_k = c_k sum_j (x_j c_j) conj(c_{k-j}), c_j = exp(sign i pi j^2 / n): a
 *  cyclic convolution of length M >= 2n - 1 (M smooth) through two FFTs of
 *  length M and the precomputed transform of the chirp. */
template <class T>
class Bluestein final : public Kernel1d<T> {
 public:
  Bluestein(int64_t n, int sign, const FftKernels<T>& K, int threads) : Kernel1d<T>(n, sign), K_(K) {
    M_ = next_smooth(2 * n - 1);
    fwd_ = make_kernel<T>(M_, -1, K, threads);
    bwd_ = make_kernel<T>(M_, +1, K, threads);
    const int64_t M = M_;
    chirp_.make(size_t(2 * n), [=](T* c) {
      for (int64_t j = 0; j < n; ++j) {
        // j^2 mod 2n without overflow for n < 2^31; long double product otherwise
        const int64_t jm = j % (2 * n);
        const unsigned __int128 sq = (unsigned __int128)jm * (unsigned __int128)jm;
        const int64_t e = int64_t(sq % (unsigned __int128)(2 * n));
        const auto z = root<T>(e, 2 * n, sign);
        c[2 * j] = z.real();
        c[2 * j + 1] = z.imag();
      }
    });
    // B = F_-(b) / M in long double (plan time, O(M log M)), b_m = conj(c_m)
    // at m and M - m; rounded once to T.
    std::vector<std::complex<long double>> bl(size_t(M), {0.0L, 0.0L});
    for (int64_t j = 0; j < n; ++j) {
      const unsigned __int128 sq = (unsigned __int128)j * (unsigned __int128)j;
      const auto z = root_ld(int64_t(sq % (unsigned __int128)(2 * n)), 2 * n, -sign);  // conj
      bl[size_t(j)] = z;
      if (j > 0) bl[size_t(M - j)] = z;
    }
    fft_long_double(bl, -1);
    std::vector<double> B(size_t(2 * M));
    long double bmax_ld = 0;
    for (int64_t k = 0; k < M; ++k) {
      const std::complex<long double> v = bl[size_t(k)] / (long double)M;
      B[size_t(2 * k)] = double(v.real());
      B[size_t(2 * k + 1)] = double(v.imag());
      bmax_ld = std::max(bmax_ld, std::abs(v));
    }
    const double bmax = double(bmax_ld) * (1.0 + 1e-15);
    Bq_.make(size_t(2 * M), [B](T* d) {
      for (size_t i = 0; i < B.size(); ++i) d[i] = T(B[i]);
    });
    // Error (docs/ABFT.md §9.2): chirp products, two length-M FFTs, the
    // pointwise product with B (itself computed in double and rounded).
    const double u = cs::unit_roundoff<T>();
    const double epsM = fwd_->error_E() / std::sqrt(double(M));
    // long double transform of B: radix 2/3/5 levels, each <= 30 u_ld (relative, 2-norm)
    const double epsMd = 30.0 * std::ceil(std::log2(double(M))) * std::ldexp(1.0, -64);
    const double mu = cs::fft_twiddle_mu<T>();
    const double g2 = std::sqrt(2.0) * cs::gamma(2.0, u);
    const double eta_c = mu + g2 * (1.0 + mu);
    const double dB = std::sqrt(2.0) * u * bmax + epsMd * std::sqrt(double(2 * n - 1) / double(M)) +
                      4.0 * std::ldexp(1.0, -64) * bmax;
    E_ = 1.01 * double(M) * (bmax * (2.0 * epsM + 2.0 * eta_c + g2) + dB) * (1.0 + epsM) * (1.0 + eta_c);
  }

  void run(const T* in, T* out, T* work, StageHook<T>* hook) const override {
    const int64_t n = this->n_, M = M_;
    T* t1 = work;
    T* t2 = work + 2 * M;
    T* sub = work + 4 * M;
    K_.cmul(t1, in, chirp_.data.data(), n);
    std::fill(t1 + 2 * n, t1 + 2 * M, T(0));
    MappedHook<T> h1(hook, 0, 0, 1);
    fwd_->run(t1, t2, sub, hook ? &h1 : nullptr);
    K_.cmul(t2, t2, Bq_.data.data(), M);
    MappedHook<T> h2(hook, fwd_->stages(), 0, 1);
    bwd_->run(t2, t1, sub, hook ? &h2 : nullptr);
    K_.cmul(out, t1, chirp_.data.data(), n);
  }
  int64_t work_scalars() const override {
    return 4 * M_ + std::max(fwd_->work_scalars(), bwd_->work_scalars());
  }
  int stages() const override { return fwd_->stages() + bwd_->stages(); }
  double error_E() const override { return E_; }
  void tables(std::vector<Table<T>*>& out) override {
    out.push_back(&chirp_);
    out.push_back(&Bq_);
    fwd_->tables(out);
    bwd_->tables(out);
  }
  int max_radix() const override { return std::max(fwd_->max_radix(), bwd_->max_radix()); }
  void set_threads(int nt) override {
    fwd_->set_threads(nt);
    bwd_->set_threads(nt);
  }
  std::string describe() const override {
    std::ostringstream o;
    o << "bluestein m=" << M_ << " (" << fwd_->describe() << ")";
    return o.str();
  }

 private:
  const FftKernels<T>& K_;
  int64_t M_ = 0;
  std::unique_ptr<Kernel1d<T>> fwd_, bwd_;
  Table<T> chirp_, Bq_;
  double E_ = 0;
};

/** Divisor of n nearest sqrt(n) with both factors >= 16, or 0. */
int64_t fourstep_split(int64_t n) {
  int64_t best = 0;
  const double r = std::sqrt(double(n));
  for (int64_t d = 16; d * 16 <= n && d <= int64_t(r) + 1; ++d)
    if (n % d == 0) best = d;
  return best;
}

}  // namespace

template <class T>
T* fft_tls_buffer(size_t scalars, int slot) {
  // 64-byte aligned: a 512-bit access to a 16-byte aligned buffer splits across two cache
  // lines three times in four.
  thread_local std::vector<T, CacheLineAllocator<T>> bufs[8];
  auto& b = bufs[slot];
  if (b.size() < scalars) b.resize(scalars);
  return b.data();
}
template float* fft_tls_buffer<float>(size_t, int);
template double* fft_tls_buffer<double>(size_t, int);

template <class T>
int64_t fourstep_split_for(int64_t n, int threads) {
  if (n <= fourstep_threshold<T>(threads) || factor_radices(n).empty()) return 0;
  return fourstep_split(n);
}
template int64_t fourstep_split_for<float>(int64_t, int);
template int64_t fourstep_split_for<double>(int64_t, int);

template <>
int64_t fourstep_threshold<float>(int threads) { return int64_t(1) << (threads == 1 ? 19 : 15); }
template <>
int64_t fourstep_threshold<double>(int threads) { return int64_t(1) << (threads == 1 ? 18 : 14); }

template <class T>
std::unique_ptr<Kernel1d<T>> make_kernel(int64_t n, int sign, const FftKernels<T>& K, int threads) {
  std::vector<int> rad = factor_radices(n);
  if (n == 1 || !rad.empty()) {
    if (n > fourstep_threshold<T>(threads)) {
      const int64_t n1 = fourstep_split(n);
      if (n1 > 0) return make_fourstep_kernel<T>(n, sign, K, threads);
    }
    return std::make_unique<Stockham<T>>(n, sign, K, order_radices(std::move(rad), K.lanes));
  }
  return std::make_unique<Bluestein<T>>(n, sign, K, threads);
}

template std::unique_ptr<Kernel1d<float>> make_kernel<float>(int64_t, int, const FftKernels<float>&, int);
template std::unique_ptr<Kernel1d<double>> make_kernel<double>(int64_t, int, const FftKernels<double>&, int);

}  // namespace abft::cpu::fft
