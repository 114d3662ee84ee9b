/** \file transformer_bench.cpp
 *  \brief Google Benchmark suite of the transformer runtime (issue 7): prefill, decode and a
 *         training step of GPT-2-small and Llama-small shaped models, protected (policy
 *         correct) against the same model unprotected (policy off), in the same run.
 *
 *  Names (filter with --benchmark_filter; "/manual_time" is appended):
 *    prefill/model:gpt2-small,seq:256                 Model::decode of one 256-token prompt
 *    decode/model:gpt2-small,seq:256,batch:4,steps:32 32 steps of one new token for 4 sequences
 *    train/model:gpt2-small,batch:1,seq:256           Model::loss with grads, then AdamW::step
 *  and the same for llama-small. Models: the presets of config.cpp with random weights
 *  (Weights::init_random, seed 1), uniformly random token ids (cost does not depend on them).
 *
 *  What one timed unit is:
 *    prefill  cache.clear() (untimed: a fresh, already allocated KVCache of one slot and
 *             capacity seq), then one Model::decode call of the whole prompt (logits of its
 *             last token only, as generate() asks for them). tokens = seq.
 *    decode   a KV cache of `batch` slots holding a `seq`-token prompt each (prefilled once,
 *             policy off, untimed; copied into each variant's working cache before each unit,
 *             untimed),
 *             then `steps` Model::decode calls of one token per sequence, each followed by a
 *             greedy sample_token per sequence (as generate() does; the sampled tokens are fed
 *             back). tokens = batch * steps. The two variants' units run in lockstep, each
 *             with its own working cache: step s of one, step s of the other (the first
 *             alternating over the steps), then step s + 1. Batch 4: a small serving batch;
 *             a single sequence would be a pure matrix-vector workload where no GEMM engine
 *             is efficient.
 *    train    what Trainer::step does for one micro-batch: zero the gradient buffer,
 *             Model::loss with grads (forward, loss, backward) of B x T tokens, then one AdamW
 *             update (clipping at 1, weight decay 0.1, lr 1e-4) of all the weights: the update
 *             is included because a training step is what users run. tokens = B * T.
 *  One Model per preset serves both variants (Model::set_policy before each unit): the same
 *  weights, workspace and memory. In train rows the weights move by one small AdamW update per
 *  unit (the cost does not depend on their values).
 *
 *  Pairing: every iteration runs one unit of each variant, off and correct, back to back, the
 *  one that goes first alternating over iterations and over repetitions (decode: interleaved
 *  step by step, see above); the ratio of the two times is taken per iteration (same machine
 *  state), and its median is vs_off. The invariant checks of the non-ABFT ops (norms,
 *  activations, rope, loss) are fused into those ops and run under both policies
 *  (ModelOptions::invariant_checks only decides whether a failing op is recomputed): the
 *  overhead measured is that of the ABFT products and attention.
 *  check_timing is off (its shadow runs would add work to the correct variant).
 *
 *  Counters (per row; medians over the row's iterations):
 *    off_s, correct_s                 seconds of one unit (the train step time)
 *    off_tok_per_s, correct_tok_per_s tokens / seconds of one unit
 *    tok_per_s                        = correct_tok_per_s (what a protected user gets)
 *    vs_off     median over iterations of correct time / off time (overhead = vs_off - 1)
 *    tokens     tokens of one unit
 *    update_s   train rows: seconds of the AdamW update inside the step (both variants)
 *    loss       train rows: the loss of the row's last step (finite: the step ran)
 *    checks     ABFT verifications (products and attention) of one protected unit
 *    detected   detections of one protected unit, ABFT and invariant (clean data: a false
 *               alarm; present only when > 0)
 *    other_load mean number of CPUs that other processes kept busy during the row's timed
 *               loop (/proc/stat minus this process's getrusage): above ~0.2 the row's
 *               figures are contaminated
 *  Time column: one round (both variants).
 *
 *  Environment:
 *    ABFT_BENCH_SET         default | quick (ABFT_BENCH_QUICK=1 = quick). default: gpt2-small and
 *                           llama-small, seq 256, decode batch 4 x 32 steps, train B = 1.
 *                           quick (a smoke test, seconds): gpt2-demo and llama-demo (4 layers,
 *                           128 wide, byte vocabulary), seq 64, decode 4 x 8 steps
 *    ABFT_BENCH_MODELS      comma-separated presets (overrides the set's)
 *    ABFT_BENCH_SEQ         prompt / training sequence length
 *    ABFT_BENCH_DECODE_BATCH, ABFT_BENCH_DECODE_STEPS, ABFT_BENCH_TRAIN_BATCH
 *    ABFT_BENCH_ITERS       iterations (rounds) per repetition of every row (default: prefill 4,
 *                           decode 1, train 3; quick 2 each)
 *    ABFT_BENCH_THREADS     threads of the model (ModelOptions::threads; default: OpenMP's)
 *    ABFT_BENCH_WARMUP=0    no untimed round before a row's first repetition (by default one
 *                           round of both variants absorbs workspace growth and page faults)
 *    ABFT_BENCH_ENGINE      cpu (default) | gpu: ModelOptions::engine, the GPU engine's resident
 *                           pass (needs a CUDA build and a device; without one the program
 *                           says so and exits 2). On the GPU engine a train unit is one
 *                           Trainer::step (gradient and AdamW on the device; update_s is not
 *                           separated, 0); a decode unit's first step also uploads its working
 *                           cache (copied on the host before the unit, made resident at its
 *                           first decode).
 */
