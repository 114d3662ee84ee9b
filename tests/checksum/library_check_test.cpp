/** \file library_check_test.cpp
 *  \brief The GPU engine's GEMM checksum algebra (abft/checksum/gemm_library_check.hpp), run
 *  on the host: the same ABFT_HD functions the device kernels call (cuda/gemm_check.cuh), on
 *  products computed the way a library may compute them — any summation order (forward,
 *  reverse, pairwise, split-k), TF32 rounding of float operands, float accumulation of 16-bit
 *  data, binary16 / bfloat16 output rounding — emulated exactly with round_to_format.
 *
 *  Checked: rounding to each format (ties to even, subnormals, overflow); zero false positives
 *  on random and adversarial data in every precision and order (the sharpness is printed);
 *  a fault above the bound fails its column and its row check, which locate it, and a
 *  recomputation re-verifies; a change below the bound stays within the escape bound. No GPU
 *  is needed; this runs in every CI build.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "abft/checksum/float_bits.hpp"
#include "abft/checksum/gemm_library_check.hpp"

namespace ck = abft::checksum;
using ck::NumFormat;

namespace {

// ------------------------------------------------------------------ rounding
TEST(NumFormat, RoundingToEachFormat) {
  // binary16: 1 + 2^-10 is representable, 1 + 2^-11 is a tie (to even: 1), 1 + 3*2^-11 -> 1 + 2^-9.
  EXPECT_EQ(ck::round_to_format(1.0 + std::ldexp(1.0, -10), NumFormat::F16), 1.0 + std::ldexp(1.0, -10));
  EXPECT_EQ(ck::round_to_format(1.0 + std::ldexp(1.0, -11), NumFormat::F16), 1.0);
  EXPECT_EQ(ck::round_to_format(1.0 + 3 * std::ldexp(1.0, -11), NumFormat::F16), 1.0 + std::ldexp(1.0, -9));
  EXPECT_EQ(ck::round_to_format(65504.0, NumFormat::F16), 65504.0);
  EXPECT_EQ(ck::round_to_format(65519.0, NumFormat::F16), 65504.0);
  EXPECT_TRUE(std::isinf(ck::round_to_format(65520.0, NumFormat::F16)));
  EXPECT_EQ(ck::round_to_format(std::ldexp(1.0, -24), NumFormat::F16), std::ldexp(1.0, -24));  // smallest subnormal
  EXPECT_EQ(ck::round_to_format(std::ldexp(1.0, -26), NumFormat::F16), 0.0);
  EXPECT_EQ(ck::round_to_format(1.2345678e-7, NumFormat::F16), std::ldexp(2.0, -24));
  // bfloat16 and TF32 keep float's range.
  EXPECT_EQ(ck::round_to_format(1.0 + std::ldexp(1.0, -7), NumFormat::BF16), 1.0 + std::ldexp(1.0, -7));
  EXPECT_EQ(ck::round_to_format(1.0 + std::ldexp(1.0, -8), NumFormat::BF16), 1.0);
  EXPECT_EQ(ck::round_to_format(3.0e38, NumFormat::BF16), 226.0 * std::ldexp(1.0, 120));
  EXPECT_EQ(ck::round_to_format(1.0 + std::ldexp(1.0, -11), NumFormat::TF32), 1.0);
  EXPECT_EQ(ck::round_to_format(1.0 + std::ldexp(1.0, -10), NumFormat::TF32), 1.0 + std::ldexp(1.0, -10));
  // float: the same as a cast.
  std::mt19937_64 g(5);
  std::uniform_real_distribution<double> u(-1e3, 1e3);
  for (int t = 0; t < 10000; ++t) {
    const double x = u(g) * std::pow(10.0, double(int(g() % 60)) - 30.0);
    EXPECT_EQ(ck::round_to_format(x, NumFormat::F32), double(static_cast<float>(x))) << x;
  }
  EXPECT_EQ(ck::format_unit_roundoff(NumFormat::BF16), std::ldexp(1.0, -8));
  EXPECT_EQ(ck::format_max(NumFormat::F16), 65504.0);
}

// ------------------------------------------------------------------ an emulated library GEMM
enum class Order { Forward, Reverse, Pairwise, SplitK };
const char* order_name(Order o) {
  switch (o) {
    case Order::Forward: return "forward";
    case Order::Reverse: return "reverse";
    case Order::Pairwise: return "pairwise";
    default: return "split-k";
  }
}

struct Problem {
  int64_t m, n, k;
  double alpha, beta;
  ck::LibraryGemmPrecision prec;
  std::vector<double> A, B, C0;  // values as stored (already in the input/output format); row-major
  double a(int64_t i, int64_t p) const { return A[size_t(i * k + p)]; }
  double b(int64_t p, int64_t j) const { return B[size_t(p * n + j)]; }
  double c0(int64_t i, int64_t j) const { return C0[size_t(i * n + j)]; }
};

/** One rounding of the accumulation format. */
double acc_round(double x, const ck::LibraryGemmPrecision& p) { return ck::round_to_format(x, p.accum); }

