/** \file attn_correctness_test.cpp
 *  \brief Protected attention forward (O, lse) and backward (dQ, dK, dV)
 *  against the double reference over a grid: head_dim 1..256, q_len != kv_len,
 *  decode (q_len 1, kv_len 1..300), GQA and MQA, causal (bottom-right) and
 *  not, full / broadcast-row / key-padding masks with -inf entries, strided,
 *  padded and reversed layouts, custom scales. Plus finite-difference checks:
 *  the reference backward against central differences of the reference
 *  forward (double), and the engine's backward against central differences
 *  of the engine's forward (float, loose). Every third case also runs on the
 *  portable reference kernels (abft_set_isa(ABFT_ISA_REFERENCE)).
 *
 *  Tolerances are componentwise, from a first-order float error analysis
 *  (attn_test_util.hpp, tolerance()): ~1e-5..1e-4 of each element's
 *  magnitude sum for O(1) data.
 */
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "abft/abft.hpp"
#include "attn_reference.hpp"
#include "attn_test_util.hpp"
#include "test_util.hpp"

using namespace attn_test;

namespace {

std::vector<Case> grid() {
  std::vector<Case> v;
  auto add = [&](Case c) { v.push_back(c); };
  // head_dim sweep, including odd sizes (tails of every vector width).
  for (int64_t d : {1, 17, 32, 64, 80, 100, 128, 256}) {
    Case a;
    a.tag = "HeadDim";
    a.batch = 1, a.heads = 2, a.kv_heads = 2, a.q_len = 37, a.kv_len = 53, a.head_dim = d;
    add(a);
    Case b = a;  // causal with q_len > kv_len: the first rows have no key
    b.kv_heads = 1, b.q_len = 53, b.kv_len = 37, b.causal = 1, b.mask = MaskKind::Full;
    b.seed = 2;
    add(b);
  }
  // Decode: one query against a KV cache of every length around block edges.
  int flip = 0;
  for (int64_t kv : {1, 2, 3, 7, 16, 31, 32, 33, 63, 64, 65, 96, 97, 127, 128, 129, 191, 200,
                     255, 256, 257, 300}) {
    Case c;
    c.tag = "Decode";
    c.heads = 8, c.kv_heads = 2, c.q_len = 1, c.kv_len = kv;
    c.head_dim = (flip % 3 == 2) ? 128 : 64;
    c.causal = flip & 1;
    c.mask = (flip % 4 == 3) ? MaskKind::Row : MaskKind::None;
    c.seed = uint64_t(100 + kv);
    ++flip;
    add(c);
  }
  // q_len != kv_len, GQA (8/2), MQA (kv_heads 1), batches, masks.
  {
    Case c;
    c.tag = "Gqa";
    c.batch = 2, c.heads = 8, c.kv_heads = 2, c.q_len = 70, c.kv_len = 130, c.head_dim = 64;
    add(c);
    c.causal = 1;
    add(c);
    c.mask = MaskKind::Full;
    add(c);
    c.causal = 0, c.mask = MaskKind::KeyPad, c.batch = 3, c.q_len = 97, c.kv_len = 203,
    c.head_dim = 32;
    add(c);
  }
  {
    Case c;
    c.tag = "Mqa";
    c.batch = 1, c.heads = 4, c.kv_heads = 1, c.q_len = 130, c.kv_len = 70, c.head_dim = 128;
    c.causal = 1;
    add(c);
    c.causal = 0, c.mask = MaskKind::Padded;
    add(c);
    c.causal = 1, c.mask = MaskKind::Row, c.q_len = 64, c.kv_len = 64, c.head_dim = 80;
    add(c);
  }
  {
    Case c;
    c.tag = "Shape";
    c.q_len = 1, c.kv_len = 1, c.head_dim = 64;
    add(c);
    c.q_len = 65, c.kv_len = 1, c.causal = 1;  // only the last query sees the key
    add(c);
    c.heads = 2, c.kv_heads = 2, c.q_len = 200, c.kv_len = 200, c.head_dim = 128,
    c.mask = MaskKind::KeyPad;
    add(c);
    c.heads = 3, c.kv_heads = 1, c.q_len = 5, c.kv_len = 300, c.head_dim = 17, c.causal = 0,
    c.mask = MaskKind::Full;
    add(c);
  }
  // Layouts: [batch, seq, heads, dim] storage, padding, negative strides, mixes.
  {
    Case c;
    c.tag = "Layout";
    c.batch = 2, c.heads = 4, c.kv_heads = 2, c.q_len = 33, c.kv_len = 71, c.head_dim = 64;
    c.causal = 1;
    for (Layout l : {Layout::Explicit, Layout::BSHD, Layout::Padded, Layout::NegSeq, Layout::NegAll}) {
      c.lq = c.lk = c.lv = c.lo = l;
      add(c);
    }
    c.lq = Layout::BSHD, c.lk = Layout::Padded, c.lv = Layout::NegSeq, c.lo = Layout::Explicit;
    c.mask = MaskKind::Padded;
    add(c);
    c.lq = Layout::NegAll, c.lk = Layout::BSHD, c.lv = Layout::Padded, c.lo = Layout::BSHD;
    c.mask = MaskKind::Row, c.causal = 0, c.head_dim = 100;
    add(c);
  }
  // Custom scales (any finite value): 0 gives a uniform softmax, negative flips it.
  for (float s : {0.37f, -0.2f, 0.0f, 3.0f}) {
    Case c;
    c.tag = "Scale";
    c.heads = 2, c.kv_heads = 1, c.q_len = 40, c.kv_len = 90, c.head_dim = 32;
    c.causal = s < 0.1f, c.mask = MaskKind::Row;
    c.custom_scale = true, c.scale = s;
    add(c);
  }
  return v;
}

std::vector<int64_t> qdims(const Case& c) { return {c.batch, c.heads, c.q_len, c.head_dim}; }
std::vector<int64_t> kdims(const Case& c) { return {c.batch, c.kv_heads, c.kv_len, c.head_dim}; }
double data_max(const Problem& p) {
  return std::max({max_abs(p.Q.logical()), max_abs(p.K.logical()), max_abs(p.V.logical()),
                   max_abs(p.dO.logical())});
}

void check_forward(const Problem& p) {
  abft::Handle h;
  const FwdRun r = run_forward(h.get(), ABFT_POLICY_CORRECT, p);
  ASSERT_EQ(r.status, ABFT_STATUS_SUCCESS) << p.describe() << ": " << abft_status_string(r.status);
  EXPECT_EQ(r.report.detected, 0u) << p.describe() << ": clean call flagged " << report_str(r.report);
  const attn_ref::Forward ref = attn_ref::forward(p.d, p.Q.ptr(), p.K.ptr(), p.V.ptr(), p.mask_ptr());
  const Tol tol = tolerance(p.d, ref.qk_mag, ref.s_max_abs, ref.lse_max_abs, data_max(p));
  double worst = 0.0;
  EXPECT_TRUE(compare(p.describe() + " O", r.O.logical(), ref.O, ref.magO, tol, qdims(p.c), &worst));
  // lse: |dlse| <= (probability error) + u |lse|: coef + 2u max|lse| absolute.
  Tol lt = tol;
  lt.floor += 2.0 * std::ldexp(1.0, -24) * ref.lse_max_abs;
  const std::vector<double> ones(ref.lse.size(), 1.0);
  EXPECT_TRUE(compare(p.describe() + " lse", r.lse.logical(), ref.lse, ones, lt,
                      {p.c.batch, p.c.heads, p.c.q_len}, &worst));
  EXPECT_EQ(r.O.padding_written(), 0) << p.describe() << ": O storage outside the view written";
  EXPECT_TRUE(r.lse.guards_intact()) << p.describe() << ": lse written out of range";
  ::testing::Test::RecordProperty("worst_error_over_tolerance", std::to_string(worst));
}

void check_backward(const Problem& p) {
  abft::Handle h;
  const FwdRun f = run_forward(h.get(), ABFT_POLICY_CORRECT, p);
  ASSERT_EQ(f.status, ABFT_STATUS_SUCCESS) << p.describe();
  const BwdRun r = run_backward(h.get(), ABFT_POLICY_CORRECT, p, f.O, f.lse);
  ASSERT_EQ(r.status, ABFT_STATUS_SUCCESS) << p.describe() << ": " << abft_status_string(r.status);
  EXPECT_EQ(r.report.detected, 0u) << p.describe() << ": clean call flagged " << report_str(r.report);
  // The reference backward of the engine's own O and lse (the backward is a
  // function of them; the forward's error is judged by the Forward test).
  const std::vector<double> O = f.O.logical(), lse = f.lse.logical();
  const attn_ref::Backward ref = attn_ref::backward(p.d, p.Q.ptr(), p.K.ptr(), p.V.ptr(),
                                                    p.mask_ptr(), O.data(), lse.data(), p.dO.ptr());
  const Tol tol = tolerance(p.d, ref.qk_mag, ref.s_max_abs, max_abs(lse), data_max(p));
  double worst = 0.0;
  EXPECT_TRUE(compare(p.describe() + " dQ", r.dQ.logical(), ref.dQ, ref.magdQ, tol, qdims(p.c), &worst));
  EXPECT_TRUE(compare(p.describe() + " dK", r.dK.logical(), ref.dK, ref.magdK, tol, kdims(p.c), &worst));
  EXPECT_TRUE(compare(p.describe() + " dV", r.dV.logical(), ref.dV, ref.magdV, tol, kdims(p.c), &worst));
  EXPECT_EQ(r.dQ.padding_written(), 0) << p.describe() << ": dQ storage outside the view written";
  EXPECT_EQ(r.dK.padding_written(), 0) << p.describe() << ": dK storage outside the view written";
  EXPECT_EQ(r.dV.padding_written(), 0) << p.describe() << ": dV storage outside the view written";
  ::testing::Test::RecordProperty("worst_error_over_tolerance", std::to_string(worst));
}

class AttnCorrectness : public ::testing::TestWithParam<Case> {};

TEST_P(AttnCorrectness, Forward) { check_forward(Problem(GetParam())); }
TEST_P(AttnCorrectness, Backward) { check_backward(Problem(GetParam())); }

TEST_P(AttnCorrectness, ForwardWithoutLse) {
  const Problem p(GetParam());
  abft::Handle h;
  const FwdRun a = run_forward(h.get(), ABFT_POLICY_CORRECT, p, true);
  const FwdRun b = run_forward(h.get(), ABFT_POLICY_CORRECT, p, false);
  ASSERT_EQ(b.status, ABFT_STATUS_SUCCESS) << p.describe();
  // O does not depend on whether lse is wanted.
  const std::vector<float> oa = a.O.logical_f(), ob = b.O.logical_f();
  int64_t diff = 0;
  for (size_t t = 0; t < oa.size(); ++t) diff += !same_bits(oa[t], ob[t]);
  EXPECT_EQ(diff, 0) << p.describe() << ": O differs when lse is NULL";
}

INSTANTIATE_TEST_SUITE_P(Grid, AttnCorrectness, ::testing::ValuesIn(grid()),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name(); });

