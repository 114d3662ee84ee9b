// The runtime's GPU engine (ModelOptions::engine = Engine::Gpu, src/runtime/ops_gpu.cpp):
//  - without the CUDA engine or a usable device, building a model on it throws Error with
//    NOT_SUPPORTED and says why (runs in every CI build);
//  - with a device (skipped without one): the forward logits, the loss and the gradients of both
//    architectures match the CPU engine's within float round-off (different kernels, different
//    summation orders), every protected op is counted with checks and nothing detected, and under
//    one injected exponent flip per kernel call policy correct gives the clean results while
//    every landed fault is detected;
//  - the resident pass (forward and loss keep everything on the device, ops_resident.hpp): every
//    op of every layer is counted and checked as on the CPU engine; a non-finite embedding row
//    fails the same invariant checks (embedding, norms, activations, loss) on both engines; the
//    gradient accumulates into the caller's buffer, or overwrites it with grads_zero;
//  - decoding resident: the KV cache's contents move between the engines (a GPU model's cache
//    continued by a CPU model and back);
//  - training on the device: AdamW's device step equals its host step; a Trainer on the GPU
//    engine (gradient and update on the device, weights held for its life) follows the CPU
//    engine's trainer step by step, and its weights come back through Model::weights();
//  - weights held on the device (Model::WeightsOnDevice): counted without a device (every CI
//    build); with one, the weights are copied once and reused, dropped when the hold ends,
//    weights changed between holds are read anew, and greedy generation (which holds the
//    weights for its loop) gives the CPU engine's tokens.
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
#include "abft/transformer/train.hpp"
#include "model_reference.hpp"
#include "ops_gpu.hpp"
#include "ops_resident.hpp"

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

/** Every (layer, op, pass) of two statistics tables: calls equal; for the ops with invariant
 *  checks, checks equal and with outcomes also detected, corrected and uncorrectable; for the
 *  products and attention (the engines' kernels differ) with abft_checks whether they checked.
 *  (On non-finite inputs the GPU attention skips its checks where the CPU's count them.) */
void expect_same_counts(const at::RunStats& g, const at::RunStats& c, bool outcomes, bool abft_checks,
                        const std::string& what) {
  ASSERT_EQ(g.layers(), c.layers());
  for (int l = -1; l < c.layers(); ++l)
    for (int k = 0; k < int(at::OpKind::Count_); ++k)
      for (int p = 0; p < int(at::Pass::Count_); ++p) {
        const at::OpKind op = at::OpKind(k);
        const at::Pass pass = at::Pass(p);
        const at::OpCounters& a = g.at(l, op, pass);
        const at::OpCounters& b = c.at(l, op, pass);
        const std::string where = what + ": layer " + std::to_string(l) + " " + at::op_name(op) + " " +
                                  at::pass_name(pass);
        EXPECT_EQ(a.calls, b.calls) << where;
        if (at::op_is_abft(op)) {
          if (abft_checks) {
            EXPECT_EQ(a.checks > 0, b.checks > 0) << where;
          }
          continue;
        }
        EXPECT_EQ(a.checks, b.checks) << where;
        if (!outcomes) continue;
        EXPECT_EQ(a.detected, b.detected) << where;
        EXPECT_EQ(a.corrected, b.corrected) << where;
        EXPECT_EQ(a.uncorrectable, b.uncorrectable) << where;
      }
}

