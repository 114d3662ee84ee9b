/** \file attn_false_positive_test.cpp
 *  \brief Zero false positives of the protected attention (policy CORRECT,
 *  forward and backward) on adversarial finite data: fully masked rows,
 *  logits of +-1e4, identical keys, a 8192-long sequence, scales 1e-30 and
 *  1e+10, magnitudes spanning 1e+-30, denormals, heavy cancellation. Non-finite
 *  inputs (NaN/Inf in Q, K, V, dO, O, lse; +inf/NaN in the mask) are data:
 *  the same output bits as policy OFF, nothing detected. And the sharpness of
 *  the checks on ordinary data: 0 < report.max_ratio < 1, printed.
 */
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <random>

#include "abft/abft.hpp"
#include "attn_reference.hpp"
#include "attn_test_util.hpp"

using namespace attn_test;

namespace {

constexpr float kFInf = std::numeric_limits<float>::infinity();

/** Every logical element finite? */
bool all_finite(const Tensor& t) {
  bool ok = true;
  t.for_each([&](int64_t a, int64_t b, int64_t c, int64_t d) { ok = ok && std::isfinite(t.at(a, b, c, d)); });
  return ok;
}

struct CleanRuns {
  FwdRun f;
  BwdRun b;
};
/** Forward then backward under policy CORRECT: SUCCESS, nothing detected,
 *  outputs finite (lse may be -inf on rows without keys); the gradients too
 *  unless finite_grads is false (scale 1e10: P = exp(S - lse) recomputed from
 *  a float lse of ~1e10, whose ulp is 1024, may overflow legitimately). */
CleanRuns expect_no_false_positive(const Problem& p, bool backward = true, bool finite_grads = true) {
  CleanRuns r;
  abft::Handle h;
  r.f = run_forward(h.get(), ABFT_POLICY_CORRECT, p);
  EXPECT_EQ(r.f.status, ABFT_STATUS_SUCCESS) << p.describe() << " forward: " << abft_status_string(r.f.status);
  EXPECT_EQ(r.f.report.detected, 0u) << p.describe() << " forward: false positive " << report_str(r.f.report);
  EXPECT_EQ(r.f.report.uncorrectable, 0u) << p.describe() << " forward";
  EXPECT_TRUE(all_finite(r.f.O)) << p.describe() << ": O not finite";
  for (size_t i = 0; i < r.f.lse.n; ++i)
    EXPECT_FALSE(std::isnan(r.f.lse[i]) || r.f.lse[i] == kFInf) << p.describe() << " lse[" << i << "] = " << r.f.lse[i];
  if (!backward) return r;
  r.b = run_backward(h.get(), ABFT_POLICY_CORRECT, p, r.f.O, r.f.lse);
  EXPECT_EQ(r.b.status, ABFT_STATUS_SUCCESS) << p.describe() << " backward: " << abft_status_string(r.b.status);
  EXPECT_EQ(r.b.report.detected, 0u) << p.describe() << " backward: false positive " << report_str(r.b.report);
  EXPECT_EQ(r.b.report.uncorrectable, 0u) << p.describe() << " backward";
  if (!finite_grads) return r;
  EXPECT_TRUE(all_finite(r.b.dQ)) << p.describe() << ": dQ not finite";
  EXPECT_TRUE(all_finite(r.b.dK)) << p.describe() << ": dK not finite";
  EXPECT_TRUE(all_finite(r.b.dV)) << p.describe() << ": dV not finite";
  return r;
}

Case base_case(const char* tag, int causal = 0) {
  Case c;
  c.tag = tag;
  c.batch = 1, c.heads = 2, c.kv_heads = 1, c.q_len = 70, c.kv_len = 130, c.head_dim = 64;
  c.causal = causal;
  return c;
}

template <class F>
void set_all(Tensor& t, F f) {
  t.for_each([&](int64_t a, int64_t b, int64_t c, int64_t d) { t.at(a, b, c, d) = float(f(a, b, c, d)); });
}

// ------------------------------------------------------------------ adversarial finite data
TEST(AttnFalsePositive, FullyMaskedRows) {
  for (int causal = 0; causal <= 1; ++causal) {
    Case c = base_case("FullyMasked", causal);
    c.batch = 2, c.heads = 4, c.kv_heads = 2, c.q_len = 80, c.kv_len = 50, c.mask = MaskKind::Full;
    const Problem p(c);
    const CleanRuns r = expect_no_false_positive(p);
    // Rows without keys (row 1 of every head; causal: rows i < 30): O = 0, lse = -inf, dQ = 0.
    const attn_ref::Forward ref = attn_ref::forward(p.d, p.Q.ptr(), p.K.ptr(), p.V.ptr(), p.mask_ptr());
    int64_t empty = 0;
    for (int64_t b = 0; b < c.batch; ++b)
      for (int64_t h = 0; h < c.heads; ++h)
        for (int64_t i = 0; i < c.q_len; ++i) {
          if (ref.lse[attn_ref::lidx(p.d, b, h, i)] != -kInf) continue;
          ++empty;
          EXPECT_EQ(r.f.lse[attn_ref::lidx(p.d, b, h, i)], -kFInf) << p.describe() << " row " << i;
          for (int64_t e = 0; e < c.head_dim; ++e) {
            ASSERT_EQ(r.f.O.at(b, h, i, e), 0.0f) << p.describe() << " O row " << i;
            ASSERT_EQ(r.b.dQ.at(b, h, i, e), 0.0f) << p.describe() << " dQ row " << i;
          }
        }
    EXPECT_GE(empty, causal ? 30 * 8 : 8) << p.describe() << ": rows without a key";
  }
  // Everything masked: all rows empty, all gradients zero.
  Case c = base_case("AllMasked");
  c.mask = MaskKind::Row;
  Problem p(c);
  set_all(p.M, [](int64_t, int64_t, int64_t, int64_t) { return -kFInf; });
  const CleanRuns r = expect_no_false_positive(p);
  for (size_t i = 0; i < r.f.lse.n; ++i) EXPECT_EQ(r.f.lse[i], -kFInf);
  for (const Tensor* t : {&r.f.O, &r.b.dQ, &r.b.dK, &r.b.dV})
    for (double x : t->logical()) ASSERT_EQ(x, 0.0);
}

/** Q scaled so that max |S| = 1e4: softmax rows close to one-hot, exp() of
 *  large differences, lse ~ 1e4. */
TEST(AttnFalsePositive, LogitsOf1e4) {
  for (int causal = 0; causal <= 1; ++causal) {
    Problem p(base_case("Logits1e4", causal));
    const attn_ref::Forward ref = attn_ref::forward(p.d, p.Q.ptr(), p.K.ptr(), p.V.ptr(), p.mask_ptr());
    const double f = 1e4 / ref.s_max_abs;
    set_all(p.Q, [&](int64_t a, int64_t b, int64_t cc, int64_t d) { return p.Q.at(a, b, cc, d) * f; });
    expect_no_false_positive(p);
    // And with K large too (both operands ~1e2).
    const double g = std::sqrt(f);
    Problem p2(base_case("Logits1e4", causal));
    set_all(p2.Q, [&](int64_t a, int64_t b, int64_t cc, int64_t d) { return p2.Q.at(a, b, cc, d) * g; });
    set_all(p2.K, [&](int64_t a, int64_t b, int64_t cc, int64_t d) { return p2.K.at(a, b, cc, d) * g; });
    expect_no_false_positive(p2);
  }
}

TEST(AttnFalsePositive, IdenticalKeys) {
  for (int causal = 0; causal <= 1; ++causal) {
    Problem p(base_case("IdenticalKeys", causal));
    set_all(p.K, [&](int64_t a, int64_t b, int64_t, int64_t d) { return p.K.at(a, b, 0, d); });
    expect_no_false_positive(p);  // uniform softmax over random values
    set_all(p.V, [&](int64_t a, int64_t b, int64_t, int64_t d) { return p.V.at(a, b, 0, d); });
    const CleanRuns r = expect_no_false_positive(p);  // and identical values: O = V row, dK = 0
    // Identical keys and values: every O row is the one V row (to rounding).
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t i = 0; i < 70; ++i)
        for (int64_t d = 0; d < 64; ++d)
          ASSERT_NEAR(r.f.O.at(0, h, i, d), p.V.at(0, 0, 0, d), 1e-5) << "row " << i;
  }
}

