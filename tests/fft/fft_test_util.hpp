/** \file fft_test_util.hpp
 *  \brief FFT test helpers: names, seeded fills, array geometries with FFTW
 *  "many"/"guru" strides, plans run through the C API, a direct DFT in long
 *  double (exact twiddle reduction), an optional FFTW oracle, error metrics
 *  and the accuracy tolerance derived from abft::checksum.
 */
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "abft/abft.h"
#include "abft/abft.hpp"
#include "abft/checksum/bounds.hpp"
#include "abft/checksum/fft_bounds.hpp"
#include "abft/fft.h"
#include "test_util.hpp"

#ifdef ABFT_TEST_HAVE_FFTW
#include <fftw3.h>
#endif

namespace abft_fft_test {

using ld = long double;
using cld = std::complex<long double>;

// ------------------------------------------------------------------ names
// type_tag<T>() "f32"/"f64", site_tag and model_tag are the GEMM tests' (test_util.hpp).
using abft_test::model_tag;
using abft_test::site_tag;
using abft_test::type_tag;

template <class T> inline abft_precision precision_of();
template <> inline abft_precision precision_of<float>() { return ABFT_PRECISION_FLOAT; }
template <> inline abft_precision precision_of<double>() { return ABFT_PRECISION_DOUBLE; }

template <class T> inline abft_kernel kernel_of();
template <> inline abft_kernel kernel_of<float>() { return ABFT_KERNEL_SFFT; }
template <> inline abft_kernel kernel_of<double>() { return ABFT_KERNEL_DFFT; }

inline const char* kind_tag(abft_fft_kind k) {
  return k == ABFT_FFT_C2C ? "C2C" : k == ABFT_FFT_R2C ? "R2C" : k == ABFT_FFT_C2R ? "C2R" : "?";
}
inline const char* dir_tag(int sign) { return sign < 0 ? "Forward" : "Backward"; }
/** Canonical sign of a kind (C2C: the caller's; R2C forward; C2R backward). */
inline int kind_sign(abft_fft_kind k, int c2c_sign) {
  return k == ABFT_FFT_C2C ? c2c_sign : k == ABFT_FFT_R2C ? -1 : +1;
}
inline std::string shape_tag(const std::vector<int64_t>& n) {
  std::string s;
  for (size_t d = 0; d < n.size(); ++d) s += (d ? "x" : "") + std::to_string(n[d]);
  return s;
}

/** A transform kind with its direction, and the tag test names spell it with. */
struct KindDir {
  abft_fft_kind kind;
  int sign;
  const char* tag;
};
/** Every kind and direction: C2C both ways, R2C forward, C2R backward. */
inline const KindDir kKinds[] = {{ABFT_FFT_C2C, ABFT_FFT_FORWARD, "C2C_Forward"},
                                 {ABFT_FFT_C2C, ABFT_FFT_BACKWARD, "C2C_Backward"},
                                 {ABFT_FFT_R2C, ABFT_FFT_FORWARD, "R2C_Forward"},
                                 {ABFT_FFT_C2R, ABFT_FFT_BACKWARD, "C2R_Backward"}};

// ------------------------------------------------------------------ test registration
/** A test whose body is a callable: lets a file register one gtest per
 *  configuration with a name that spells it (e.g. FftC2C.Forward_f64_n1009). */
template <class F>
class CallableTest : public ::testing::Test {
 public:
  explicit CallableTest(F f) : f_(std::move(f)) {}
  void TestBody() override { f_(); }