/** The portable reference kernels (abft_set_isa(ABFT_ISA_REFERENCE)) on every
 *  third case of the grid: the same tolerances as the dispatched ISA. */
class AttnCorrectnessRefIsa : public ::testing::TestWithParam<Case> {};
TEST_P(AttnCorrectnessRefIsa, ForwardAndBackward) {
  abft_test::IsaGuard guard;
  ABFT_REQUIRE_ISA(ABFT_ISA_REFERENCE);
  const Problem p(GetParam());
  check_forward(p);
  check_backward(p);
}
std::vector<Case> every_third() {
  std::vector<Case> v;
  const std::vector<Case> g = grid();
  for (size_t i = 0; i < g.size(); i += 3) v.push_back(g[i]);
  return v;
}
INSTANTIATE_TEST_SUITE_P(Grid, AttnCorrectnessRefIsa, ::testing::ValuesIn(every_third()),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name(); });

// ------------------------------------------------------------------ finite differences
/** A small double problem for the reference's own gradient check. */
struct SmallDouble {
  abft_attention_desc d{};
  std::vector<double> Q, K, V, mask, G;
};
SmallDouble small_double(int causal, bool with_mask, int64_t q_len, int64_t kv_len, uint64_t seed) {
  SmallDouble s;
  s.d.batch = 2, s.d.heads = 4, s.d.kv_heads = 2, s.d.q_len = q_len, s.d.kv_len = kv_len;
  s.d.head_dim = 5, s.d.scale = 0.45f, s.d.causal = causal;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0), coin(0.0, 1.0);
  const int64_t nq = 2 * 4 * q_len * 5, nk = 2 * 2 * kv_len * 5;
  for (int64_t t = 0; t < nq; ++t) s.Q.push_back(u(rng)), s.G.push_back(u(rng));
  for (int64_t t = 0; t < nk; ++t) s.K.push_back(u(rng)), s.V.push_back(u(rng));
  if (with_mask)
    for (int64_t t = 0; t < 2 * 4 * q_len * kv_len; ++t)
      s.mask.push_back(coin(rng) < 0.2 ? -kInf : u(rng));
  return s;
}