/** One head, head_dim 64, 8192 queries and keys: long reductions. Sampled
 *  rows are checked against the reference (dQ row i only needs query i). */
TEST(AttnFalsePositive, LongSequence8192) {
  Case c = base_case("Long8192");
  c.heads = 1, c.kv_heads = 1, c.q_len = 8192, c.kv_len = 8192, c.head_dim = 64;
  const Problem p(c);
  const CleanRuns r = expect_no_false_positive(p);
  for (int64_t i : {0, 1, 4095, 8191}) {
    // The single query row as its own problem (non-causal: rows are independent).
    Case c1 = c;
    c1.q_len = 1;
    Problem p1(c1);
    for (int64_t d = 0; d < 64; ++d) {
      p1.Q.at(0, 0, 0, d) = p.Q.at(0, 0, i, d);
      p1.dO.at(0, 0, 0, d) = p.dO.at(0, 0, i, d);
    }
    p1.K = p.K, p1.V = p.V;
    const attn_ref::Forward ref = attn_ref::forward(p1.d, p1.Q.ptr(), p1.K.ptr(), p1.V.ptr(), (const float*)nullptr);
    const Tol tol = tolerance(p1.d, ref.qk_mag, ref.s_max_abs, ref.lse_max_abs, 1.0);
    std::vector<double> O(64), dQ(64), lse = {double(r.f.lse[size_t(i)])};
    for (int64_t d = 0; d < 64; ++d) O[size_t(d)] = r.f.O.at(0, 0, i, d), dQ[size_t(d)] = r.b.dQ.at(0, 0, i, d);
    EXPECT_TRUE(compare("O row " + std::to_string(i), O, ref.O, ref.magO, tol, {64}));
    const attn_ref::Backward g = attn_ref::backward(p1.d, p1.Q.ptr(), p1.K.ptr(), p1.V.ptr(),
                                                    (const float*)nullptr, O.data(), lse.data(), p1.dO.ptr());
    EXPECT_TRUE(compare("dQ row " + std::to_string(i), dQ, g.dQ, g.magdQ, tol, {64}));
  }
  std::printf("  8192x8192 d64: forward max_ratio %.3g, backward max_ratio %.3g\n", r.f.report.max_ratio,
              r.b.report.max_ratio);
}

