/** \file kernel_train.cpp
 *  \brief Campaign adapter of one transformer training step (src/runtime, RELIABILITY §10):
 *  the forward pass, the cross-entropy and the backward pass of a tiny model on a batch of
 *  token sequences. The output is the loss and the whole gradient vector (every parameter
 *  tensor, in the model's flat layout); the optimizer's update is left out — AdamW's first
 *  step is lr * sign(g), which turns a rounding-sized change of a near-zero gradient into a
 *  full-size change of the update, so it is no yardstick for a fault's effect.
 *
 *  Every product and attention call of the step runs on the model's handle (own_handle()),
 *  one after another from the calling thread (the kernels parallelise inside a call; the
 *  runtime never issues two kernel calls at once), so the order of protected calls is fixed
 *  by the model and (B, T) alone: the driver's planner can target a call by its index. The
 *  policy passed to run() goes to Model::set_policy, which sets the handle's policy and the
 *  one every op passes explicitly.
 *
 *  A run's report sums the model's statistics over the step (RunStats): what the protected
 *  kernels reported for every GEMM and attention call, plus the invariant checks of the
 *  other ops (norms, activations, rotary, the loss: a failed check counts as detected, its
 *  recomputation as recomputed, and corrected or uncorrectable by whether the recomputed op
 *  passed). The invariant checks are a model option, not part of the policy: they run in
 *  the OFF runs too (their counts are reported there as well; recomputing an op from the
 *  same corrupted input leaves the output as it was).
 *
 *  `cuda-train` is the same step on the GPU engine's resident pass (ModelOptions::engine =
 *  Gpu: every op on the device, the products and attention on the GPU kernels with the
 *  handle's planner, the checks' counts read once per pass), with the GPU kernels' sites; its
 *  clean run is the GPU engine's, so the limits are the same tolerance around it.
 */
#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include "abft/transformer/config.hpp"
#include "abft/transformer/error.hpp"
#include "abft/transformer/model.hpp"
#include "abft/transformer/stats.hpp"
#include "campaign/input_gen.hpp"
#include "campaign/kernel.hpp"

namespace abft::campaign {
namespace {

namespace tr = abft::transformer;

/** Weights of every trial (GPT-2's initialisation, Weights::init_random). */
constexpr uint64_t kWeightSeed = 0xC0FFEE;

/** Escape tolerance: kTolUlps u N w relative (see TrainKernel::compute_limits). */
constexpr double kTolUlps = 64.0;

/** A uniform integer in [0, n). */
int64_t below(InputRng& g, int64_t n) { return int64_t((g.next() >> 11) % uint64_t(n)); }

/** The presets a step of which fits a campaign (the small ones have 10^8 parameters). */
bool allowed_preset(const std::string& name) {
  return name == "gpt2-tiny" || name == "llama-tiny" || name == "gpt2-demo" || name == "llama-demo";
}

tr::ModelOptions model_options(int threads, tr::Engine engine) {
  tr::ModelOptions mo;
  mo.policy = abft::Policy::Correct;
  mo.engine = engine;
  mo.threads = threads;
  mo.invariant_checks = true;
  mo.check_timing = false;
  return mo;
}

class TrainKernel final : public Kernel {
 public:
  TrainKernel(const std::string& preset, const tr::Config& cfg, int64_t B, int64_t T, int threads, tr::Engine engine)
      : preset_(preset), B_(B), T_(T), gpu_(engine == tr::Engine::Gpu), model_(cfg, model_options(threads, engine)) {
    model_.weights().init_random(kWeightSeed);
    tok_.assign(size_t(B * T), 0);
    tgt_.assign(size_t(B * T), 0);
    grads_.assign(model_.weights().size(), 0.0f);
    limits_.assign(1 + grads_.size(), 0.0);
    // Which tensor each gradient element belongs to (for the per-tensor rms).
    const auto& params = model_.weights().layout().params();
    tensor_of_.assign(grads_.size(), 0);
    for (size_t p = 0; p < params.size(); ++p)
      for (size_t i = 0; i < params[p].numel; ++i) tensor_of_[params[p].offset + i] = uint32_t(p);
    rms_.assign(params.size(), 0.0);
    // The first use of a model sizes its workspace: do it now, not inside a trial's runs.
    model_.set_policy(abft::Policy::Off);
    // (On the model's own handle before the driver attaches its planner, which it does after
    // constructing the kernel; the statistics are reset by every run.)
    model_.loss(tok_.data(), tgt_.data(), B_, T_, grads_.data(), 1.0f, false);
  }

