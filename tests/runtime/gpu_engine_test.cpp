// The runtime's GPU engine (ModelOptions::engine = Engine::Gpu, src/runtime/ops_gpu.cpp):
//  - without the CUDA engine or a usable device, building a model on it throws Error with
//    NOT_SUPPORTED and says why (runs in every CI build);
//  - with a device (skipped without one): the forward logits, the loss and the gradients of both
//    architectures match the CPU engine's within float round-off (different kernels, different
//    summation orders), every protected op is counted with checks and nothing detected, and under
//    one injected exponent flip per kernel call policy correct gives the clean results while
//    every landed fault is detected.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "abft/transformer/error.hpp"
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

}  // namespace