#include <benchmark/benchmark.h>
#include <omp.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "abft/abft.h"
#include "abft/attention.h"
#include "abft/transformer/generate.hpp"
#include "abft/transformer/model.hpp"
#include "abft/transformer/train.hpp"
#include "bench_util.hpp"

namespace {
using namespace abft_bench;
namespace tr = abft::transformer;

enum Variant { kOff = 0, kCorrect = 1 };
constexpr int kVariants = 2;
const char* const kVariantName[kVariants] = {"off", "correct"};
const abft::Policy kPolicy[kVariants] = {abft::Policy::Off, abft::Policy::Correct};

enum Kind { kPrefill = 0, kDecode = 1, kTrain = 2 };
const char* const kKindName[3] = {"prefill", "decode", "train"};

int g_threads = 0;  // 0: OpenMP's default
tr::Engine g_engine = tr::Engine::Cpu;
bool g_warmup = true;

struct Case {
  Kind kind;
  std::string model;  // preset name
  int64_t seq = 256;
  int64_t batch = 1;  // decode: sequences; train: B
  int64_t steps = 0;  // decode only
  int iters = 1;

  std::string label() const {
    std::string s = std::string(kKindName[kind]) + "/model:" + model;
    if (kind == kPrefill)
      return s + ",seq:" + std::to_string(seq) + (batch > 1 ? ",batch:" + std::to_string(batch) : "");
    if (kind == kDecode)
      return s + ",seq:" + std::to_string(seq) + ",batch:" + std::to_string(batch) +
             ",steps:" + std::to_string(steps);
    return s + ",batch:" + std::to_string(batch) + ",seq:" + std::to_string(seq);
  }
  int64_t tokens() const {
    return kind == kPrefill ? batch * seq : kind == kDecode ? batch * steps : batch * seq;
  }
};

std::vector<int32_t> random_tokens(size_t n, int64_t vocab, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<int32_t> dist(0, int32_t(vocab - 1));
  std::vector<int32_t> t(n);
  for (auto& x : t) x = dist(gen);
  return t;
}


// ------------------------------------------------------------------ the model of the rows now running

/** The model of the preset now running and what its rows keep between repetitions (one preset
 *  at a time: a GPT-2-small model with gradients and AdamW moments takes about 2 GB). */
struct ModelData {
  std::string name;
  std::unique_ptr<tr::Model> model;
  int64_t vocab = 0;
  std::vector<float> logits;
  // prefill
  std::unique_ptr<tr::KVCache> prefill_cache;
  std::vector<int32_t> prompt;
  // decode
  std::string decode_key;
  std::unique_ptr<tr::KVCache> decode_base, decode_work[2];  // a working cache per variant
  std::vector<int32_t> first_tokens;  // greedy tokens after the prefill of each sequence
  // train
  std::vector<int32_t> train_tok, train_tgt;
  std::vector<float> grads;
  std::unique_ptr<tr::AdamW> adamw;
  // train on the GPU engine: a trainer (before the model in destruction order: it holds the
  // model's weights)
  std::unique_ptr<tr::TokenLoader> loader;
  std::unique_ptr<tr::Trainer> trainer;
  int64_t trainer_batch = 0, trainer_seq = 0;
  std::set<std::string> warmed;

