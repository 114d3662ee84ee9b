/** \file fftw_shim_test.cpp
 *  \brief The FFTW3 interface's own semantics, through abft's <abft/fftw3.h> and
 *  libabft_fftw3: argument handling (NULL plans, nothing written), the layouts each
 *  interface implies (basic in-place padding, many embeds, guru strides, split arrays),
 *  new-array execution, wisdom (round trips, WISDOM_ONLY rigor, foreign wisdom),
 *  threads and the utility calls. Results are checked against a direct DFT in long
 *  double; the conformance tests (fftw_conformance.*) compare with FFTW itself.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "abft/fftw3.h"

namespace {

using cld = std::complex<long double>;

/** Direct DFT of `n` points read at in[j * is] (complex), written to a vector. */
std::vector<cld> dft(const std::vector<cld>& x, int sign) {
  const size_t n = x.size();
  std::vector<cld> y(n);
  const long double pi = 3.141592653589793238462643383279502884L;
  for (size_t k = 0; k < n; ++k) {
    cld s = 0;
    for (size_t j = 0; j < n; ++j) {
      const long double a = 2 * pi * (long double)((j * k) % n) / (long double)n;
      s += x[j] * cld(std::cos(a), sign * std::sin(a));
    }
    y[k] = s;
  }
  return y;
}

std::vector<double> random_reals(size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(n);
  for (double& x : v) x = u(g);
  return v;
}

double max_err(const std::vector<cld>& want, const std::vector<cld>& got) {
  double e = 0, s = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    e = std::fmax(e, (double)std::abs(want[i] - got[i]));
    s = std::fmax(s, (double)std::abs(want[i]));
  }
  return e / (s > 0 ? s : 1);
}

constexpr double kTol = 1e-12;  // double transforms of <= 1000 points, relative to max |y|

TEST(FftwShim, BadArgumentsGiveNullPlans) {
  fftw_complex a[8], b[8];
  const int n0[1] = {0}, n8[1] = {8};
  EXPECT_EQ(fftw_plan_dft_1d(0, a, b, FFTW_FORWARD, FFTW_ESTIMATE), nullptr);
  EXPECT_EQ(fftw_plan_dft_1d(-3, a, b, FFTW_FORWARD, FFTW_ESTIMATE), nullptr);
  EXPECT_EQ(fftw_plan_dft_1d(8, a, b, 0, FFTW_ESTIMATE), nullptr);
  EXPECT_EQ(fftw_plan_dft(-1, n8, a, b, FFTW_FORWARD, FFTW_ESTIMATE), nullptr);
  EXPECT_EQ(fftw_plan_dft(1, n0, a, b, FFTW_FORWARD, FFTW_ESTIMATE), nullptr);
  EXPECT_EQ(fftw_plan_dft(1, nullptr, a, b, FFTW_FORWARD, FFTW_ESTIMATE), nullptr);
  EXPECT_EQ(fftw_plan_many_dft(1, n8, -1, a, nullptr, 1, 8, b, nullptr, 1, 8, FFTW_FORWARD,
                               FFTW_ESTIMATE),
            nullptr);
  EXPECT_EQ(fftw_plan_guru_dft(1, nullptr, 0, nullptr, a, b, FFTW_FORWARD, FFTW_ESTIMATE), nullptr);
  fftw_iodim d{8, 1, 1};
  EXPECT_EQ(fftw_plan_guru_dft(1, &d, -1, nullptr, a, b, FFTW_FORWARD, FFTW_ESTIMATE), nullptr);
  double r[8];
  // Real transforms need rank >= 1.
  EXPECT_EQ(fftw_plan_guru_dft_r2c(0, nullptr, 1, &d, r, a, FFTW_ESTIMATE), nullptr);
}