/** Sum of terms t[lo, hi) in the accumulation format, in the given order. */
double ordered_sum(const std::vector<double>& t, int64_t lo, int64_t hi, Order o, const ck::LibraryGemmPrecision& p) {
  if (hi <= lo) return 0.0;
  switch (o) {
    case Order::Forward: {
      double s = 0.0;
      for (int64_t q = lo; q < hi; ++q) s = acc_round(s + t[size_t(q)], p);
      return s;
    }
    case Order::Reverse: {
      double s = 0.0;
      for (int64_t q = hi - 1; q >= lo; --q) s = acc_round(s + t[size_t(q)], p);
      return s;
    }
    case Order::Pairwise: {
      if (hi - lo == 1) return t[size_t(lo)];
      const int64_t mid = lo + (hi - lo) / 2;
      return acc_round(ordered_sum(t, lo, mid, o, p) + ordered_sum(t, mid, hi, o, p), p);
    }
    default: {  // split-k: chunks of 13 summed forward, the partials summed in reverse
      std::vector<double> part;
      for (int64_t c = lo; c < hi; c += 13) part.push_back(ordered_sum(t, c, std::min(hi, c + 13), Order::Forward, p));
      return ordered_sum(part, 0, int64_t(part.size()), Order::Reverse, p);
    }
  }
}

/** C as the library would store it. */
std::vector<double> library_gemm(const Problem& P, Order o) {
  std::vector<double> C(size_t(P.m * P.n)), t(size_t(P.k));
  for (int64_t i = 0; i < P.m; ++i)
    for (int64_t j = 0; j < P.n; ++j) {
      for (int64_t p = 0; p < P.k; ++p) {
        double a = P.a(i, p), b = P.b(p, j);
        if (P.prec.tf32) a = ck::round_to_format(a, NumFormat::TF32), b = ck::round_to_format(b, NumFormat::TF32);
        t[size_t(p)] = acc_round(a * b, P.prec);  // products exact in double for these formats, then rounded
      }
      double s = acc_round(P.alpha * ordered_sum(t, 0, P.k, o, P.prec), P.prec);
      if (P.beta != 0.0) s = acc_round(s + acc_round(P.beta * P.c0(i, j), P.prec), P.prec);
      C[size_t(i * P.n + j)] = ck::round_to_format(s, P.prec.output);
    }
  return C;
}

/** The device path's column checks, through the shared functions: per column, the verdict and
 *  the bound's pieces. */
struct Checks {
  std::vector<ck::LineVerdict> col, row;
  std::vector<double> col_ratio, row_ratio, col_escape, row_escape;
};