  void release() {
    trainer.reset();
    *this = ModelData{};
  }
} g_data;

ModelData& model_data(const Case& c) {
  ModelData& g = g_data;
  if (g.name != c.model || !g.model) {
    g.release();
    tr::ModelOptions opt;
    opt.policy = abft::Policy::Off;
    opt.threads = g_threads;
    opt.check_timing = false;
    opt.engine = g_engine;
    g.model = std::make_unique<tr::Model>(tr::preset(c.model), opt);
    g.model->weights().init_random(1);
    g.vocab = g.model->config().vocab;
    g.name = c.model;
  }
  return g;
}

/** tokens of one variant run: prefill, decode or train (the timed part only). */
struct Runner {
  const Case& c;
  ModelData& g;
  tr::Model& m;
  double update_s = 0.0, loss = 0.0;

  Runner(const Case& cs, ModelData& gd) : c(cs), g(gd), m(*gd.model) { setup(); }

  void setup() {
    const tr::Config& cfg = m.config();
    if (c.kind == kPrefill) {
      if (!g.prefill_cache || g.prefill_cache->capacity() != c.seq || g.prefill_cache->slots() != c.batch) {
        g.prefill_cache = std::make_unique<tr::KVCache>(cfg, c.batch, c.seq);
        g.prompt = random_tokens(size_t(c.batch * c.seq), g.vocab, 0x9E11u + uint64_t(c.seq));
      }
      g.logits.resize(size_t(c.batch * g.vocab));
    } else if (c.kind == kDecode) {
      if (g.decode_key != c.label()) {
        g.decode_base.reset(), g.decode_work[0].reset(), g.decode_work[1].reset();
        g.decode_key.clear();
        const int64_t cap = c.seq + c.steps;
        g.decode_base = std::make_unique<tr::KVCache>(cfg, c.batch, cap);
        for (auto& w : g.decode_work) w = std::make_unique<tr::KVCache>(cfg, c.batch, cap);
        std::vector<int32_t> prompts =
            random_tokens(size_t(c.batch * c.seq), g.vocab, 0xDEC0u + uint64_t(c.seq));
        std::vector<tr::SeqChunk> chunks;
        for (int64_t i = 0; i < c.batch; ++i)
          chunks.push_back({i, prompts.data() + i * c.seq, c.seq});
        g.logits.resize(size_t(c.batch * g.vocab));
        m.set_policy(abft::Policy::Off);
        m.decode(*g.decode_base, chunks, g.logits.data());  // untimed prefill
        g.first_tokens.resize(size_t(c.batch));
        tr::SampleOptions greedy;
        uint64_t rng = 0;
        for (int64_t i = 0; i < c.batch; ++i)
          g.first_tokens[size_t(i)] =
              tr::sample_token(g.logits.data() + i * g.vocab, g.vocab, greedy, rng);
        g.decode_key = c.label();
      }
      g.logits.resize(size_t(c.batch * g.vocab));
    } else {
      const size_t n = size_t(c.batch * c.seq);
      if (g.train_tok.size() != n) {
        std::vector<int32_t> s =
            random_tokens(size_t(c.batch * (c.seq + 1)), g.vocab, 0x7EA1u + uint64_t(c.seq));
        g.train_tok.resize(n), g.train_tgt.resize(n);
        for (int64_t b = 0; b < c.batch; ++b)
          for (int64_t t = 0; t < c.seq; ++t) {
            g.train_tok[size_t(b * c.seq + t)] = s[size_t(b * (c.seq + 1) + t)];
            g.train_tgt[size_t(b * c.seq + t)] = s[size_t(b * (c.seq + 1) + t + 1)];
          }
      }
      tr::AdamWOptions o;
      o.lr = 1e-4;
      if (g_engine == tr::Engine::Gpu) {
        if (!g.trainer || g.trainer_batch != c.batch || g.trainer_seq != c.seq) {
          g.trainer.reset();
          std::vector<int32_t> stream(g.train_tok);
          stream.push_back(g.train_tgt.back());
          g.loader = std::make_unique<tr::TokenLoader>(std::move(stream), 1);
          tr::TrainOptions to;
          to.batch = c.batch;
          to.seq = c.seq;
          to.adamw = o;
          g.trainer = std::make_unique<tr::Trainer>(m, *g.loader, to);
          g.trainer_batch = c.batch, g.trainer_seq = c.seq;
        }
        return;
      }
      if (g.grads.size() != std::as_const(m).weights().size()) g.grads.assign(std::as_const(m).weights().size(), 0.0f);
      if (!g.adamw) g.adamw = std::make_unique<tr::AdamW>(std::as_const(m).weights().layout(), o);
    }
  }

