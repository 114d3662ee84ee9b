/** \file model_pass.hpp
 *  \brief The pieces of a forward pass that the forward (model_forward.cpp) and the backward
 *  (model_backward.cpp) share.
 */
#pragma once
#include <functional>

#include "model_workspace.hpp"

namespace abft::transformer::pass {

/** attend(layer, qkv rows, output rows): attention of the workspace's rows. */
using AttentionFn = std::function<void(int64_t, float*, float*)>;

/** Views of B full causal sequences of T rows each in a QKV buffer (rows W apart) and an
 *  output buffer (rows d apart): one attention call over the batch, no copies. */
ops::AttnViews sequence_attention(const Workspace& ws, int64_t B, int64_t T, const float* qkv, float* o,
                                  float* lse);

/** One decoder layer on ws.rows rows: X(l) -> X(l + 1), activations kept in the workspace. */
void layer_forward(const WeightsView& w, Workspace& ws, int64_t l, const AttentionFn& attend);
/** X(0) from ws.tok and ws.pos. */
void embed(const WeightsView& w, Workspace& ws);
/** ws.nf from X(layers). */
void final_norm(const WeightsView& w, Workspace& ws);
/** logits [n, vocab] of n rows (ld apart). */
void lm_head(const WeightsView& w, Workspace& ws, const float* rows, int64_t n, int64_t ld, float* logits);
/** B sequences of T tokens from position 0, causal, up to ws.nf (no LM head). */
void full_sequence_forward(const WeightsView& w, Workspace& ws, const int32_t* tokens, int64_t B, int64_t T);

}  // namespace abft::transformer::pass
