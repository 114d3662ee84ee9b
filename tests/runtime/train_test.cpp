/** \file train_test.cpp
 *  \brief Training pieces: AdamW against a hand-computed update (bias correction, decoupled
 *  decay on the parameters the layout marks, warmup, clipping by the global norm, a
 *  non-finite gradient), the token loader (determinism, window bounds, a short stream), the
 *  shipped corpus, and the Trainer end to end on gpt2-tiny and llama-tiny (the loss falls,
 *  the same seed gives the same losses, the step's statistics are the model's difference).
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "abft/transformer/config.hpp"
#include "abft/transformer/error.hpp"
#include "abft/transformer/train.hpp"

using namespace abft::transformer;

namespace {

/** Deterministic, varied test values. */
float value(size_t i, int salt) {
  const double x = std::sin(double(i) * 0.37 + salt * 1.3) * 0.5 + 0.01 * double((i * 7 + salt) % 11);
  return float(x);
}

/** The index of the first element of the first parameter with decay == want. */
size_t first_with_decay(const ParamLayout& L, bool want) {
  for (const ParamInfo& p : L.params())
    if (p.decay == want && p.numel > 0) return p.offset;
  ADD_FAILURE() << "no parameter with decay " << want;
  return 0;
}

/** A reference AdamW step of one element, in double, with the documented formula. */
struct RefAdam {
  double m = 0, v = 0;
  void step(double& w, double g, int64_t t, const AdamWOptions& o, bool decay) {
    const double warm = (o.warmup > 0 && t < o.warmup) ? double(t) / double(o.warmup) : 1.0;
    const double lr = o.lr * warm;
    if (decay) w *= 1.0 - lr * o.weight_decay;
    m = o.beta1 * m + (1 - o.beta1) * g;
    v = o.beta2 * v + (1 - o.beta2) * g * g;
    const double mh = m / (1 - std::pow(o.beta1, double(t)));
    const double vh = v / (1 - std::pow(o.beta2, double(t)));
    w -= lr * mh / (std::sqrt(vh) + o.eps);
  }
};

}  // namespace

// ------------------------------------------------------------------------- AdamW

TEST(AdamW, MatchesHandComputedUpdates) {
  const ParamLayout L(preset("gpt2-tiny"));
  const size_t n = L.size();
  AdamWOptions o;
  o.lr = 1e-2;
  o.beta1 = 0.8;
  o.beta2 = 0.9;
  o.eps = 1e-6;
  o.weight_decay = 0.3;
  o.clip = 0.0;  // no clipping
  o.warmup = 3;
  AdamW opt(L, o);
  std::vector<float> w(n), g(n);
  for (size_t i = 0; i < n; ++i) w[i] = value(i, 1);
  const size_t probes[] = {first_with_decay(L, true), first_with_decay(L, true) + 5,
                           first_with_decay(L, false), first_with_decay(L, false) + 1, n - 1};
  std::vector<double> rw;
  std::vector<RefAdam> ref(sizeof probes / sizeof probes[0]);
  for (size_t p : probes) rw.push_back(w[p]);
  for (int t = 1; t <= 5; ++t) {
    for (size_t i = 0; i < n; ++i) g[i] = value(i, 10 + t) * 0.1f;
    double sq = 0;
    for (size_t i = 0; i < n; ++i) sq += double(g[i]) * g[i];
    std::vector<float> g_probe;
    for (size_t p : probes) g_probe.push_back(g[p]);
    const double norm = opt.step(w.data(), g.data());
    EXPECT_NEAR(norm, std::sqrt(sq), 1e-9 * std::sqrt(sq));
    EXPECT_EQ(opt.steps(), t);
    for (size_t k = 0; k < rw.size(); ++k) {
      const size_t p = probes[k];
      bool decay = false;
      for (const ParamInfo& pi : L.params())
        if (p >= pi.offset && p < pi.offset + pi.numel) decay = pi.decay;
      ref[k].step(rw[k], g_probe[k], t, o, decay);
      EXPECT_NEAR(w[p], rw[k], 2e-6 * std::max(1.0, std::fabs(rw[k]))) << "step " << t << " elem " << p;
    }
  }
}