TEST(AttnFalsePositive, TinyAndHugeScales) {
  for (float s : {1e-30f, -1e-30f, 1e10f, -1e10f}) {
    for (int causal = 0; causal <= 1; ++causal) {
      Case c = base_case("Scale", causal);
      c.custom_scale = true, c.scale = s;
      expect_no_false_positive(Problem(c), true, std::fabs(s) < 1.0f);
    }
  }
}

/** Log-uniform magnitudes with random signs. */
double logu(std::mt19937_64& rng, double lo_exp, double hi_exp) {
  std::uniform_real_distribution<double> e(lo_exp, hi_exp), sg(0, 1);
  return (sg(rng) < 0.5 ? -1 : 1) * std::pow(10.0, e(rng));
}

TEST(AttnFalsePositive, MagnitudesSpanning1e30) {
  std::mt19937_64 rng(31);
  for (int causal = 0; causal <= 1; ++causal) {
    // V across 1e-30..1e30 (forward only: dP = dO V^T would overflow with such dO).
    Problem p(base_case("SpanV", causal));
    set_all(p.V, [&](int64_t, int64_t, int64_t, int64_t) { return logu(rng, -30, 30); });
    expect_no_false_positive(p, false);
    // Q and K across 1e-15..1e15: scores up to ~1e31 (finite), many near zero.
    Problem q(base_case("SpanQK", causal));
    set_all(q.Q, [&](int64_t, int64_t, int64_t, int64_t) { return logu(rng, -15, 15); });
    set_all(q.K, [&](int64_t, int64_t, int64_t, int64_t) { return logu(rng, -15, 15); });
    expect_no_false_positive(q, false);
    // Backward: V and dO across 1e-15..1e15 (dP up to ~1e32).
    Problem b(base_case("SpanVdO", causal));
    set_all(b.V, [&](int64_t, int64_t, int64_t, int64_t) { return logu(rng, -15, 15); });
    set_all(b.dO, [&](int64_t, int64_t, int64_t, int64_t) { return logu(rng, -15, 15); });
    expect_no_false_positive(b);
    // Whole rows (keys) of very different scales.
    Problem r(base_case("SpanRows", causal));
    set_all(r.V, [&](int64_t a, int64_t h, int64_t j, int64_t d) {
      return r.V.at(a, h, j, d) * std::pow(10.0, double(j % 31) - 15.0);
    });
    set_all(r.dO, [&](int64_t a, int64_t h, int64_t i, int64_t d) {
      return r.dO.at(a, h, i, d) * std::pow(10.0, double(i % 21) - 10.0);
    });
    expect_no_false_positive(r);
  }
}