TEST(GpuEngine, ResidentPassCountsEveryOpAsTheCpuEngine) {
  const char* why = nullptr;
  if (!at::ops::gpu_engine_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
  const std::vector<reftest::NamedConfig> all = reftest::test_configs();
  for (const reftest::NamedConfig& nc : {all[0], all[2]}) {
    const at::Config& c = nc.config;
    const int64_t B = 2, T = 5;
    const std::vector<int32_t> tok = reftest::random_tokens(B * T, c.vocab, 31);
    const std::vector<int32_t> tgt = reftest::random_tokens(B * T, c.vocab, 32);
    at::Model cpu(c), gpu(c, gpu_options());
    reftest::randomize(cpu.weights(), 33);
    reftest::randomize(gpu.weights(), 33);
    const Result rc = run(cpu, tok, tgt, B, T), rg = run(gpu, tok, tgt, B, T);
    expect_same_counts(gpu.stats(), cpu.stats(), true, true, nc.name);
    EXPECT_GT(gpu.stats().total(at::OpKind::Norm, at::Pass::Backward).checks, 0u) << nc.name;
    EXPECT_EQ(gpu.stats().total().detected, 0u) << nc.name;
    // Checks off: calls counted, nothing checked, the same results.
    at::ModelOptions off = gpu_options();
    off.invariant_checks = false;
    at::Model quiet(c, off);
    reftest::randomize(quiet.weights(), 33);
    const Result rq = run(quiet, tok, tgt, B, T);
    EXPECT_EQ(quiet.stats().total(at::OpKind::Norm, at::Pass::Forward).checks, 0u) << nc.name;
    EXPECT_EQ(quiet.stats().total(at::OpKind::Norm, at::Pass::Forward).calls,
              gpu.stats().total(at::OpKind::Norm, at::Pass::Forward).calls) << nc.name;
    EXPECT_LT(rel_diff(rq.logits, rg.logits), 1e-6) << nc.name;
  }
}

TEST(GpuEngine, ResidentChecksSeeANonFiniteEmbeddingAsTheCpuEngine) {
  const char* why = nullptr;
  if (!at::ops::gpu_engine_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
  const std::vector<reftest::NamedConfig> all = reftest::test_configs();
  for (const reftest::NamedConfig& nc : {all[0], all[2]}) {
    const at::Config& c = nc.config;
    const int64_t B = 1, T = 4;
    const std::vector<int32_t> tok = reftest::random_tokens(B * T, c.vocab, 41);
    const std::vector<int32_t> tgt = reftest::random_tokens(B * T, c.vocab, 42);
    at::Model cpu(c), gpu(c, gpu_options());
    for (at::Model* m : {&cpu, &gpu}) {
      reftest::randomize(m->weights(), 43);
      // One element of the first token's embedding row: Inf (a fault in memory, say).
      at::Weights& w = m->weights();
      w.at(w.layout().tok_emb)[int64_t(tok[0]) * c.d_model + 3] = INFINITY;
      m->stats().reset();
      std::vector<float> logits(size_t(B * T * c.vocab));
      m->forward(tok.data(), B, T, logits.data());
    }
    const at::OpCounters& e = gpu.stats().at(-1, at::OpKind::Embedding, at::Pass::Forward);
    EXPECT_EQ(e.detected, 1u) << nc.name;
    EXPECT_EQ(e.uncorrectable, 1u) << nc.name;  // recomputed from the same bad row: still bad
    EXPECT_GT(gpu.stats().at(0, at::OpKind::Norm, at::Pass::Forward).detected, 0u) << nc.name;
    expect_same_counts(gpu.stats(), cpu.stats(), true, false, nc.name);
  }
}

TEST(GpuEngine, ResidentGradientsAccumulateOrOverwrite) {
  const char* why = nullptr;
  if (!at::ops::gpu_engine_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
  const at::Config c = reftest::test_configs()[0].config;
  const int64_t B = 1, T = 6;
  const std::vector<int32_t> tok = reftest::random_tokens(B * T, c.vocab, 51);
  std::vector<int32_t> tgt = reftest::random_tokens(B * T, c.vocab, 52);
  tgt[2] = -1;  // ignored
  at::Model gpu(c, gpu_options());
  reftest::randomize(gpu.weights(), 53);
  const size_t n = std::as_const(gpu).weights().size();
  std::vector<float> once(n, 0.0f), twice(n, 0.0f), fresh(n, 7.0f);
  const double l1 = gpu.loss(tok.data(), tgt.data(), B, T, once.data());
  gpu.loss(tok.data(), tgt.data(), B, T, twice.data());
  const double l2 = gpu.loss(tok.data(), tgt.data(), B, T, twice.data());
  EXPECT_EQ(l1, l2);
  std::vector<float> doubled(once);
  for (float& v : doubled) v *= 2.0f;
  EXPECT_LT(rel_diff(twice, doubled), 1e-6);
  // grads_zero: the buffer's contents are not read (the caller promised zeros).
  std::fill(fresh.begin(), fresh.end(), 0.0f);
  gpu.loss(tok.data(), tgt.data(), B, T, fresh.data(), 1.0f, true);
  EXPECT_LT(rel_diff(fresh, once), 1e-6);
  // Evaluation only: the loss, no gradient.
  EXPECT_EQ(gpu.loss(tok.data(), tgt.data(), B, T), l1);
  double gnorm = 0;
  for (float v : once) gnorm += double(v) * v;
  EXPECT_GT(gnorm, 0.0);
}

// Decoding keeps the cache's contents on the device; a CPU-engine model that goes on with the same
// cache reads them back (KVCache::k, v), as does a copy of the cache.
TEST(GpuEngine, ResidentDecodeCacheMovesBetweenEngines) {
  const char* why = nullptr;
  if (!at::ops::gpu_engine_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
  const std::vector<reftest::NamedConfig> all = reftest::test_configs();
  for (const reftest::NamedConfig& nc : {all[0], all[2]}) {
    const at::Config& c = nc.config;
    at::Model cpu(c), gpu(c, gpu_options());
    reftest::randomize(cpu.weights(), 61);
    reftest::randomize(gpu.weights(), 61);
    const std::vector<int32_t> a = reftest::random_tokens(7, c.vocab, 62), b = reftest::random_tokens(4, c.vocab, 63);
    const size_t V = size_t(c.vocab);
    // Reference: the CPU engine alone. Prefill both slots, then one token each, twice.
    at::KVCache ref(c, 2, 16), mixed(c, 2, 16);
    std::vector<float> lr(2 * V), lm(2 * V);
    cpu.decode(ref, {{0, a.data(), 5}, {1, b.data(), 2}}, lr.data());
    gpu.decode(mixed, {{0, a.data(), 5}, {1, b.data(), 2}}, lm.data());
    EXPECT_LT(rel_diff(lm, lr), 1e-4) << nc.name;
    // The device's contents, read back through k() by a copy and by the CPU engine.
    at::KVCache copy(mixed);
    EXPECT_LT(rel_diff(std::vector<float>(copy.k(1), copy.k(1) + 16 * c.kv_heads * c.head_dim()),
                       std::vector<float>(ref.k(1), ref.k(1) + 16 * c.kv_heads * c.head_dim())),
              1e-4)
        << nc.name;
    cpu.decode(ref, {{0, a.data() + 5, 1}, {1, b.data() + 2, 1}}, lr.data());
    cpu.decode(mixed, {{0, a.data() + 5, 1}, {1, b.data() + 2, 1}}, lm.data());  // CPU after GPU
    EXPECT_LT(rel_diff(lm, lr), 1e-4) << nc.name;
    cpu.decode(ref, {{0, a.data() + 6, 1}, {1, b.data() + 3, 1}}, lr.data());
    gpu.decode(mixed, {{0, a.data() + 6, 1}, {1, b.data() + 3, 1}}, lm.data());  // and back
    EXPECT_LT(rel_diff(lm, lr), 1e-4) << nc.name;
    EXPECT_EQ(mixed.length(0), 7);
    EXPECT_EQ(mixed.length(1), 4);
  }
}

TEST(GpuEngine, AdamWDeviceStepEqualsTheHostStep) {
  const char* why = nullptr;
  if (!at::ops::gpu_engine_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
  const at::ParamLayout L(reftest::test_configs()[0].config);
  const size_t n = L.size();
  at::AdamWOptions o;
  o.lr = 1e-2;
  o.warmup = 2;
  o.clip = 0.5;  // clipped on some steps
  at::AdamW host(L, o), dev(L, o);
  std::vector<float> wh(n), gh(n);
  for (size_t i = 0; i < n; ++i) wh[i] = float(std::sin(0.37 * double(i)));
  std::vector<float> wd = wh;
  namespace res = at::ops::resident;
  float* dw = static_cast<float*>(at::ops::gpu_malloc(n * sizeof(float)));
  float* dg = static_cast<float*>(at::ops::gpu_malloc(n * sizeof(float)));
  ASSERT_TRUE(dw && dg);
  res::upload(dw, wd.data(), n * sizeof(float));
  for (int step = 1; step <= 4; ++step) {
    for (size_t i = 0; i < n; ++i) gh[i] = float(std::cos(0.11 * double(i) * step) * (step == 2 ? 0.001 : 0.05));
    res::upload(dg, gh.data(), n * sizeof(float));
    const double nh = host.step(wh.data(), gh.data());
    const double nd = dev.step_device(dw, dg);
    EXPECT_NEAR(nd, nh, 1e-12 * nh) << "step " << step;
  }
  res::download(wd.data(), dw, n * sizeof(float));
  EXPECT_LT(rel_diff(wd, wh), 1e-6);
  // A host step after device steps reads the moments back: the same fifth update.
  for (size_t i = 0; i < n; ++i) gh[i] = float(std::cos(0.05 * double(i)) * 0.01);
  std::vector<float> g2 = gh;
  host.step(wh.data(), gh.data());
  dev.step(wd.data(), g2.data());
  EXPECT_LT(rel_diff(wd, wh), 1e-6);
  EXPECT_EQ(dev.steps(), 5);
  // A non-finite gradient: an error, nothing updated.
  gh[3] = NAN;
  res::upload(dg, gh.data(), n * sizeof(float));
  EXPECT_THROW(dev.step_device(dw, dg), at::Error);
  EXPECT_EQ(dev.steps(), 5);
  at::ops::gpu_free(dw);
  at::ops::gpu_free(dg);
}

/** A model's weights, read through the const accessor (on the GPU engine: brought back). */
std::vector<float> weights_of(const at::Model& m) {
  const at::Weights& w = m.weights();
  return std::vector<float>(w.data(), w.data() + w.size());
}

// The trainer on the GPU engine against the same steps done by hand on the same engine (the
// public loss() into a host gradient, AdamW's host step: the same gradient bits, so the weights
// agree to the update's rounding), and its losses against the CPU engine's trainer.
TEST(GpuEngine, TrainerStepsOnTheDeviceAsOnTheHost) {
  const char* why = nullptr;
  if (!at::ops::gpu_engine_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
  const std::vector<reftest::NamedConfig> all = reftest::test_configs();
  for (const reftest::NamedConfig& nc : {all[0], all[2]}) {
    const at::Config& c = nc.config;
    at::Model cpu(c), gpu(c, gpu_options()), by_hand(c, gpu_options());
    for (at::Model* m : {&cpu, &gpu, &by_hand}) reftest::randomize(m->weights(), 71);
    const std::vector<int32_t> stream = reftest::random_tokens(400, c.vocab, 72);
    at::TokenLoader lc(stream, 73), lg(stream, 73), lh(stream, 73);
    at::TrainOptions o;
    o.batch = 1;
    o.seq = 8;
    o.accum = 2;
    o.adamw.lr = 1e-2;
    o.adamw.clip = 0.5;
    at::AdamW hand_opt(std::as_const(by_hand).weights().layout(), o.adamw);
    std::vector<float> grads(std::as_const(by_hand).weights().size());
    std::vector<int32_t> tok, tgt;
    auto hand_step = [&] {
      double loss = 0;
      std::fill(grads.begin(), grads.end(), 0.0f);
      for (int a = 0; a < o.accum; ++a) {
        lh.next(o.batch, o.seq, tok, tgt);
        loss += by_hand.loss(tok.data(), tgt.data(), o.batch, o.seq, grads.data(), 0.5f, a == 0);
      }
      const double norm = hand_opt.step(by_hand.weights().data(), grads.data());
      return std::make_pair(loss / o.accum, norm);
    };
    {
      at::Trainer tc(cpu, lc, o), tg(gpu, lg, o);
      for (int i = 0; i < 2; ++i) {
        const at::StepResult a = tc.step(), b = tg.step();
        const std::pair<double, double> h = hand_step();
        EXPECT_NEAR(b.loss, h.first, 1e-6 * (1 + std::fabs(h.first))) << nc.name << " step " << i;
        EXPECT_NEAR(b.grad_norm, h.second, 1e-6 * h.second) << nc.name << " step " << i;
        EXPECT_NEAR(b.loss, a.loss, 1e-4 * (1 + std::fabs(a.loss))) << nc.name << " step " << i;
        EXPECT_NEAR(b.grad_norm, a.grad_norm, 1e-3 * a.grad_norm) << nc.name << " step " << i;
        EXPECT_GT(b.stats.total().checks, 0u);
        EXPECT_EQ(b.stats.total().detected, 0u);
      }
      // Inside the trainer's life: the weights read back from the device, and saved from there.
      const std::string dir = std::string(ABFT_TEST_TMP_DIR) + "/gpu_trainer_" + nc.name;
      gpu.save_pretrained(dir);
      const at::Model saved = at::Model::from_pretrained(dir);
      EXPECT_LT(rel_diff(weights_of(saved), weights_of(by_hand)), 1e-5) << nc.name;
      EXPECT_LT(rel_diff(weights_of(gpu), weights_of(by_hand)), 1e-5) << nc.name;
      tg.step();
      hand_step();
    }
    // After it: the last update came back when the trainer let the weights go.
    EXPECT_LT(rel_diff(weights_of(gpu), weights_of(by_hand)), 1e-5) << nc.name;
    EXPECT_EQ(at::ops::gpu_held_weight_bytes(gpu.handle().get()), 0u);
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
  e.cpu_forward();
  float* kept = e.gpu.weights().data();  // memory kept from weights(): written behind the hold's back
  {
    const at::Model::WeightsOnDevice held = e.gpu.hold_weights_on_device();
    e.gpu_forward();
    EXPECT_LT(rel_diff(e.lg, e.lc), 1e-4);
    const std::vector<float> first = e.lg;
    const size_t bytes = at::ops::gpu_held_weight_bytes(e.h);
    EXPECT_EQ(bytes, std::as_const(e.gpu).weights().size() * sizeof(float));  // one copy of them all
    // The held copy is what the passes read: a change behind its back is not seen ...
    const std::vector<float> saved(kept, kept + std::as_const(e.gpu).weights().size());
    for (size_t i = 0; i < saved.size(); i += 7) kept[i] *= 1.5f;
    e.gpu_forward();
    EXPECT_EQ(e.lg, first) << "the weights were copied again inside the hold";
    EXPECT_EQ(at::ops::gpu_held_weight_bytes(e.h), bytes);
    // ... until the copy is made again from the host, for the 65th pass.
    for (int i = 0; i < 62; ++i) e.gpu_forward();  // 64 passes on the copy
    EXPECT_EQ(e.lg, first) << "refreshed before 64 passes";
    e.gpu_forward();
    EXPECT_GT(rel_diff(e.lg, first), 1e-3) << "not refreshed after 64 passes";
    std::copy(saved.begin(), saved.end(), kept);
  }
  EXPECT_EQ(at::ops::gpu_held_weight_bytes(e.h), 0u);
  e.gpu_forward();  // a new hold: the restored weights
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