Checks run_checks(const Problem& P, const std::vector<double>& C) {
  Checks r;
  const double coef_c = ck::library_line_coefficient(P.prec, P.m, P.k);
  const double out_c = ck::library_line_output_coefficient(P.prec, P.m);
  const double abs_c = ck::library_line_abs_term(P.prec, P.m, P.k, std::fabs(P.alpha), std::fabs(P.beta));
  std::vector<double> v(size_t(P.k)), w(size_t(P.k));
  for (int64_t p = 0; p < P.k; ++p) ck::library_line_sum(P.m, [&](int64_t i) { return P.a(i, p); }, &v[size_t(p)], &w[size_t(p)]);
  for (int64_t j = 0; j < P.n; ++j) {
    double c0s = 0, c0a = 0, obs = 0, W = 0, ref = 0, X = 0;
    if (P.beta != 0.0) ck::library_line_sum(P.m, [&](int64_t i) { return P.c0(i, j); }, &c0s, &c0a);
    ck::library_line_reference(P.k, v.data(), w.data(), [&](int64_t p) { return P.b(p, j); }, P.alpha, P.beta, c0s,
                               c0a, &ref, &X);
    ck::library_line_observed(P.m, [&](int64_t i) { return C[size_t(i * P.n + j)]; }, &obs, &W);
    r.col.push_back(ck::library_line_verdict(obs, W, ref, X, coef_c, out_c, abs_c, P.prec.output));
    r.col_ratio.push_back(std::fabs(obs - ref) / (coef_c * X + out_c * W + abs_c));
    r.col_escape.push_back(ck::library_line_escape(X, W, coef_c, out_c, abs_c));
  }
  // Row checks (location): lines of length n; op(B)'s rows encoded.
  const double coef_r = ck::library_line_coefficient(P.prec, P.n, P.k);
  const double out_r = ck::library_line_output_coefficient(P.prec, P.n);
  const double abs_r = ck::library_line_abs_term(P.prec, P.n, P.k, std::fabs(P.alpha), std::fabs(P.beta));
  for (int64_t p = 0; p < P.k; ++p) ck::library_line_sum(P.n, [&](int64_t j) { return P.b(p, j); }, &v[size_t(p)], &w[size_t(p)]);
  for (int64_t i = 0; i < P.m; ++i) {
    double c0s = 0, c0a = 0, obs = 0, W = 0, ref = 0, X = 0;
    if (P.beta != 0.0) ck::library_line_sum(P.n, [&](int64_t j) { return P.c0(i, j); }, &c0s, &c0a);
    ck::library_line_reference(P.k, v.data(), w.data(), [&](int64_t p) { return P.a(i, p); }, P.alpha, P.beta, c0s,
                               c0a, &ref, &X);
    ck::library_line_observed(P.n, [&](int64_t j) { return C[size_t(i * P.n + j)]; }, &obs, &W);
    r.row.push_back(ck::library_line_verdict(obs, W, ref, X, coef_r, out_r, abs_r, P.prec.output));
    r.row_ratio.push_back(std::fabs(obs - ref) / (coef_r * X + out_r * W + abs_r));
    r.row_escape.push_back(ck::library_line_escape(X, W, coef_r, out_r, abs_r));
  }
  return r;
}

Problem make_problem(std::mt19937_64& g, ck::LibraryGemmPrecision prec, int dist) {
  Problem P;
  P.m = 1 + int64_t(g() % 40);
  P.n = 1 + int64_t(g() % 40);
  P.k = 1 + int64_t(g() % 300);
  P.prec = prec;
  const double alphas[] = {1.0, -0.75, 2.5}, betas[] = {0.0, 1.0, -0.5};
  P.alpha = alphas[g() % 3];
  P.beta = betas[g() % 3];
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  // Magnitudes the format can hold: binary16 data stays within +-2^7 so products and sums fit.
  const double span = prec.input == NumFormat::F16 ? 2.0 : 6.0;
  auto val = [&]() {
    switch (dist) {
      case 0: return u(g);
      case 1: return (u(g) < 0 ? -1.0 : 1.0) * std::pow(10.0, span * u(g));  // wide dynamic range
      case 2: return 1.0 + 1e-3 * u(g);                                       // cancellation-free, large sums
      default: return u(g) * std::pow(2.0, double(int(g() % 9)) - 4.0);      // mixed binades
    }
  };
  auto fill = [&](std::vector<double>& v, size_t n, NumFormat f) {
    v.resize(n);
    for (double& x : v) x = ck::round_to_format(val(), f);
  };
  fill(P.A, size_t(P.m * P.k), prec.input);
  fill(P.B, size_t(P.k * P.n), prec.input);
  fill(P.C0, size_t(P.m * P.n), prec.output);
  if (dist == 2 && P.k > 1)  // exact cancellation along k: A = [X X], B = [Y; -Y]
    for (int64_t p = 0; p + 1 < P.k; p += 2)
      for (int64_t j = 0; j < P.n; ++j) P.B[size_t((p + 1) * P.n + j)] = -P.B[size_t(p * P.n + j)];
  return P;
}

struct PrecCase {
  const char* name;
  ck::LibraryGemmPrecision prec;
};
std::vector<PrecCase> precisions() {
  return {{"f32", ck::library_precision(NumFormat::F32)},
          {"f32_tf32", ck::library_precision(NumFormat::F32, true)},
          {"f64", ck::library_precision(NumFormat::F64)},
          {"f16", ck::library_precision(NumFormat::F16)},
          {"bf16", ck::library_precision(NumFormat::BF16)}};
}