TEST(FftwShim, RealToRealIsNotProvided) {
  double a[8], b[8];
  const int n[1] = {8};
  const fftw_r2r_kind k[1] = {FFTW_REDFT10};
  fftw_iodim d{8, 1, 1};
  EXPECT_EQ(fftw_plan_r2r_1d(8, a, b, FFTW_REDFT10, FFTW_ESTIMATE), nullptr);
  EXPECT_EQ(fftw_plan_r2r_2d(8, 1, a, b, FFTW_R2HC, FFTW_R2HC, FFTW_ESTIMATE), nullptr);
  EXPECT_EQ(fftw_plan_r2r(1, n, a, b, k, FFTW_ESTIMATE), nullptr);
  EXPECT_EQ(fftw_plan_many_r2r(1, n, 1, a, nullptr, 1, 8, b, nullptr, 1, 8, k, FFTW_ESTIMATE), nullptr);
  EXPECT_EQ(fftw_plan_guru_r2r(1, &d, 0, nullptr, a, b, k, FFTW_ESTIMATE), nullptr);
  float fa[8], fb[8];
  EXPECT_EQ(fftwf_plan_r2r_1d(8, fa, fb, FFTW_DHT, FFTW_ESTIMATE), nullptr);
}

TEST(FftwShim, BasicC2CMatchesDirectDft) {
  for (int n : {1, 2, 7, 60, 97, 256, 1000}) {
    for (int sign : {FFTW_FORWARD, FFTW_BACKWARD}) {
      std::vector<double> v = random_reals(2 * size_t(n), unsigned(n));
      fftw_complex* in = fftw_alloc_complex(size_t(n));
      fftw_complex* out = fftw_alloc_complex(size_t(n));
      fftw_plan p = fftw_plan_dft_1d(n, in, out, sign, FFTW_MEASURE);
      ASSERT_NE(p, nullptr);
      std::vector<cld> x(static_cast<size_t>(n));
      for (int i = 0; i < n; ++i) {
        in[i][0] = v[2 * size_t(i)];
        in[i][1] = v[2 * size_t(i) + 1];
        x[size_t(i)] = cld(in[i][0], in[i][1]);
      }
      fftw_execute(p);
      std::vector<cld> y(static_cast<size_t>(n));
      for (int i = 0; i < n; ++i) y[size_t(i)] = cld(out[i][0], out[i][1]);
      EXPECT_LT(max_err(dft(x, sign), y), kTol) << "n=" << n << " sign=" << sign;
      // The input of an out-of-place c2c transform is preserved.
      for (int i = 0; i < n; ++i) ASSERT_EQ(in[i][0], v[2 * size_t(i)]);
      fftw_destroy_plan(p);
      fftw_free(in);
      fftw_free(out);
    }
  }
}

TEST(FftwShim, RankZeroCopiesAndEmptyBatchWritesNothing) {
  fftw_complex in[3] = {{1, 2}, {3, 4}, {5, 6}}, out[3] = {{0, 0}, {0, 0}, {0, 0}};
  fftw_iodim loop{3, 1, 1};
  fftw_plan p = fftw_plan_guru_dft(0, nullptr, 1, &loop, in, out, FFTW_FORWARD, FFTW_ESTIMATE);
  ASSERT_NE(p, nullptr);
  fftw_execute(p);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(out[i][0], in[i][0]);
    EXPECT_EQ(out[i][1], in[i][1]);
  }
  fftw_destroy_plan(p);
  const int n[1] = {3};
  fftw_complex o2[3] = {{9, 9}, {9, 9}, {9, 9}};
  p = fftw_plan_many_dft(1, n, 0, in, nullptr, 1, 3, o2, nullptr, 1, 3, FFTW_FORWARD, FFTW_ESTIMATE);
  ASSERT_NE(p, nullptr);
  fftw_execute(p);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(o2[i][0], 9.0);
  fftw_destroy_plan(p);
}

