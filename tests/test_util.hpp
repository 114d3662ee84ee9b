/** \file test_util.hpp
 *  \brief Shared test helpers: GEMM problems with layout/transposes/padding,
 *  seeded random fills, a long-double reference GEMM, componentwise
 *  tolerances from abft::checksum::gamma, and ISA selection for dispatch tests.
 */
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "abft/abft.h"
#include "abft/abft.hpp"
#include "abft/checksum/bounds.hpp"

namespace abft_test {

// ------------------------------------------------------------------ names
template <class T> inline const char* type_tag();
template <> inline const char* type_tag<float>() { return "f32"; }
template <> inline const char* type_tag<double>() { return "f64"; }

inline const char* layout_tag(abft_layout l) { return l == ABFT_ROW_MAJOR ? "Row" : "Col"; }
inline const char* op_tag(abft_op o) {
  return o == ABFT_NO_TRANS ? "N" : o == ABFT_TRANS ? "T" : o == ABFT_CONJ_TRANS ? "C" : "?";
}
inline const char* policy_tag(abft_policy p) {
  switch (p) {
    case ABFT_POLICY_OFF: return "Off";
    case ABFT_POLICY_DETECT: return "Detect";
    case ABFT_POLICY_CORRECT: return "Correct";
    case ABFT_POLICY_DEFAULT: return "Default";
  }
  return "?";
}
inline const char* isa_tag(abft_isa i) {
  return i == ABFT_ISA_REFERENCE ? "Ref" : i == ABFT_ISA_AVX2 ? "Avx2" : "Avx512";
}
inline const char* site_tag(abft_site s) {
  switch (s) {
    case ABFT_SITE_OUTPUT: return "Output";
    case ABFT_SITE_ACCUMULATOR: return "Accum";
    case ABFT_SITE_PACKED_A: return "PackedA";
    case ABFT_SITE_PACKED_B: return "PackedB";
    case ABFT_SITE_FFT_STAGE: return "Stage";
    case ABFT_SITE_FFT_TWIDDLE: return "Twiddle";
    case ABFT_SITE_ATTN_SCORES: return "Scores";
    case ABFT_SITE_ATTN_PROBS: return "Probs";
    case ABFT_SITE_ATTN_ROWSTAT: return "RowStat";
    case ABFT_SITE_ATTN_ACC: return "Acc";
    case ABFT_SITE_ATTN_DP: return "dP";
    case ABFT_SITE_ATTN_DS: return "dS";
    case ABFT_SITE_ATTN_DQ: return "dQ";
    case ABFT_SITE_ATTN_DK: return "dK";
    case ABFT_SITE_ATTN_DV: return "dV";
    default: return "?";
  }
}
inline const char* model_tag(abft_fault_model m) {
  switch (m) {
    case ABFT_FAULT_BITFLIP: return "BitFlip";
    case ABFT_FAULT_BITFLIP2: return "BitFlip2";
    case ABFT_FAULT_RANDOM: return "Random";
    case ABFT_FAULT_ZERO: return "Zero";
    case ABFT_FAULT_NAN: return "NaN";
    case ABFT_FAULT_POS_INF: return "PosInf";
    case ABFT_FAULT_NEG_INF: return "NegInf";
    default: return "?";
  }
}

// ------------------------------------------------------------------ ISA selection
/** Force the GEMM dispatch to `isa`; false (with the reason) if this CPU/build can't. */
inline bool select_isa(abft_isa isa, std::string* why) {
  const abft_status s = abft_set_isa(isa);
  if (s == ABFT_STATUS_SUCCESS) return true;
  std::ostringstream os;
  if (isa == ABFT_ISA_AVX512)
    os << "CPU lacks AVX-512";
  else if (isa == ABFT_ISA_AVX2)
    os << "CPU lacks AVX2+FMA";
  else
    os << "reference kernel unavailable";
  os << " (abft_set_isa(" << abft_isa_name(isa) << ") = " << abft_status_string(s)
     << "; best ISA here: " << abft_isa_name(abft_cpu_isa()) << ")";
  *why = os.str();
  return false;
}

/** Restores the default dispatch (best ISA) when a test that forced one ends. */
struct IsaGuard {
  ~IsaGuard() { abft_set_isa(abft_cpu_isa()); }
};

#define ABFT_REQUIRE_ISA(isa)                                   \
  do {                                                          \
    std::string abft_why_;                                      \
    if (!::abft_test::select_isa((isa), &abft_why_)) GTEST_SKIP() << abft_why_; \
  } while (0)

// ------------------------------------------------------------------ problems
/** One GEMM call: shapes, layout, transposes, leading dimensions and storage.
 *  Storage outside the logical matrix (padding from ld > minimal) holds a
 *  sentinel: NaN in A/B (reading it would poison C) and a fixed pattern in C
 *  (writing it is detected bytewise). */
template <class T>
struct Problem {
  abft_layout layout = ABFT_COL_MAJOR;
  abft_op ta = ABFT_NO_TRANS, tb = ABFT_NO_TRANS;
  int64_t m = 0, n = 0, k = 0;
  T alpha = T(1), beta = T(0);
  int64_t lda = 1, ldb = 1, ldc = 1;
  std::vector<T> A, B, C0;