  std::string describe() const override {
    const tr::Config& c = model_.config();
    std::ostringstream os;
    os << "train step " << preset_ << " (" << tr::arch_name(c.arch) << ", " << c.layers << " layers, d="
       << c.d_model << ", vocab " << c.vocab << ", " << c.parameter_count()
       << " parameters) batch=" << B_ << " seq=" << T_
       << ": forward, cross-entropy, backward; output loss + gradient"
       << (gpu_ ? "; GPU engine, resident pass" : "");
    return os.str();
  }

  std::vector<abft_site> sites() const override {
    if (gpu_)  // the GPU GEMM's and the GPU attention's (kernel_cuda_gemm.cpp, kernel_cuda_attention.cpp)
      return {ABFT_SITE_OUTPUT,      ABFT_SITE_PACKED_A,  ABFT_SITE_PACKED_B,      ABFT_SITE_ATTN_SCORES,
              ABFT_SITE_ATTN_PROBS,  ABFT_SITE_ATTN_ROWSTAT, ABFT_SITE_ATTN_ACC, ABFT_SITE_ATTN_DP,
              ABFT_SITE_ATTN_DS,     ABFT_SITE_ATTN_DQ,   ABFT_SITE_ATTN_DK,      ABFT_SITE_ATTN_DV};
    return {ABFT_SITE_OUTPUT,     ABFT_SITE_ACCUMULATOR, ABFT_SITE_PACKED_A,  ABFT_SITE_PACKED_B,
            ABFT_SITE_ATTN_SCORES, ABFT_SITE_ATTN_PROBS, ABFT_SITE_ATTN_ROWSTAT, ABFT_SITE_ATTN_ACC,
            ABFT_SITE_ATTN_DP,    ABFT_SITE_ATTN_DS,     ABFT_SITE_ATTN_DQ,   ABFT_SITE_ATTN_DK,
            ABFT_SITE_ATTN_DV};
  }

  /** Token ids of B sequences of T + 1 (inputs and next-token targets), one of three kinds per
   *  trial (input_dist_of: uniform, normal, wide): uniform over the vocabulary; skewed (id = vocab * u^3, a few ids frequent, as in
   *  text); repetitive (a random pattern of period 2..8 with 1 in 8 tokens replaced at
   *  random, the kind of sequence attention learns to copy). The limits follow from the
   *  driver's clean run (set_clean_output). */
  void prepare(uint64_t trial, uint64_t seed) override {
    InputRng g(seed);
    const int64_t V = model_.config().vocab;
    const int kind = int(input_dist_of(trial));  // cycles with the other adapters' distributions
    std::vector<int32_t> seq(size_t(T_ + 1));
    for (int64_t b = 0; b < B_; ++b) {
      if (kind == 2) {
        const int64_t period = 2 + below(g, 7);
        int32_t pat[8];
        for (int64_t i = 0; i < period; ++i) pat[i] = int32_t(below(g, V));
        for (int64_t t = 0; t <= T_; ++t)
          seq[size_t(t)] = below(g, 8) == 0 ? int32_t(below(g, V)) : pat[t % period];
      } else {
        for (int64_t t = 0; t <= T_; ++t) {
          const double u = g.unit();
          seq[size_t(t)] = kind == 0 ? int32_t(below(g, V))
                                     : int32_t(std::min<int64_t>(V - 1, int64_t(double(V) * u * u * u)));
        }
      }
      std::copy(seq.begin(), seq.begin() + T_, tok_.begin() + b * T_);
      std::copy(seq.begin() + 1, seq.begin() + T_ + 1, tgt_.begin() + b * T_);
    }
  }

  void set_clean_output(const std::vector<double>& out) override { compute_limits(out); }

