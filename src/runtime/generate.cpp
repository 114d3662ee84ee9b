/** \file generate.cpp
 *  \brief Sampling and batched generation over Model::decode (generate.hpp).
 *
 *  generate() validates every prompt, prefills all of them with one decode call (one chunk
 *  per prompt, each in its own cache slot), then runs decode steps of one token per sequence
 *  that is still active until each has max_new_tokens or emitted the stop token.
 */
#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "abft/transformer/error.hpp"
#include "rng.hpp"
#include "abft/transformer/generate.hpp"

namespace abft::transformer {

namespace {

/** A uniform double in [0, 1) from 53 random bits. */
double uniform01(uint64_t& rng) { return double(splitmix64(rng) >> 11) * 0x1.0p-53; }

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void check_options(const SampleOptions& opt) {
  if (!std::isfinite(opt.temperature) || opt.temperature < 0.0)
    throw Error(ABFT_STATUS_INVALID_VALUE,
                "sampling: temperature must be finite and >= 0, got " +
                    std::to_string(opt.temperature));
  if (opt.top_k < 0)
    throw Error(ABFT_STATUS_INVALID_VALUE,
                "sampling: top_k must be >= 0, got " + std::to_string(opt.top_k));
}

}  // namespace

int32_t sample_token(const float* logits, int64_t vocab, const SampleOptions& opt, uint64_t& rng) {
  if (!logits || vocab <= 0)
    throw Error(ABFT_STATUS_INVALID_VALUE, "sample_token: no logits (vocab " +
                                               std::to_string(vocab) + ")");
  check_options(opt);
  if (opt.temperature == 0.0) {
    // Greedy: the largest logit, the lowest id among equal ones. NaN is never the maximum.
    int64_t best = -1;
    for (int64_t i = 0; i < vocab; ++i) {
      if (std::isnan(logits[i])) continue;
      if (best < 0 || logits[i] > logits[best]) best = i;
    }
    if (best < 0) throw Error(ABFT_STATUS_INVALID_VALUE, "sample_token: every logit is NaN");
    return static_cast<int32_t>(best);
  }

  for (int64_t i = 0; i < vocab; ++i)
    if (!std::isfinite(logits[i]))
      throw Error(ABFT_STATUS_INVALID_VALUE, "sample_token: non-finite logit " +
                                                 std::to_string(logits[i]) + " at id " +
                                                 std::to_string(i));
  const int64_t k = (opt.top_k <= 0 || opt.top_k > vocab) ? vocab : opt.top_k;
  // Candidates: the k largest logits, ties by lower id, in that order.
  std::vector<int32_t> ids(static_cast<size_t>(vocab));
  for (int64_t i = 0; i < vocab; ++i) ids[size_t(i)] = static_cast<int32_t>(i);
  auto before = [logits](int32_t a, int32_t b) {
    return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
  };
  std::partial_sort(ids.begin(), ids.begin() + k, ids.end(), before);
  ids.resize(static_cast<size_t>(k));

  const double inv_t = 1.0 / opt.temperature;
  const double top = double(logits[ids[0]]) * inv_t;
  std::vector<double> w(static_cast<size_t>(k));
  double sum = 0.0;
  for (int64_t i = 0; i < k; ++i) {
    w[size_t(i)] = std::exp(double(logits[ids[size_t(i)]]) * inv_t - top);
    sum += w[size_t(i)];
  }
  const double u = uniform01(rng) * sum;
  double acc = 0.0;
  for (int64_t i = 0; i < k; ++i) {
    acc += w[size_t(i)];
    if (u < acc) return ids[size_t(i)];
  }
  // Only reached through rounding of the running sum: the last candidate with weight.
  for (int64_t i = k - 1; i >= 0; --i)
    if (w[size_t(i)] > 0.0) return ids[size_t(i)];
  return ids[0];
}

Generation generate(Model& m, const std::vector<std::vector<int32_t>>& prompts,
                    const SampleOptions& opt, bool keep_logits) {
  const Config& cfg = m.config();
  const int64_t vocab = cfg.vocab;
  check_options(opt);
  if (opt.max_new_tokens < 0)
    throw Error(ABFT_STATUS_INVALID_VALUE,
                "generate: max_new_tokens must be >= 0, got " + std::to_string(opt.max_new_tokens));
  const size_t P = prompts.size();
  int64_t capacity = 1;
  for (size_t i = 0; i < P; ++i) {
    const std::vector<int32_t>& p = prompts[i];
    const std::string which = "generate: prompt " + std::to_string(i);
    if (p.empty()) throw Error(ABFT_STATUS_INVALID_VALUE, which + " is empty");
    for (size_t j = 0; j < p.size(); ++j)
      if (p[j] < 0 || p[j] >= vocab)
        throw Error(ABFT_STATUS_INVALID_VALUE,
                    which + ": token " + std::to_string(p[j]) + " at position " +
                        std::to_string(j) + " outside the vocabulary [0, " +
                        std::to_string(vocab) + ")");
    const int64_t need = int64_t(p.size()) + opt.max_new_tokens;
    if (need > cfg.context)
      throw Error(ABFT_STATUS_INVALID_VALUE,
                  which + ": " + std::to_string(p.size()) + " tokens + " +
                      std::to_string(opt.max_new_tokens) + " new tokens exceed the context of " +
                      std::to_string(cfg.context));
    // The last new token is never fed back, so the cache needs one position less.
    capacity = std::max<int64_t>(capacity, need - 1);
  }

  Generation g;
  g.tokens.assign(P, {});
  if (keep_logits) g.logits.assign(P, {});
  if (P == 0 || opt.max_new_tokens == 0) return g;

  std::vector<uint64_t> rng(P);
  for (size_t i = 0; i < P; ++i) {
    uint64_t s = opt.seed ^ (0xD1B54A32D192ED03ull * (uint64_t(i) + 1));
    rng[i] = splitmix64(s);
  }
  std::vector<bool> active(P, true);

  // Draws the next token of sequence i from its logits row; returns whether it goes on.
  auto take = [&](size_t i, const float* row) {
    const int32_t t = sample_token(row, vocab, opt, rng[i]);
    g.tokens[i].push_back(t);
    if (keep_logits) g.logits[i].insert(g.logits[i].end(), row, row + vocab);
    if ((opt.stop_token >= 0 && t == opt.stop_token) ||
        int64_t(g.tokens[i].size()) >= opt.max_new_tokens)
      active[i] = false;
    return bool(active[i]);
  };

  KVCache cache(cfg, static_cast<int64_t>(P), capacity);
  std::vector<float> logits(P * size_t(vocab));
  // The weights stay on the GPU engine's device for the whole loop (they do not change in it).
  const Model::WeightsOnDevice held = m.hold_weights_on_device();

  // Prefill: every prompt in one call, the logits of each prompt's last token.
  auto t0 = Clock::now();
  std::vector<SeqChunk> chunks;
  chunks.reserve(P);
  for (size_t i = 0; i < P; ++i) {
    chunks.push_back({static_cast<int64_t>(i), prompts[i].data(), int64_t(prompts[i].size())});
    g.prefill_tokens += int64_t(prompts[i].size());
  }
  m.decode(cache, chunks, logits.data());
  size_t live = 0;
  for (size_t i = 0; i < P; ++i) live += take(i, logits.data() + i * size_t(vocab)) ? 1 : 0;
  g.prefill_seconds = seconds_since(t0);

  // Decode: one token per active sequence per step.
  t0 = Clock::now();
  std::vector<size_t> seq;
  while (live > 0) {
    chunks.clear();
    seq.clear();
    for (size_t i = 0; i < P; ++i)
      if (active[i]) {
        chunks.push_back({static_cast<int64_t>(i), &g.tokens[i].back(), 1});
        seq.push_back(i);
      }
    m.decode(cache, chunks, logits.data());
    g.decode_tokens += int64_t(chunks.size());
    live = 0;
    for (size_t c = 0; c < seq.size(); ++c)
      live += take(seq[c], logits.data() + c * size_t(vocab)) ? 1 : 0;
  }
  g.decode_seconds = seconds_since(t0);
  return g;
}

}  // namespace abft::transformer