 private:
  F f_;
};
template <class F>
void register_test(const std::string& suite, const std::string& name, F body,
                   const char* file = __FILE__, int line = __LINE__) {
  ::testing::RegisterTest(suite.c_str(), name.c_str(), nullptr, nullptr, file, line,
                          [body]() -> ::testing::Test* { return new CallableTest<F>(body); });
}

// ------------------------------------------------------------------ RAII
/** Owns an abft_fft_plan_t. */
class Plan {
 public:
  Plan() = default;
  ~Plan() { reset(); }
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  Plan(Plan&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  Plan& operator=(Plan&& o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  abft_fft_plan_t* out() {
    reset();
    return &p_;
  }
  abft_fft_plan_t get() const { return p_; }
  explicit operator bool() const { return p_ != nullptr; }
  void reset() {
    if (p_) abft_fft_destroy(p_);
    p_ = nullptr;
  }

 private:
  abft_fft_plan_t p_ = nullptr;
};

// ------------------------------------------------------------------ fills
inline std::mt19937_64 rng_for(uint64_t seed) { return std::mt19937_64(seed * 0x9E3779B97F4A7C15ull + 1); }

/** n values uniform in [lo, hi), rounded to T. */
template <class T>
std::vector<T> random_real(int64_t n, uint64_t seed, double lo = -1.0, double hi = 1.0) {
  std::mt19937_64 g = rng_for(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<T> v(size_t(std::max<int64_t>(n, 0)));
  for (T& x : v) x = static_cast<T>(d(g));
  return v;
}
/** n complex values, each part uniform in [lo, hi). */
template <class T>
std::vector<std::complex<T>> random_complex(int64_t n, uint64_t seed, double lo = -1.0,
                                            double hi = 1.0) {
  std::mt19937_64 g = rng_for(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<std::complex<T>> v(size_t(std::max<int64_t>(n, 0)));
  for (auto& x : v) {
    const T re = static_cast<T>(d(g));
    const T im = static_cast<T>(d(g));
    x = {re, im};
  }
  return v;
}

// ------------------------------------------------------------------ shapes
inline int64_t product(const std::vector<int64_t>& n) {
  int64_t p = 1;
  for (int64_t v : n) p *= v;
  return p;
}
/** Row-major multi-index of linear index `lin` in `shape`. */
inline void unravel(int64_t lin, const std::vector<int64_t>& shape, std::vector<int64_t>* idx) {
  idx->resize(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    (*idx)[d] = lin % shape[d];
    lin /= shape[d];
  }
}
inline int64_t ravel(const std::vector<int64_t>& idx, const std::vector<int64_t>& shape) {
  int64_t lin = 0;
  for (size_t d = 0; d < shape.size(); ++d) lin = lin * shape[d] + idx[d];
  return lin;
}
/** Complex-side shape of a real transform: the last length becomes n/2+1. */
inline std::vector<int64_t> half_shape(std::vector<int64_t> n) {
  if (!n.empty()) n.back() = n.back() / 2 + 1;
  return n;
}

// ------------------------------------------------------------------ geometry
/** Where every logical element of every transform of a plan lives: FFTW guru
 *  semantics (dims: transform dimensions, loops: batch dimensions; strides
 *  in elements of each array: complex pairs or reals). For R2C/C2R the
 *  transform length of the last dim is the real one. */
struct Geometry {
  abft_fft_kind kind = ABFT_FFT_C2C;
  int sign = ABFT_FFT_FORWARD;
  std::vector<abft_fft_dim> dims, loops;

  int rank() const { return int(dims.size()); }
  std::vector<int64_t> n() const {
    std::vector<int64_t> v;
    for (const auto& d : dims) v.push_back(d.n);
    return v;
  }
  int64_t N() const { return product(n()); }
  int64_t batch() const {
    int64_t b = 1;
    for (const auto& l : loops) b *= l.n;
    return b;
  }
  bool in_complex() const { return kind != ABFT_FFT_R2C; }
  bool out_complex() const { return kind != ABFT_FFT_C2R; }
  std::vector<int64_t> in_shape() const { return kind == ABFT_FFT_C2R ? half_shape(n()) : n(); }
  std::vector<int64_t> out_shape() const { return kind == ABFT_FFT_R2C ? half_shape(n()) : n(); }
  std::vector<int64_t> loop_shape() const {
    std::vector<int64_t> v;
    for (const auto& l : loops) v.push_back(l.n);
    return v;
  }

  /** Offsets (in elements) of element `i` (linear in the side's shape) of batch `b`. */
  int64_t offset(bool input, int64_t b, int64_t i) const {
    const std::vector<int64_t> sh = input ? in_shape() : out_shape();
    std::vector<int64_t> ix, bx;
    unravel(i, sh, &ix);
    unravel(b, loop_shape(), &bx);
    int64_t o = 0;
    for (size_t d = 0; d < dims.size(); ++d) o += ix[d] * (input ? dims[d].is : dims[d].os);
    for (size_t h = 0; h < loops.size(); ++h) o += bx[h] * (input ? loops[h].is : loops[h].os);
    return o;
  }
  /** Smallest / largest offset a side touches (negative strides allowed). */
  std::pair<int64_t, int64_t> extent(bool input) const {
    const std::vector<int64_t> sh = input ? in_shape() : out_shape();
    int64_t lo = 0, hi = 0;
    for (size_t d = 0; d < dims.size(); ++d) {
      const int64_t s = input ? dims[d].is : dims[d].os;
      (s < 0 ? lo : hi) += (sh[d] - 1) * s;
    }
    for (const auto& l : loops) {
      const int64_t s = input ? l.is : l.os;
      (s < 0 ? lo : hi) += (l.n - 1) * s;
    }
    return {lo, hi};
  }
  std::string describe() const {
    std::ostringstream os;
    os << kind_tag(kind) << " sign=" << sign << " dims=[";
    for (size_t d = 0; d < dims.size(); ++d)
      os << (d ? " " : "") << dims[d].n << ":" << dims[d].is << "/" << dims[d].os;
    os << "] loops=[";
    for (size_t h = 0; h < loops.size(); ++h)
      os << (h ? " " : "") << loops[h].n << ":" << loops[h].is << "/" << loops[h].os;
    os << "]";
    return os.str();
  }
};

/** Contiguous row-major transforms of shape n, `batch` of them back to back
 *  (plan_many with NULL embeds, stride 1, dist = the side's element count). */
inline Geometry contiguous(abft_fft_kind kind, int sign, const std::vector<int64_t>& n,
                           int64_t batch = 1) {
  Geometry g;
  g.kind = kind;
  g.sign = sign;
  const std::vector<int64_t> ish = kind == ABFT_FFT_C2R ? half_shape(n) : n;
  const std::vector<int64_t> osh = kind == ABFT_FFT_R2C ? half_shape(n) : n;
  int64_t is = 1, os = 1;
  g.dims.resize(n.size());
  for (size_t d = n.size(); d-- > 0;) {
    g.dims[d] = {n[d], is, os};
    is *= ish[d];
    os *= osh[d];
  }
  if (batch != 1) g.loops.push_back({batch, is, os});
  return g;
}

/** Arguments of abft_fft_plan_many, and the guru geometry they mean. */
struct ManyArgs {
  abft_fft_kind kind = ABFT_FFT_C2C;
  int sign = ABFT_FFT_FORWARD;
  std::vector<int64_t> n;
  int64_t howmany = 1;
  std::vector<int64_t> inembed, onembed;  // empty: NULL
  int64_t istride = 1, idist = 0, ostride = 1, odist = 0;
  unsigned flags = 0;

  Geometry geometry() const {
    Geometry g;
    g.kind = kind;
    g.sign = sign;
    const std::vector<int64_t> ish = kind == ABFT_FFT_C2R ? half_shape(n) : n;
    const std::vector<int64_t> osh = kind == ABFT_FFT_R2C ? half_shape(n) : n;
    const std::vector<int64_t>& ie = inembed.empty() ? ish : inembed;
    const std::vector<int64_t>& oe = onembed.empty() ? osh : onembed;
    int64_t is = istride, os = ostride;
    g.dims.resize(n.size());
    for (size_t d = n.size(); d-- > 0;) {
      g.dims[d] = {n[d], is, os};
      is *= ie[d];
      os *= oe[d];
    }
    g.loops.push_back({howmany, idist, odist});
    return g;
  }
  abft_status plan(abft_fft_plan_t* out, abft_handle_t h, abft_precision prec) const {
    return abft_fft_plan_many(out, h, prec, kind, int(n.size()), n.data(), howmany,
                              inembed.empty() ? nullptr : inembed.data(), istride, idist,
                              onembed.empty() ? nullptr : onembed.data(), ostride, odist, sign,
                              flags);
  }
};

inline abft_status plan_guru(abft_fft_plan_t* out, abft_handle_t h, abft_precision prec,
                             const Geometry& g, unsigned flags) {
  return abft_fft_plan_guru(out, h, prec, g.kind, g.rank(), g.dims.data(), int(g.loops.size()),
                            g.loops.empty() ? nullptr : g.loops.data(), g.sign, flags);
}

// ------------------------------------------------------------------ arrays
/** Storage of one side of a plan: scalars (complex as interleaved pairs),
 *  with `base` elements before the logical element 0 (negative strides).
 *  Unused storage holds a sentinel (NaN on the input side: reading it shows
 *  in the result; a fixed pattern on the output side: writing it shows). */
template <class T>
struct Side {
  bool complex = true;
  int64_t base = 0;  // elements
  std::vector<T> data;
  int per() const { return complex ? 2 : 1; }
  T* ptr() { return data.data() + base * per(); }
  const T* ptr() const { return data.data() + base * per(); }
};
template <class T> inline T out_sentinel() { return T(-4242.125); }

template <class T>
Side<T> make_side(const Geometry& g, bool input, int64_t extra_elems = 0) {
  Side<T> s;
  s.complex = input ? g.in_complex() : g.out_complex();
  const auto e = g.extent(input);
  s.base = -e.first;
  const int64_t elems = e.second - e.first + 1 + extra_elems;
  s.data.assign(size_t(elems * s.per()),
                input ? std::numeric_limits<T>::quiet_NaN() : out_sentinel<T>());
  return s;
}

/** Offsets (elements) of every logical element of signal b of one side, in
 *  row-major logical order (an odometer over the side's shape). */
inline std::vector<int64_t> offsets(const Geometry& g, bool input, int64_t b) {
  const std::vector<int64_t> sh = input ? g.in_shape() : g.out_shape();
  const int64_t cnt = product(sh);
  int64_t base = 0;
  {
    std::vector<int64_t> bx;
    unravel(b, g.loop_shape(), &bx);
    for (size_t h = 0; h < g.loops.size(); ++h) base += bx[h] * (input ? g.loops[h].is : g.loops[h].os);
  }
  const size_t r = sh.size();
  std::vector<int64_t> st(r), ix(r, 0);
  for (size_t d = 0; d < r; ++d) st[d] = input ? g.dims[d].is : g.dims[d].os;
  std::vector<int64_t> out(static_cast<size_t>(cnt));
  int64_t o = base;
  for (int64_t i = 0; i < cnt; ++i) {
    out[size_t(i)] = o;
    for (size_t d = r; d-- > 0;) {  // increment the odometer
      if (++ix[d] < sh[d]) {
        o += st[d];
        break;
      }
      o -= (sh[d] - 1) * st[d];
      ix[d] = 0;
    }
  }
  return out;
}

/** Logical signal b of one side as long-double complex values (reals: im 0). */
template <class T>
std::vector<cld> gather(const Geometry& g, bool input, const T* p, int64_t b) {
  const bool cx = input ? g.in_complex() : g.out_complex();
  const std::vector<int64_t> off = offsets(g, input, b);
  std::vector<cld> v(off.size());
  for (size_t i = 0; i < off.size(); ++i) {
    const int64_t o = off[i];
    v[i] = cx ? cld(p[2 * o], p[2 * o + 1]) : cld(p[o], 0.0L);
  }
  return v;
}
template <class T>
void scatter(const Geometry& g, bool input, T* p, int64_t b, const std::vector<cld>& v) {
  const bool cx = input ? g.in_complex() : g.out_complex();
  const std::vector<int64_t> off = offsets(g, input, b);
  for (size_t i = 0; i < off.size(); ++i) {
    const int64_t o = off[i];
    if (cx) {
      p[2 * o] = static_cast<T>(v[i].real());
      p[2 * o + 1] = static_cast<T>(v[i].imag());
    } else {
      p[o] = static_cast<T>(v[i].real());
    }
  }
}

/** Make a half spectrum (shape half_shape(n)) exactly Hermitian-consistent in
 *  the planes that are their own mirror (last index 0, and n/2 for even n):
 *  X[-k] = conj(X[k]) there, imaginary part 0 where k == -k. Then every
 *  correct C2R algorithm computes the same real signal. */
inline void make_hermitian(std::vector<cld>* half, const std::vector<int64_t>& n) {
  const std::vector<int64_t> hs = half_shape(n);
  const int64_t nl = n.back();
  std::vector<int64_t> planes = {0};
  if (nl % 2 == 0 && nl / 2 != 0) planes.push_back(nl / 2);
  std::vector<int64_t> lead(n.begin(), n.end() - 1);
  const int64_t cnt = product(lead);
  std::vector<int64_t> ix, jx;
  for (int64_t pl : planes)
    for (int64_t i = 0; i < cnt; ++i) {
      unravel(i, lead, &ix);
      jx = ix;
      for (size_t d = 0; d < lead.size(); ++d) jx[d] = (lead[d] - ix[d]) % lead[d];
      const int64_t j = ravel(jx, lead);
      ix.push_back(pl);
      jx.push_back(pl);
      cld& a = (*half)[size_t(ravel(ix, hs))];
      cld& b = (*half)[size_t(ravel(jx, hs))];
      if (i == j) a = cld(a.real(), 0.0L);
      else if (i < j) b = std::conj(a);
    }
}

// ------------------------------------------------------------------ reference DFT
/** Direct DFT of one line in long double: y[k] = sum_j x[j] w[(j k) mod n],
 *  w[m] = exp(sign 2 pi i m / n) from an exactly reduced angle. */
inline void dft_line(const cld* x, cld* y, int64_t n, int sign) {
  std::vector<ld> wr(static_cast<size_t>(n)), wi(static_cast<size_t>(n)), xr(static_cast<size_t>(n)),
      xi(static_cast<size_t>(n));
  const ld two_pi = 6.283185307179586476925286766559005768L;
  for (int64_t m = 0; m < n; ++m) {
    // m = (j k) mod n is reduced exactly in integers, so the angle is
    // accurate for any n; quarter turns are set exactly.
    const ld a = two_pi * ld(m) / ld(n);
    wr[size_t(m)] = std::cos(a);
    wi[size_t(m)] = ld(sign) * std::sin(a);
    if (4 * m == n) { wr[size_t(m)] = 0; wi[size_t(m)] = ld(sign); }
    if (2 * m == n) { wr[size_t(m)] = -1; wi[size_t(m)] = 0; }
    if (4 * m == 3 * n) { wr[size_t(m)] = 0; wi[size_t(m)] = -ld(sign); }
  }
  for (int64_t j = 0; j < n; ++j) {
    xr[size_t(j)] = x[j].real();
    xi[size_t(j)] = x[j].imag();
  }
  for (int64_t k = 0; k < n; ++k) {
    ld sr = 0, si = 0;
    int64_t idx = 0;
    for (int64_t j = 0; j < n; ++j) {
      const ld ar = xr[size_t(j)], ai = xi[size_t(j)];
      const ld br = wr[size_t(idx)], bi = wi[size_t(idx)];
      sr += ar * br - ai * bi;
      si += ar * bi + ai * br;
      idx += k;
      if (idx >= n) idx -= n;
    }
    y[k] = cld(sr, si);
  }
}

/** Largest line length the direct DFT takes (larger ones need the oracle). */
constexpr int64_t kDirectDftMax = 4200;

/** In-place multi-dimensional DFT of `a` (row-major `shape`), axis by axis. */
inline void dft_nd_direct(std::vector<cld>* a, const std::vector<int64_t>& shape, int sign) {
  const int64_t total = product(shape);
  std::vector<cld> line, out;
  for (size_t ax = 0; ax < shape.size(); ++ax) {
    const int64_t len = shape[ax];
    int64_t inner = 1;
    for (size_t d = ax + 1; d < shape.size(); ++d) inner *= shape[d];
    const int64_t outer = total / (len * inner);
    line.resize(size_t(len));
    out.resize(size_t(len));
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t in = 0; in < inner; ++in) {
        const int64_t base = o * len * inner + in;
        for (int64_t j = 0; j < len; ++j) line[size_t(j)] = (*a)[size_t(base + j * inner)];
        dft_line(line.data(), out.data(), len, sign);
        for (int64_t j = 0; j < len; ++j) (*a)[size_t(base + j * inner)] = out[size_t(j)];
      }
  }
}

inline bool have_fftw() {
#ifdef ABFT_TEST_HAVE_FFTW
  return true;
#else
  return false;
#endif
}
inline std::string no_oracle_message(const std::vector<int64_t>& shape) {
  return "libfftw3-dev is missing: no oracle for " + shape_tag(shape) +
         " (the direct long-double DFT takes lines up to " + std::to_string(kDirectDftMax) +
         "); install libfftw3-dev and reconfigure";
}

#ifdef ABFT_TEST_HAVE_FFTW
/** FFTW (double precision, FFTW_ESTIMATE) multi-dimensional DFT, in place. */
inline void dft_nd_fftw(std::vector<cld>* a, const std::vector<int64_t>& shape, int sign) {
  const int64_t total = product(shape);
  fftw_complex* buf = fftw_alloc_complex(size_t(total));
  for (int64_t i = 0; i < total; ++i) {
    buf[i][0] = double((*a)[size_t(i)].real());
    buf[i][1] = double((*a)[size_t(i)].imag());
  }
  std::vector<int> n(shape.begin(), shape.end());
  fftw_plan p = fftw_plan_dft(int(n.size()), n.data(), buf, buf,
                              sign < 0 ? FFTW_FORWARD : FFTW_BACKWARD, FFTW_ESTIMATE);
  fftw_execute(p);
  fftw_destroy_plan(p);
  for (int64_t i = 0; i < total; ++i) (*a)[size_t(i)] = cld(buf[i][0], buf[i][1]);
  fftw_free(buf);
}
#endif

/** Which oracle a reference came from (sets the tolerance's oracle term). */
enum class Oracle { None, Direct, Fftw };

/** C2C reference of `a` in place: direct long-double DFT when every line is
 *  short enough (or `force_direct`), else FFTW; Oracle::None when neither. */
inline Oracle dft_nd(std::vector<cld>* a, const std::vector<int64_t>& shape, int sign) {
  const int64_t mx = shape.empty() ? 1 : *std::max_element(shape.begin(), shape.end());
  if (mx <= kDirectDftMax) {
    dft_nd_direct(a, shape, sign);
    return Oracle::Direct;
  }
#ifdef ABFT_TEST_HAVE_FFTW
  dft_nd_fftw(a, shape, sign);
  return Oracle::Fftw;
#else
  return Oracle::None;
#endif
}

/** Reference output of one transform of kind `kind` (transform shape n, the
 *  real one for R2C/C2R) on the logical input `in` (shape in_shape). */
inline Oracle reference(abft_fft_kind kind, int sign, const std::vector<int64_t>& n,
                        const std::vector<cld>& in, std::vector<cld>* out) {
  if (kind == ABFT_FFT_C2C) {
    *out = in;
    return dft_nd(out, n, sign);
  }
  // Row-wise views: `rows` lines along the last dimension (length nl real,
  // h complex), the leading multi-index of a row mirrored by neg_row.
  const int64_t nl = n.back(), h = nl / 2 + 1, rows = product(n) / nl;
  const std::vector<int64_t> lead(n.begin(), n.end() - 1);
  auto neg_row = [&](int64_t r) {
    std::vector<int64_t> ix;
    unravel(r, lead, &ix);
    for (size_t d = 0; d < lead.size(); ++d) ix[d] = (lead[d] - ix[d]) % lead[d];
    return ravel(ix, lead);
  };
  if (kind == ABFT_FFT_R2C) {
    std::vector<cld> full(in.size());
    for (size_t i = 0; i < in.size(); ++i) full[i] = cld(in[i].real(), 0.0L);
    const Oracle o = dft_nd(&full, n, -1);
    out->assign(static_cast<size_t>(rows * h), cld());
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t k = 0; k < h; ++k) (*out)[size_t(r * h + k)] = full[size_t(r * nl + k)];
    return o;
  }
  // C2R: Hermitian extension of the half spectrum, backward C2C, real part.
  std::vector<cld> full(static_cast<size_t>(rows * nl));
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t nr = neg_row(r);
    for (int64_t k = 0; k < nl; ++k)
      full[size_t(r * nl + k)] = k < h ? in[size_t(r * h + k)]
                                       : std::conj(in[size_t(nr * h + (nl - k) % nl)]);
  }
  const Oracle o = dft_nd(&full, n, +1);
  out->assign(full.size(), cld());
  for (size_t i = 0; i < full.size(); ++i) (*out)[i] = cld(full[i].real(), 0.0L);
  return o;
}

// ------------------------------------------------------------------ tolerance and metrics
/** Accuracy tolerance of an FFT of N points computed in T, on the relative
 *  2-norm error ||y - y_ref||_2 / ||y_ref||_2 (which also bounds the maximum
 *  error relative to the norm, max_k |y_k - y_ref,k| / ||y_ref||_2).
 *
 *  Higham (§24.1) bounds a radix-2 Cooley-Tukey FFT's relative 2-norm error
 *  by log2(N) eta / (1 - log2(N) eta); abft::checksum::fft_stage_eta is that
 *  eta for one stage (about 22 u for radix 2, worst case). Observed errors are
 *  far smaller (rms growth ~ u sqrt(log2 N), FFTW's accuracy tables), so the
 *  tests use a realistic multiple: 4 u (log2 N + 8), where "+ 8" covers the
 *  extra passes of Bluestein (two FFTs of length >= 2N and chirp products) and
 *  of four-step (the inter-step twiddles). That is still ~10x the errors an
 *  accurate FFT makes and catches inaccurate twiddles (which err ~ u N).
 *  With FFTW (double) as the oracle the oracle's own error adds the same
 *  term for u of double. */
template <class T>
double tolerance(int64_t N, Oracle oracle = Oracle::Direct) {
  const double lg = std::log2(double(std::max<int64_t>(N, 2))) + 8.0;
  double t = 4.0 * abft::checksum::unit_roundoff<T>() * lg;
  if (oracle == Oracle::Fftw) t += 4.0 * abft::checksum::unit_roundoff<double>() * lg;
  return t;
}
/** Absolute floor for (near-)zero references: underflow in N-point sums. */
template <class T>
double tolerance_floor(int64_t N) {
  return 8.0 * double(N) * double(std::numeric_limits<T>::min());
}

struct ErrStats {
  double err_l2 = 0, ref_l2 = 0, err_max = 0;
  int64_t worst = -1;       // index of err_max
  int64_t mismatched_nonfinite = 0;
  double rel_l2() const { return ref_l2 > 0 ? err_l2 / ref_l2 : err_l2; }
  /** The maximum error relative to the norm: max_k |y_k - ref_k| / ||ref||_2. */
  double rel_max() const { return ref_l2 > 0 ? err_max / ref_l2 : err_max; }
};
inline ErrStats compare(const std::vector<cld>& got, const std::vector<cld>& ref) {
  ErrStats s;
  long double e2 = 0, r2 = 0, emax = 0;
  for (size_t i = 0; i < got.size() && i < ref.size(); ++i) {
    const bool gf = std::isfinite(got[i].real()) && std::isfinite(got[i].imag());
    const bool rf = std::isfinite(ref[i].real()) && std::isfinite(ref[i].imag());
    if (!gf || !rf) {
      if (gf != rf) ++s.mismatched_nonfinite;
      continue;
    }
    // |d|^2 without hypot (the norms are far from overflow in long double).
    const long double dr = got[i].real() - ref[i].real(), di = got[i].imag() - ref[i].imag();
    const long double e = dr * dr + di * di;
    e2 += e;
    r2 += ref[i].real() * ref[i].real() + ref[i].imag() * ref[i].imag();
    if (e > emax || s.worst < 0) {
      emax = e;
      s.worst = int64_t(i);
    }
  }
  s.err_max = double(std::sqrt(emax));
  s.err_l2 = double(std::sqrt(e2));
  s.ref_l2 = double(std::sqrt(r2));
  return s;
}
/** ||y - ref||_2 <= tol ||ref||_2 + floor, every value finite where ref is. */
inline ::testing::AssertionResult within(const ErrStats& s, double tol, double floor,
                                         const std::vector<cld>& got,
                                         const std::vector<cld>& ref) {
  const bool ok = s.mismatched_nonfinite == 0 && s.err_l2 <= tol * s.ref_l2 + floor &&
                  s.err_max <= tol * s.ref_l2 + floor;
  if (ok) return ::testing::AssertionSuccess();
  std::ostringstream os;
  os << "relative 2-norm error " << s.rel_l2() << ", max error / ||ref||_2 " << s.rel_max()
     << " > tolerance " << tol << " (floor " << floor << "), ||ref||_2 " << s.ref_l2
     << ", non-finite mismatches " << s.mismatched_nonfinite;
  if (s.worst >= 0 && size_t(s.worst) < got.size())
    os << "; worst element " << s.worst << ": got (" << double(got[size_t(s.worst)].real())
       << ", " << double(got[size_t(s.worst)].imag()) << ") ref ("
       << double(ref[size_t(s.worst)].real()) << ", " << double(ref[size_t(s.worst)].imag())
       << ")";
  return ::testing::AssertionFailure() << os.str();
}

inline long double l2norm(const std::vector<cld>& v) {
  long double s = 0;
  for (const cld& z : v) s += z.real() * z.real() + z.imag() * z.imag();
  return std::sqrt(s);
}

/** Bitwise equality of two scalars, NaN == NaN (positions must match). */
template <class T>
bool same_bits(T a, T b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}
/** Index of the first scalar where a and b differ bitwise (NaN == NaN), -1 if none. */
template <class T>
int64_t first_difference(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return 0;
  for (size_t i = 0; i < a.size(); ++i)
    if (!same_bits(a[i], b[i])) return int64_t(i);
  return -1;
}
template <class T>
bool bytes_equal(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// ------------------------------------------------------------------ running plans
template <class T>
struct Run {
  abft_status status = ABFT_STATUS_INTERNAL_ERROR;
  abft_report report{};
};

inline abft_status set_policy(abft_fft_plan_t p, abft_policy pol) { return abft_fft_set_policy(p, pol); }

/** A plan with its input and output storage, laid out by a Geometry.
 *  In-place: the output lives in the input's storage (`out` unused). */
template <class T>
struct Transform {
  Geometry g;
  bool inplace = false;
  Side<T> in, out;

  void allocate() {
    in = make_side<T>(g, true);
    if (inplace) {
      // One storage for both sides: big enough for either view.
      const auto ei = g.extent(true), eo = g.extent(false);
      const int64_t in_scal = (ei.second + 1) * (g.in_complex() ? 2 : 1);
      const int64_t out_scal = (eo.second + 1) * (g.out_complex() ? 2 : 1);
      in.base = 0;
      in.data.assign(size_t(std::max(in_scal, out_scal)), std::numeric_limits<T>::quiet_NaN());
    } else {
      out = make_side<T>(g, false);
    }
  }
  T* out_ptr() { return inplace ? in.ptr() : out.ptr(); }
  const T* out_ptr() const { return inplace ? in.ptr() : out.ptr(); }
  /** Fill every input signal with seeded random data (C2R: Hermitian-consistent). */
  void fill_random(uint64_t seed, double lo = -1.0, double hi = 1.0) {
    for (int64_t b = 0; b < g.batch(); ++b) {
      const int64_t cnt = product(g.in_shape());
      std::vector<cld> v(static_cast<size_t>(cnt));
      if (g.in_complex()) {
        const auto r = random_complex<T>(cnt, seed + 7919u * uint64_t(b), lo, hi);
        for (int64_t i = 0; i < cnt; ++i) v[size_t(i)] = cld(r[size_t(i)].real(), r[size_t(i)].imag());
      } else {
        const auto r = random_real<T>(cnt, seed + 7919u * uint64_t(b), lo, hi);
        for (int64_t i = 0; i < cnt; ++i) v[size_t(i)] = cld(r[size_t(i)], 0.0L);
      }
      if (g.kind == ABFT_FFT_C2R) make_hermitian(&v, g.n());
      scatter(g, true, in.ptr(), b, v);
    }
  }
  std::vector<cld> input(int64_t b) const { return gather(g, true, in.ptr(), b); }
  std::vector<cld> output(int64_t b) const { return gather(g, false, out_ptr(), b); }
  void set_input(int64_t b, const std::vector<cld>& v) { scatter(g, true, in.ptr(), b, v); }

  Run<T> execute(abft_fft_plan_t p) {
    Run<T> r;
    r.status = abft_fft_execute(p, in.ptr(), inplace ? in.ptr() : out.ptr(), &r.report);
    return r;
  }
};

/** Check every signal of `t` (already executed) against the reference
 *  computed from its input `inputs[b]` (the input as it was before). */
template <class T>
::testing::AssertionResult matches_reference(const Transform<T>& t,
                                             const std::vector<std::vector<cld>>& inputs,
                                             std::string* skip_reason = nullptr) {
  for (int64_t b = 0; b < t.g.batch(); ++b) {
    std::vector<cld> ref;
    const Oracle o = reference(t.g.kind, t.g.sign, t.g.n(), inputs[size_t(b)], &ref);
    if (o == Oracle::None) {
      if (skip_reason) *skip_reason = no_oracle_message(t.g.n());
      return ::testing::AssertionSuccess();
    }
    const std::vector<cld> got = t.output(b);
    const ErrStats s = compare(got, ref);
    const double tol = tolerance<T>(t.g.N(), o);
    if (std::getenv("ABFT_FFT_TEST_VERBOSE"))
      std::cout << "  [accuracy] " << t.g.describe() << " " << type_tag<T>() << " signal " << b
                << ": rel 2-norm error " << s.rel_l2() << ", max error / ||ref|| " << s.rel_max()
                << ", tolerance " << tol << " (" << (o == Oracle::Fftw ? "FFTW" : "direct DFT")
                << ")" << std::endl;
    const ::testing::AssertionResult r = within(s, tol, tolerance_floor<T>(t.g.N()), got, ref);
    if (!r)
      return ::testing::AssertionFailure()
             << t.g.describe() << (t.inplace ? " in-place" : "") << " " << type_tag<T>()
             << " signal " << b << " of " << t.g.batch() << ": " << r.message();
  }
  return ::testing::AssertionSuccess();
}

/** Output storage outside the logical outputs must keep its sentinel
 *  (out-of-place only). Returns the number of written padding scalars. */
template <class T>
int64_t padding_written(const Transform<T>& t) {
  if (t.inplace) return 0;
  std::vector<char> logical(t.out.data.size(), 0);
  const int per = t.out.per();
  for (int64_t b = 0; b < t.g.batch(); ++b)
    for (int64_t off : offsets(t.g, false, b)) {
      const int64_t o = (t.out.base + off) * per;
      for (int k = 0; k < per; ++k) logical[size_t(o + k)] = 1;
    }
  int64_t bad = 0;
  const T s = out_sentinel<T>();
  for (size_t i = 0; i < logical.size(); ++i)
    if (!logical[i] && std::memcmp(&t.out.data[i], &s, sizeof(T)) != 0) ++bad;
  return bad;
}

/** Call info (m = units, n = scalars of the longest unit, k = stages) the
 *  plan reports to an injection hook, read by a planner that plans nothing. */
struct ProbeInfo {
  abft_call_info info{};
  int calls = 0;
};
inline int probe_hook(void* user, const abft_call_info* call, abft_fault*, int) {
  auto* p = static_cast<ProbeInfo*>(user);
  p->info = *call;
  ++p->calls;
  return 0;
}

// ------------------------------------------------------------------ bounds
/** The escape bound of one signal: every output element of an undetected
 *  fault's run differs from the clean run by at most
 *  fft_conservative_coefficient<T>(N) ||x||_2 + an underflow term
 *  (abft::checksum::fft_escape_bound, which the campaign's fft adapter uses too). */
template <class T>
double escape_bound(int64_t N, long double x_norm) {
  return abft::checksum::fft_escape_bound<T>(N, double(x_norm));
}

/** The 2-norm of the full input signal a unit of a real transform sees: for
 *  C2R the half spectrum stands for a Hermitian one of up to sqrt(2) times
 *  its norm. */
inline long double unit_input_norm(abft_fft_kind kind, const std::vector<cld>& in) {
  const long double n = l2norm(in);
  return kind == ABFT_FFT_C2R ? n * std::sqrt(2.0L) : n;
}

}  // namespace abft_fft_test
