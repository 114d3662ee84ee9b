/** \file generate_test.cpp
 *  \brief generate() over the KV cache: greedy tokens equal the argmax of a full-sequence
 *  forward at every step (and the kept logits equal its logits), a batch of prompts of
 *  different lengths equals each prompt alone, stop tokens, sampling determinism, token
 *  counts, and the rejected prompts and options.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "abft/transformer/config.hpp"
#include "abft/transformer/error.hpp"
#include "abft/transformer/generate.hpp"

using namespace abft::transformer;

namespace {

Model make_model(const char* name, uint64_t seed) {
  Model m(preset(name));
  m.weights().init_random(seed);
  return m;
}

std::vector<int32_t> prompt(int64_t len, int64_t vocab, int salt) {
  std::vector<int32_t> p(static_cast<size_t>(len));
  for (int64_t i = 0; i < len; ++i) p[size_t(i)] = int32_t((i * 13 + salt * 7 + 3) % vocab);
  return p;
}

int32_t argmax(const float* x, int64_t n) {
  return int32_t(std::max_element(x, x + n) - x);
}

float max_abs(const float* x, int64_t n) {
  float m = 0;
  for (int64_t i = 0; i < n; ++i) m = std::max(m, std::fabs(x[i]));
  return m;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), ABFT_STATUS_INVALID_VALUE) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no Error thrown";
  return "";
}

class ArchTest : public testing::TestWithParam<const char*> {};

}  // namespace

TEST_P(ArchTest, GreedyIsTheArgmaxOfTheFullForward) {
  Model m = make_model(GetParam(), 17);
  const int64_t V = m.config().vocab;
  const std::vector<int32_t> p = prompt(5, V, 1);
  SampleOptions o;
  o.max_new_tokens = 12;
  const Generation g = generate(m, {p}, o, /*keep_logits=*/true);
  ASSERT_EQ(g.tokens.size(), 1u);
  ASSERT_EQ(g.tokens[0].size(), 12u);
  ASSERT_EQ(g.logits.size(), 1u);
  ASSERT_EQ(g.logits[0].size(), size_t(12 * V));
  std::vector<int32_t> seq = p;
  for (size_t i = 0; i < g.tokens[0].size(); ++i) {
    const int64_t T = int64_t(seq.size());
    std::vector<float> logits(size_t(T * V));
    m.forward(seq.data(), 1, T, logits.data());
    const float* last = logits.data() + (T - 1) * V;
    EXPECT_EQ(g.tokens[0][i], argmax(last, V)) << "token " << i;
    const float* kept = g.logits[0].data() + i * size_t(V);
    const float scale = std::max(1.0f, max_abs(last, V));
    for (int64_t v = 0; v < V; ++v)
      ASSERT_NEAR(kept[v], last[v], 1e-4f * scale) << "token " << i << " id " << v;
    seq.push_back(g.tokens[0][i]);
  }
}

TEST_P(ArchTest, BatchEqualsEachPromptAlone) {
  Model m = make_model(GetParam(), 23);
  const int64_t V = m.config().vocab;
  const std::vector<std::vector<int32_t>> prompts = {prompt(3, V, 1), prompt(9, V, 2),
                                                     prompt(1, V, 3), prompt(6, V, 4)};
  SampleOptions o;
  o.max_new_tokens = 8;
  const Generation batch = generate(m, prompts, o, true);
  ASSERT_EQ(batch.tokens.size(), prompts.size());
  EXPECT_EQ(batch.prefill_tokens, 3 + 9 + 1 + 6);
  EXPECT_EQ(batch.decode_tokens, 4 * 7);  // the last new token is never fed back
  EXPECT_GT(batch.prefill_seconds, 0.0);
  EXPECT_GT(batch.decode_seconds, 0.0);
  for (size_t i = 0; i < prompts.size(); ++i) {
    SCOPED_TRACE(i);
    const Generation alone = generate(m, {prompts[i]}, o, true);
    EXPECT_EQ(batch.tokens[i], alone.tokens[0]);
    ASSERT_EQ(batch.logits[i].size(), alone.logits[0].size());
    const float scale = std::max(1.0f, max_abs(alone.logits[0].data(), int64_t(alone.logits[0].size())));
    for (size_t j = 0; j < alone.logits[0].size(); ++j)
      ASSERT_NEAR(batch.logits[i][j], alone.logits[0][j], 1e-4f * scale) << j;
  }
}