  RunResult run(abft_handle_t h, abft_policy policy) override {
    (void)h;  // the step runs on the model's handle (own_handle)
    RunResult res;
    try {
      res.out.resize(limits_.size());
      model_.stats().reset();
      model_.set_policy(static_cast<abft::Policy>(policy));
      std::fill(grads_.begin(), grads_.end(), 0.0f);
      const double loss = model_.loss(tok_.data(), tgt_.data(), B_, T_, grads_.data(), 1.0f, true);
      res.out[0] = loss;
      for (size_t i = 0; i < grads_.size(); ++i) res.out[1 + i] = double(grads_[i]);
    } catch (const tr::Error& e) {
      res.status = e.status();
    } catch (const abft::Error& e) {
      res.status = e.status();
    } catch (const std::bad_alloc&) {
      res.status = ABFT_STATUS_ALLOC_FAILED;
    } catch (...) {
      res.status = ABFT_STATUS_INTERNAL_ERROR;
    }
    summarize(model_.stats(), policy, res);
    return res;
  }

  const std::vector<double>& limits() const override { return limits_; }
  abft_handle_t own_handle() override { return model_.handle().get(); }

 private:
  /** Report, calls and status of a run from the model's statistics of the step. */
  static void summarize(const tr::RunStats& st, abft_policy policy, RunResult& res) {
    uint64_t calls = 0;
    for (int l = -1; l < st.layers(); ++l)
      for (int o = 0; o < int(tr::OpKind::Count_); ++o) {
        const tr::OpKind op = tr::OpKind(o);
        if (!tr::op_is_abft(op)) continue;
        for (int p = 0; p < int(tr::Pass::Count_); ++p) calls += st.at(l, op, tr::Pass(p)).calls;
      }
    const tr::OpCounters t = st.total();
    abft_report& r = res.report;
    r.checks = t.checks;
    r.detected = t.detected;
    r.corrected = t.corrected;
    r.recomputed = t.recomputed;
    r.uncorrectable = t.uncorrectable;
    r.skipped = t.skipped;
    res.calls = calls;
    // What the step's caller is told. Under DETECT the kernels leave a faulty output as it is
    // and say so; an invariant check downstream may then fail again on what that output
    // turned into (its recomputation "uncorrectable"): still a detection, not a failed repair.
    if (res.status == ABFT_STATUS_SUCCESS) {
      if (r.detected && policy == ABFT_POLICY_DETECT) res.status = ABFT_STATUS_FAULT_DETECTED;
      else if (r.uncorrectable) res.status = ABFT_STATUS_FAULT_UNCORRECTABLE;
    }
  }