/** 2D r2c in place through the basic interface: FFTW pads the real rows to 2*(n1/2+1). */
TEST(FftwShim, BasicInPlaceR2CUsesPaddedRows) {
  const int n0 = 6, n1 = 10, h = n1 / 2 + 1;
  double* buf = fftw_alloc_real(size_t(n0) * 2 * h);
  fftw_plan p = fftw_plan_dft_r2c_2d(n0, n1, buf, reinterpret_cast<fftw_complex*>(buf), FFTW_ESTIMATE);
  ASSERT_NE(p, nullptr);
  std::vector<double> v = random_reals(size_t(n0 * n1), 5);
  for (int i = 0; i < n0; ++i)
    for (int j = 0; j < n1; ++j) buf[i * 2 * h + j] = v[size_t(i * n1 + j)];
  fftw_execute(p);
  // Reference: out-of-place on the unpadded array.
  double* in = fftw_alloc_real(size_t(n0 * n1));
  fftw_complex* out = fftw_alloc_complex(size_t(n0 * h));
  fftw_plan q = fftw_plan_dft_r2c_2d(n0, n1, in, out, FFTW_ESTIMATE);
  std::memcpy(in, v.data(), v.size() * sizeof(double));
  fftw_execute(q);
  const fftw_complex* got = reinterpret_cast<fftw_complex*>(buf);
  for (int k = 0; k < n0 * h; ++k) {
    EXPECT_NEAR(got[k][0], out[k][0], 1e-12);
    EXPECT_NEAR(got[k][1], out[k][1], 1e-12);
  }
  // And the reference itself against a direct 2D DFT of bin (1, 2).
  cld s = 0;
  const long double pi = 3.141592653589793238462643383279502884L;
  for (int i = 0; i < n0; ++i)
    for (int j = 0; j < n1; ++j)
      s += (long double)v[size_t(i * n1 + j)] *
           std::exp(cld(0, -2 * pi * ((long double)i * 1 / n0 + (long double)j * 2 / n1)));
  EXPECT_NEAR(out[1 * h + 2][0], (double)s.real(), 1e-12);
  EXPECT_NEAR(out[1 * h + 2][1], (double)s.imag(), 1e-12);
  fftw_destroy_plan(p);
  fftw_destroy_plan(q);
  fftw_free(buf);
  fftw_free(in);
  fftw_free(out);
}

/** plan_many with embeds, strides and distances: 3 interleaved batches of 2D 4x5
 *  transforms inside a 4x7 embed, stride 2 (every other element), distance 1. */
TEST(FftwShim, ManyWithEmbedsStridesAndDistances) {
  const int n[2] = {4, 5}, embed[2] = {4, 7}, howmany = 3, stride = 3, dist = 1;
  const size_t span = size_t(4 * 7 * stride);
  std::vector<double> v = random_reals(2 * span, 9);
  std::vector<double> in(v), out(2 * span, 0.0);
  fftw_plan p = fftw_plan_many_dft(2, n, howmany, reinterpret_cast<fftw_complex*>(in.data()), embed,
                                   stride, dist, reinterpret_cast<fftw_complex*>(out.data()), embed,
                                   stride, dist, FFTW_BACKWARD, FFTW_ESTIMATE);
  ASSERT_NE(p, nullptr);
  fftw_execute(p);
  const long double pi = 3.141592653589793238462643383279502884L;
  for (int b = 0; b < howmany; ++b) {
    for (int k0 = 0; k0 < 4; ++k0)
      for (int k1 = 0; k1 < 5; ++k1) {
        cld s = 0;
        for (int j0 = 0; j0 < 4; ++j0)
          for (int j1 = 0; j1 < 5; ++j1) {
            const size_t at = size_t(b * dist + (j0 * 7 + j1) * stride);
            s += cld(v[2 * at], v[2 * at + 1]) *
                 std::exp(cld(0, 2 * pi * ((long double)(j0 * k0) / 4 + (long double)(j1 * k1) / 5)));
          }
        const size_t at = size_t(b * dist + (k0 * 7 + k1) * stride);
        EXPECT_NEAR(out[2 * at], (double)s.real(), 1e-12);
        EXPECT_NEAR(out[2 * at + 1], (double)s.imag(), 1e-12);
      }
  }
  fftw_destroy_plan(p);
}

