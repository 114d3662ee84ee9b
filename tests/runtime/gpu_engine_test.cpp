// The runtime's GPU engine (ModelOptions::engine = Engine::Gpu, src/runtime/ops_gpu.cpp):
//  - without the CUDA engine or a usable device, building a model on it throws Error with
//    NOT_SUPPORTED and says why (runs in every CI build);
//  - with a device (skipped without one): the forward logits, the loss and the gradients of both
//    architectures match the CPU engine's within float round-off (different kernels, different
//    summation orders), every protected op is counted with checks and nothing detected, and under
//    one injected exponent flip per kernel call policy correct gives the clean results while
//    every landed fault is detected;
//  - weights held on the device (Model::WeightsOnDevice): counted without a device (every CI
//    build); with one, a held weight is copied once and reused, dropped when the hold ends, a
//    weight changed between holds is read anew, and greedy generation (which holds the weights
//    for its loop) gives the CPU engine's tokens.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "abft/transformer/error.hpp"
#include "abft/transformer/generate.hpp"
#include "abft/transformer/injection.hpp"
#include "abft/transformer/model.hpp"
#include "abft/transformer/stats.hpp"
#include "model_reference.hpp"
#include "ops_gpu.hpp"

namespace at = abft::transformer;

namespace {

at::ModelOptions gpu_options() {
  at::ModelOptions o;
  o.engine = at::Engine::Gpu;
  return o;
}

TEST(GpuEngine, WithoutADeviceTheModelSaysWhy) {
  const char* why = nullptr;
  const bool usable = at::ops::gpu_engine_available(&why);
  const at::Config c = reftest::test_configs()[0].config;
  if (usable) {
    EXPECT_NO_THROW(at::Model m(c, gpu_options()));
    return;
  }
  try {
    at::Model m(c, gpu_options());
    ADD_FAILURE() << "a model on the GPU engine was built without a usable device";
  } catch (const at::Error& e) {
    EXPECT_EQ(e.status(), ABFT_STATUS_NOT_SUPPORTED);
    EXPECT_NE(std::string(e.what()).find("GPU engine cannot run"), std::string::npos) << e.what();
  }
  // The CPU engine is unaffected.
  EXPECT_NO_THROW(at::Model m(c));
}

struct Result {
  std::vector<float> logits, grads;
  double loss = 0;
  at::OpCounters abft;
};

at::OpCounters abft_total(const at::RunStats& s) {
  at::OpCounters t;
  for (int k = 0; k < int(at::OpKind::Count_); ++k)
    if (at::op_is_abft(at::OpKind(k)))
      for (int p = 0; p < int(at::Pass::Count_); ++p) t.add(s.total(at::OpKind(k), at::Pass(p)));
  return t;
}

Result run(at::Model& m, const std::vector<int32_t>& tok, const std::vector<int32_t>& tgt, int64_t B, int64_t T) {
  Result r;
  r.logits.assign(size_t(B * T * m.config().vocab), NAN);
  m.stats().reset();
  m.forward(tok.data(), B, T, r.logits.data());
  r.grads.assign(m.weights().size(), 0.0f);
  r.loss = m.loss(tok.data(), tgt.data(), B, T, r.grads.data());
  r.abft = abft_total(m.stats());
  return r;
}

/** max |a - b| / (max |b| + tiny): the engines differ by float round-off only. */
double rel_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double d = 0, m = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    d = std::max(d, std::fabs(double(a[i]) - double(b[i])));
    m = std::max(m, std::fabs(double(b[i])));
  }
  return d / (m + 1e-30);
}