  static bool trans(abft_op o) { return o != ABFT_NO_TRANS; }
  int64_t a_rows() const { return trans(ta) ? k : m; }
  int64_t a_cols() const { return trans(ta) ? m : k; }
  int64_t b_rows() const { return trans(tb) ? n : k; }
  int64_t b_cols() const { return trans(tb) ? k : n; }

  static int64_t min_ld(abft_layout l, int64_t rows, int64_t cols) {
    return std::max<int64_t>(1, l == ABFT_ROW_MAJOR ? cols : rows);
  }
  static size_t alloc(abft_layout l, int64_t rows, int64_t cols, int64_t ld) {
    const int64_t outer = (l == ABFT_ROW_MAJOR) ? rows : cols;
    return size_t(std::max<int64_t>(1, outer * ld));
  }
  size_t idx(int64_t r, int64_t c, int64_t ld) const {
    return size_t(layout == ABFT_ROW_MAJOR ? r * ld + c : r + c * ld);
  }
  // Logical accessors: op(A)(i,p), op(B)(p,j), C(i,j).
  size_t ia(int64_t i, int64_t p) const { return trans(ta) ? idx(p, i, lda) : idx(i, p, lda); }
  size_t ib(int64_t p, int64_t j) const { return trans(tb) ? idx(j, p, ldb) : idx(p, j, ldb); }
  size_t ic(int64_t i, int64_t j) const { return idx(i, j, ldc); }
  T opA(int64_t i, int64_t p) const { return A[ia(i, p)]; }
  T opB(int64_t p, int64_t j) const { return B[ib(p, j)]; }
  T c0(int64_t i, int64_t j) const { return C0[ic(i, j)]; }

  static T pad_sentinel_c() { return T(-7777.25); }

  /** Set the shape; ld = minimal + pad_*; storage filled with sentinels and
   *  logical elements zero. */
  void shape(abft_layout l, abft_op a, abft_op b, int64_t m_, int64_t n_, int64_t k_,
             int64_t pad_a = 0, int64_t pad_b = 0, int64_t pad_c = 0) {
    layout = l; ta = a; tb = b; m = m_; n = n_; k = k_;
    lda = min_ld(l, a_rows(), a_cols()) + pad_a;
    ldb = min_ld(l, b_rows(), b_cols()) + pad_b;
    ldc = min_ld(l, m, n) + pad_c;
    const T qnan = std::numeric_limits<T>::quiet_NaN();
    A.assign(alloc(l, a_rows(), a_cols(), lda), qnan);
    B.assign(alloc(l, b_rows(), b_cols(), ldb), qnan);
    C0.assign(alloc(l, m, n, ldc), pad_sentinel_c());
    for (int64_t i = 0; i < m; ++i)
      for (int64_t p = 0; p < k; ++p) A[ia(i, p)] = T(0);
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j) B[ib(p, j)] = T(0);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) C0[ic(i, j)] = T(0);
  }

  template <class F> void fill_A(F f) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t p = 0; p < k; ++p) A[ia(i, p)] = static_cast<T>(f(i, p));
  }
  template <class F> void fill_B(F f) {
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j) B[ib(p, j)] = static_cast<T>(f(p, j));
  }
  template <class F> void fill_C(F f) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) C0[ic(i, j)] = static_cast<T>(f(i, j));
  }
  /** Uniform values in [lo, hi) for A, B and C0. */
  void fill_uniform(std::mt19937_64& rng, double lo = -1.0, double hi = 1.0) {
    std::uniform_real_distribution<double> d(lo, hi);
    fill_A([&](int64_t, int64_t) { return d(rng); });
    fill_B([&](int64_t, int64_t) { return d(rng); });
    fill_C([&](int64_t, int64_t) { return d(rng); });
  }
  std::string describe() const {
    std::ostringstream os;
    os << type_tag<T>() << " " << layout_tag(layout) << " " << op_tag(ta) << op_tag(tb)
       << " m=" << m << " n=" << n << " k=" << k << " alpha=" << double(alpha)
       << " beta=" << double(beta) << " lda=" << lda << " ldb=" << ldb << " ldc=" << ldc;
    return os.str();
  }
};