TEST(LibraryGemmCheck, NoFalsePositiveInAnyOrderOrPrecision) {
  std::mt19937_64 g(2024);
  for (const PrecCase& pc : precisions()) {
    double worst = 0.0;
    int checks = 0;
    for (int t = 0; t < 100; ++t) {
      const Problem P = make_problem(g, pc.prec, t % 4);
      for (Order o : {Order::Forward, Order::Reverse, Order::Pairwise, Order::SplitK}) {
        const std::vector<double> C = library_gemm(P, o);
        const Checks ch = run_checks(P, C);
        for (size_t j = 0; j < ch.col.size(); ++j) {
          ASSERT_NE(ch.col[j], ck::LineVerdict::Failed)
              << pc.name << " " << order_name(o) << " trial " << t << " column " << j << " ratio " << ch.col_ratio[j];
          if (ch.col[j] == ck::LineVerdict::Ok) worst = std::max(worst, ch.col_ratio[j]), ++checks;
        }
        for (size_t i = 0; i < ch.row.size(); ++i)
          ASSERT_NE(ch.row[i], ck::LineVerdict::Failed)
              << pc.name << " " << order_name(o) << " trial " << t << " row " << i << " ratio " << ch.row_ratio[i];
      }
    }
    EXPECT_GT(checks, 1000);
    EXPECT_LT(worst, 1.0);
    std::printf("[ sharpness ] %-9s %d clean column checks, largest residual / bound %.3g (sharpness %.1f)\n",
                pc.name, checks, worst, worst > 0 ? 1.0 / worst : 0.0);
  }
}

TEST(LibraryGemmCheck, FaultAboveTheBoundIsLocatedAndRepaired) {
  std::mt19937_64 g(77);
  for (const PrecCase& pc : precisions()) {
    for (int t = 0; t < 60; ++t) {
      Problem P = make_problem(g, pc.prec, t % 4);
      if (P.m < 2 || P.n < 2) continue;
      std::vector<double> C = library_gemm(P, Order::Pairwise);
      const Checks clean = run_checks(P, C);
      const int64_t i = int64_t(g() % uint64_t(P.m)), j = int64_t(g() % uint64_t(P.n));
      // A change four times the escape bound of its column and of its row (so both checks see
      // it and locate it), and at least one unit of the value.
      const double delta = std::max(4.0 * std::max(clean.col_escape[size_t(j)], clean.row_escape[size_t(i)]),
                                    std::fabs(C[size_t(i * P.n + j)]) + 1.0);
      const double before = C[size_t(i * P.n + j)];
      C[size_t(i * P.n + j)] = ck::round_to_format(before + delta, P.prec.output);
      // (A change the format cannot hold, Inf, is decided by recomputation on the device: not here.)
      if (!std::isfinite(C[size_t(i * P.n + j)])) continue;
      ASSERT_NE(C[size_t(i * P.n + j)], before);
      const Checks bad = run_checks(P, C);
      ASSERT_EQ(bad.col[size_t(j)], ck::LineVerdict::Failed) << pc.name << " trial " << t;
      ASSERT_EQ(bad.row[size_t(i)], ck::LineVerdict::Failed) << pc.name << " trial " << t;
      for (int64_t jj = 0; jj < P.n; ++jj)
        if (jj != j) EXPECT_NE(bad.col[size_t(jj)], ck::LineVerdict::Failed);
      for (int64_t ii = 0; ii < P.m; ++ii)
        if (ii != i) EXPECT_NE(bad.row[size_t(ii)], ck::LineVerdict::Failed);
      // Repair: recompute the located element in double, round to the output format.
      double s = 0.0;
      for (int64_t p = 0; p < P.k; ++p) s += P.a(i, p) * P.b(p, j);
      double e = P.alpha * s + (P.beta != 0.0 ? P.beta * P.c0(i, j) : 0.0);
      C[size_t(i * P.n + j)] = ck::round_to_format(e, P.prec.output);
      const Checks fixed = run_checks(P, C);
      EXPECT_EQ(fixed.col[size_t(j)], ck::LineVerdict::Ok) << pc.name << " trial " << t;
      EXPECT_EQ(fixed.row[size_t(i)], ck::LineVerdict::Ok) << pc.name << " trial " << t;
    }
  }
}

