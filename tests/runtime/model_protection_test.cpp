// Protection of the model's passes:
//  - without faults, policy correct (and detect) gives bitwise the logits, loss and gradients of
//    policy off: the kernels leave their outputs as computed when no check fails, and the
//    runtime does nothing else differently;
//  - the statistics count calls of every protected op (forward, data gradient, weight
//    gradient), with checks under correct and none under off, and nothing detected;
//  - under injected faults (one per kernel call, a flip of exponent bit 30) policy correct
//    gives the clean results and loss curve, detect flags without repairing, off visibly
//    changes the results (proof that the injection reaches the computation).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "abft/transformer/injection.hpp"
#include "abft/transformer/model.hpp"
#include "abft/transformer/stats.hpp"
#include "model_reference.hpp"

namespace at = abft::transformer;
using at::OpKind;
using at::Pass;
using reftest::NamedConfig;

namespace {

std::string config_name(const ::testing::TestParamInfo<NamedConfig>& info) {
  return info.param.name;
}

std::vector<NamedConfig> protection_configs() {
  std::vector<NamedConfig> all = reftest::test_configs();
  // gpt2_tiny, llama_tiny, llama_mqa: both architectures, GQA and MQA.
  return {all[0], all[2], all[4]};
}

struct Batch {
  int64_t B = 2, T = 7;
  std::vector<int32_t> tok, tgt;
  Batch(const at::Config& c, uint64_t seed) {
    tok = reftest::random_tokens(B * T, c.vocab, seed);
    tgt = reftest::random_tokens(B * T, c.vocab, seed + 1);
  }
};

struct PassResult {
  std::vector<float> logits, grads;
  double loss = 0;
  at::RunStats fwd_stats, train_stats;
};

/** Forward logits, then loss with gradients, each with fresh statistics. */
PassResult run_passes(at::Model& m, const Batch& b) {
  PassResult r;
  const int64_t V = m.config().vocab;
  r.logits.assign(size_t(b.B * b.T * V), NAN);
  m.stats().reset();
  m.forward(b.tok.data(), b.B, b.T, r.logits.data());
  r.fwd_stats = m.stats();
  r.grads.assign(m.weights().size(), 0.0f);
  m.stats().reset();
  r.loss = m.loss(b.tok.data(), b.tgt.data(), b.B, b.T, r.grads.data());
  r.train_stats = m.stats();
  return r;
}

at::InjectionSettings exponent_flips(uint64_t seed) {
  at::InjectionSettings s;
  s.rate = 1.0;
  s.per_flop = false;
  s.model = ABFT_FAULT_BITFLIP;
  s.bit = 30;
  s.seed = seed;
  return s;
}

std::vector<OpKind> products(const at::Config& c) {
  std::vector<OpKind> ops = {OpKind::QKV, OpKind::OutProj, OpKind::MlpUp, OpKind::MlpDown};
  if (c.arch == at::Arch::Llama) ops.push_back(OpKind::MlpGate);
  return ops;
}

/** Counters summed over the protected (ABFT) ops, every layer and pass. The invariant checks
 *  of the other ops are left out: they run under every policy and may flag what a fault under
 *  policy off left behind. */
at::OpCounters abft_total(const at::RunStats& s) {
  at::OpCounters t;
  for (int k = 0; k < int(OpKind::Count_); ++k)
    if (at::op_is_abft(OpKind(k)))
      for (int p = 0; p < int(Pass::Count_); ++p) t.add(s.total(OpKind(k), Pass(p)));
  return t;
}

class ModelProtection : public ::testing::TestWithParam<NamedConfig> {};

TEST_P(ModelProtection, NoFaultsBitwiseEqualAcrossPolicies) {
  const at::Config& c = GetParam().config;
  at::Model m(c);
  reftest::randomize(m.weights(), 3);
  const Batch b(c, 10);

  m.set_policy(abft::Policy::Off);
  const PassResult off = run_passes(m, b);
  for (abft::Policy p : {abft::Policy::Correct, abft::Policy::Detect}) {
    m.set_policy(p);
    EXPECT_EQ(m.policy(), p);
    const PassResult on = run_passes(m, b);
    const int pi = int(p);
    EXPECT_EQ(0, std::memcmp(on.logits.data(), off.logits.data(), off.logits.size() * sizeof(float)))
        << "policy " << pi << " logits differ from policy off";
    EXPECT_EQ(on.loss, off.loss) << "policy " << pi;
    EXPECT_EQ(0, std::memcmp(on.grads.data(), off.grads.data(), off.grads.size() * sizeof(float)))
        << "policy " << pi << " gradients differ from policy off";
    EXPECT_TRUE(reftest::all_finite(on.logits.data(), on.logits.size()));
    EXPECT_TRUE(reftest::all_finite(on.grads.data(), on.grads.size()));
  }
  // Repeatable: a second run under off is bitwise the first.
  m.set_policy(abft::Policy::Off);
  const PassResult again = run_passes(m, b);
  EXPECT_EQ(0, std::memcmp(again.grads.data(), off.grads.data(), off.grads.size() * sizeof(float)));
  EXPECT_EQ(again.loss, off.loss);
}

TEST_P(ModelProtection, StatisticsCountEveryProtectedOp) {
  const at::Config& c = GetParam().config;
  at::Model m(c);
  reftest::randomize(m.weights(), 4);
  const Batch b(c, 20);
  const int L = int(c.layers);

  m.set_policy(abft::Policy::Correct);
  const PassResult on = run_passes(m, b);
  m.set_policy(abft::Policy::Off);
  const PassResult off = run_passes(m, b);
  ASSERT_EQ(on.fwd_stats.layers(), L);

  auto expect_row = [&](const at::RunStats& son, const at::RunStats& soff, int layer, OpKind op,
                        Pass pass) {
    const at::OpCounters& a = son.at(layer, op, pass);
    const at::OpCounters& z = soff.at(layer, op, pass);
    const std::string where = std::string(at::op_name(op)) + "/" + at::pass_name(pass) +
                              " layer " + std::to_string(layer);
    EXPECT_GT(a.calls, 0u) << where;
    EXPECT_EQ(a.calls, z.calls) << where << ": the same kernel calls under every policy";
    EXPECT_GT(a.checks, 0u) << where << " under correct";
    EXPECT_EQ(z.checks, 0u) << where << " under off";
    EXPECT_EQ(a.detected + a.corrected + a.recomputed + a.uncorrectable + a.injected, 0u) << where;
    EXPECT_EQ(z.detected + z.corrected + z.recomputed + z.uncorrectable + z.injected, 0u) << where;
  };

  for (int l = 0; l < L; ++l) {
    for (OpKind op : products(c)) {
      expect_row(on.fwd_stats, off.fwd_stats, l, op, Pass::Forward);
      expect_row(on.train_stats, off.train_stats, l, op, Pass::Forward);
      expect_row(on.train_stats, off.train_stats, l, op, Pass::Backward);
      expect_row(on.train_stats, off.train_stats, l, op, Pass::Weight);
    }
    expect_row(on.fwd_stats, off.fwd_stats, l, OpKind::Attention, Pass::Forward);
    expect_row(on.train_stats, off.train_stats, l, OpKind::Attention, Pass::Forward);
    expect_row(on.train_stats, off.train_stats, l, OpKind::Attention, Pass::Backward);
    // No protected op of a layer shows up at the model level, and vice versa.
    EXPECT_EQ(on.fwd_stats.at(-1, OpKind::QKV, Pass::Forward).calls, 0u);
    EXPECT_EQ(on.fwd_stats.at(l, OpKind::LmHead, Pass::Forward).calls, 0u);
  }
  expect_row(on.fwd_stats, off.fwd_stats, -1, OpKind::LmHead, Pass::Forward);
  expect_row(on.train_stats, off.train_stats, -1, OpKind::LmHead, Pass::Forward);
  expect_row(on.train_stats, off.train_stats, -1, OpKind::LmHead, Pass::Backward);
  expect_row(on.train_stats, off.train_stats, -1, OpKind::LmHead, Pass::Weight);

  // The forward alone runs no backward product.
  for (OpKind op : products(c)) {
    EXPECT_EQ(on.fwd_stats.total(op, Pass::Backward).calls, 0u);
    EXPECT_EQ(on.fwd_stats.total(op, Pass::Weight).calls, 0u);
  }
  if (c.arch == at::Arch::GPT2) {
    EXPECT_EQ(on.fwd_stats.total(OpKind::MlpGate, Pass::Forward).calls, 0u);
  }

  // Every ABFT op is marked as such; totals add up.
  for (int k = 0; k < int(OpKind::Count_); ++k) {
    const OpKind op = OpKind(k);
    const bool abft_op = op == OpKind::QKV || op == OpKind::Attention || op == OpKind::OutProj ||
                         op == OpKind::MlpUp || op == OpKind::MlpGate || op == OpKind::MlpDown ||
                         op == OpKind::LmHead;
    EXPECT_EQ(at::op_is_abft(op), abft_op) << at::op_name(op);
  }
  const at::OpCounters tot = on.train_stats.total();
  EXPECT_GT(tot.checks, 0u);
  EXPECT_EQ(tot.detected, 0u);
  EXPECT_EQ(tot.corrected, 0u);
  EXPECT_EQ(tot.uncorrectable, 0u);
  uint64_t calls = 0;
  for (int l = -1; l < L; ++l)
    for (int k = 0; k < int(OpKind::Count_); ++k)
      for (int p = 0; p < int(Pass::Count_); ++p) calls += on.train_stats.at(l, OpKind(k), Pass(p)).calls;
  EXPECT_EQ(tot.calls, calls);
}

/** Relative closeness of two float arrays, scaled by the largest magnitude of the reference. */
double rel_diff(const std::vector<float>& a, const std::vector<float>& ref) {
  const double mx = reftest::max_abs(ref.data(), ref.size());
  return reftest::max_abs_diff(a.data(), ref.data(), ref.size()) / (mx > 0 ? mx : 1.0);
}

// Under correct with faults, a repaired element is recomputed (not patched by the checksum
// difference), possibly in another summation order or on another code path (a row or block
// recomputed by the reference kernel): it may differ from the clean value by a few ulps, and
// the difference propagates through the later ops. 1e-5 of the largest magnitude leaves room
// for that; a fault that escaped (an exponent flip changes a value by a factor ~2^128 or to
// ~0) would be off by orders of magnitude more.
constexpr double kRepairTol = 1e-5;

TEST_P(ModelProtection, InjectedFaultsAreCorrected) {
  const at::Config& c = GetParam().config;
  at::Model m(c);
  reftest::randomize(m.weights(), 5);
  const Batch b(c, 30);
  m.set_policy(abft::Policy::Correct);
  const PassResult clean = run_passes(m, b);

  m.set_injection(exponent_flips(1234));
  EXPECT_TRUE(m.injection().enabled());
  EXPECT_EQ(m.injection().bit, 30);
  const PassResult hit = run_passes(m, b);
  m.set_injection(at::InjectionSettings{});
  EXPECT_FALSE(m.injection().enabled());

  // Every exponent flip is far beyond its check's bound, so every fault is detected, and a
  // repair recomputes with the kernel's own arithmetic (GEMM: ABFT.md §5; attention: §10):
  // the repaired passes are the clean ones bit for bit.
  EXPECT_EQ(0, std::memcmp(hit.logits.data(), clean.logits.data(), clean.logits.size() * sizeof(float)));
  EXPECT_EQ(hit.loss, clean.loss);
  EXPECT_EQ(0, std::memcmp(hit.grads.data(), clean.grads.data(), clean.grads.size() * sizeof(float)));

  for (const at::RunStats* s : {&hit.fwd_stats, &hit.train_stats}) {
    const at::OpCounters t = s->total();
    EXPECT_GT(t.injected, 0u);
    EXPECT_GT(t.detected, 0u);
    EXPECT_GT(t.corrected + t.recomputed, 0u);
    EXPECT_GT(t.corrected, 0u);
    EXPECT_EQ(t.uncorrectable, 0u);
  }
  // Faults landed in the backward products and the attention backward too, and were handled.
  uint64_t bwd_injected = 0, bwd_detected = 0;
  for (OpKind op : {OpKind::QKV, OpKind::OutProj, OpKind::MlpUp, OpKind::MlpDown, OpKind::LmHead,
                    OpKind::Attention}) {
    for (Pass p : {Pass::Backward, Pass::Weight}) {
      bwd_injected += hit.train_stats.total(op, p).injected;
      bwd_detected += hit.train_stats.total(op, p).detected;
    }
  }
  EXPECT_GT(bwd_injected, 0u);
  EXPECT_GT(bwd_detected, 0u);

  // The injection is detached: a clean run again matches bitwise.
  const PassResult after = run_passes(m, b);
  EXPECT_EQ(0, std::memcmp(after.grads.data(), clean.grads.data(), clean.grads.size() * sizeof(float)));
  EXPECT_EQ(after.train_stats.total().injected, 0u);
}

TEST_P(ModelProtection, InjectedFaultsChangeResultsWithoutProtection) {
  const at::Config& c = GetParam().config;
  at::Model m(c);
  reftest::randomize(m.weights(), 6);
  const Batch b(c, 40);
  m.set_policy(abft::Policy::Off);
  const PassResult clean = run_passes(m, b);
  m.set_injection(exponent_flips(99));
  const PassResult hit = run_passes(m, b);
  const bool loss_changed = !std::isfinite(hit.loss) || std::fabs(hit.loss - clean.loss) > 1e-3;
  EXPECT_TRUE(loss_changed) << "clean " << clean.loss << ", with faults " << hit.loss;
  const double d = rel_diff(hit.logits, clean.logits);
  EXPECT_TRUE(!std::isfinite(d) || d > 1e-3) << d;
  const at::OpCounters t = abft_total(hit.train_stats);
  EXPECT_GT(t.injected, 0u);
  EXPECT_EQ(t.checks, 0u);
  EXPECT_EQ(t.detected, 0u);
}

TEST_P(ModelProtection, DetectFlagsWithoutRepairing) {
  const at::Config& c = GetParam().config;
  at::Model m(c);
  reftest::randomize(m.weights(), 7);
  const Batch b(c, 50);
  m.set_policy(abft::Policy::Detect);
  m.set_injection(exponent_flips(7));
  const PassResult hit = run_passes(m, b);
  for (const at::RunStats* s : {&hit.fwd_stats, &hit.train_stats}) {
    const at::OpCounters t = abft_total(*s);
    EXPECT_GT(t.injected, 0u);
    EXPECT_GT(t.detected, 0u);
    EXPECT_EQ(t.corrected, 0u);
    EXPECT_EQ(t.recomputed, 0u);
  }
}

TEST_P(ModelProtection, SitesRouteFaultsToTheirKernels) {
  // Attention sites reach only the attention calls, GEMM sites only the products; both are
  // repaired.
  const at::Config& c = GetParam().config;
  at::Model m(c);
  reftest::randomize(m.weights(), 9);
  const Batch b(c, 70);
  m.set_policy(abft::Policy::Correct);
  const PassResult clean = run_passes(m, b);

  for (int which = 0; which < 2; ++which) {
    at::InjectionSettings s = exponent_flips(31 + uint64_t(which));
    if (which == 0)
      s.sites = {ABFT_SITE_ATTN_SCORES, ABFT_SITE_ATTN_PROBS};
    else
      s.sites = {ABFT_SITE_PACKED_B};
    m.set_injection(s);
    const PassResult hit = run_passes(m, b);
    m.set_injection(at::InjectionSettings{});
    uint64_t attn = 0, prod = 0;
    for (int p = 0; p < int(Pass::Count_); ++p) {
      attn += hit.train_stats.total(OpKind::Attention, Pass(p)).injected;
      for (OpKind op : products(c)) prod += hit.train_stats.total(op, Pass(p)).injected;
      prod += hit.train_stats.total(OpKind::LmHead, Pass(p)).injected;
    }
    EXPECT_EQ(attn + prod, abft_total(hit.train_stats).injected);
    if (which == 0) {
      EXPECT_GT(attn, 0u);
      EXPECT_EQ(prod, 0u);
    } else {
      EXPECT_EQ(attn, 0u);
      EXPECT_GT(prod, 0u);
    }
    EXPECT_EQ(abft_total(hit.train_stats).uncorrectable, 0u);
    EXPECT_LE(rel_diff(hit.logits, clean.logits), kRepairTol) << which;
    EXPECT_NEAR(hit.loss, clean.loss, kRepairTol * (1 + std::fabs(clean.loss))) << which;
    EXPECT_LE(rel_diff(hit.grads, clean.grads), 1e-4) << which;
  }
}

TEST_P(ModelProtection, PerFlopRate) {
  // A rate per floating-point operation: bigger calls draw faults more often; ~1e-5 per FLOP
  // gives a few faults per pass of this tiny model. All are repaired.
  const at::Config& c = GetParam().config;
  at::Model m(c);
  reftest::randomize(m.weights(), 10);
  const Batch b(c, 80);
  const PassResult clean = run_passes(m, b);
  at::InjectionSettings s = exponent_flips(5);
  s.per_flop = true;
  s.rate = 1e-5;
  m.set_injection(s);
  EXPECT_TRUE(m.injection().per_flop);
  const PassResult hit = run_passes(m, b);
  const at::OpCounters t = abft_total(hit.train_stats);
  EXPECT_GT(t.injected, 0u);
  EXPECT_GT(t.detected, 0u);
  EXPECT_EQ(t.uncorrectable, 0u);
  EXPECT_LE(rel_diff(hit.logits, clean.logits), kRepairTol);
  EXPECT_LE(rel_diff(hit.grads, clean.grads), 1e-4);
}

TEST_P(ModelProtection, DecodeUnderFaults) {
  // Inference with the KV cache under faults: policy correct gives the clean logits step by
  // step (the cache holds repaired K and V); policy off does not.
  const at::Config& c = GetParam().config;
  const int64_t V = c.vocab;
  const auto p0 = reftest::random_tokens(12, V, 90), p1 = reftest::random_tokens(12, V, 91);
  auto run = [&](abft::Policy pol, bool faults, at::OpCounters* abft_stats) {
    at::Model m(c);
    reftest::randomize(m.weights(), 11);
    m.set_policy(pol);
    if (faults) m.set_injection(exponent_flips(17));
    at::KVCache cache(c, 2, 16);
    std::vector<float> all, lg(size_t(2 * V));
    m.decode(cache, {{0, p0.data(), 6}, {1, p1.data(), 3}}, lg.data());
    all.insert(all.end(), lg.begin(), lg.end());
    for (int step = 0; step < 4; ++step) {
      m.decode(cache, {{0, p0.data() + 6 + step, 1}, {1, p1.data() + 3 + step, 1}}, lg.data());
      all.insert(all.end(), lg.begin(), lg.end());
    }
    if (abft_stats) *abft_stats = abft_total(m.stats());
    return all;
  };
  const std::vector<float> clean = run(abft::Policy::Correct, false, nullptr);
  at::OpCounters t;
  const std::vector<float> fixed = run(abft::Policy::Correct, true, &t);
  EXPECT_GT(t.injected, 0u);
  EXPECT_GT(t.corrected, 0u);
  EXPECT_EQ(t.uncorrectable, 0u);
  EXPECT_LE(rel_diff(fixed, clean), kRepairTol);
  const std::vector<float> bare = run(abft::Policy::Off, true, &t);
  EXPECT_GT(t.injected, 0u);
  const double d = rel_diff(bare, clean);
  EXPECT_TRUE(!std::isfinite(d) || d > 1e-3) << d;
}

/** Ten steps of plain SGD on one batch; returns the loss of every step. */
std::vector<double> sgd_curve(at::Model& m, const Batch& b, int steps, float lr) {
  std::vector<double> curve;
  std::vector<float> g(m.weights().size());
  float* w = m.weights().data();
  for (int s = 0; s < steps; ++s) {
    std::fill(g.begin(), g.end(), 0.0f);
    curve.push_back(m.loss(b.tok.data(), b.tgt.data(), b.B, b.T, g.data()));
    for (size_t i = 0; i < g.size(); ++i) w[i] -= lr * g[i];
  }
  return curve;
}

TEST_P(ModelProtection, LossCurveUnderFaults) {
  const at::Config& c = GetParam().config;
  const Batch b(c, 60);
  const int steps = 10;
  const float lr = 0.05f;
  auto fresh = [&](abft::Policy p) {
    at::Model m(c);
    reftest::randomize(m.weights(), 8);
    m.set_policy(p);
    return m;
  };

  at::Model clean_m = fresh(abft::Policy::Correct);
  const std::vector<double> clean = sgd_curve(clean_m, b, steps, lr);
  // The curve goes down (so that it is a training curve, and comparing it means something).
  EXPECT_LT(clean.back(), clean.front() - 0.05);

  at::Model prot = fresh(abft::Policy::Correct);
  prot.set_injection(exponent_flips(2024));
  prot.stats().reset();
  const std::vector<double> protected_curve = sgd_curve(prot, b, steps, lr);
  const at::OpCounters t = prot.stats().total();
  EXPECT_GT(t.injected, uint64_t(steps));
  EXPECT_GT(t.corrected, 0u);
  EXPECT_EQ(t.uncorrectable, 0u);
  // Bit for bit (see InjectedFaultsAreCorrected).
  for (int s = 0; s < steps; ++s) EXPECT_EQ(protected_curve[size_t(s)], clean[size_t(s)]) << "step " << s;

  at::Model bare = fresh(abft::Policy::Off);
  bare.set_injection(exponent_flips(2024));
  const std::vector<double> bare_curve = sgd_curve(bare, b, steps, lr);
  int diverged = 0;
  for (int s = 0; s < steps; ++s) {
    const double v = bare_curve[size_t(s)];
    if (!std::isfinite(v) || std::fabs(v - clean[size_t(s)]) > 1e-3 * std::fabs(clean[size_t(s)])) ++diverged;
  }
  EXPECT_GT(diverged, 0) << "faults under policy off left the loss curve unchanged";
}

// ------------------------------------------------------------------ options and moves

TEST_P(ModelProtection, OptionsDoNotChangeResults) {
  // check_timing repeats sampled calls with policy off into scratch memory: the results stay
  // bitwise those of a model without it, and the samples are counted. Without invariant checks
  // the non-ABFT ops check nothing, and the results are the same again. One thread: the same
  // results (the kernels' partitioning does not change the sums of an element; allow rounding).
  const at::Config& c = GetParam().config;
  const Batch b(c, 100);
  at::Model plain(c);
  reftest::randomize(plain.weights(), 12);
  const PassResult ref = run_passes(plain, b);

  at::ModelOptions timed;
  timed.check_timing = true;
  timed.timing_period = 1;
  at::Model mt(c, timed);
  reftest::randomize(mt.weights(), 12);
  const PassResult t = run_passes(mt, b);
  EXPECT_EQ(0, std::memcmp(t.logits.data(), ref.logits.data(), ref.logits.size() * sizeof(float)));
  EXPECT_EQ(0, std::memcmp(t.grads.data(), ref.grads.data(), ref.grads.size() * sizeof(float)));
  EXPECT_EQ(t.loss, ref.loss);
  EXPECT_GT(abft_total(t.train_stats).timing_samples, 0u);
  EXPECT_EQ(abft_total(ref.train_stats).timing_samples, 0u);

  at::ModelOptions noinv;
  noinv.invariant_checks = false;
  at::Model mi(c, noinv);
  reftest::randomize(mi.weights(), 12);
  const PassResult i = run_passes(mi, b);
  EXPECT_EQ(0, std::memcmp(i.grads.data(), ref.grads.data(), ref.grads.size() * sizeof(float)));
  EXPECT_EQ(i.train_stats.total().checks, abft_total(i.train_stats).checks)
      << "checks outside the ABFT ops without invariant checks";
  EXPECT_GT(ref.train_stats.total().checks, abft_total(ref.train_stats).checks)
      << "the invariant checks of the other ops count checks";

  at::ModelOptions one;
  one.threads = 1;
  at::Model m1(c, one);
  reftest::randomize(m1.weights(), 12);
  const PassResult r1 = run_passes(m1, b);
  EXPECT_LE(rel_diff(r1.logits, ref.logits), 1e-6);
  EXPECT_LE(rel_diff(r1.grads, ref.grads), 1e-5);
}

TEST_P(ModelProtection, MovedModelKeepsWorking) {
  // A Model moved into another (as from_pretrained returns one) computes the same, and its
  // own statistics and options are the ones that count, not the moved-from object's.
  const at::Config& c = GetParam().config;
  const Batch b(c, 110);
  at::ModelOptions opt;
  opt.policy = abft::Policy::Detect;
  at::Model a(c, opt);
  reftest::randomize(a.weights(), 13);
  const PassResult before = run_passes(a, b);

  at::Model moved(std::move(a));
  EXPECT_EQ(moved.policy(), abft::Policy::Detect);
  const PassResult after = run_passes(moved, b);
  EXPECT_EQ(0, std::memcmp(after.grads.data(), before.grads.data(), before.grads.size() * sizeof(float)));
  EXPECT_GT(after.fwd_stats.at(0, OpKind::QKV, Pass::Forward).calls, 0u)
      << "the moved model's calls are not counted in its own statistics";
  EXPECT_GT(after.train_stats.total(OpKind::LmHead, Pass::Weight).calls, 0u);

  // Move assignment over a model of another architecture.
  at::Model other(reftest::test_configs()[c.arch == at::Arch::GPT2 ? 2 : 0].config);
  other = std::move(moved);
  EXPECT_EQ(other.config().arch, c.arch);
  const PassResult again = run_passes(other, b);
  EXPECT_EQ(0, std::memcmp(again.grads.data(), before.grads.data(), before.grads.size() * sizeof(float)));
  EXPECT_GT(again.fwd_stats.at(0, OpKind::QKV, Pass::Forward).calls, 0u);
  EXPECT_GT(again.fwd_stats.at(0, OpKind::QKV, Pass::Forward).checks, 0u);
}

INSTANTIATE_TEST_SUITE_P(Configs, ModelProtection, ::testing::ValuesIn(protection_configs()),
                         config_name);

}  // namespace