/** Split arrays give what the interleaved plan gives; backward by swapping re and im. */
TEST(FftwShim, SplitArraysMatchInterleaved) {
  const int n = 48;
  std::vector<double> v = random_reals(2 * n, 3);
  std::vector<double> ri(n), ii(n), ro(n), io(n);
  for (int i = 0; i < n; ++i) { ri[size_t(i)] = v[2 * size_t(i)]; ii[size_t(i)] = v[2 * size_t(i) + 1]; }
  std::vector<cld> x(n);
  for (int i = 0; i < n; ++i) x[size_t(i)] = cld(ri[size_t(i)], ii[size_t(i)]);
  fftw_iodim d{n, 1, 1};
  for (int sign : {FFTW_FORWARD, FFTW_BACKWARD}) {
    fftw_plan p = sign < 0 ? fftw_plan_guru_split_dft(1, &d, 0, nullptr, ri.data(), ii.data(),
                                                      ro.data(), io.data(), FFTW_ESTIMATE)
                           : fftw_plan_guru_split_dft(1, &d, 0, nullptr, ii.data(), ri.data(),
                                                      io.data(), ro.data(), FFTW_ESTIMATE);
    ASSERT_NE(p, nullptr);
    fftw_execute(p);
    std::vector<cld> y(n);
    for (int i = 0; i < n; ++i) y[size_t(i)] = cld(ro[size_t(i)], io[size_t(i)]);
    EXPECT_LT(max_err(dft(x, sign), y), kTol) << "sign " << sign;
    fftw_destroy_plan(p);
  }
  // Split r2c and c2r round trip (strided real side).
  const int m = 20, h = m / 2 + 1;
  std::vector<double> r(2 * m, 0.0), re(h), im(h), back(m);
  for (int i = 0; i < m; ++i) r[2 * size_t(i)] = v[size_t(i)];
  fftw_iodim dr{m, 2, 1};
  fftw_plan f = fftw_plan_guru_split_dft_r2c(1, &dr, 0, nullptr, r.data(), re.data(), im.data(), FFTW_ESTIMATE);
  ASSERT_NE(f, nullptr);
  fftw_execute(f);
  std::vector<cld> xr(m);
  for (int i = 0; i < m; ++i) xr[size_t(i)] = v[size_t(i)];
  const std::vector<cld> want = dft(xr, -1);
  for (int k = 0; k < h; ++k) {
    EXPECT_NEAR(re[size_t(k)], (double)want[size_t(k)].real(), 1e-12);
    EXPECT_NEAR(im[size_t(k)], (double)want[size_t(k)].imag(), 1e-12);
  }
  fftw_iodim db{m, 1, 1};
  fftw_plan b = fftw_plan_guru_split_dft_c2r(1, &db, 0, nullptr, re.data(), im.data(), back.data(),
                                             FFTW_ESTIMATE | FFTW_PRESERVE_INPUT);
  ASSERT_NE(b, nullptr);
  fftw_execute(b);
  for (int i = 0; i < m; ++i) EXPECT_NEAR(back[size_t(i)] / m, v[size_t(i)], 1e-13);
  fftw_destroy_plan(f);
  fftw_destroy_plan(b);
}