TEST_P(ArchTest, SampledGenerationIsDeterministicForASeed) {
  Model m = make_model(GetParam(), 5);
  const int64_t V = m.config().vocab;
  const std::vector<std::vector<int32_t>> prompts = {prompt(4, V, 1), prompt(2, V, 2)};
  SampleOptions o;
  o.max_new_tokens = 10;
  o.temperature = 1.0;
  o.top_k = 20;
  o.seed = 99;
  const Generation a = generate(m, prompts, o);
  const Generation b = generate(m, prompts, o);
  EXPECT_EQ(a.tokens, b.tokens);
  EXPECT_TRUE(a.logits.empty());
  o.seed = 100;
  const Generation c = generate(m, prompts, o);
  EXPECT_NE(a.tokens, c.tokens);
  for (const auto& seq : a.tokens)
    for (int32_t t : seq) {
      EXPECT_GE(t, 0);
      EXPECT_LT(t, V);
    }
  // The two sequences draw from different streams.
  EXPECT_NE(a.tokens[0], a.tokens[1]);
}

INSTANTIATE_TEST_SUITE_P(Runtime, ArchTest, testing::Values("gpt2-tiny", "llama-tiny"),
                         [](const testing::TestParamInfo<const char*>& i) {
                           std::string s = i.param;
                           std::replace(s.begin(), s.end(), '-', '_');
                           return s;
                         });

TEST(Generate, StopTokenEndsOnlyItsSequence) {
  Model m = make_model("gpt2-tiny", 31);
  const int64_t V = m.config().vocab;
  const std::vector<std::vector<int32_t>> prompts = {prompt(4, V, 1), prompt(5, V, 2)};
  SampleOptions o;
  o.max_new_tokens = 6;
  const Generation free_run = generate(m, prompts, o);
  // Stop at the third token of the first sequence (if it doesn't appear earlier).
  const int32_t stop = free_run.tokens[0][2];
  o.stop_token = stop;
  const Generation g = generate(m, prompts, o);
  for (size_t i = 0; i < prompts.size(); ++i) {
    SCOPED_TRACE(i);
    const auto& full = free_run.tokens[i];
    const auto it = std::find(full.begin(), full.end(), stop);
    const size_t want = it == full.end() ? full.size() : size_t(it - full.begin()) + 1;
    EXPECT_EQ(g.tokens[i], std::vector<int32_t>(full.begin(), full.begin() + long(want)));
  }
  EXPECT_LE(g.tokens[0].size(), 3u);
  EXPECT_EQ(g.tokens[0].back(), stop);
}

TEST(Generate, FillsTheContextExactly) {
  Model m = make_model("llama-tiny", 2);
  const int64_t C = m.config().context;
  SampleOptions o;
  o.max_new_tokens = 4;
  const Generation g = generate(m, {prompt(C - 4, m.config().vocab, 1)}, o);
  EXPECT_EQ(g.tokens[0].size(), 4u);
  o.max_new_tokens = 0;
  const Generation none = generate(m, {prompt(3, m.config().vocab, 1)}, o, true);
  ASSERT_EQ(none.tokens.size(), 1u);
  EXPECT_TRUE(none.tokens[0].empty());
  EXPECT_TRUE(generate(m, {}, o).tokens.empty());
}

TEST(Generate, RunsOnlyForwardOps) {
  Model m = make_model("llama-tiny", 8);
  SampleOptions o;
  o.max_new_tokens = 3;
  generate(m, {prompt(4, m.config().vocab, 1), prompt(2, m.config().vocab, 2)}, o);
  const RunStats& s = m.stats();
  EXPECT_EQ(s.total(OpKind::LmHead, Pass::Forward).calls, 3u);  // prefill + 2 decode steps
  EXPECT_GT(s.total(OpKind::Attention, Pass::Forward).calls, 0u);
  EXPECT_EQ(s.total(OpKind::Attention, Pass::Backward).calls, 0u);
  EXPECT_EQ(s.total().detected, 0u);
}

TEST(Generate, RejectsBadPromptsAndOptions) {
  Model m = make_model("gpt2-tiny", 1);
  const int64_t V = m.config().vocab, C = m.config().context;
  SampleOptions o;
  o.max_new_tokens = 4;
  const std::vector<int32_t> ok = prompt(3, V, 1);
  std::string msg = error_of([&] { generate(m, {ok, {}}, o); });
  EXPECT_NE(msg.find("prompt 1 is empty"), std::string::npos) << msg;
  msg = error_of([&] { generate(m, {ok, ok, {1, int32_t(V), 2}}, o); });
  EXPECT_NE(msg.find("prompt 2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("token 64 at position 1"), std::string::npos) << msg;
  msg = error_of([&] { generate(m, {{-1}}, o); });
  EXPECT_NE(msg.find("prompt 0"), std::string::npos) << msg;
  msg = error_of([&] { generate(m, {ok, prompt(C - 3, V, 2)}, o); });
  EXPECT_NE(msg.find("prompt 1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("exceed the context of 32"), std::string::npos) << msg;
  o.max_new_tokens = -1;
  error_of([&] { generate(m, {ok}, o); });
  o.max_new_tokens = 2;
  o.temperature = -0.5;
  error_of([&] { generate(m, {ok}, o); });
  // Nothing was run for the rejected calls.
  EXPECT_EQ(m.stats().total().calls, 0u);
}
