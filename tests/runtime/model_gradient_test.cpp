// The model's gradients (Model::loss with a gradient buffer) checked two ways:
//  1. against central finite differences of the independent double-precision reference
//     (model_reference.hpp), h = 1e-6: the difference quotient is then exact to ~1e-9, so what
//     is measured is the float model's gradient error, accepted within 1e-4 of the largest
//     gradient of the tensor (float round-off through two layers was measured at <= 6e-7 of
//     it, so the margin is > 100x, while a wrong term of any backward formula is >= 1e-2);
//  2. against central finite differences of the float model itself (its own loss), a step of
//     1e-2: a coarser check independent of the reference, within 2 % of the entry plus 0.2 %
//     of the tensor's largest gradient (measured errors stay below 1/18 of that).
// Every tensor of the ParamLayout is sampled (a few entries of each, ~30 per tensor kind
// across layers), for both architectures. Also: gradient accumulation (buffers are added to,
// scaled by `scale`).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <vector>

#include "abft/transformer/model.hpp"
#include "model_reference.hpp"

namespace at = abft::transformer;
using reftest::NamedConfig;

namespace {

std::string config_name(const ::testing::TestParamInfo<NamedConfig>& info) {
  return info.param.name;
}

/** Entries of a tensor to probe: its first and last, and `n` more at random. For the position
 *  table, rows < T (the positions used) only, plus one row beyond (zero gradient). */
std::vector<size_t> probe_entries(const at::ParamInfo& p, int n, int64_t T, reftest::Rng& rng) {
  std::set<size_t> s;
  size_t limit = p.numel;
  if (reftest::contains(p.name, "wpe")) limit = size_t(T) * size_t(p.shape[1]);
  s.insert(0);
  s.insert(limit - 1);
  for (int i = 0; i < n && s.size() < limit; ++i) s.insert(size_t(rng.below(int64_t(limit))));
  if (limit < p.numel) s.insert(limit + 3);  // an unused position: gradient 0
  return std::vector<size_t>(s.begin(), s.end());
}

struct Problem {
  at::Config c;
  int64_t B = 2, T = 7;
  std::vector<int32_t> tok, tgt;
  explicit Problem(const at::Config& cfg) : c(cfg) {
    tok = reftest::random_tokens(B * T, c.vocab, 71);
    tgt = reftest::random_tokens(B * T, c.vocab, 72);
    tgt[4] = -1;  // one ignored target
  }
};

class ModelGradient : public ::testing::TestWithParam<NamedConfig> {};

TEST_P(ModelGradient, MatchesFiniteDifferencesOfDoubleReference) {
  Problem pr(GetParam().config);
  at::Model m(pr.c);
  reftest::randomize(m.weights(), 77);
  const size_t n = m.weights().size();
  std::vector<float> g(n, 0.0f);
  const double loss = m.loss(pr.tok.data(), pr.tgt.data(), pr.B, pr.T, g.data());
  ASSERT_TRUE(std::isfinite(loss));
  ASSERT_TRUE(reftest::all_finite(g.data(), n));

  std::vector<double> w = reftest::to_double(m.weights().data(), n);
  reftest::Reference ref(m.weights().layout(), w.data());
  EXPECT_NEAR(loss, ref.loss(pr.tok.data(), pr.tgt.data(), pr.B, pr.T), 1e-4 * (1 + loss));

  reftest::Rng rng(5);
  const double h = 1e-6;
  int probes = 0;
  for (const at::ParamInfo& p : m.weights().layout().params()) {
    const double gmax = reftest::max_abs(g.data() + p.offset, p.numel);
    EXPECT_GT(gmax, 0.0) << p.name << ": no gradient at all";
    double worst = 0, fd_max = 0;
    size_t worst_i = 0;
    double worst_fd = 0;
    for (size_t i : probe_entries(p, 6, pr.T, rng)) {
      double& wi = w[p.offset + i];
      const double w0 = wi;
      wi = w0 + h;
      const double lp = ref.loss(pr.tok.data(), pr.tgt.data(), pr.B, pr.T);
      wi = w0 - h;
      const double lm = ref.loss(pr.tok.data(), pr.tgt.data(), pr.B, pr.T);
      wi = w0;
      const double fd = (lp - lm) / (2 * h);
      fd_max = std::max(fd_max, std::fabs(fd));
      const double err = std::fabs(fd - double(g[p.offset + i]));
      if (err > worst) {
        worst = err;
        worst_i = i;
        worst_fd = fd;
      }
      ++probes;
    }
    const double scale = std::max(gmax, fd_max);
    EXPECT_LE(worst, 1e-4 * scale + 1e-9)
        << p.name << "[" << worst_i << "]: model " << g[p.offset + worst_i] << ", reference "
        << worst_fd << " (max |grad| of the tensor " << gmax << ")";
  }
  EXPECT_GT(probes, 100);
}

TEST_P(ModelGradient, MatchesFiniteDifferencesOfFloatModel) {
  Problem pr(GetParam().config);
  at::Model m(pr.c);
  reftest::randomize(m.weights(), 79);
  const size_t n = m.weights().size();
  std::vector<float> g(n, 0.0f);
  m.loss(pr.tok.data(), pr.tgt.data(), pr.B, pr.T, g.data());

  // A step of 1e-2: the float loss carries round-off ~1e-7 * |logits| that does not cancel
  // between the two evaluations, so the quotient's noise is ~1e-5, and the truncation error
  // h^2/6 * f''' is ~1e-5 for these O(1) weights; both are far below the tolerance.
  const float h = 1e-2f;
  reftest::Rng rng(9);
  float* w = m.weights().data();
  for (const at::ParamInfo& p : m.weights().layout().params()) {
    const double gmax = reftest::max_abs(g.data() + p.offset, p.numel);
    for (size_t i : probe_entries(p, 3, pr.T, rng)) {
      float& wi = w[p.offset + i];
      const float w0 = wi;
      wi = w0 + h;
      const double lp = m.loss(pr.tok.data(), pr.tgt.data(), pr.B, pr.T);
      wi = w0 - h;
      const double lm = m.loss(pr.tok.data(), pr.tgt.data(), pr.B, pr.T);
      wi = w0;
      const double fd = (lp - lm) / (double(w0 + h) - double(w0 - h));
      const double gi = g[p.offset + i];
      EXPECT_LE(std::fabs(fd - gi), 2e-2 * std::fabs(gi) + 2e-3 * gmax + 2e-5)
          << p.name << "[" << i << "]: model " << gi << ", finite difference " << fd;
    }
  }
}

TEST_P(ModelGradient, AccumulatesScaledGradients) {
  Problem pr(GetParam().config);
  at::Model m(pr.c);
  reftest::randomize(m.weights(), 83);
  const size_t n = m.weights().size();

  std::vector<float> once(n, 0.0f), twice(n, 0.0f);
  const double l1 = m.loss(pr.tok.data(), pr.tgt.data(), pr.B, pr.T, once.data(), 1.0f);
  const double l2 = m.loss(pr.tok.data(), pr.tgt.data(), pr.B, pr.T, twice.data(), 0.5f);
  m.loss(pr.tok.data(), pr.tgt.data(), pr.B, pr.T, twice.data(), 0.5f);
  EXPECT_EQ(l1, l2) << "the scale must not change the returned loss";
  const double gmax = reftest::max_abs(once.data(), n);
  ASSERT_GT(gmax, 0.0);
  // 0.5*g + 0.5*g == g exactly in binary floating point when both halves are the same
  // numbers; allow rounding in case the scale is applied before the last accumulation.
  EXPECT_LE(reftest::max_abs_diff(once.data(), twice.data(), n), 1e-6 * gmax);

  // Added, not overwritten: start from a pattern.
  std::vector<float> pat(n);
  reftest::Rng rng(3);
  for (auto& v : pat) v = float(rng.uniform(-1, 1));
  std::vector<float> acc = pat;
  m.loss(pr.tok.data(), pr.tgt.data(), pr.B, pr.T, acc.data(), 1.0f);
  double worst = 0;
  for (size_t i = 0; i < n; ++i)
    worst = std::max(worst, std::fabs(double(acc[i]) - (double(pat[i]) + double(once[i]))));
  EXPECT_LE(worst, 1e-6 * (1.0 + gmax));

  // A scale of 2 doubles the gradient; a different batch adds its own gradient.
  std::vector<float> dbl(n, 0.0f);
  m.loss(pr.tok.data(), pr.tgt.data(), pr.B, pr.T, dbl.data(), 2.0f);
  worst = 0;
  for (size_t i = 0; i < n; ++i) worst = std::max(worst, std::fabs(double(dbl[i]) - 2.0 * once[i]));
  EXPECT_LE(worst, 2e-6 * gmax);

  const auto tok2 = reftest::random_tokens(pr.B * pr.T, pr.c.vocab, 99);
  std::vector<float> other(n, 0.0f), both = once;
  m.loss(tok2.data(), pr.tgt.data(), pr.B, pr.T, other.data());
  m.loss(tok2.data(), pr.tgt.data(), pr.B, pr.T, both.data());
  worst = 0;
  for (size_t i = 0; i < n; ++i)
    worst = std::max(worst, std::fabs(double(both[i]) - (double(once[i]) + double(other[i]))));
  EXPECT_LE(worst, 1e-6 * (gmax + reftest::max_abs(other.data(), n)));

  // Without a gradient buffer nothing is written anywhere and the loss is the same.
  EXPECT_EQ(m.loss(pr.tok.data(), pr.tgt.data(), pr.B, pr.T), l1);
}

// grads_zero (a zeroed buffer, the first micro-batch of a step): the weight-gradient products
// write instead of adding; the gradients are the same numbers (a zero's sign aside: compare
// with ==), and a second call without the flag adds onto them as usual.
TEST_P(ModelGradient, ZeroedBufferWritesTheSameGradient) {
  Problem pr(GetParam().config);
  at::Model m(pr.c);
  reftest::randomize(m.weights(), 84);
  const size_t n = m.weights().size();
  std::vector<float> added(n, 0.0f), written(n, 0.0f);
  const double la = m.loss(pr.tok.data(), pr.tgt.data(), pr.B, pr.T, added.data(), 0.5f, false);
  const double lw = m.loss(pr.tok.data(), pr.tgt.data(), pr.B, pr.T, written.data(), 0.5f, true);
  EXPECT_EQ(la, lw);
  size_t differ = 0;
  for (size_t i = 0; i < n; ++i) differ += added[i] == written[i] ? 0 : 1;
  EXPECT_EQ(differ, 0u);
  m.loss(pr.tok.data(), pr.tgt.data(), pr.B, pr.T, added.data(), 0.5f, false);
  m.loss(pr.tok.data(), pr.tgt.data(), pr.B, pr.T, written.data(), 0.5f, false);
  for (size_t i = 0; i < n; ++i) differ += added[i] == written[i] ? 0 : 1;
  EXPECT_EQ(differ, 0u);
}

TEST_P(ModelGradient, FullContextLongSequence) {
  // The gradient at T = context (every position row of wpe, the largest rope angles), checked
  // on the tensors nearest the input against the double reference.
  const at::Config& c = GetParam().config;
  at::Model m(c);
  reftest::randomize(m.weights(), 87);
  const int64_t B = 1, T = c.context;
  const auto tok = reftest::random_tokens(B * T, c.vocab, 5);
  const auto tgt = reftest::random_tokens(B * T, c.vocab, 6);
  const size_t n = m.weights().size();
  std::vector<float> g(n, 0.0f);
  m.loss(tok.data(), tgt.data(), B, T, g.data());
  std::vector<double> w = reftest::to_double(m.weights().data(), n);
  reftest::Reference ref(m.weights().layout(), w.data());
  reftest::Rng rng(17);
  const bool gpt2 = c.arch == at::Arch::GPT2;
  for (const char* name : {gpt2 ? "transformer.wpe.weight" : "model.embed_tokens.weight",
                           gpt2 ? "transformer.h.0.attn.c_attn.weight" : "model.layers.0.self_attn.q_proj.weight",
                           gpt2 ? "transformer.h.0.attn.c_attn.bias" : "model.layers.0.self_attn.k_proj.weight"}) {
    const at::ParamInfo* p = m.weights().layout().find(name);
    ASSERT_NE(p, nullptr) << name;
    const double gmax = reftest::max_abs(g.data() + p->offset, p->numel);
    for (int s = 0; s < 8; ++s) {
      // Entries in the last rows for the position table (the last positions).
      const size_t i = gpt2 && s < 4 && reftest::contains(name, "wpe")
                           ? p->numel - 1 - size_t(rng.below(int64_t(4 * c.d_model)))
                           : size_t(rng.below(int64_t(p->numel)));
      double& wi = w[p->offset + i];
      const double w0 = wi, h = 1e-6;
      wi = w0 + h;
      const double lp = ref.loss(tok.data(), tgt.data(), B, T);
      wi = w0 - h;
      const double lm = ref.loss(tok.data(), tgt.data(), B, T);
      wi = w0;
      const double fd = (lp - lm) / (2 * h);
      EXPECT_LE(std::fabs(fd - g[p->offset + i]), 1e-4 * std::max(gmax, std::fabs(fd)) + 1e-9)
          << name << "[" << i << "]";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, ModelGradient, ::testing::ValuesIn(reftest::test_configs()),
                         config_name);

}  // namespace