TEST(AttnFalsePositive, DenormalInputs) {
  const double den = 1e-40;  // below FLT_MIN (1.18e-38)
  for (int causal = 0; causal <= 1; ++causal) {
    Problem p(base_case("DenormalVdO", causal));
    set_all(p.V, [&](int64_t a, int64_t b, int64_t c, int64_t d) { return p.V.at(a, b, c, d) * den; });
    set_all(p.dO, [&](int64_t a, int64_t b, int64_t c, int64_t d) { return p.dO.at(a, b, c, d) * den; });
    expect_no_false_positive(p);
    Problem q(base_case("DenormalQK", causal));
    set_all(q.Q, [&](int64_t a, int64_t b, int64_t c, int64_t d) { return q.Q.at(a, b, c, d) * den; });
    set_all(q.K, [&](int64_t a, int64_t b, int64_t c, int64_t d) { return q.K.at(a, b, c, d) * den; });
    expect_no_false_positive(q);
    Problem m(base_case("DenormalMixed", causal));  // every other element denormal
    for (Tensor* t : {&m.Q, &m.K, &m.V, &m.dO})
      set_all(*t, [&](int64_t a, int64_t b, int64_t c, int64_t d) {
        return ((c + d) % 2) ? t->at(a, b, c, d) * den : t->at(a, b, c, d);
      });
    expect_no_false_positive(m);
  }
}

TEST(AttnFalsePositive, HeavyCancellation) {
  std::mt19937_64 rng(41);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int causal = 0; causal <= 1; ++causal) {
    // P V: values +-1e4 alternating over keys plus a small part: O ~ small difference.
    Problem p(base_case("CancelPV", causal));
    set_all(p.V, [&](int64_t, int64_t, int64_t j, int64_t) { return (j % 2 ? 1e4 : -1e4) + 1e-2 * u(rng); });
    expect_no_false_positive(p);
    // dP - D: nearly identical value rows make dP_ij ~ D_i (dS from a cancelling difference).
    Problem q(base_case("CancelDpD", causal));
    set_all(q.V, [&](int64_t, int64_t, int64_t, int64_t d) { return 1.0 + 0.01 * double(d) + 1e-5 * u(rng); });
    expect_no_false_positive(q);
    // Q K^T: large terms of alternating sign summing to O(1) scores.
    Problem s(base_case("CancelQK", causal));
    set_all(s.Q, [&](int64_t, int64_t, int64_t, int64_t) { return 1e3; });
    set_all(s.K, [&](int64_t, int64_t, int64_t, int64_t d) { return (d % 2 ? 1.0 : -1.0) + 1e-3 * u(rng); });
    expect_no_false_positive(s);
    // Large mask entries cancelling large scores: S = scale QK^T + mask ~ O(1).
    Case mc = base_case("CancelMask", causal);
    mc.mask = MaskKind::Full;
    Problem m(mc);
    set_all(m.Q, [&](int64_t a, int64_t b, int64_t c, int64_t d) { return m.Q.at(a, b, c, d) * 300.0; });
    set_all(m.M, [&](int64_t a, int64_t b, int64_t i, int64_t j) {
      const float x = m.M.at(a, b, i, j);
      if (x == -kFInf) return double(x);
      double dot = 0;  // kv_heads 1: every head reads K head 0
      for (int64_t d = 0; d < 64; ++d) dot += double(m.Q.at(a, b, i, d)) * double(m.K.at(a, 0, j, d));
      return -double(m.d.scale) * dot + double(x);
    });
    expect_no_false_positive(m);
  }
}

// ------------------------------------------------------------------ non-finite inputs are data
enum class Where { Q, K, V, MaskPosInf, MaskNaN, dO, O, Lse };
const char* where_tag(Where w) {
  switch (w) {
    case Where::Q: return "Q";
    case Where::K: return "K";
    case Where::V: return "V";
    case Where::MaskPosInf: return "MaskPosInf";
    case Where::MaskNaN: return "MaskNaN";
    case Where::dO: return "dO";
    case Where::O: return "O";
    case Where::Lse: return "lse";
  }
  return "?";
}