  /** Untimed preparation of one unit (the policy, the statistics, the cache state). */
  void prepare(int v) {
    m.set_policy(kPolicy[v]);
    m.stats().reset();
    if (c.kind == kPrefill) g.prefill_cache->clear();
  }

  /** One timed prefill or train unit; returns its seconds (decode units run in lockstep,
   *  run_decode_pair). */
  double run() {
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    if (c.kind == kPrefill) {
      std::vector<tr::SeqChunk> chunks;
      for (int64_t i = 0; i < c.batch; ++i) chunks.push_back({i, g.prompt.data() + i * c.seq, c.seq});
      m.decode(*g.prefill_cache, chunks, g.logits.data());
    } else if (c.kind == kTrain && g.trainer) {
      loss = g.trainer->step().loss;
      update_s = 0.0;
    } else if (c.kind == kTrain) {
      std::fill(g.grads.begin(), g.grads.end(), 0.0f);
      loss = m.loss(g.train_tok.data(), g.train_tgt.data(), c.batch, c.seq, g.grads.data(), 1.0f, true);
      const auto t1 = Clock::now();
      g.adamw->step(m.weights().data(), g.grads.data());
      update_s = std::chrono::duration<double>(Clock::now() - t1).count();
    }
    return std::chrono::duration<double>(Clock::now() - t0).count();
  }