TEST(LibraryGemmCheck, UndetectedChangesStayWithinTheEscapeBound) {
  std::mt19937_64 g(91);
  int undetected = 0, detected = 0;
  for (const PrecCase& pc : precisions()) {
    for (int t = 0; t < 80; ++t) {
      Problem P = make_problem(g, pc.prec, t % 4);
      std::vector<double> C = library_gemm(P, Order::Forward);
      const Checks clean = run_checks(P, C);
      const int64_t i = int64_t(g() % uint64_t(P.m)), j = int64_t(g() % uint64_t(P.n));
      // Changes from far below to a little above the check's bound.
      const double frac = std::ldexp(1.0, -int(g() % 12));
      const double before = C[size_t(i * P.n + j)];
      C[size_t(i * P.n + j)] = ck::round_to_format(before + frac * clean.col_escape[size_t(j)], P.prec.output);
      const Checks after = run_checks(P, C);
      ASSERT_EQ(clean.col[size_t(j)], ck::LineVerdict::Ok);
      if (after.col[size_t(j)] == ck::LineVerdict::Failed) {
        ++detected;
      } else {
        ++undetected;
        EXPECT_LE(std::fabs(C[size_t(i * P.n + j)] - before), clean.col_escape[size_t(j)]) << pc.name;
      }
    }
  }
  EXPECT_GT(undetected, 0);
  EXPECT_GT(detected, 0);
}

/** A value of a 16-bit format (exact in double) with bit `bit` of its 16-bit encoding flipped. */
double flip16(double x, NumFormat f, int bit) {
  if (f == NumFormat::BF16) {  // bfloat16: the upper half of a float
    const uint32_t u = ck::to_bits<float>(float(x)) ^ (uint32_t(1) << (bit + 16));
    return double(ck::from_bits<float>(u));
  }
  // binary16, from its fields (x is exact in binary16).
  uint16_t h = std::signbit(x) ? 0x8000 : 0;
  const double a = std::fabs(x);
  if (a != 0.0) {
    int e = std::ilogb(a);
    if (e < -14) h |= uint16_t(std::ldexp(a, 24));  // subnormal
    else h |= uint16_t((e + 15) << 10) | uint16_t(std::ldexp(a, 10 - e) - 1024.0);
  }
  h ^= uint16_t(1u << bit);
  const int ex = (h >> 10) & 0x1F, man = h & 0x3FF;
  const double mag = ex == 0x1F ? (man ? NAN : INFINITY) : ex ? std::ldexp(1024.0 + man, ex - 25) : std::ldexp(man, -24);
  return (h & 0x8000) ? -mag : mag;
}

// The preload's torch.mm in bfloat16 (scripts/preload/workload.py: (64 x 96) @ (96 x 80) of
// standard normal data, which cuBLAS runs as the column-major C^T = B^T A^T: columns of 80
// elements, k = 96): the top exponent bit flipped at the output (ABFT_PRELOAD_INJECT=bitflip,
// bit=14,site=output). An element of magnitude >= 2 becomes ~0: a change of the element's
// size (up to ~40 here). The bound once charged the output rounding as u_out times
// sum |A||B| (15 to 24 for these columns), so most such flips passed unnoticed and the
// "corrected" product differed from the clean one by 40 %. Now it is u_out times the stored
// elements' binades (~1.7): only flips of elements just above 2 can pass.
TEST(LibraryGemmCheck, SixteenBitExponentFlipOfAnyElementIsDetected) {
  for (NumFormat f : {NumFormat::BF16, NumFormat::F16}) {
    std::mt19937_64 g(1234);
    std::normal_distribution<double> nd(0.0, 1.0);
    Problem P;
    P.m = 80, P.n = 64, P.k = 96, P.alpha = 1.0, P.beta = 0.0;
    P.prec = ck::library_precision(f);
    for (auto* v : {&P.A, &P.B}) {
      v->resize(size_t(v == &P.A ? P.m * P.k : P.k * P.n));
      for (double& x : *v) x = ck::round_to_format(nd(g), f);
    }
    P.C0.assign(size_t(P.m * P.n), 0.0);
    for (Order o : {Order::Forward, Order::Pairwise, Order::SplitK}) {
      const std::vector<double> C = library_gemm(P, o);
      const Checks clean = run_checks(P, C);
      for (int64_t j = 0; j < P.n; ++j) ASSERT_EQ(clean.col[size_t(j)], ck::LineVerdict::Ok);
      for (int64_t i = 0; i < P.m; ++i) ASSERT_EQ(clean.row[size_t(i)], ck::LineVerdict::Ok);
      int flips = 0, missed = 0;
      double worst_missed = 0.0;
      std::vector<double> bad(C);
      for (size_t e = 0; e < C.size(); ++e) {
        bad[e] = flip16(C[e], f, 14);
        // Inf / NaN (a value in [1, 2) in bfloat16): decided by the device's recomputation.
        if (std::isfinite(bad[e])) {
          ++flips;
          const int64_t i = int64_t(e) / P.n, j = int64_t(e) % P.n;
          const Checks ch = run_checks(P, bad);
          if (ch.col[size_t(j)] != ck::LineVerdict::Failed || ch.row[size_t(i)] != ck::LineVerdict::Failed) {
            ++missed;
            worst_missed = std::max(worst_missed, std::fabs(bad[e] - C[e]));
            // What passes is the size of the output rounding the line allows (a flip of an
            // element just above 2 changes it by ~2; the columns allow ~1.7 to 2.1).
            EXPECT_LE(std::fabs(bad[e] - C[e]),
                      std::min(clean.col_escape[size_t(j)], clean.row_escape[size_t(i)]));
          }
        }
        bad[e] = C[e];
      }
      EXPECT_GT(flips, int(C.size()) / 2);
      // (4033 of 4706 bfloat16 flips, changes up to 23.5, passed the former bound.)
      EXPECT_LE(missed, flips / 200) << (f == NumFormat::BF16 ? "bf16 " : "f16 ") << order_name(o) << ": " << missed
                                     << " of " << flips << " exponent flips passed, the largest a change of "
                                     << worst_missed;
      EXPECT_LE(worst_missed, 2.5);
    }
  }
}