// ------------------------------------------------------------------ calls
inline abft_status gemm_call(abft_handle_t h, abft_policy pol, const Problem<float>& p,
                             const float* A, const float* B, float* C, abft_report* r) {
  return abft_sgemm(h, pol, p.layout, p.ta, p.tb, p.m, p.n, p.k, p.alpha, A, p.lda, B, p.ldb,
                    p.beta, C, p.ldc, r);
}
inline abft_status gemm_call(abft_handle_t h, abft_policy pol, const Problem<double>& p,
                             const double* A, const double* B, double* C, abft_report* r) {
  return abft_dgemm(h, pol, p.layout, p.ta, p.tb, p.m, p.n, p.k, p.alpha, A, p.lda, B, p.ldb,
                    p.beta, C, p.ldc, r);
}

/** Run p (C starts as a copy of C0); returns C, status and report. */
template <class T>
struct Outcome {
  std::vector<T> C;
  abft_status status = ABFT_STATUS_INTERNAL_ERROR;
  abft_report report{};
};
template <class T>
Outcome<T> run(const Problem<T>& p, abft_handle_t h, abft_policy pol) {
  Outcome<T> o;
  o.C = p.C0;
  o.status = gemm_call(h, pol, p, p.A.data(), p.B.data(), o.C.data(), &o.report);
  return o;
}

// ------------------------------------------------------------------ reference
/** Exact-ish product P = op(A) op(B) and |op(A)||op(B)| in long double,
 *  logical row-major (i*n + j). Independent of alpha/beta and of C0. */
struct Product {
  int64_t m = 0, n = 0, k = 0;
  std::vector<long double> val, mag;
};
template <class T>
Product product(const Problem<T>& p) {
  Product r;
  r.m = p.m; r.n = p.n; r.k = p.k;
  r.val.assign(size_t(p.m * p.n), 0.0L);
  r.mag.assign(size_t(p.m * p.n), 0.0L);
  std::vector<long double> b(size_t(p.k));
  for (int64_t j = 0; j < p.n; ++j) {
    for (int64_t q = 0; q < p.k; ++q) b[size_t(q)] = p.opB(q, j);
    for (int64_t i = 0; i < p.m; ++i) {
      long double s = 0.0L, g = 0.0L;
      for (int64_t q = 0; q < p.k; ++q) {
        const long double x = (long double)p.opA(i, q) * b[size_t(q)];
        s += x;
        g += std::fabs(x);
      }
      r.val[size_t(i * p.n + j)] = s;
      r.mag[size_t(i * p.n + j)] = g;
    }
  }
  return r;
}

/** Reference C(i,j) = alpha P + beta C0 with magnitude |alpha||A||B| + |beta||C0|,
 *  honouring BLAS semantics (alpha == 0: P unused; beta == 0: C0 unused). */
struct Reference {
  int64_t m = 0, n = 0, k = 0;
  std::vector<long double> val, mag;
};
template <class T>
Reference reference(const Problem<T>& p, const Product& P) {
  Reference r;
  r.m = p.m; r.n = p.n; r.k = p.k;
  r.val.assign(size_t(p.m * p.n), 0.0L);
  r.mag.assign(size_t(p.m * p.n), 0.0L);
  const long double al = p.alpha, be = p.beta;
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = 0; j < p.n; ++j) {
      const size_t t = size_t(i * p.n + j);
      long double v = 0.0L, g = 0.0L;
      if (al != 0.0L && p.k > 0) {
        v = al * P.val[t];
        g = std::fabs(al) * P.mag[t];
      }
      if (be != 0.0L) {
        const long double c = p.c0(i, j);
        v += be * c;
        g += std::fabs(be * c);
      }
      r.val[t] = v;
      r.mag[t] = g;
    }
  return r;
}
template <class T>
Reference reference(const Problem<T>& p) {
  Product P;
  if (p.alpha != T(0)) P = product(p);
  else { P.val.assign(size_t(p.m * p.n), 0.0L); P.mag = P.val; }
  return reference(p, P);
}