int64_t bits_differ(const Tensor& a, const Tensor& b) {
  int64_t n = 0;
  const std::vector<float> x = a.logical_f(), y = b.logical_f();
  for (size_t t = 0; t < x.size(); ++t) n += !same_bits(x[t], y[t]);
  return n;
}

struct NonFiniteCase {
  Where where;
  float value;
  int causal;
  std::string name() const {
    const char* v = std::isnan(value) ? "NaN" : value > 0 ? "PosInf" : "NegInf";
    return std::string(where_tag(where)) + "_" + v + (causal ? "_causal" : "_full");
  }
};
void PrintTo(const NonFiniteCase& c, std::ostream* os) { *os << c.name(); }
class AttnNonFinite : public ::testing::TestWithParam<NonFiniteCase> {};

TEST_P(AttnNonFinite, SameBitsAsPolicyOffAndNothingDetected) {
  const NonFiniteCase& nc = GetParam();
  Case c = base_case("NonFinite", nc.causal);
  const bool mask_site = nc.where == Where::MaskPosInf || nc.where == Where::MaskNaN;
  if (mask_site) c.mask = MaskKind::Full;
  Problem p(c);
  // One poisoned element in the middle of the problem (query 40, key 100, column 7).
  switch (nc.where) {
    case Where::Q: p.Q.at(0, 1, 40, 7) = nc.value; break;
    case Where::K: p.K.at(0, 0, 100, 7) = nc.value; break;
    case Where::V: p.V.at(0, 0, 50, 7) = nc.value; break;
    case Where::MaskPosInf:
    case Where::MaskNaN: p.M.at(0, 1, 40, 50) = nc.value; break;
    case Where::dO: p.dO.at(0, 1, 40, 7) = nc.value; break;
    case Where::O:
    case Where::Lse: break;  // backward inputs, poisoned below
  }
  abft::Handle h;
  const FwdRun off = run_forward(h.get(), ABFT_POLICY_OFF, p);
  const FwdRun on = run_forward(h.get(), ABFT_POLICY_CORRECT, p);
  ASSERT_EQ(off.status, ABFT_STATUS_SUCCESS) << nc.name();
  EXPECT_EQ(on.status, ABFT_STATUS_SUCCESS) << nc.name() << " forward: " << abft_status_string(on.status);
  EXPECT_EQ(on.report.detected, 0u) << nc.name() << " forward " << report_str(on.report);
  EXPECT_EQ(on.report.corrected, 0u) << nc.name() << " forward " << report_str(on.report);
  EXPECT_EQ(bits_differ(on.O, off.O), 0) << nc.name() << ": forward O differs from policy OFF";
  int64_t lse_diff = 0;
  for (size_t i = 0; i < on.lse.n; ++i) lse_diff += !same_bits(on.lse[i], off.lse[i]);
  EXPECT_EQ(lse_diff, 0) << nc.name() << ": lse differs from policy OFF";
  // Backward from the unprotected forward's outputs (the same inputs for both policies).
  Tensor O = off.O;
  Lse lse = off.lse;
  if (nc.where == Where::O) O.at(0, 1, 40, 7) = nc.value;
  if (nc.where == Where::Lse) lse[size_t(70 + 40)] = nc.value;
  const BwdRun boff = run_backward(h.get(), ABFT_POLICY_OFF, p, O, lse);
  const BwdRun bon = run_backward(h.get(), ABFT_POLICY_CORRECT, p, O, lse);
  ASSERT_EQ(boff.status, ABFT_STATUS_SUCCESS) << nc.name();
  EXPECT_EQ(bon.status, ABFT_STATUS_SUCCESS) << nc.name() << " backward: " << abft_status_string(bon.status);
  EXPECT_EQ(bon.report.detected, 0u) << nc.name() << " backward " << report_str(bon.report);
  EXPECT_EQ(bon.report.corrected, 0u) << nc.name() << " backward " << report_str(bon.report);
  EXPECT_EQ(bits_differ(bon.dQ, boff.dQ), 0) << nc.name() << ": dQ differs from policy OFF";
  EXPECT_EQ(bits_differ(bon.dK, boff.dK), 0) << nc.name() << ": dK differs from policy OFF";
  EXPECT_EQ(bits_differ(bon.dV, boff.dV), 0) << nc.name() << ": dV differs from policy OFF";
}

