/** \file attention_desc.hpp
 *  \brief The attention descriptor's argument check and stride resolution, shared by the CPU
 *  engine (src/cpu/attention) and the CUDA engine (cuda/attention_*): one set of rules for
 *  what a valid abft_attention_desc is, whichever engine runs it.
 */
#pragma once
#include <cstdint>

#include "abft/attention.h"

namespace abft::core {

/** Strides of a [n0, n1, n2, n3] tensor: `given` when any is nonzero, else the contiguous
 *  layout. `out` may alias `given`. */
void attention_strides(const int64_t* given, int64_t n1, int64_t n2, int64_t n3, int64_t* out);

/** NULL_POINTER (d), INVALID_VALUE (policy, causal, a non-finite scale), INVALID_SIZE
 *  (negative sizes, head_dim 0 or above ABFT_ATTENTION_MAX_HEAD_DIM, heads not a multiple of
 *  kv_heads), INVALID_LD (a zero stride on a dimension of size > 1 of Q, K, V or O), else
 *  SUCCESS (documented in attention.h). */
abft_status check_attention_desc(const abft_attention_desc* d, abft_policy policy);

}  // namespace abft::core