/** Reference backward vs central differences of L = sum(O * G) through the
 *  reference forward, all double: h = 1e-5 gives truncation ~h^2 and
 *  cancellation ~1e-16/h, both ~1e-10, far below the 1e-7 tolerance. */
void check_reference_gradient(int causal, bool with_mask, int64_t q_len, int64_t kv_len) {
  SmallDouble s = small_double(causal, with_mask, q_len, kv_len, uint64_t(17 + q_len * 7 + kv_len));
  const double* M = with_mask ? s.mask.data() : nullptr;
  const attn_ref::Forward f = attn_ref::forward(s.d, s.Q.data(), s.K.data(), s.V.data(), M);
  const attn_ref::Backward g =
      attn_ref::backward(s.d, s.Q.data(), s.K.data(), s.V.data(), M, f.O.data(), f.lse.data(), s.G.data());
  auto L = [&] {
    return attn_ref::loss(attn_ref::forward(s.d, s.Q.data(), s.K.data(), s.V.data(), M).O, s.G);
  };
  struct Which { const char* name; std::vector<double>* x; const std::vector<double>* grad; };
  const Which ws[] = {{"dQ", &s.Q, &g.dQ}, {"dK", &s.K, &g.dK}, {"dV", &s.V, &g.dV}};
  for (const Which& w : ws) {
    const double gmax = max_abs(*w.grad);
    EXPECT_GT(gmax, 0.0) << w.name << " all zero";
    for (size_t t = 0; t < w.x->size(); ++t) {
      const double x0 = (*w.x)[t], hh = 1e-5;
      (*w.x)[t] = x0 + hh;
      const double lp = L();
      (*w.x)[t] = x0 - hh;
      const double lm = L();
      (*w.x)[t] = x0;
      const double fd = (lp - lm) / (2 * hh);
      EXPECT_NEAR((*w.grad)[t], fd, 1e-7 * std::max(1.0, gmax))
          << "causal=" << causal << " mask=" << with_mask << " q_len=" << q_len
          << " kv_len=" << kv_len << " " << w.name << "[" << t << "]";
    }
  }
}

