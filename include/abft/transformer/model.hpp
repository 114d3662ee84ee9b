/** \file model.hpp
 *  \brief A decoder-only transformer whose every matrix product and attention call runs on the
 *  protected kernels: full-sequence forward, loss and backward for training, and incremental
 *  decoding with a KV cache for inference. Error statistics per layer and per op in stats().
 */
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "abft/abft.hpp"
#include "abft/transformer/config.hpp"
#include "abft/transformer/injection.hpp"
#include "abft/transformer/stats.hpp"
#include "abft/transformer/weights.hpp"

namespace abft::transformer {

/** Where a pass runs. Gpu: resident on the CUDA engine — forward, loss and decode keep the
 *  activations, gradients, KV cache and a copy of the weights in device memory for the whole
 *  pass; products and attention run on the protected GPU kernels, the pointwise ops and their
 *  invariant checks on the runtime's own device kernels; only tokens, targets, logits, the loss
 *  and the gradients cross (docs/ARCHITECTURE.md). Needs a build with the CUDA engine and a
 *  usable device: the Model's constructor throws Error(NOT_SUPPORTED) otherwise. */
enum class Engine { Cpu, Gpu };

struct ModelOptions {
  abft::Policy policy = abft::Policy::Correct;  ///< for every kernel call of the model
  Engine engine = Engine::Cpu;
  int threads = 0;                              ///< 0: OpenMP default
  bool invariant_checks = true;                 ///< checks of the non-ABFT ops (off: none)
  /** Estimate the time spent checking: every `timing_period`-th call of each op is repeated
   *  with policy off into scratch memory and the difference accumulated (costs extra time). */
  bool check_timing = false;
  int timing_period = 8;
};

/** The KV cache of a batch of sequences ("slots"): per layer K and V of
 *  [slots, kv_heads, capacity, head_dim]. A model on the GPU engine keeps the cache's contents
 *  on the device while it decodes (one device copy, made at its first decode); k() and v()
 *  bring them back to the host first, and a model on the CPU engine decoding with the cache
 *  afterwards reads them there. A copy of a cache is a host copy. */
class KVCache {
 public:
  KVCache(const Config& c, int64_t slots, int64_t capacity);
  KVCache(const KVCache& o);
  KVCache& operator=(const KVCache& o);
  KVCache(KVCache&&) noexcept = default;
  KVCache& operator=(KVCache&&) noexcept = default;
  ~KVCache();
  int64_t slots() const { return slots_; }
  int64_t capacity() const { return capacity_; }
  int64_t length(int64_t slot) const { return len_[size_t(slot)]; }
  void clear();                  ///< every slot empty
  void clear(int64_t slot);
  float* k(int64_t layer) {
    to_host();
    return k_[size_t(layer)].data();
  }
  float* v(int64_t layer) {
    to_host();
    return v_[size_t(layer)].data();
  }
  void advance(int64_t slot, int64_t n) { len_[size_t(slot)] += n; }

 private:
  friend class Model;
  /** The device copy: K and V of every layer in one array, K of layer l at 2 l * per, V at
   *  (2 l + 1) * per (per = slots * kv_heads * capacity * head_dim). */
  struct Device;
  struct DeviceFree {
    void operator()(Device* d) const;
  };
  /** The device's contents to the host when they are the newer ones. */
  void to_host();
  /** The device copy, made or refreshed from the host when the host's are the newer ones; the
   *  device's become the newer ones (the caller is about to write them). */
  float* on_device();
  int64_t slots_, capacity_;
  size_t per_ = 0;
  std::vector<int64_t> len_;
  std::vector<std::vector<float>> k_, v_;
  std::unique_ptr<Device, DeviceFree> dev_;
  bool dev_newer_ = false;
};

/** New tokens of one sequence for Model::decode: appended to `slot` of the cache. */
struct SeqChunk {
  int64_t slot = 0;
  const int32_t* tokens = nullptr;
  int64_t count = 0;
};

class Workspace;  // activations and scratch, grown on demand (model_workspace.hpp)

class Model {
 public:
  explicit Model(const Config& cfg, const ModelOptions& opt = {});
  ~Model();
  Model(Model&&) noexcept;
  Model& operator=(Model&&) noexcept;

  /** config.json and model.safetensors of a directory (a Hugging Face checkpoint). */
  static Model from_pretrained(const std::string& dir, const ModelOptions& opt = {});
  /** Write config.json and model.safetensors into `dir` (created if missing). */
  void save_pretrained(const std::string& dir) const;