  /** One decode unit of each variant in lockstep (dt[v] its seconds): step s of both, the one
   *  that goes first alternating over the steps (starting with `first`), then step s + 1. A step
   *  is one Model::decode of a token per sequence and the greedy samples, as run() times it;
   *  the variants' caches start from the same prefill, and they sample the same tokens
   *  (protection does not change clean results). Pairing per step (tens of ms) rather than per
   *  unit (seconds) leaves the ratio much less to the machine's load of the moment. */
  void run_decode_pair(int first, double* dt) {
    using Clock = std::chrono::steady_clock;
    std::vector<int32_t> cur[kVariants];
    std::vector<tr::SeqChunk> chunks(size_t(c.batch));
    tr::SampleOptions greedy;
    uint64_t rng[kVariants] = {};
    for (int v = 0; v < kVariants; ++v) {
      *g.decode_work[v] = *g.decode_base;
      cur[v] = g.first_tokens;
      dt[v] = 0.0;
    }
    const tr::Model::WeightsOnDevice held = m.hold_weights_on_device();  // (the GPU engine's)
    m.stats().reset();
    for (int64_t s = 0; s < c.steps; ++s)
      for (int k = 0; k < kVariants; ++k) {
        const int v = int((first + k + s) % kVariants);
        m.set_policy(kPolicy[v]);
        const auto t0 = Clock::now();
        for (int64_t i = 0; i < c.batch; ++i) chunks[size_t(i)] = {i, &cur[v][size_t(i)], 1};
        m.decode(*g.decode_work[v], chunks, g.logits.data());
        for (int64_t i = 0; i < c.batch; ++i)
          cur[v][size_t(i)] = tr::sample_token(g.logits.data() + i * g.vocab, g.vocab, greedy, rng[v]);
        dt[v] += std::chrono::duration<double>(Clock::now() - t0).count();
      }
  }

  /** ABFT verifications (products and attention) of the last unit, and all detections. */
  void checks(uint64_t& abft_checks, uint64_t& detected) const {
    abft_checks = 0;
    for (int o = 0; o < int(tr::OpKind::Count_); ++o) {
      const tr::OpKind op = tr::OpKind(o);
      if (!tr::op_is_abft(op)) continue;
      for (int p = 0; p < int(tr::Pass::Count_); ++p)
        abft_checks += m.stats().total(op, tr::Pass(p)).checks;
    }
    detected = m.stats().total().detected;
  }
};

void bench_case(benchmark::State& state, const Case& c) {
  ModelData* gp = nullptr;
  std::unique_ptr<Runner> r;
  try {
    gp = &model_data(c);
    r = std::make_unique<Runner>(c, *gp);
  } catch (const std::exception& e) {
    g_data.release();
    return state.SkipWithError((std::string("setup: ") + e.what()).c_str());
  }
  ModelData& g = *gp;
  const std::string key = c.label();

  std::vector<double> times[kVariants], ratio, updates;
  uint64_t checks = 0, detected = 0;
  std::string error;
  // One round: both variants, `first` first; false after an exception (message in error).
  auto round = [&](int first, double* dt) {
    int v = first;
    try {
      if (c.kind == kDecode) {  // the variants step in lockstep (run_decode_pair)
        r->run_decode_pair(first, dt);
        r->checks(checks, detected);
        return true;
      }
      for (int k = 0; k < kVariants; ++k) {
        v = (first + k) % kVariants;
        r->prepare(v);
        dt[v] = r->run();
        if (c.kind == kTrain) updates.push_back(r->update_s);
        if (v == kCorrect) r->checks(checks, detected);
      }
      return true;
    } catch (const std::exception& e) {
      error = std::string("policy ") + kVariantName[v] + ": " + e.what();
      return false;
    }
  };

  if (g_warmup && !g.warmed.count(key)) {
    double dt[kVariants] = {};
    if (!round(0, dt)) return state.SkipWithError(error.c_str());
    updates.clear();
    g.warmed.insert(key);
  }

  // The variant that goes first alternates over iterations and, as rows iterate once or twice
  // per repetition, over the repetitions of the row too.
  static std::map<std::string, int> next_first;
  int first = next_first[key]++ % kVariants;
  const CpuSample c0 = cpu_sample();
  bool ok = true;
  for (auto _ : state) {
    double dt[kVariants] = {};
    if (!(ok = round(first, dt))) break;
    first ^= 1;
    for (int v = 0; v < kVariants; ++v) times[v].push_back(dt[v]);
    if (dt[kOff] > 0) ratio.push_back(dt[kCorrect] / dt[kOff]);
    state.SetIterationTime(dt[kOff] + dt[kCorrect]);
  }
  const CpuSample c1 = cpu_sample();
  if (!ok) return state.SkipWithError(error.c_str());

  const double tokens = double(c.tokens());
  state.counters["other_load"] = other_load(c0, c1);
  for (int v = 0; v < kVariants; ++v) {
    const double t = median(times[v]);
    state.counters[std::string(kVariantName[v]) + "_s"] = t;
    state.counters[std::string(kVariantName[v]) + "_tok_per_s"] = t > 0 ? tokens / t : 0.0;
  }
  const double tc = median(times[kCorrect]);
  state.counters["tok_per_s"] = tc > 0 ? tokens / tc : 0.0;
  state.counters["vs_off"] = median(ratio);
  state.counters["tokens"] = tokens;
  state.counters["checks"] = double(checks);
  if (detected) state.counters["detected"] = double(detected);  // clean data: a false alarm
  if (c.kind == kTrain) {
    state.counters["update_s"] = median(updates);
    state.counters["loss"] = r->loss;
  }
  const tr::Config& cfg = g.model->config();
  state.SetLabel(std::string(tr::arch_name(cfg.arch)) + " L" + std::to_string(cfg.layers) + " d" +
                 std::to_string(cfg.d_model) + " h" + std::to_string(cfg.heads) + "/" +
                 std::to_string(cfg.kv_heads) + " ffn" + std::to_string(cfg.ffn) + " V" +
                 std::to_string(cfg.vocab));
}

// ------------------------------------------------------------------ registration

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep))
    if (!item.empty()) out.push_back(item);
  return out;
}