TEST(FftwShim, NewArrayExecution) {
  const int n = 64;
  fftw_complex* a = fftw_alloc_complex(n);
  fftw_complex* b = fftw_alloc_complex(n);
  fftw_complex* c = fftw_alloc_complex(n);
  fftw_complex* d = fftw_alloc_complex(n);
  fftw_plan p = fftw_plan_dft_1d(n, a, b, FFTW_FORWARD, FFTW_MEASURE);
  ASSERT_NE(p, nullptr);
  std::vector<double> v = random_reals(2 * n, 4);
  std::memcpy(c, v.data(), v.size() * sizeof(double));
  fftw_execute_dft(p, c, d);
  std::vector<cld> x(n), y(n);
  for (int i = 0; i < n; ++i) { x[size_t(i)] = cld(v[2 * size_t(i)], v[2 * size_t(i) + 1]); y[size_t(i)] = cld(d[i][0], d[i][1]); }
  EXPECT_LT(max_err(dft(x, -1), y), kTol);
  // Split execution on an interleaved plan: the FFTW convention im = re + 1.
  std::memset(b, 0, sizeof(fftw_complex) * n);
  fftw_execute_split_dft(p, &c[0][0], &c[0][1], &b[0][0], &b[0][1]);
  for (int i = 0; i < n; ++i) EXPECT_EQ(b[i][0], d[i][0]);
  // Arrays that do not fit the plan write nothing: a split layout it cannot take, and a
  // plan of another kind.
  std::vector<double> re(n), im(n), ro(n, 7.0), io(n, 7.0);
  fftw_execute_split_dft(p, re.data(), im.data(), ro.data(), io.data());
  for (int i = 0; i < n; ++i) EXPECT_EQ(ro[size_t(i)], 7.0);
  double* r = fftw_alloc_real(n);
  fftw_plan q = fftw_plan_dft_r2c_1d(n, r, b, FFTW_ESTIMATE);
  for (int i = 0; i < n; ++i) d[i][0] = d[i][1] = 5.0;
  fftw_execute_dft(q, c, d);
  for (int i = 0; i < n; ++i) EXPECT_EQ(d[i][0], 5.0);
  fftw_destroy_plan(p);
  fftw_destroy_plan(q);
  fftw_execute(nullptr);  // says so on stderr, does nothing
  fftw_free(a);
  fftw_free(b);
  fftw_free(c);
  fftw_free(d);
  fftw_free(r);
}

/** Multi-dimensional c2r keeps its input with PRESERVE_INPUT (FFTW has no such plan). */
TEST(FftwShim, MultiDimensionalC2RPreservesInputOnRequest) {
  const int n0 = 8, n1 = 12, h = n1 / 2 + 1;
  double* r = fftw_alloc_real(n0 * n1);
  fftw_complex* c = fftw_alloc_complex(n0 * h);
  std::vector<double> v = random_reals(size_t(n0 * n1), 8);
  std::memcpy(r, v.data(), v.size() * sizeof(double));
  fftw_plan f = fftw_plan_dft_r2c_2d(n0, n1, r, c, FFTW_ESTIMATE);
  fftw_execute(f);
  std::vector<double> spectrum(reinterpret_cast<double*>(c), reinterpret_cast<double*>(c) + 2 * n0 * h);
  fftw_plan b = fftw_plan_dft_c2r_2d(n0, n1, c, r, FFTW_ESTIMATE | FFTW_PRESERVE_INPUT);
  ASSERT_NE(b, nullptr);
  fftw_execute(b);
  for (size_t i = 0; i < spectrum.size(); ++i) ASSERT_EQ(reinterpret_cast<double*>(c)[i], spectrum[i]);
  for (int i = 0; i < n0 * n1; ++i) EXPECT_NEAR(r[i] / (n0 * n1), v[size_t(i)], 1e-13);
  fftw_destroy_plan(f);
  fftw_destroy_plan(b);
  fftw_free(r);
  fftw_free(c);
}