  const Config& config() const { return weights_.config(); }
  /** Mutable access (loading, initialising, an optimizer's step). The GPU engine's held copy
   *  of the weights (WeightsOnDevice) is dropped here and made again at the next pass, so a
   *  change made through this reference before the next pass is read even inside a hold;
   *  memory kept from it and written later is not seen (ask for weights() again). */
  Weights& weights();

  /** While a WeightsOnDevice lives, the GPU engine keeps one copy of the weights on the device,
   *  made at the first pass, instead of copying them at every pass (decoding runs one pass per
   *  token). A change through the mutable weights() drops the copy (made again at the next
   *  pass); the weights' memory must not be written otherwise while held. forward, loss and
   *  decode hold them for their own call; generate() for its whole loop, a training step for its
   *  micro-batches; a caller's own decoding loop can hold them across its calls. The copy is made
   *  again from the host after 64 passes (it is the checks' input too: a fault in device memory
   *  would otherwise last the whole hold). Nothing on the CPU engine. Movable; must not outlive
   *  its model. */
  class WeightsOnDevice {
   public:
    WeightsOnDevice() = default;
    explicit WeightsOnDevice(Model& m);
    ~WeightsOnDevice();
    WeightsOnDevice(WeightsOnDevice&& o) noexcept : h_(o.h_) { o.h_ = nullptr; }
    WeightsOnDevice& operator=(WeightsOnDevice&& o) noexcept;
    WeightsOnDevice(const WeightsOnDevice&) = delete;
    WeightsOnDevice& operator=(const WeightsOnDevice&) = delete;

   private:
    abft_handle_t h_ = nullptr;
  };
  WeightsOnDevice hold_weights_on_device() { return WeightsOnDevice(*this); }
  /** The weights; on the GPU engine after a trainer updated them on the device, brought back to
   *  the host first (throws Error when the copy fails). */
  const Weights& weights() const;
  const ModelOptions& options() const { return opt_; }

  void set_policy(abft::Policy p);
  abft::Policy policy() const { return opt_.policy; }
  /** Attach an injector with these settings to every kernel call (rate 0: detach). */
  void set_injection(const InjectionSettings& s);
  const InjectionSettings& injection() const { return inj_settings_; }
  RunStats& stats() { return stats_; }
  const RunStats& stats() const { return stats_; }
  abft::Handle& handle() { return handle_; }

  /** Logits [B*T, vocab] of B sequences of T tokens (positions 0..T-1, no cache). */
  void forward(const int32_t* tokens, int64_t B, int64_t T, float* logits);
  /** Mean cross-entropy of predicting targets[i] at every position (a target < 0 is ignored).
   *  With grads (a buffer of weights().size() floats) adds d(scale * loss)/d(weights) to it.
   *  grads_zero: the caller promises the buffer is all zeros (the first micro-batch of a step):
   *  the weight-gradient products then write instead of adding (no read of the buffer, no
   *  copy of it kept for a repair) — the same values, up to the sign of a zero. */
  double loss(const int32_t* tokens, const int32_t* targets, int64_t B, int64_t T,
              float* grads = nullptr, float scale = 1.0f, bool grads_zero = false);

  /** Run new tokens of some sequences (distinct slots) through the model, appending their K
   *  and V to the cache. logits: [chunks, vocab] for the last token of each chunk, or with
   *  all_logits [total tokens, vocab]. */
  void decode(KVCache& cache, const std::vector<SeqChunk>& chunks, float* logits,
              bool all_logits = false);

 private:
  friend class Workspace;
  ModelOptions opt_;
  Weights weights_;
  abft::Handle handle_;
  std::unique_ptr<abft::Injector> injector_;
  InjectionSettings inj_settings_;
  RunStats stats_;
  std::unique_ptr<Workspace> ws_;  ///< in device memory on the GPU engine (the resident pass)
  friend class Trainer;
  /** loss(); with grads_on_device, grads is device memory (the GPU engine's trainer). */
  double loss_impl(const int32_t* tokens, const int32_t* targets, int64_t B, int64_t T, float* grads, float scale,
                   bool grads_zero, bool grads_on_device);
  /** The GPU engine's device copy of the weights (held by the caller), for an optimizer's step;
   *  throws Error without device memory. */
  float* resident_weights();
  /** The weights as a pass on ws reads them: the host's, or (resident) their device copy. */
  struct WeightsView view_for(const Workspace& ws);
};

}  // namespace abft::transformer