TEST(AdamW, DecayOnlyWhereTheLayoutSaysSo) {
  // With a zero gradient the moments stay zero and only the decoupled decay moves weights.
  for (const char* name : {"gpt2-tiny", "llama-tiny"}) {
    SCOPED_TRACE(name);
    const ParamLayout L(preset(name));
    AdamWOptions o;
    o.lr = 0.1;
    o.weight_decay = 0.5;
    AdamW opt(L, o);
    std::vector<float> w(L.size()), g(L.size(), 0.0f);
    for (size_t i = 0; i < w.size(); ++i) w[i] = value(i, 3);
    const std::vector<float> w0 = w;
    EXPECT_EQ(opt.step(w.data(), g.data()), 0.0);
    int decayed = 0, kept = 0;
    for (const ParamInfo& p : L.params())
      for (size_t i = p.offset; i < p.offset + p.numel; ++i) {
        const float want = p.decay ? float(double(w0[i]) * (1.0 - 0.1 * 0.5)) : w0[i];
        ASSERT_FLOAT_EQ(w[i], want) << p.name << " [" << i - p.offset << "]";
        (p.decay ? decayed : kept)++;
      }
    EXPECT_GT(decayed, 0);
    EXPECT_GT(kept, 0);  // norms (and GPT-2's biases) are not decayed
  }
}

TEST(AdamW, WarmupScalesTheLearningRateLinearly) {
  const ParamLayout L(preset("gpt2-tiny"));
  AdamWOptions o;
  o.lr = 0.01;
  o.weight_decay = 0.0;
  o.clip = 0.0;
  o.eps = 0.0;
  o.warmup = 4;
  AdamW opt(L, o);
  std::vector<float> w(L.size(), 0.0f), g(L.size(), 0.5f);
  // A constant gradient: m^ / sqrt(v^) = 1 every step, so each step moves by lr_t exactly.
  const double want[] = {0.0025, 0.005, 0.0075, 0.01, 0.01, 0.01};
  double pos = 0.0;
  for (double step : want) {
    std::vector<float> gg = g;
    opt.step(w.data(), gg.data());
    pos -= step;
    EXPECT_NEAR(w[7], pos, 1e-6);
  }
}

TEST(AdamW, ClipsByTheGlobalNorm) {
  const ParamLayout L(preset("gpt2-tiny"));
  const size_t n = L.size();
  std::vector<float> w(n, 0.0f), g(n);
  for (size_t i = 0; i < n; ++i) g[i] = value(i, 5);
  double sq = 0;
  for (float x : g) sq += double(x) * x;
  const double norm = std::sqrt(sq);
  ASSERT_GT(norm, 2.0);
  {
    AdamWOptions o;
    o.clip = 1.0;
    AdamW opt(L, o);
    std::vector<float> gg = g;
    EXPECT_NEAR(opt.step(w.data(), gg.data()), norm, 1e-9 * norm);  // the norm before clipping
    double sq2 = 0;
    for (float x : gg) sq2 += double(x) * x;
    EXPECT_NEAR(std::sqrt(sq2), 1.0, 1e-5);  // clipped in place to the limit
    for (size_t i = 0; i < n; i += 97) EXPECT_NEAR(gg[i], g[i] / norm, 1e-6);
  }
  for (double clip : {0.0, -1.0, 2.0 * norm}) {  // off, or above the norm: untouched
    SCOPED_TRACE(clip);
    AdamWOptions o;
    o.clip = clip;
    AdamW opt(L, o);
    std::vector<float> gg = g;
    opt.step(w.data(), gg.data());
    EXPECT_EQ(gg, g);
  }
}