TEST(FftwShim, WisdomRoundTripsAndWisdomOnlyRigor) {
  fftw_forget_wisdom();
  fftw_complex a[30], b[30];
  fftw_plan p = fftw_plan_dft_1d(30, a, b, FFTW_FORWARD, FFTW_ESTIMATE);
  ASSERT_NE(p, nullptr);
  fftw_destroy_plan(p);
  // Planned with ESTIMATE: wisdom answers ESTIMATE, not MEASURE or PATIENT.
  p = fftw_plan_dft_1d(30, a, b, FFTW_FORWARD, FFTW_WISDOM_ONLY | FFTW_ESTIMATE);
  EXPECT_NE(p, nullptr);
  fftw_destroy_plan(p);
  EXPECT_EQ(fftw_plan_dft_1d(30, a, b, FFTW_FORWARD, FFTW_WISDOM_ONLY | FFTW_MEASURE), nullptr);
  p = fftw_plan_dft_1d(30, a, b, FFTW_FORWARD, FFTW_PATIENT);
  fftw_destroy_plan(p);
  char* w = fftw_export_wisdom_to_string();
  ASSERT_NE(w, nullptr);
  fftw_forget_wisdom();
  EXPECT_EQ(fftw_plan_dft_1d(30, a, b, FFTW_FORWARD, FFTW_WISDOM_ONLY | FFTW_ESTIMATE), nullptr);
  EXPECT_EQ(fftw_import_wisdom_from_string(w), 1);
  p = fftw_plan_dft_1d(30, a, b, FFTW_FORWARD, FFTW_WISDOM_ONLY | FFTW_PATIENT);
  EXPECT_NE(p, nullptr);
  fftw_destroy_plan(p);
  EXPECT_EQ(fftw_plan_dft_1d(30, a, b, FFTW_FORWARD, FFTW_WISDOM_ONLY | FFTW_EXHAUSTIVE), nullptr);
  // Another direction or size is another problem.
  EXPECT_EQ(fftw_plan_dft_1d(30, a, b, FFTW_BACKWARD, FFTW_WISDOM_ONLY | FFTW_ESTIMATE), nullptr);
  // Another precision's wisdom is refused, as FFTW refuses it.
  EXPECT_EQ(fftwf_import_wisdom_from_string(w), 0);
  std::free(w);
}

TEST(FftwShim, ForeignAndMalformedWisdom) {
  // FFTW's own wisdom (same precision) is accepted and teaches nothing.
  EXPECT_EQ(fftw_import_wisdom_from_string(
                "(fftw-3.3.10 fftw_wisdom #x458a31c8 #x92381c4c #x4f974889 #xcd46f97e\n"
                "  (fftw_codelet_n1_64 0 #x10bdd #x10bdd #x0 #x1bb8e1e6 #x3a9fd1d9 #x8fd5f1e5 #x6a1c0a1c)\n)\n"),
            1);
  EXPECT_EQ(fftwf_import_wisdom_from_string("(fftw-3.3.10 fftwf_wisdom #x1 #x2 #x3 #x4\n)"), 1);
  EXPECT_EQ(fftw_import_wisdom_from_string("(fftw-3.3.10 fftwf_wisdom #x1 #x2 #x3 #x4\n)"), 0);
  EXPECT_EQ(fftw_import_wisdom_from_string("hello"), 0);
  EXPECT_EQ(fftw_import_wisdom_from_string(""), 0);
  EXPECT_EQ(fftw_import_wisdom_from_string(nullptr), 0);
  EXPECT_EQ(fftw_import_wisdom_from_string("(fftw-3.3.10 fftw_wisdom (unclosed"), 0);
  EXPECT_EQ(fftw_import_wisdom_from_string("(fftw-3.3.10-abft fftw_wisdom\n  (abft 9 \"x\")\n)"), 0);
  EXPECT_EQ(fftw_import_wisdom_from_filename("/nonexistent/wisdom"), 0);
}

TEST(FftwShim, WisdomThroughFilesAndCallbacks) {
  fftw_forget_wisdom();
  fftw_complex a[24], b[24];
  fftw_destroy_plan(fftw_plan_dft_1d(24, a, b, FFTW_BACKWARD, FFTW_MEASURE));
  // To a FILE* followed by other data: import reads just the wisdom expression.
  FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  fftw_export_wisdom_to_file(f);
  std::fputs("TRAILER", f);
  std::rewind(f);
  fftw_forget_wisdom();
  EXPECT_EQ(fftw_import_wisdom_from_file(f), 1);
  char rest[16] = {0};
  EXPECT_EQ(std::fread(rest, 1, sizeof rest - 1, f), 8u);
  EXPECT_STREQ(rest, "\nTRAILER");
  std::fclose(f);
  fftw_plan p = fftw_plan_dft_1d(24, a, b, FFTW_BACKWARD, FFTW_WISDOM_ONLY);
  EXPECT_NE(p, nullptr);
  fftw_destroy_plan(p);
  // Through the callbacks.
  std::string text;
  fftw_export_wisdom([](char c, void* s) { static_cast<std::string*>(s)->push_back(c); }, &text);
  EXPECT_NE(text.find("abft"), std::string::npos);
  struct Src { const std::string* s; size_t i; } src{&text, 0};
  fftw_forget_wisdom();
  EXPECT_EQ(fftw_import_wisdom(
                [](void* d) -> int {
                  Src* s = static_cast<Src*>(d);
                  return s->i < s->s->size() ? (unsigned char)(*s->s)[s->i++] : EOF;
                },
                &src),
            1);
  p = fftw_plan_dft_1d(24, a, b, FFTW_BACKWARD, FFTW_WISDOM_ONLY);
  EXPECT_NE(p, nullptr);
  fftw_destroy_plan(p);
  // And a file by name.
  char name[] = "/tmp/abft_wisdom_XXXXXX";
  const int fd = mkstemp(name);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(fftw_export_wisdom_to_filename(name), 1);
  fftw_forget_wisdom();
  EXPECT_EQ(fftw_import_wisdom_from_filename(name), 1);
  std::remove(name);
  EXPECT_EQ(fftw_export_wisdom_to_filename("/nonexistent/dir/w"), 0);
  EXPECT_EQ(fftw_import_system_wisdom(), std::fopen("/etc/fftw/wisdom", "r") ? 1 : 0);
}