/** Componentwise accuracy tolerance of one output element:
 *  gamma(k+8) * (|alpha| (|A||B|)_ij + |beta||C0_ij|) + an underflow term. */
template <class T>
double elem_tol(const Problem<T>& p, long double mag) {
  const double u = abft::checksum::unit_roundoff<T>();
  const double c = abft::checksum::gamma(double(p.k) + 8.0, u);
  const double tiny = double(std::numeric_limits<T>::min());
  const double under = 2.0 * (double(p.k) + 8.0) *
                       (std::fabs(double(p.alpha)) + std::fabs(double(p.beta)) + 1.0) * tiny;
  return c * double(mag) + under;
}

/** Compare computed C (storage of p) with the reference: finite elements within
 *  `factor` * elem_tol (+ extra(i,j)), non-finite reference values reproduced
 *  (NaN where NaN, same-signed Inf where Inf). Padding of C must be unchanged. */
template <class T, class Extra>
::testing::AssertionResult check_result(const Problem<T>& p, const std::vector<T>& C,
                                        const Reference& ref, double factor, Extra extra) {
  int64_t bad = 0;
  std::ostringstream os;
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = 0; j < p.n; ++j) {
      const size_t t = size_t(i * p.n + j);
      const long double rv = ref.val[t];
      const T got = C[p.ic(i, j)];
      bool ok;
      double tol = 0.0;
      if (std::isnan(double(rv))) {
        ok = std::isnan(got);
      } else if (std::isinf(double(rv))) {
        ok = std::isinf(got) && (got > 0) == (rv > 0);
      } else {
        tol = factor * elem_tol(p, ref.mag[t]) + double(extra(i, j));
        ok = std::isfinite(got) && std::fabs((long double)got - rv) <= (long double)tol;
      }
      if (!ok) {
        if (bad < 5)
          os << "\n  C(" << i << "," << j << ") = " << double(got) << " ref " << double(rv)
             << " |diff| " << double(std::fabs((long double)got - rv)) << " tol " << tol;
        ++bad;
      }
    }
  // Padding of C (storage outside the logical matrix) must not be written.
  int64_t pad_bad = 0;
  {
    std::vector<char> logical(C.size(), 0);
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.n; ++j) logical[p.ic(i, j)] = 1;
    for (size_t t = 0; t < C.size(); ++t)
      if (!logical[t] && std::memcmp(&C[t], &p.C0[t], sizeof(T)) != 0) ++pad_bad;
  }
  if (bad == 0 && pad_bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << p.describe() << ": " << bad
                                       << " element(s) out of tolerance, " << pad_bad
                                       << " padding element(s) of C written" << os.str();
}
template <class T>
::testing::AssertionResult check_result(const Problem<T>& p, const std::vector<T>& C,
                                        const Reference& ref, double factor = 1.0) {
  return check_result(p, C, ref, factor, [](int64_t, int64_t) { return 0.0; });
}

// ------------------------------------------------------------------ statistics
/** Adds one call's report to `sum` (what a handle's counters must add up to). */
inline void add_report(abft_counters* sum, const abft_report& r) {
  sum->calls += 1;
  sum->checks += r.checks;
  sum->detected += r.detected;
  sum->corrected += r.corrected;
  sum->recomputed += r.recomputed;
  sum->uncorrectable += r.uncorrectable;
  sum->skipped += r.skipped;
}
/** The handle's counters `c` agree with the summed reports (calls not compared). */
inline ::testing::AssertionResult counters_match(const abft_counters& c, const abft_counters& sum) {
  const char* const names[] = {"checks", "detected", "corrected", "recomputed", "uncorrectable",
                               "skipped"};
  const uint64_t got[] = {c.checks, c.detected, c.corrected, c.recomputed, c.uncorrectable,
                          c.skipped};
  const uint64_t want[] = {sum.checks, sum.detected, sum.corrected, sum.recomputed,
                           sum.uncorrectable, sum.skipped};
  bool ok = true;
  std::ostringstream os;
  for (int i = 0; i < 6; ++i)
    if (got[i] != want[i]) {
      ok = false;
      os << " " << names[i] << ": counters " << got[i] << ", reports " << want[i] << ";";
    }
  if (ok) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "statistics differ from the summed reports:" << os.str();
}

/** Bitwise equality of two floating values (NaN == NaN). */
template <class T>
bool same_value(T a, T b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

}  // namespace abft_test