TEST(GpuEngine, MatchesTheCpuEngineAndCountsItsChecks) {
  const char* why = nullptr;
  if (!at::ops::gpu_engine_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
  const std::vector<reftest::NamedConfig> all = reftest::test_configs();
  for (const reftest::NamedConfig& nc : {all[0], all[2]}) {  // GPT-2 and Llama (GQA)
    const at::Config& c = nc.config;
    const int64_t B = 2, T = 9;
    const std::vector<int32_t> tok = reftest::random_tokens(B * T, c.vocab, 5);
    const std::vector<int32_t> tgt = reftest::random_tokens(B * T, c.vocab, 6);
    at::Model cpu(c), gpu(c, gpu_options());
    reftest::randomize(cpu.weights(), 7);
    reftest::randomize(gpu.weights(), 7);
    const Result rc = run(cpu, tok, tgt, B, T), rg = run(gpu, tok, tgt, B, T);
    EXPECT_LT(rel_diff(rg.logits, rc.logits), 1e-4) << nc.name;
    EXPECT_LT(rel_diff(rg.grads, rc.grads), 1e-3) << nc.name;
    EXPECT_NEAR(rg.loss, rc.loss, 1e-4 * (1.0 + std::fabs(rc.loss))) << nc.name;
    EXPECT_GT(rg.abft.checks, 0u) << nc.name;
    EXPECT_EQ(rg.abft.detected, 0u) << nc.name;

    // One exponent flip per kernel call under policy correct: the clean results.
    at::InjectionSettings s;
    s.rate = 1.0;
    s.per_flop = false;
    s.model = ABFT_FAULT_BITFLIP;
    s.bit = 30;
    s.seed = 3;
    gpu.set_injection(s);
    const Result rf = run(gpu, tok, tgt, B, T);
    EXPECT_GT(rf.abft.injected, 0u) << nc.name;
    EXPECT_GE(rf.abft.detected, rf.abft.injected) << nc.name;
    EXPECT_EQ(rf.abft.uncorrectable, 0u) << nc.name;
    EXPECT_LT(rel_diff(rf.logits, rg.logits), 1e-6) << nc.name;
    EXPECT_NEAR(rf.loss, rg.loss, 1e-6 * (1.0 + std::fabs(rg.loss))) << nc.name;
  }
}

TEST(GpuEngine, HoldsAreCountedWithoutADevice) {
  // The CPU engine's guard does nothing; the engine's own counter nests, never goes below zero,
  // and holds no bytes until a product runs on a device.
  const at::Config c = reftest::test_configs()[0].config;
  at::Model cpu(c);
  {
    at::Model::WeightsOnDevice a = cpu.hold_weights_on_device();
    at::Model::WeightsOnDevice b = std::move(a);
    at::Model::WeightsOnDevice d;
    d = std::move(b);
  }
  int dummy = 0;
  const abft_handle_t h = reinterpret_cast<abft_handle_t>(&dummy);  // a key only: never dereferenced
  at::ops::gpu_hold_weights(h);
  at::ops::gpu_hold_weights(h);
  EXPECT_EQ(at::ops::gpu_held_weight_bytes(h), 0u);
  at::ops::gpu_unhold_weights(h);
  at::ops::gpu_unhold_weights(h);
  at::ops::gpu_unhold_weights(h);  // one too many: ignored
  EXPECT_EQ(at::ops::gpu_held_weight_bytes(h), 0u);
  at::ops::gpu_release(h);
}

/** The held-weight tests' setup: a small model on the CPU engine and its GPU-engine twin, one
 *  batch of tokens, and the logits of each. */
struct EnginePair {
  at::Config c = reftest::test_configs()[0].config;
  int64_t B = 2, T = 7;
  std::vector<int32_t> tok;
  at::Model cpu{c}, gpu{c, gpu_options()};
  std::vector<float> lc, lg;
  abft_handle_t h = gpu.handle().get();
  explicit EnginePair(uint64_t token_seed)
      : tok(reftest::random_tokens(B * T, c.vocab, token_seed)), lc(size_t(B * T * c.vocab)), lg(lc.size()) {}
  void cpu_forward() { cpu.forward(tok.data(), B, T, lc.data()); }
  void gpu_forward() { gpu.forward(tok.data(), B, T, lg.data()); }
};

TEST(GpuEngine, HeldWeightsAreCopiedOnceAndDroppedWithTheHold) {
  const char* why = nullptr;
  if (!at::ops::gpu_engine_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
  EnginePair e(11);
  reftest::randomize(e.cpu.weights(), 12);
  reftest::randomize(e.gpu.weights(), 12);
  {
    const at::Model::WeightsOnDevice held = e.gpu.hold_weights_on_device();
    e.gpu_forward();
    const size_t bytes = at::ops::gpu_held_weight_bytes(e.h);
    EXPECT_GT(bytes, 0u);
    EXPECT_LE(bytes, std::as_const(e.gpu).weights().size() * sizeof(float));  // each weight matrix once at most
    e.gpu_forward();
    EXPECT_EQ(at::ops::gpu_held_weight_bytes(e.h), bytes) << "a held weight was copied again";
    for (int i = 0; i < 70; ++i) e.gpu_forward();  // past a refresh (64 uses)
    EXPECT_EQ(at::ops::gpu_held_weight_bytes(e.h), bytes);
  }
  EXPECT_EQ(at::ops::gpu_held_weight_bytes(e.h), 0u);
  e.cpu_forward();
  EXPECT_LT(rel_diff(e.lg, e.lc), 1e-4);
  // New weights between holds: read anew (a stale copy would keep the old logits).
  reftest::randomize(e.cpu.weights(), 13);
  reftest::randomize(e.gpu.weights(), 13);
  e.cpu_forward();
  e.gpu_forward();
  EXPECT_LT(rel_diff(e.lg, e.lc), 1e-4);
}

// Weights changed through Model::weights() inside a hold (an optimizer step, a load) are read
// anew: the held copies are dropped, the next product copies the new values.
TEST(GpuEngine, WeightsChangedInsideAHoldAreReadAnew) {
  const char* why = nullptr;
  if (!at::ops::gpu_engine_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
  EnginePair e(14);
  reftest::randomize(e.gpu.weights(), 15);
  const at::Model::WeightsOnDevice held = e.gpu.hold_weights_on_device();
  e.gpu_forward();
  EXPECT_GT(at::ops::gpu_held_weight_bytes(e.h), 0u);
  reftest::randomize(e.gpu.weights(), 16);  // mutable access: the copies go
  EXPECT_EQ(at::ops::gpu_held_weight_bytes(e.h), 0u);
  reftest::randomize(e.cpu.weights(), 16);
  e.gpu_forward();
  e.cpu_forward();
  EXPECT_LT(rel_diff(e.lg, e.lc), 1e-4);
  EXPECT_GT(at::ops::gpu_held_weight_bytes(e.h), 0u);  // held again
}

TEST(GpuEngine, GenerationHoldsTheWeightsAndMatchesTheCpuEngine) {
  const char* why = nullptr;
  if (!at::ops::gpu_engine_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
  const at::Config c = reftest::test_configs()[0].config;
  at::Model cpu(c), gpu(c, gpu_options());
  reftest::randomize(cpu.weights(), 21);
  reftest::randomize(gpu.weights(), 21);
  const std::vector<std::vector<int32_t>> prompts = {reftest::random_tokens(5, c.vocab, 22),
                                                     reftest::random_tokens(3, c.vocab, 23)};
  at::SampleOptions greedy;
  greedy.max_new_tokens = 6;
  const at::Generation a = at::generate(cpu, prompts, greedy, true), b = at::generate(gpu, prompts, greedy, true);
  ASSERT_EQ(a.tokens.size(), b.tokens.size());
  const size_t V = size_t(c.vocab);
  for (size_t i = 0; i < a.tokens.size(); ++i) {
    // Step by step: the same logits to round-off, hence the same token — unless the CPU's two
    // best logits were a near tie, after which the sequences may part.
    for (size_t t = 0; t < a.tokens[i].size() && t < b.tokens[i].size(); ++t) {
      const std::vector<float> la(a.logits[i].begin() + t * V, a.logits[i].begin() + (t + 1) * V);
      const std::vector<float> lb(b.logits[i].begin() + t * V, b.logits[i].begin() + (t + 1) * V);
      EXPECT_LT(rel_diff(lb, la), 1e-4) << "sequence " << i << " step " << t;
      if (a.tokens[i][t] == b.tokens[i][t]) continue;
      std::vector<float> s = la;
      std::partial_sort(s.begin(), s.begin() + 2, s.end(), std::greater<float>());
      EXPECT_LT(s[0] - s[1], 1e-4 * (1.0 + std::fabs(s[0]))) << "sequence " << i << " parted at step " << t;
      break;
    }
  }
  EXPECT_EQ(at::ops::gpu_held_weight_bytes(gpu.handle().get()), 0u);  // released with the loop
}

}  // namespace
