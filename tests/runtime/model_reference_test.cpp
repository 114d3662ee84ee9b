// The model's forward pass and loss against an independent double-precision reference
// (model_reference.hpp) for both architectures and several configurations, and the KV cache:
// incremental decoding gives the logits of the full-sequence forward.
//
// Tolerance of the forward: the model computes in float (unit round-off u = 6e-8). Its deepest
// chain is ~2 layers x 6 products of inner dimension <= 128 plus norms, softmax and GELU/SiLU;
// the worst-case componentwise bound of one product is k*u*|A||B| <= 128*6e-8 ~ 8e-6 relative
// to the magnitudes involved, and ~15 such stages add to ~1e-4. So we accept
//     max |logit_model - logit_ref| <= 1e-4 * (1 + max |logit_ref|),
// which is still ~1000x below the effect of any wrong formula (a missing bias, a swapped rope
// half, a wrong kv-head mapping, an off-by-one in the causal mask, a wrong epsilon all move
// logits by >= 1e-2 with these weights). The loss (a mean of log-softmax terms of logits that
// are O(1..10)) gets the same relative tolerance.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "abft/transformer/error.hpp"
#include "abft/transformer/model.hpp"
#include "model_reference.hpp"

namespace at = abft::transformer;
using reftest::NamedConfig;