struct Suite {
  std::vector<std::string> models;
  int64_t seq, decode_batch, decode_steps, train_batch;
  int iters[3];
};

Suite suite(const std::string& set) {
  Suite s{};
  if (set == "quick") {
    s.models = {"gpt2-demo", "llama-demo"};
    s.seq = 64, s.decode_batch = 4, s.decode_steps = 8, s.train_batch = 1;
    s.iters[kPrefill] = s.iters[kDecode] = s.iters[kTrain] = 2;
  } else {
    s.models = {"gpt2-small", "llama-small"};
    s.seq = 256, s.decode_batch = 4, s.decode_steps = 32, s.train_batch = 1;
    s.iters[kPrefill] = 4, s.iters[kDecode] = 1, s.iters[kTrain] = 3;
  }
  const std::string models = env_string("ABFT_BENCH_MODELS");
  if (!models.empty()) s.models = split(models, ',');
  s.seq = int64_t(env_double("ABFT_BENCH_SEQ", double(s.seq)));
  s.decode_batch = int64_t(env_double("ABFT_BENCH_DECODE_BATCH", double(s.decode_batch)));
  s.decode_steps = int64_t(env_double("ABFT_BENCH_DECODE_STEPS", double(s.decode_steps)));
  s.train_batch = int64_t(env_double("ABFT_BENCH_TRAIN_BATCH", double(s.train_batch)));
  const int it = int(env_double("ABFT_BENCH_ITERS", 0));
  if (it > 0) s.iters[kPrefill] = s.iters[kDecode] = s.iters[kTrain] = it;
  return s;
}

/** Empty when the suite fits every model; otherwise what does not. */
std::string check_suite(const Suite& s) {
  if (s.models.empty()) return "no models";
  if (s.seq < 1 || s.decode_batch < 1 || s.decode_steps < 1 || s.train_batch < 1)
    return "seq, decode batch, decode steps and train batch must be positive";
  for (const std::string& name : s.models) {
    tr::Config cfg;
    try {
      cfg = tr::preset(name);
    } catch (const std::exception& e) {
      return e.what();
    }
    if (s.seq + s.decode_steps > cfg.context)
      return name + ": seq " + std::to_string(s.seq) + " + decode steps " +
             std::to_string(s.decode_steps) + " exceed the context of " +
             std::to_string(cfg.context);
  }
  return {};
}