TEST(AdamW, NonFiniteGradientThrowsAndLeavesWeights) {
  const ParamLayout L(preset("llama-tiny"));
  AdamW opt(L, AdamWOptions{});
  std::vector<float> w(L.size()), g(L.size(), 0.1f);
  for (size_t i = 0; i < w.size(); ++i) w[i] = value(i, 2);
  opt.step(w.data(), g.data());
  const std::vector<float> w1 = w;
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    std::vector<float> gg(L.size(), 0.1f);
    gg[L.size() / 2] = bad;
    try {
      opt.step(w.data(), gg.data());
      ADD_FAILURE() << "no Error for a non-finite gradient";
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), ABFT_STATUS_INVALID_VALUE);
      EXPECT_NE(std::string(e.what()).find("non-finite gradient norm"), std::string::npos);
    }
    EXPECT_EQ(w, w1);
    EXPECT_EQ(opt.steps(), 1);
  }
  // The next finite step goes on from step 2.
  std::vector<float> gg(L.size(), 0.1f);
  opt.step(w.data(), gg.data());
  EXPECT_EQ(opt.steps(), 2);
}

TEST(AdamW, RejectsBadOptions) {
  const ParamLayout L(preset("gpt2-tiny"));
  auto bad = [&](AdamWOptions o) { EXPECT_THROW(AdamW(L, o), Error); };
  AdamWOptions o;
  o.lr = -1;
  bad(o);
  o = {};
  o.beta1 = 1.0;
  bad(o);
  o = {};
  o.beta2 = -0.1;
  bad(o);
  o = {};
  o.weight_decay = std::numeric_limits<double>::quiet_NaN();
  bad(o);
  o = {};
  o.warmup = -2;
  bad(o);
}

// ------------------------------------------------------------------------- TokenLoader

TEST(TokenLoader, DeterministicWindowsInBounds) {
  const int64_t N = 500, B = 6, T = 16;
  std::vector<int32_t> stream(N);
  for (int64_t i = 0; i < N; ++i) stream[size_t(i)] = int32_t(i);  // token = position
  TokenLoader a(stream, 7), b(stream, 7), c(stream, 8);
  EXPECT_EQ(a.size(), size_t(N));
  std::vector<int32_t> ta, ya, tb, yb, tc, yc;
  bool differs = false;
  for (int draw = 0; draw < 50; ++draw) {
    a.next(B, T, ta, ya);
    b.next(B, T, tb, yb);
    c.next(B, T, tc, yc);
    ASSERT_EQ(ta.size(), size_t(B * T));
    ASSERT_EQ(ya.size(), size_t(B * T));
    EXPECT_EQ(ta, tb);
    EXPECT_EQ(ya, yb);
    differs = differs || ta != tc;
    for (int64_t r = 0; r < B; ++r) {
      const int32_t s = ta[size_t(r * T)];
      ASSERT_GE(s, 0);
      ASSERT_LE(s, N - T - 1);
      for (int64_t t = 0; t < T; ++t) {
        ASSERT_EQ(ta[size_t(r * T + t)], s + t);
        ASSERT_EQ(ya[size_t(r * T + t)], s + t + 1);  // targets: shifted by one
      }
    }
  }
  EXPECT_TRUE(differs);  // another seed, other windows
}

TEST(TokenLoader, EveryStartIsReachable) {
  const int64_t T = 8;
  std::vector<int32_t> stream(size_t(T + 4));  // starts 0..3
  for (size_t i = 0; i < stream.size(); ++i) stream[i] = int32_t(i);
  TokenLoader l(stream, 1);
  std::set<int32_t> starts;
  std::vector<int32_t> tok, tgt;
  int count[4] = {0, 0, 0, 0};
  for (int i = 0; i < 400; ++i) {
    l.next(1, T, tok, tgt);
    starts.insert(tok[0]);
    ASSERT_LE(tok[0], 3);
    ++count[tok[0]];
  }
  EXPECT_EQ(starts.size(), 4u);
  for (int c : count) EXPECT_GT(c, 60);  // roughly uniform (100 each)
}

