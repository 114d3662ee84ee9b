/** \file train.hpp
 *  \brief Training: AdamW with decoupled weight decay and global-norm gradient clipping,
 *  gradient accumulation over micro-batches, and a deterministic loader of random windows of
 *  a token stream (the shipped corpus: the project's own README and docs, byte-tokenized).
 */
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "abft/transformer/model.hpp"

namespace abft::transformer {

struct AdamWOptions {
  double lr = 3e-3;
  double beta1 = 0.9, beta2 = 0.95, eps = 1e-8;
  double weight_decay = 0.1;  ///< decoupled; matrices and embeddings only
  double clip = 1.0;          ///< global gradient norm limit (<= 0: no clipping)
  int64_t warmup = 0;         ///< linear warmup steps, then constant
};

class AdamW {
 public:
  AdamW(const ParamLayout& layout, const AdamWOptions& opt);
  ~AdamW();
  AdamW(AdamW&&) noexcept;
  AdamW& operator=(AdamW&&) noexcept;
  /** One update of w from g (both layout.size()); clips g in place first. Returns the global
   *  gradient norm before clipping. Throws Error for a non-finite gradient norm (no update). */
  double step(float* w, float* g);
  /** The same update with w and g in device memory (the GPU engine's trainer; a build with the
   *  CUDA engine, else Error NOT_SUPPORTED): the moments move to the device at the first such
   *  step and back at the next host step. The norm's blocks are summed on the device, then in
   *  block order on the host, as step's; the element update is step's, in double. */
  double step_device(float* w, float* g);
  int64_t steps() const { return t_; }
  const AdamWOptions& options() const { return opt_; }

 private:
  struct Device;
  struct DeviceFree {
    void operator()(Device* d) const;
  };
  /** The learning-rate schedule and bias corrections of update t_ (after ++t_). */
  struct Scalars {
    double b1, b2, step_size, inv_sqrt_bc2, shrink, eps;
  };
  Scalars scalars() const;
  /** The global norm from the blocks' sums of squares, added in order; throws Error when it is
   *  not finite (no update). */
  double norm_of(const std::vector<double>& partial) const;
  void moments_to_host();
  AdamWOptions opt_;
  std::vector<float> m_, v_;
  std::vector<uint8_t> decay_;
  int64_t t_ = 0;
  std::unique_ptr<Device, DeviceFree> dev_;  ///< the moments on the device (step_device)
  bool dev_newer_ = false;
};

/** Random windows of seq+1 tokens from a stream, drawn from a seeded generator. */
class TokenLoader {
 public:
  TokenLoader(std::vector<int32_t> stream, uint64_t seed);
  /** tokens and targets of B windows of T (targets = tokens shifted by one). */
  void next(int64_t B, int64_t T, std::vector<int32_t>& tokens, std::vector<int32_t>& targets);
  size_t size() const { return stream_.size(); }

 private:
  std::vector<int32_t> stream_;
  uint64_t state_;
};

/** The shipped corpus: README.md, then the .md files of docs/ in file-name order, of the
 *  source tree at `root`, concatenated. Throws Error when none is readable. */
std::string read_corpus(const std::string& root);

struct TrainOptions {
  int64_t steps = 100;
  int64_t batch = 8, seq = 64;
  int64_t accum = 1;  ///< micro-batches per step (the gradient is their mean)
  AdamWOptions adamw;
  uint64_t seed = 1;  ///< initialization and data order
};

struct StepResult {
  int64_t step = 0;
  double loss = 0.0;       ///< mean over the step's micro-batches
  double grad_norm = 0.0;  ///< before clipping
  double seconds = 0.0;
  int64_t tokens = 0;
  RunStats stats;          ///< this step's statistics
};

/** Runs optimizer steps of a model on a loader. */
class Trainer {
 public:
  /** On the GPU engine the whole step stays on the device: the micro-batches' gradient is summed
   *  there and AdamW updates the device copy of the weights, which the trainer holds for its
   *  life; Model::weights() (either form) brings the weights back to the host. */
  Trainer(Model& model, TokenLoader& loader, const TrainOptions& opt);
  ~Trainer();
  StepResult step();
  int64_t steps_done() const { return adamw_.steps(); }

 private:
  Model& model_;
  TokenLoader& loader_;
  TrainOptions opt_;
  AdamW adamw_;
  std::vector<float> grads_;
  std::vector<int32_t> tok_, tgt_;
  /// The GPU engine: the weights held on the device for the trainer's life (the optimizer
  /// updates the device copy; Model::weights() brings it back), the gradient on the device.
  Model::WeightsOnDevice held_;
  struct DeviceGrads;
  struct DeviceGradsFree {
    void operator()(DeviceGrads* d) const;
  };
  std::unique_ptr<DeviceGrads, DeviceGradsFree> dgrads_;
  StepResult step_gpu();
};

}  // namespace abft::transformer