  /** The escape limit of every output scalar, from this trial's clean step:
   *
   *      limit_i = 64 u N w * (|clean_i| + rms of clean_i's tensor)
   *
   *  u = 2^-24 (float's unit roundoff), N = batch * seq (the depth of the weight-gradient
   *  products dW = X^T dY), w = max(d_model, ffn, vocab) (the longest line a product check
   *  sums); the loss is its own tensor (rms = |loss|). At the defaults (gpt2-tiny, 2 x 16:
   *  N = 32, w = 128) that is 1.6e-2 (|clean_i| + rms).
   *
   *  There is no derived bound for a whole step: each product's check certifies its own
   *  output only to c X_L (c grows with the product's depth, X_L is a magnitude sum over a
   *  line of the output), and what the rest of the step makes of a change that size is bounded
   *  by no check. So the limit is an engineering tolerance of the same form: a change the
   *  checks are entitled to miss must pass it, a larger one must not. Measured (bit flips of
   *  mantissa bits 12..22 at OUTPUT/ACCUMULATOR of random calls, the region where the
   *  below-bound escapes are largest; 800-4000 trials per setting): the largest undetected
   *  change was 5.1e-4, 1.9e-3 and 1.0e-2 (|clean_i| + rms) for gpt2-tiny at N = 8, 32, 128,
   *  1.5e-3 for llama-tiny and 7.5e-3 for gpt2-demo (w = 512) at N = 32 — between 4.6e-7 and
   *  6.3e-7 N w, i.e. up to about 10 u N w; the worst are flips in a weight gradient's own
   *  output element, whose line sum is far above the element (gradients are sums with heavy
   *  cancellation). A first choice of 1e-3 (|clean_i| + rms) was exceeded by such
   *  certified escapes in 1 of 6000 random trials. 64 u N w leaves a factor of 6 above the
   *  largest measured escape, and is still far below what would harm training: 1.6e-2 of a
   *  tensor's rms is well inside the noise of the mini-batch gradient itself, and a step's
   *  float rounding against a double reference is 6e-7 of the tensor's largest gradient
   *  (model_gradient_test), RELIABILITY §10.4 shows below-bound escapes leaving ten-step loss
   *  curves within 1e-8. Not compared: AdamW's update (lr * sign(g) on the first step).
   *  The rms term keeps near-zero gradients from getting a near-zero limit (a relative change
   *  of a tiny element is meaningless); |clean_i| keeps large ones from being judged against a
   *  small rms. A non-finite clean value gets an infinite limit. */
  void compute_limits(const std::vector<double>& clean) {
    if (clean.size() != limits_.size()) {  // a failed clean run: nothing to compare against
      std::fill(limits_.begin(), limits_.end(), 0.0);
      return;
    }
    const double loss = clean[0];
    const auto& params = model_.weights().layout().params();
    for (size_t p = 0; p < params.size(); ++p) {
      double ss = 0.0;
      for (size_t i = 0; i < params[p].numel; ++i) {
        const double v = clean[1 + params[p].offset + i];
        ss += v * v;
      }
      rms_[p] = params[p].numel ? std::sqrt(ss / double(params[p].numel)) : 0.0;
    }
    const tr::Config& c = model_.config();
    const double w = double(std::max(c.d_model, std::max(c.ffn, c.vocab)));
    const double rel = kTolUlps * 0x1.0p-24 * double(B_ * T_) * w;
    auto lim = [rel](double v, double rms) {
      return std::isfinite(v) ? rel * (std::fabs(v) + rms) : HUGE_VAL;
    };
    limits_[0] = lim(loss, std::fabs(loss));
    for (size_t i = 0; i + 1 < clean.size(); ++i) limits_[1 + i] = lim(clean[1 + i], rms_[tensor_of_[i]]);
  }

  std::string preset_;
  int64_t B_, T_;
  bool gpu_;
  tr::Model model_;  // the runs (the driver's planner is attached to its handle)
  std::vector<int32_t> tok_, tgt_;
  std::vector<float> grads_;
  std::vector<uint32_t> tensor_of_;
  std::vector<double> rms_;
  std::vector<double> limits_;
};

}  // namespace

std::unique_ptr<Kernel> make_train_kernel(const KernelOptions& o, std::string* error) {
  const bool gpu = o.kernel == "cuda-train";
  if (o.type != DataType::F32) {
    *error = "--type: train is f32 only";
    return nullptr;
  }
  const std::string preset = o.variant.empty() ? "gpt2-tiny" : o.variant;
  if (!allowed_preset(preset)) {
    *error = "--variant: '" + preset + "' for train: expected a preset gpt2-tiny, llama-tiny, gpt2-demo or llama-demo";
    return nullptr;
  }
  tr::Config cfg;
  try {
    cfg = tr::preset(preset);
  } catch (const tr::Error& e) {
    *error = std::string("--variant: ") + e.what();
    return nullptr;
  }
  std::vector<int64_t> sz = o.sizes.empty() ? std::vector<int64_t>{2, 16} : o.sizes;
  if (sz.size() != 2 || sz[0] < 1 || sz[1] < 1 || sz[0] > 64 || sz[1] > cfg.context) {
    *error = "--sizes: train takes batch,seq with 1 <= batch <= 64 and 1 <= seq <= " +
             std::to_string(cfg.context) + " (the context of " + preset + ")";
    return nullptr;
  }
  try {
    return std::make_unique<TrainKernel>(preset, cfg, sz[0], sz[1], std::max(1, o.threads),
                                         gpu ? tr::Engine::Gpu : tr::Engine::Cpu);
  } catch (const std::exception& e) {
    *error = std::string("train: ") + e.what();
    return nullptr;
  }
}

}  // namespace abft::campaign