TEST(AttnReferenceGradient, MatchesFiniteDifferences_q6_kv9_full_nomask) { check_reference_gradient(0, false, 6, 9); }
TEST(AttnReferenceGradient, MatchesFiniteDifferences_q6_kv9_causal_mask) { check_reference_gradient(1, true, 6, 9); }
TEST(AttnReferenceGradient, MatchesFiniteDifferences_q9_kv4_causal_emptyrows) { check_reference_gradient(1, false, 9, 4); }
TEST(AttnReferenceGradient, MatchesFiniteDifferences_q1_kv7_decode_mask) { check_reference_gradient(0, true, 1, 7); }

/** The reference's contract details the grid relies on: bottom-right causal
 *  alignment, GQA head mapping, empty rows. */
TEST(AttnReference, SemanticsSpotChecks) {
  // q_len 3, kv_len 5, causal: query 0 sees keys 0..2, query 2 sees all.
  abft_attention_desc d{};
  d.batch = 1, d.heads = 2, d.kv_heads = 1, d.q_len = 3, d.kv_len = 5, d.head_dim = 1;
  d.scale = 0.0f, d.causal = 1;  // scale 0: uniform over the admissible keys
  const std::vector<double> Q(6, 1.0), K(5, 1.0), V = {1, 2, 3, 4, 5};
  const attn_ref::Forward f = attn_ref::forward(d, Q.data(), K.data(), V.data(), (const double*)nullptr);
  EXPECT_DOUBLE_EQ(f.O[0], 2.0);  // mean of 1,2,3
  EXPECT_DOUBLE_EQ(f.O[1], 2.5);
  EXPECT_DOUBLE_EQ(f.O[2], 3.0);
  EXPECT_DOUBLE_EQ(f.O[3], 2.0);  // head 1 reads kv head 0
  EXPECT_NEAR(f.lse[0], std::log(3.0), 1e-15);
  d.q_len = 3, d.kv_len = 1;  // causal q_len > kv_len: queries 0 and 1 see nothing
  const attn_ref::Forward e = attn_ref::forward(d, Q.data(), K.data(), V.data(), (const double*)nullptr);
  EXPECT_EQ(e.O[0], 0.0);
  EXPECT_EQ(e.lse[0], -kInf);
  EXPECT_EQ(e.lse[1], -kInf);
  EXPECT_DOUBLE_EQ(e.O[2], 1.0);
}