std::vector<NonFiniteCase> non_finite_cases() {
  std::vector<NonFiniteCase> v;
  const float nan = qnan();
  for (int causal = 0; causal <= 1; ++causal) {
    for (Where w : {Where::Q, Where::K, Where::V, Where::dO, Where::O})
      for (float x : {nan, kFInf, -kFInf}) v.push_back({w, x, causal});
    v.push_back({Where::MaskPosInf, kFInf, causal});
    v.push_back({Where::MaskNaN, nan, causal});
    v.push_back({Where::Lse, nan, causal});
    v.push_back({Where::Lse, kFInf, causal});
  }
  return v;
}
INSTANTIATE_TEST_SUITE_P(Data, AttnNonFinite, ::testing::ValuesIn(non_finite_cases()),
                         [](const ::testing::TestParamInfo<NonFiniteCase>& i) { return i.param.name(); });

/** On ordinary data the protected call returns the unprotected call's bits
 *  (one kernel, a policy). */
TEST(AttnFalsePositive, ProtectedEqualsUnprotectedOnCleanData) {
  for (int causal = 0; causal <= 1; ++causal) {
    Case c = base_case("Clean", causal);
    c.mask = MaskKind::Full;
    const Problem p(c);
    abft::Handle h;
    const FwdRun off = run_forward(h.get(), ABFT_POLICY_OFF, p), on = run_forward(h.get(), ABFT_POLICY_CORRECT, p);
    EXPECT_EQ(bits_differ(on.O, off.O), 0) << p.describe();
    const BwdRun boff = run_backward(h.get(), ABFT_POLICY_OFF, p, off.O, off.lse);
    const BwdRun bon = run_backward(h.get(), ABFT_POLICY_CORRECT, p, off.O, off.lse);
    EXPECT_EQ(bits_differ(bon.dQ, boff.dQ) + bits_differ(bon.dK, boff.dK) + bits_differ(bon.dV, boff.dV), 0)
        << p.describe();
  }
}

// ------------------------------------------------------------------ sharpness
/** max_ratio = largest |residual| / bound over the passing checks: in (0, 1)
 *  on ordinary data; 1/max_ratio is the observed sharpness of the bound. */
TEST(AttnFalsePositive, MaxRatioBelowOneAndPositive) {
  struct S { const char* tag; int64_t b, h, kvh, q, kv, d; int causal; MaskKind m; };
  const S shapes[] = {
      {"Small", 1, 2, 1, 70, 130, 64, 0, MaskKind::None},
      {"Causal", 1, 2, 1, 70, 130, 64, 1, MaskKind::None},
      {"Gqa", 2, 8, 2, 128, 256, 128, 1, MaskKind::Full},
      {"Decode", 1, 8, 2, 1, 300, 128, 1, MaskKind::None},
      {"Wide", 1, 2, 2, 96, 96, 256, 0, MaskKind::Row},
      {"Narrow", 1, 4, 1, 200, 333, 17, 0, MaskKind::KeyPad},
  };
  std::printf("  %-8s %-44s %10s %10s %10s %10s\n", "shape", "config", "fwd ratio", "fwd sharp", "bwd ratio",
              "bwd sharp");
  for (const S& s : shapes) {
    Case c;
    c.tag = s.tag, c.batch = s.b, c.heads = s.h, c.kv_heads = s.kvh, c.q_len = s.q, c.kv_len = s.kv;
    c.head_dim = s.d, c.causal = s.causal, c.mask = s.m;
    const Problem p(c);
    const CleanRuns r = expect_no_false_positive(p);
    for (const abft_report* rep : {&r.f.report, &r.b.report}) {
      EXPECT_GT(rep->checks, 0u) << p.describe();
      EXPECT_GT(rep->max_ratio, 0.0) << p.describe() << " " << report_str(*rep);
      EXPECT_LT(rep->max_ratio, 1.0) << p.describe() << " " << report_str(*rep);
    }
    std::printf("  %-8s %-44s %10.3g %10.3g %10.3g %10.3g\n", s.tag, p.describe().c_str() + std::strlen(s.tag) + 1,
                r.f.report.max_ratio, 1.0 / r.f.report.max_ratio, r.b.report.max_ratio, 1.0 / r.b.report.max_ratio);
  }
}

}  // namespace