TEST(LibraryGemmCheck, NonFiniteDataIsSkippedNotFlagged) {
  Problem P;
  P.m = 3, P.n = 2, P.k = 4, P.alpha = 1.0, P.beta = 0.0;
  P.prec = ck::library_precision(NumFormat::F32);
  P.A.assign(12, 1.0);
  P.B.assign(8, 1.0);
  P.C0.assign(6, 0.0);
  P.B[1] = INFINITY;  // column 1 of B: its column of C is Inf, legitimately
  const std::vector<double> C = library_gemm(P, Order::Forward);
  const Checks ch = run_checks(P, C);
  EXPECT_EQ(ch.col[0], ck::LineVerdict::Ok);
  EXPECT_EQ(ch.col[1], ck::LineVerdict::Skipped);
  // A NaN produced from finite data is a fault.
  std::vector<double> bad(C);
  bad[0] = NAN;
  EXPECT_EQ(run_checks(P, bad).col[0], ck::LineVerdict::Failed);
}

/** A double column blown up by an exponent flip in an operand: every element near 1e307 with
 *  alternating signs, so the observed sum stays finite while W (the sum of the elements'
 *  binades) overflows. That must fail the check, not make its bound infinite (the GPU
 *  campaign's cuda-gemm f64 SDC: bit 62 of a B element the library read). */
TEST(LibraryGemmCheck, OverflowingOutputMagnitudeFailsTheCheck) {
  Problem P;
  P.m = 64, P.n = 2, P.k = 4, P.alpha = 1.0, P.beta = 0.0;
  P.prec = ck::library_precision(NumFormat::F64);
  P.A.assign(size_t(P.m * P.k), 0.5);
  P.B.assign(size_t(P.k * P.n), 1.0);
  P.C0.assign(size_t(P.m * P.n), 0.0);
  std::vector<double> C = library_gemm(P, Order::Forward);
  ASSERT_EQ(run_checks(P, C).col[1], ck::LineVerdict::Ok);
  for (int64_t i = 0; i < P.m; ++i) C[size_t(i * P.n + 1)] = (i % 2 ? -1.0 : 1.0) * 1e307;  // column 1
  double obs = 0, W = 0;
  ck::library_line_observed(P.m, [&](int64_t i) { return C[size_t(i * P.n + 1)]; }, &obs, &W);
  ASSERT_TRUE(std::isfinite(obs));
  ASSERT_FALSE(std::isfinite(W));
  EXPECT_EQ(run_checks(P, C).col[1], ck::LineVerdict::Failed);
  EXPECT_EQ(run_checks(P, C).col[0], ck::LineVerdict::Ok);
}

}  // namespace