TEST(FftwShim, ThreadsAndUtilities) {
  EXPECT_EQ(fftw_init_threads(), 1);
  EXPECT_EQ(fftw_planner_nthreads(), 1);
  fftw_plan_with_nthreads(2);
  EXPECT_EQ(fftw_planner_nthreads(), 2);
  EXPECT_EQ(fftwf_planner_nthreads(), 1);  // each precision has its own setting
  const int n = 4096;
  fftw_complex* a = fftw_alloc_complex(n);
  fftw_complex* b = fftw_alloc_complex(n);
  fftw_complex* c = fftw_alloc_complex(n);
  std::vector<double> v = random_reals(2 * n, 6);
  std::memcpy(a, v.data(), v.size() * sizeof(double));
  fftw_plan p2 = fftw_plan_dft_1d(n, a, b, FFTW_FORWARD, FFTW_ESTIMATE);
  fftw_plan_with_nthreads(1);
  fftw_plan p1 = fftw_plan_dft_1d(n, a, c, FFTW_FORWARD, FFTW_ESTIMATE);
  fftw_execute(p2);
  fftw_execute(p1);
  for (int i = 0; i < n; ++i) EXPECT_NEAR(b[i][0], c[i][0], 1e-9);
  char* s = fftw_sprint_plan(p2);
  ASSERT_NE(s, nullptr);
  EXPECT_NE(std::string(s).find("abft-dft"), std::string::npos);
  std::free(s);
  double add = -1, mul = -1, fma = -1;
  fftw_flops(p1, &add, &mul, &fma);
  EXPECT_NEAR(add + mul + fma, 5.0 * n * 12, 1.0);  // 5 n log2 n
  EXPECT_GT(fftw_estimate_cost(p1), 0.0);
  EXPECT_GT(fftw_cost(p1), 0.0);
  EXPECT_EQ(fftw_alignment_of(&a[0][0]), 0);
  EXPECT_EQ(fftw_alignment_of(&a[0][1]), 8);
  void* small = fftw_malloc(3);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small) % 64, 0u);
  fftw_free(small);
  EXPECT_EQ(fftw_alloc_complex(SIZE_MAX / 4), nullptr);
  EXPECT_EQ(std::strncmp(fftw_version, "fftw-3.3.10-abft", 16), 0);
  EXPECT_EQ(std::strncmp(fftwf_version, "fftw-3.3.10-abft", 16), 0);
  fftw_destroy_plan(p1);
  fftw_destroy_plan(p2);
  fftw_free(a);
  fftw_free(b);
  fftw_free(c);
  fftw_cleanup_threads();
  fftw_cleanup();
}

/** One thread and two choose different decompositions for large lines (one Stockham pass
 *  vs four-step, fft_kernel1d.hpp): both must give the same transform, and a round trip
 *  must give the input back. */