void register_all(const Suite& s) {
  for (const std::string& name : s.models) {
    // Prefill, decode, train of one model in a row: the model is built once for the three.
    // Prefill of one prompt, and of the decode case's batch of prompts (its own prefill).
    const Case cases[4] = {{kPrefill, name, s.seq, 1, 0, s.iters[kPrefill]},
                           {kPrefill, name, s.seq, s.decode_batch, 0, s.iters[kPrefill]},
                           {kDecode, name, s.seq, s.decode_batch, s.decode_steps, s.iters[kDecode]},
                           {kTrain, name, s.seq, s.train_batch, 0, s.iters[kTrain]}};
    for (const Case& c : cases)
      benchmark::RegisterBenchmark(c.label().c_str(), [c](benchmark::State& st) { bench_case(st, c); })
          ->UseManualTime()
          ->Iterations(c.iters)
          ->Unit(benchmark::kMillisecond);
  }
}

void add_context(int threads, const std::string& set, const Suite& s) {
  benchmark::AddCustomContext("abft_version", abft_version());
  benchmark::AddCustomContext("abft_isa", abft_isa_name(abft_cpu_isa()));
  benchmark::AddCustomContext("abft_sgemm_kernel", abft_gemm_kernel_info(ABFT_KERNEL_SGEMM));
  benchmark::AddCustomContext("abft_attention_kernel", abft_attention_kernel_info());
  benchmark::AddCustomContext("threads", std::to_string(threads));
  benchmark::AddCustomContext("cpu_model", cpuinfo_field("model name"));
  benchmark::AddCustomContext("cpu_avx512f", cpu_has_flag("avx512f") ? "yes" : "no");
  benchmark::AddCustomContext("case_set", set);
  std::string models;
  for (const std::string& m : s.models) models += (models.empty() ? "" : ",") + m;
  benchmark::AddCustomContext("models", models);
  benchmark::AddCustomContext("warmup_round", g_warmup ? "yes" : "no");
  benchmark::AddCustomContext("engine", g_engine == tr::Engine::Gpu ? "gpu (resident)" : "cpu");
  benchmark::AddCustomContext(
      "units", "prefill: one Model::decode of the prompt into a cleared KVCache; decode: steps x "
               "(Model::decode of one token per sequence + greedy sample); train: zero grads + "
               "Model::loss with grads + AdamW::step");
}

}  // namespace

int main(int argc, char** argv) {
  int threads = int(env_double("ABFT_BENCH_THREADS", 0));
  g_threads = threads > 0 ? threads : 0;
  if (threads <= 0) threads = omp_get_max_threads();
  g_warmup = env_string("ABFT_BENCH_WARMUP", "1") != "0";
  const std::string engine = env_string("ABFT_BENCH_ENGINE", "cpu");
  if (engine != "cpu" && engine != "gpu") {
    std::fprintf(stderr, "abft_bench_transformer: ABFT_BENCH_ENGINE=%s unknown (cpu|gpu)\n", engine.c_str());
    return 2;
  }
  if (engine == "gpu") {
    g_engine = tr::Engine::Gpu;
    try {
      tr::ModelOptions probe;
      probe.engine = tr::Engine::Gpu;
      tr::Model m(tr::preset("gpt2-demo"), probe);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "abft_bench_transformer: ABFT_BENCH_ENGINE=gpu: %s\n", e.what());
      return 2;
    }
  }
  std::string set = env_string("ABFT_BENCH_SET", "default");
  if (env_string("ABFT_BENCH_QUICK", "0") == "1") set = "quick";
  if (set != "quick" && set != "default") {
    std::fprintf(stderr, "abft_bench_transformer: ABFT_BENCH_SET=%s unknown (quick|default)\n",
                 set.c_str());
    return 2;
  }
  const Suite s = suite(set);
  const std::string bad = check_suite(s);
  if (!bad.empty()) {
    std::fprintf(stderr, "abft_bench_transformer: %s\n", bad.c_str());
    return 2;
  }
  register_all(s);

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  add_context(threads, set, s);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  g_data.release();
  return 0;
}