/** The engine's backward against central differences of the engine's own
 *  forward, L = sum(O * G) in double, float inputs. Step 2^-7 and the actual
 *  float perturbation as the divisor; forward round-off ~1e-7 |L| / h plus
 *  truncation ~h^2 give a few 1e-4 of the gradient scale, so the tolerance is
 *  2e-2 of max|grad| (it catches wrong formulas, not round-off). */
TEST(AttnEngineGradient, BackwardMatchesFiniteDifferencesOfForward_b1_h2_kvh1_q5_kv7_d8_causal_maskfull) {
  Case c;
  c.batch = 1, c.heads = 2, c.kv_heads = 1, c.q_len = 5, c.kv_len = 7, c.head_dim = 8;
  c.causal = 1, c.mask = MaskKind::Full, c.seed = 77;
  Problem p(c);
  abft::Handle h;
  const FwdRun f = run_forward(h.get(), ABFT_POLICY_CORRECT, p);
  ASSERT_EQ(f.status, ABFT_STATUS_SUCCESS);
  // dO = G (O's layout): L's gradient.
  const std::vector<double> G = p.dO.logical();
  const BwdRun b = run_backward(h.get(), ABFT_POLICY_CORRECT, p, f.O, f.lse);
  ASSERT_EQ(b.status, ABFT_STATUS_SUCCESS);
  auto L = [&] {
    const FwdRun r = run_forward(h.get(), ABFT_POLICY_CORRECT, p, false);
    EXPECT_EQ(r.status, ABFT_STATUS_SUCCESS);
    return attn_ref::loss(r.O.logical(), G);
  };
  struct Which { const char* name; Tensor* x; const Tensor* grad; };
  const Which ws[] = {{"dQ", &p.Q, &b.dQ}, {"dK", &p.K, &b.dK}, {"dV", &p.V, &b.dV}};
  for (const Which& w : ws) {
    const double gmax = max_abs(w.grad->logical());
    ASSERT_GT(gmax, 0.0) << w.name;
    int64_t bad = 0;
    w.x->for_each([&](int64_t a, int64_t hh, int64_t s, int64_t e) {
      float& x = w.x->at(a, hh, s, e);
      const float x0 = x, step = 0x1p-7f;
      x = x0 + step;
      const double xp = x, lp = L();
      x = x0 - step;
      const double xm = x, lm = L();
      x = x0;
      const double fd = (lp - lm) / (xp - xm), got = w.grad->at(a, hh, s, e);
      if (std::fabs(fd - got) > 2e-2 * gmax) {
        if (bad++ < 5)
          ADD_FAILURE() << p.describe() << " " << w.name << "(" << a << "," << hh << "," << s << ","
                        << e << ") = " << got << ", finite difference " << fd << " (max|grad| "
                        << gmax << ")";
      }
    });
    EXPECT_EQ(bad, 0) << w.name;
  }
}

}  // namespace