TEST(TokenLoader, ShortStreamThrows) {
  const int64_t T = 10;
  std::vector<int32_t> exact(size_t(T + 1), 3);
  TokenLoader ok(exact, 1);
  std::vector<int32_t> tok, tgt;
  ok.next(2, T, tok, tgt);  // exactly one window: start 0
  EXPECT_EQ(tok.size(), size_t(2 * T));
  TokenLoader short_(std::vector<int32_t>(size_t(T), 1), 1);
  try {
    short_.next(1, T, tok, tgt);
    ADD_FAILURE() << "no Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("needs 11"), std::string::npos) << e.what();
  }
  TokenLoader empty({}, 1);
  EXPECT_THROW(empty.next(1, 1, tok, tgt), Error);
  EXPECT_THROW(ok.next(0, T, tok, tgt), Error);
  EXPECT_THROW(ok.next(1, 0, tok, tgt), Error);
}

// ------------------------------------------------------------------------- corpus

TEST(Corpus, ReadmeThenDocsInNameOrder) {
  const std::string root = ABFT_SOURCE_DIR;
  const std::string text = read_corpus(root);
  std::ifstream in(root + "/README.md", std::ios::binary);
  ASSERT_TRUE(in);
  const std::string readme((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.compare(0, readme.size(), readme), 0);  // README first
  EXPECT_GT(text.size(), readme.size() + 10000);         // then the docs
  const size_t arch = text.find("# ", readme.size());
  EXPECT_NE(arch, std::string::npos);
  EXPECT_THROW(read_corpus(root + "/no-such-directory"), Error);
}

TEST(Corpus, OrderOfDocsIsByName) {
  const std::string dir = std::string(ABFT_TEST_TMP_DIR) + "/corpus_order";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/docs");
  auto put = [](const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
  };
  put(dir + "/docs/b.md", "B");
  put(dir + "/docs/a.md", "A\n");
  put(dir + "/docs/c.txt", "not markdown");
  EXPECT_EQ(read_corpus(dir), "A\nB");  // no README: the docs alone
  put(dir + "/README.md", "R");
  EXPECT_EQ(read_corpus(dir), "R\nA\nB");
  std::filesystem::remove_all(dir);
}

// ------------------------------------------------------------------------- Trainer

namespace {

/** The shipped corpus, byte-tokenized and folded into a vocabulary of `vocab` ids. */
std::vector<int32_t> corpus_tokens(int64_t vocab) {
  const std::string text = read_corpus(ABFT_SOURCE_DIR);
  std::vector<int32_t> ids(text.size());
  for (size_t i = 0; i < text.size(); ++i) ids[i] = int32_t(uint8_t(text[i]) % uint64_t(vocab));
  return ids;
}

struct TrainRun {
  std::vector<double> loss, grad_norm;
  RunStats sum;          // the steps' statistics added up
  RunStats cumulative;   // the model's at the end
  std::vector<float> weights;
};

TrainRun train(const char* preset_name, int steps, uint64_t seed, const InjectionSettings& inj = {},
          int64_t accum = 1) {
  Model m(preset(preset_name));
  m.weights().init_random(seed);
  m.set_injection(inj);
  TokenLoader loader(corpus_tokens(m.config().vocab), seed);
  TrainOptions o;
  o.batch = 4;
  o.seq = 16;
  o.accum = accum;
  o.seed = seed;
  o.adamw.lr = 1e-2;
  o.adamw.warmup = 3;
  Trainer tr(m, loader, o);
  TrainRun r;
  r.sum.resize(int(m.config().layers));
  for (int i = 0; i < steps; ++i) {
    const StepResult s = tr.step();
    EXPECT_EQ(s.step, i + 1);
    EXPECT_EQ(s.tokens, o.batch * o.seq * accum);
    EXPECT_GT(s.seconds, 0.0);
    EXPECT_TRUE(std::isfinite(s.loss));
    r.loss.push_back(s.loss);
    r.grad_norm.push_back(s.grad_norm);
    r.sum.add(s.stats);
  }
  EXPECT_EQ(tr.steps_done(), steps);
  r.cumulative = m.stats();
  r.weights.assign(m.weights().data(), m.weights().data() + m.weights().size());
  return r;
}

double mean_of_last(const std::vector<double>& v, size_t n) {
  double s = 0;
  for (size_t i = v.size() - n; i < v.size(); ++i) s += v[i];
  return s / double(n);
}

}  // namespace

TEST(Trainer, LossFallsOnTheCorpus) {
  for (const char* name : {"gpt2-tiny", "llama-tiny"}) {
    SCOPED_TRACE(name);
    // 60 steps: the loss falls by about 1.0 (30 steps gave about 0.5, at the threshold, so an
    // edit of the docs the corpus is made of could tip it).
    const TrainRun r = train(name, 60, 3);
    const double first = r.loss.front();
    EXPECT_NEAR(first, std::log(64.0), 0.5);  // about uniform at initialization
    EXPECT_LT(mean_of_last(r.loss, 5), first - 0.5)
        << "first " << first << " last " << r.loss.back();
    std::printf("[loss] %s first %.3f mean of last 5 %.3f\n", name, first, mean_of_last(r.loss, 5));
  }
}

TEST(Trainer, SameSeedSameLosses) {
  const TrainRun a = train("gpt2-tiny", 8, 11), b = train("gpt2-tiny", 8, 11), c = train("gpt2-tiny", 8, 12);
  EXPECT_EQ(a.loss, b.loss);
  EXPECT_EQ(a.grad_norm, b.grad_norm);
  EXPECT_EQ(a.weights, b.weights);
  EXPECT_NE(a.loss, c.loss);
}

TEST(Trainer, StepStatisticsAddUpToTheModels) {
  const TrainRun r = train("llama-tiny", 4, 5);
  const OpCounters s = r.sum.total(), c = r.cumulative.total();
  EXPECT_GT(s.calls, 0u);
  EXPECT_GT(s.checks, 0u);
  EXPECT_EQ(s.calls, c.calls);
  EXPECT_EQ(s.checks, c.checks);
  EXPECT_EQ(s.detected, 0u);  // no faults, no false alarms
  for (int l = -1; l < r.cumulative.layers(); ++l)
    for (int o = 0; o < int(OpKind::Count_); ++o)
      for (int p = 0; p < int(Pass::Count_); ++p)
        ASSERT_EQ(r.sum.at(l, OpKind(o), Pass(p)).calls,
                  r.cumulative.at(l, OpKind(o), Pass(p)).calls);
  // Training runs the backward products and their weight gradients.
  EXPECT_GT(r.cumulative.total(OpKind::MlpDown, Pass::Weight).calls, 0u);
  EXPECT_GT(r.cumulative.total(OpKind::Attention, Pass::Backward).calls, 0u);
}

TEST(Trainer, AccumulationIsTheMeanOfMicroBatches) {
  const TrainRun r = train("gpt2-tiny", 3, 4, {}, 3);
  for (double l : r.loss) EXPECT_TRUE(std::isfinite(l));
  EXPECT_EQ(r.cumulative.total(OpKind::Loss, Pass::Forward).calls,
            r.sum.total(OpKind::Loss, Pass::Forward).calls);
}

TEST(Trainer, CorrectedFaultsKeepTheLossCurve) {
  InjectionSettings inj;
  inj.rate = 0.05;
  inj.seed = 9;
  const TrainRun clean = train("gpt2-tiny", 6, 21);
  const TrainRun faulty = train("gpt2-tiny", 6, 21, inj);
  const OpCounters t = faulty.cumulative.total();
  EXPECT_GT(t.injected, 0u);
  EXPECT_EQ(t.uncorrectable, 0u);
  ASSERT_EQ(clean.loss.size(), faulty.loss.size());
  for (size_t i = 0; i < clean.loss.size(); ++i)
    EXPECT_NEAR(faulty.loss[i], clean.loss[i], 1e-3 * std::fabs(clean.loss[i])) << "step " << i + 1;
}

TEST(Trainer, RejectsBadOptions) {
  Model m(preset("gpt2-tiny"));
  TokenLoader loader(std::vector<int32_t>(100, 1), 1);
  TrainOptions o;
  o.seq = 64;  // above gpt2-tiny's context of 32
  EXPECT_THROW(Trainer(m, loader, o), Error);
  o.seq = 16;
  o.accum = 0;
  EXPECT_THROW(Trainer(m, loader, o), Error);
}