TEST(FftwShim, LargeLinesAgreeAcrossThreadCounts) {
  for (int n : {1 << 17, 1 << 19}) {
    fftwf_complex* in = fftwf_alloc_complex(size_t(n));
    fftwf_complex* a = fftwf_alloc_complex(size_t(n));
    fftwf_complex* b = fftwf_alloc_complex(size_t(n));
    float* r = fftwf_alloc_real(size_t(n));
    std::vector<double> v = random_reals(2 * size_t(n), 11);
    for (int i = 0; i < n; ++i) { in[i][0] = float(v[2 * size_t(i)]); in[i][1] = float(v[2 * size_t(i) + 1]); }
    fftwf_plan_with_nthreads(1);
    fftwf_plan p1 = fftwf_plan_dft_1d(n, in, a, FFTW_FORWARD, FFTW_ESTIMATE);
    fftwf_plan r1 = fftwf_plan_dft_r2c_1d(n, r, a, FFTW_ESTIMATE);
    fftwf_plan back = fftwf_plan_dft_1d(n, a, b, FFTW_BACKWARD, FFTW_ESTIMATE);
    fftwf_plan_with_nthreads(2);
    fftwf_plan p2 = fftwf_plan_dft_1d(n, in, b, FFTW_FORWARD, FFTW_ESTIMATE);
    fftwf_plan r2 = fftwf_plan_dft_r2c_1d(n, r, b, FFTW_ESTIMATE);
    fftwf_plan_with_nthreads(1);
    ASSERT_TRUE(p1 && p2 && r1 && r2 && back);
    fftwf_execute(p1);
    fftwf_execute(p2);
    double d = 0, m = 0;
    for (int i = 0; i < n; ++i) {
      d = std::fmax(d, std::hypot(a[i][0] - b[i][0], a[i][1] - b[i][1]));
      m = std::fmax(m, std::hypot(a[i][0], a[i][1]));
    }
    EXPECT_LT(d / m, 1e-5) << "c2c n=" << n;
    fftwf_execute(back);  // b = n * in
    double e = 0;
    for (int i = 0; i < n; ++i) e = std::fmax(e, std::fabs(b[i][0] / n - in[i][0]) + std::fabs(b[i][1] / n - in[i][1]));
    EXPECT_LT(e, 1e-5) << "round trip n=" << n;
    for (int i = 0; i < n; ++i) r[i] = in[i][0];
    fftwf_execute(r1);
    fftwf_execute(r2);
    d = 0;
    m = 0;
    for (int i = 0; i <= n / 2; ++i) {
      d = std::fmax(d, std::hypot(a[i][0] - b[i][0], a[i][1] - b[i][1]));
      m = std::fmax(m, std::hypot(a[i][0], a[i][1]));
    }
    EXPECT_LT(d / m, 1e-5) << "r2c n=" << n;
    for (fftwf_plan p : {p1, p2, r1, r2, back}) fftwf_destroy_plan(p);
    fftwf_free(in);
    fftwf_free(a);
    fftwf_free(b);
    fftwf_free(r);
  }
}

TEST(FftwShim, FloatInterface) {
  const int n = 100;
  fftwf_complex* in = fftwf_alloc_complex(n);
  fftwf_complex* out = fftwf_alloc_complex(n);
  fftwf_plan p = fftwf_plan_dft_1d(n, in, out, FFTW_BACKWARD, FFTW_ESTIMATE);
  ASSERT_NE(p, nullptr);
  std::vector<double> v = random_reals(2 * n, 2);
  std::vector<cld> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    in[i][0] = float(v[2 * size_t(i)]);
    in[i][1] = float(v[2 * size_t(i) + 1]);
    x[size_t(i)] = cld(in[i][0], in[i][1]);
  }
  fftwf_execute(p);
  for (int i = 0; i < n; ++i) y[size_t(i)] = cld(out[i][0], out[i][1]);
  EXPECT_LT(max_err(dft(x, +1), y), 2e-6);
  fftwf_destroy_plan(p);
  fftwf_free(in);
  fftwf_free(out);
}

}  // namespace
