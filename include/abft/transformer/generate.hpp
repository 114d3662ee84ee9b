/** \file generate.hpp
 *  \brief Text generation over Model::decode: a batch of prompts prefilled into a KV cache,
 *  then one token per sequence per step, greedy or sampled (temperature, top-k).
 */
#pragma once
#include <cstdint>
#include <vector>

#include "abft/transformer/model.hpp"

namespace abft::transformer {

struct SampleOptions {
  int64_t max_new_tokens = 32;
  double temperature = 0.0;  ///< 0: greedy (argmax, lowest id on ties)
  int64_t top_k = 0;         ///< 0: the whole vocabulary
  uint64_t seed = 0;         ///< sampling stream (per sequence: seed and its index)
  int32_t stop_token = -1;   ///< a sequence ends after emitting it (-1: none)
};

/** The next token from logits (length vocab) under the options; `rng` is a splitmix64 state
 *  advanced once per sampled token. Throws Error for non-finite logits under sampling. */
int32_t sample_token(const float* logits, int64_t vocab, const SampleOptions& opt, uint64_t& rng);

struct Generation {
  std::vector<std::vector<int32_t>> tokens;  ///< the new tokens of each prompt
  /** With keep_logits: per prompt, the logits ([new tokens, vocab]) each token was drawn from. */
  std::vector<std::vector<float>> logits;
  double prefill_seconds = 0.0, decode_seconds = 0.0;
  int64_t prefill_tokens = 0, decode_tokens = 0;
};

/** Generate for every prompt (token ids; each non-empty and, with the new tokens, within the
 *  context). Throws Error for an empty prompt or one that does not fit. */
Generation generate(Model& m, const std::vector<std::vector<int32_t>>& prompts,
                    const SampleOptions& opt, bool keep_logits = false);

}  // namespace abft::transformer
