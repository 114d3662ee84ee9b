/** \file attention_shape.hpp
 *  \brief The attention problem a campaign runs (--sizes q,kv,d,heads[,kv_heads], --variant
 *  causal|full), parsed once for the CPU adapter (kernel_attention.cpp: attn-fwd, attn-bwd)
 *  and the GPU one (kernel_cuda_attention.cpp: cuda-attn-fwd).
 */
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "campaign/kernel.hpp"

namespace abft::campaign {

/** What --sizes and --variant select. Defaults: two query heads over one KV head (GQA),
 *  two query blocks and two key blocks of the engine (64 queries, 96 keys each, the second
 *  partial), so the block-boundary paths (rescaling between key blocks, partial blocks,
 *  accumulation over query blocks) are exercised; a trial (the double reference of the
 *  limits and four calls) takes a few milliseconds. */
struct AttnShape {
  bool bwd = false;
  int64_t q_len = 72, kv_len = 128, head_dim = 64, heads = 2, kv_heads = 1;
  bool causal = true;
};

/** A trial's Q, K, V (and dO when not null): Q and K moderate in the wide distribution
 *  (10^U(-3, 1): scores up to ~1e2 sqrt(d), a sharp softmax but no overflow), V and dO over
 *  the distribution's full range. One rule for the CPU and the GPU adapters. */
void draw_attention_inputs(uint64_t trial, uint64_t seed, std::vector<float>& Q, std::vector<float>& K,
                           std::vector<float>& V, std::vector<float>* dO);

/** Fill s from --type (f32 only), --variant and --sizes; false with *error set on bad options. */
bool attention_shape_of(const KernelOptions& o, const std::string& kernel, AttnShape& s, std::string* error);

}  // namespace abft::campaign