namespace {

constexpr double kRelTol = 1e-4;

class ModelReference : public ::testing::TestWithParam<NamedConfig> {};

std::string config_name(const ::testing::TestParamInfo<NamedConfig>& info) {
  return info.param.name;
}

struct RefSetup {
  at::Model model;
  std::vector<double> w;  // the model's weights in double
  explicit RefSetup(const at::Config& c, uint64_t seed = 11) : model(c) {
    reftest::randomize(model.weights(), seed);
    w = reftest::to_double(model.weights().data(), model.weights().size());
  }
  reftest::Reference ref() const { return reftest::Reference(model.weights().layout(), w.data()); }
};

void expect_logits_match(const std::vector<float>& got, const std::vector<double>& want,
                         const char* what) {
  ASSERT_EQ(got.size(), want.size());
  const double mx = reftest::max_abs(want.data(), want.size());
  const double diff = reftest::max_abs_diff(got.data(), want.data(), got.size());
  EXPECT_LE(diff, kRelTol * (1.0 + mx)) << what << ": max |logit| " << mx;
  // The test is only meaningful when the logits are not trivially small.
  EXPECT_GT(mx, 0.5) << what;
}

void run_forward_case(const NamedConfig& nc, int64_t B, int64_t T) {
  RefSetup s(nc.config);
  const int64_t V = nc.config.vocab;
  const auto tok = reftest::random_tokens(B * T, V, 5 + uint64_t(T));
  std::vector<float> logits(size_t(B * T * V), NAN);
  s.model.forward(tok.data(), B, T, logits.data());
  const std::vector<double> want = s.ref().logits(tok.data(), B, T);
  expect_logits_match(logits, want, "policy correct");

  // The two sequences of the batch are independent: batch row 1 alone gives the same logits.
  std::vector<float> one(size_t(T * V), NAN);
  s.model.forward(tok.data() + T, 1, T, one.data());
  const std::vector<double> want1(want.begin() + T * V, want.end() - (B - 2) * T * V);
  expect_logits_match(one, want1, "second sequence alone");

  s.model.set_policy(abft::Policy::Off);
  std::vector<float> off(size_t(B * T * V), NAN);
  s.model.forward(tok.data(), B, T, off.data());
  expect_logits_match(off, want, "policy off");
}

TEST_P(ModelReference, ForwardShortSequences) { run_forward_case(GetParam(), 2, 7); }

TEST_P(ModelReference, ForwardFullContext) { run_forward_case(GetParam(), 2, GetParam().config.context); }

TEST_P(ModelReference, ForwardSingleToken) { run_forward_case(GetParam(), 3, 1); }

TEST_P(ModelReference, LossMatchesReference) {
  const NamedConfig& nc = GetParam();
  RefSetup s(nc.config, 23);
  const int64_t B = 2, T = 7, V = nc.config.vocab;
  const auto tok = reftest::random_tokens(B * T, V, 101);
  const auto tgt = reftest::random_tokens(B * T, V, 202);
  const double want = s.ref().loss(tok.data(), tgt.data(), B, T);
  const double got = s.model.loss(tok.data(), tgt.data(), B, T);
  EXPECT_NEAR(got, want, kRelTol * (1.0 + std::fabs(want)));
  EXPECT_GT(want, 0.1);

  // The loss agrees with the logits of forward (the same cross-entropy over them).
  std::vector<float> logits(size_t(B * T * V));
  s.model.forward(tok.data(), B, T, logits.data());
  const auto ld = reftest::to_double(logits.data(), logits.size());
  EXPECT_NEAR(got, reftest::Reference::loss_from_logits(ld.data(), tgt.data(), B * T, V),
              1e-5 * (1.0 + std::fabs(want)));

  s.model.set_policy(abft::Policy::Off);
  EXPECT_NEAR(s.model.loss(tok.data(), tgt.data(), B, T), want, kRelTol * (1.0 + std::fabs(want)));
}

TEST_P(ModelReference, NegativeTargetsAreIgnored) {
  const NamedConfig& nc = GetParam();
  RefSetup s(nc.config, 29);
  const int64_t B = 2, T = 7, V = nc.config.vocab;
  const auto tok = reftest::random_tokens(B * T, V, 7);
  auto tgt = reftest::random_tokens(B * T, V, 8);
  tgt[0] = -1;
  tgt[3] = -100;  // Hugging Face's ignore index
  tgt[size_t(B * T - 1)] = -1;
  const double want = s.ref().loss(tok.data(), tgt.data(), B, T);
  const double got = s.model.loss(tok.data(), tgt.data(), B, T);
  EXPECT_NEAR(got, want, kRelTol * (1.0 + std::fabs(want)));

  // The mean is over the counted targets only: a single kept target gives that term itself.
  std::vector<int32_t> only(size_t(B * T), -1);
  only[9] = tgt[9];
  const double want1 = s.ref().loss(tok.data(), only.data(), B, T);
  EXPECT_NEAR(s.model.loss(tok.data(), only.data(), B, T), want1, kRelTol * (1.0 + std::fabs(want1)));
  // And differs from the mean over all (so the test could tell).
  EXPECT_GT(std::fabs(want1 - want), 1e-3);

  // Ignored targets get no gradient: changing which negative value they hold, or what an
  // ignored position would have predicted, changes nothing.
  std::vector<float> g1(s.model.weights().size(), 0.0f), g2(g1.size(), 0.0f);
  s.model.loss(tok.data(), tgt.data(), B, T, g1.data());
  auto tgt2 = tgt;
  tgt2[0] = -7;
  tgt2[3] = -1;
  s.model.loss(tok.data(), tgt2.data(), B, T, g2.data());
  EXPECT_EQ(0, std::memcmp(g1.data(), g2.data(), g1.size() * sizeof(float)));
}

TEST_P(ModelReference, AllTargetsIgnored) {
  // Nothing to predict: a finite loss and no gradient at all.
  const NamedConfig& nc = GetParam();
  RefSetup s(nc.config, 31);
  const int64_t B = 2, T = 5;
  const auto tok = reftest::random_tokens(B * T, nc.config.vocab, 9);
  const std::vector<int32_t> none(static_cast<size_t>(B * T), -1);
  std::vector<float> g(s.model.weights().size(), 0.0f);
  const double l = s.model.loss(tok.data(), none.data(), B, T, g.data());
  EXPECT_TRUE(std::isfinite(l));
  EXPECT_EQ(reftest::max_abs(g.data(), g.size()), 0.0);
}

TEST_P(ModelReference, BadArgumentsThrowAndLeaveTheModelUsable) {
  const NamedConfig& nc = GetParam();
  const at::Config& c = nc.config;
  RefSetup s(c, 37);
  const int64_t V = c.vocab;
  std::vector<int32_t> tok = reftest::random_tokens(c.context + 1, V, 3);
  std::vector<float> lg(static_cast<size_t>((c.context + 1) * V));
  EXPECT_THROW(s.model.forward(tok.data(), 1, c.context + 1, lg.data()), at::Error);  // > context
  std::vector<int32_t> bad = {1, 2, int32_t(V), 3};
  EXPECT_THROW(s.model.forward(bad.data(), 1, 4, lg.data()), at::Error);  // token id >= vocab
  bad[2] = -1;
  EXPECT_THROW(s.model.forward(bad.data(), 1, 4, lg.data()), at::Error);  // negative token id
  std::vector<int32_t> tgt = {1, 2, 3, int32_t(V)};
  EXPECT_THROW(s.model.loss(tok.data(), tgt.data(), 1, 4), at::Error);  // target >= vocab

  at::KVCache cache(c, 2, 8);
  std::vector<float> row(static_cast<size_t>(2 * V));
  s.model.decode(cache, {{0, tok.data(), 6}}, row.data());
  EXPECT_THROW(s.model.decode(cache, {{0, tok.data(), 3}}, row.data()), at::Error);  // 6 + 3 > 8
  EXPECT_THROW(s.model.decode(cache, {{1, tok.data(), 1}, {1, tok.data() + 1, 1}}, row.data()),
               at::Error);  // one slot twice
  EXPECT_THROW(s.model.decode(cache, {{2, tok.data(), 1}}, row.data()), at::Error);  // no slot 2
  EXPECT_EQ(cache.length(0), 6);
  EXPECT_EQ(cache.length(1), 0);

  // Still correct afterwards.
  s.model.decode(cache, {{0, tok.data() + 6, 2}}, row.data());
  std::vector<float> full(static_cast<size_t>(8 * V));
  s.model.forward(tok.data(), 1, 8, full.data());
  EXPECT_LE(reftest::max_abs_diff(row.data(), full.data() + 7 * V, size_t(V)),
            1e-5 * (1 + reftest::max_abs(full.data(), full.size())));
  const auto want = s.ref().logits(tok.data(), 1, 8);
  EXPECT_LE(reftest::max_abs_diff(full.data(), want.data(), want.size()),
            kRelTol * (1 + reftest::max_abs(want.data(), want.size())));
}

INSTANTIATE_TEST_SUITE_P(Configs, ModelReference, ::testing::ValuesIn(reftest::test_configs()),
                         config_name);

// -------------------------------------------------------------------------------- KV cache

class KVCacheDecode : public ::testing::TestWithParam<NamedConfig> {};

// The decode computes with other GEMM shapes (one row per new token instead of the whole
// sequence) and attention over the cache, so it may round differently from forward: a few
// ulps per op, ~1e-6 relative at the logits. 1e-5 * (1 + max |logit|) leaves margin and is
// still far below what a wrong position, a stale or misplaced cache entry would cause.
constexpr double kDecodeTol = 1e-5;

void expect_row_matches_forward(at::Model& m, const std::vector<int32_t>& seq, const float* row,
                                const std::string& what) {
  const int64_t V = m.config().vocab, T = int64_t(seq.size());
  std::vector<float> full(size_t(T * V));
  m.forward(seq.data(), 1, T, full.data());
  const float* want = full.data() + (T - 1) * V;
  const double mx = reftest::max_abs(want, size_t(V));
  EXPECT_LE(reftest::max_abs_diff(row, want, size_t(V)), kDecodeTol * (1.0 + mx))
      << what << " (length " << T << ")";
}

TEST_P(KVCacheDecode, IncrementalMatchesFullForward) {
  const at::Config& c = GetParam().config;
  at::Model m(c);
  reftest::randomize(m.weights(), 31);
  const int64_t V = c.vocab;
  // Two sequences of different lengths in the same cache; slot 1 first in the chunk list once.
  const auto all0 = reftest::random_tokens(14, V, 41);
  const auto all1 = reftest::random_tokens(14, V, 42);
  std::vector<int32_t> s0(all0.begin(), all0.begin() + 5), s1(all1.begin(), all1.begin() + 3);
  at::KVCache cache(c, 2, c.context);

  std::vector<float> lg(size_t(2 * V), NAN);
  m.decode(cache, {{0, s0.data(), int64_t(s0.size())}, {1, s1.data(), int64_t(s1.size())}}, lg.data());
  EXPECT_EQ(cache.length(0), 5);
  EXPECT_EQ(cache.length(1), 3);
  expect_row_matches_forward(m, s0, lg.data(), "prefill slot 0");
  expect_row_matches_forward(m, s1, lg.data() + V, "prefill slot 1");

  size_t n0 = 5, n1 = 3;
  for (int step = 0; step < 5; ++step) {
    // Slot 0 one token; slot 1 one token, or two at once on step 2 (a chunk appended to a
    // non-empty cache); the chunk order alternates.
    const size_t add1 = step == 2 ? 2 : 1;
    std::vector<at::SeqChunk> chunks;
    const at::SeqChunk c0{0, all0.data() + n0, 1}, c1{1, all1.data() + n1, int64_t(add1)};
    if (step % 2 == 0) chunks = {c0, c1};
    else chunks = {c1, c0};
    m.decode(cache, chunks, lg.data());
    n0 += 1;
    n1 += add1;
    s0.assign(all0.begin(), all0.begin() + long(n0));
    s1.assign(all1.begin(), all1.begin() + long(n1));
    EXPECT_EQ(cache.length(0), int64_t(n0));
    EXPECT_EQ(cache.length(1), int64_t(n1));
    const float* r0 = lg.data() + (step % 2 == 0 ? 0 : V);
    const float* r1 = lg.data() + (step % 2 == 0 ? V : 0);
    expect_row_matches_forward(m, s0, r0, "decode slot 0 step " + std::to_string(step));
    expect_row_matches_forward(m, s1, r1, "decode slot 1 step " + std::to_string(step));
  }

  // Clearing a slot restarts it at position 0: its prefill equals a fresh forward again.
  cache.clear(1);
  EXPECT_EQ(cache.length(1), 0);
  EXPECT_EQ(cache.length(0), int64_t(n0));
  m.decode(cache, {{1, all1.data(), 4}}, lg.data());
  expect_row_matches_forward(m, std::vector<int32_t>(all1.begin(), all1.begin() + 4), lg.data(),
                             "after clear(1)");
}

TEST_P(KVCacheDecode, AllLogitsOfPrefillAndAppend) {
  const at::Config& c = GetParam().config;
  at::Model m(c);
  reftest::randomize(m.weights(), 37);
  const int64_t V = c.vocab;
  const auto a = reftest::random_tokens(9, V, 51);
  const auto b = reftest::random_tokens(9, V, 52);
  at::KVCache cache(c, 3, 16);

  // Prefill a (6 tokens) in slot 2 and b (4 tokens) in slot 0 with every position's logits.
  std::vector<float> lg(size_t(10 * V), NAN);
  m.decode(cache, {{2, a.data(), 6}, {0, b.data(), 4}}, lg.data(), true);
  std::vector<float> fa(size_t(9 * V)), fb(size_t(9 * V));
  m.forward(a.data(), 1, 9, fa.data());
  m.forward(b.data(), 1, 9, fb.data());
  const double mx = std::max(reftest::max_abs(fa.data(), fa.size()), reftest::max_abs(fb.data(), fb.size()));
  EXPECT_LE(reftest::max_abs_diff(lg.data(), fa.data(), size_t(6 * V)), kDecodeTol * (1 + mx));
  EXPECT_LE(reftest::max_abs_diff(lg.data() + 6 * V, fb.data(), size_t(4 * V)), kDecodeTol * (1 + mx));

  // Append 3 tokens to a and 5 to b at once: rows continue at positions 6.. and 4...
  m.decode(cache, {{0, b.data() + 4, 5}, {2, a.data() + 6, 3}}, lg.data(), true);
  EXPECT_LE(reftest::max_abs_diff(lg.data(), fb.data() + 4 * V, size_t(5 * V)), kDecodeTol * (1 + mx));
  EXPECT_LE(reftest::max_abs_diff(lg.data() + 5 * V, fa.data() + 6 * V, size_t(3 * V)),
            kDecodeTol * (1 + mx));
  EXPECT_EQ(cache.length(0), 9);
  EXPECT_EQ(cache.length(1), 0);
  EXPECT_EQ(cache.length(2), 9);

  // And both agree with the double reference.
  std::vector<double> w = reftest::to_double(m.weights().data(), m.weights().size());
  reftest::Reference ref(m.weights().layout(), w.data());
  const auto want = ref.logits(a.data(), 1, 9);
  const double mr = reftest::max_abs(want.data(), want.size());
  EXPECT_LE(reftest::max_abs_diff(fa.data(), want.data(), want.size()), kRelTol * (1 + mr));
}

TEST_P(KVCacheDecode, FillsTheWholeContext) {
  // Decoding one token at a time up to the context length gives the logits of the forward of
  // the whole context (the last positions use the last rows of wpe / the largest rope angles).
  const at::Config& c = GetParam().config;
  at::Model m(c);
  reftest::randomize(m.weights(), 43);
  const int64_t V = c.vocab, N = c.context;
  const auto seq = reftest::random_tokens(N, V, 61);
  std::vector<float> full(size_t(N * V));
  m.forward(seq.data(), 1, N, full.data());
  at::KVCache cache(c, 1, N);
  std::vector<float> lg(static_cast<size_t>(V));
  m.decode(cache, {{0, seq.data(), 1}}, lg.data());
  const double mx = reftest::max_abs(full.data(), full.size());
  double worst = reftest::max_abs_diff(lg.data(), full.data(), size_t(V));
  for (int64_t t = 1; t < N; ++t) {
    m.decode(cache, {{0, seq.data() + t, 1}}, lg.data());
    worst = std::max(worst, reftest::max_abs_diff(lg.data(), full.data() + t * V, size_t(V)));
  }
  EXPECT_EQ(cache.length(0), N);
  EXPECT_LE(worst, kDecodeTol * (1 + mx));
}

INSTANTIATE_TEST_SUITE_P(Configs, KVCacheDecode, ::testing::ValuesIn(reftest::test_configs()),
                         config_name);

}  // namespace
