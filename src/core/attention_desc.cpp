/** \file attention_desc.cpp
 *  \brief The attention descriptor's argument check, shared by the CPU and CUDA engines.
 */
#include "core/attention_desc.hpp"

#include <cmath>

namespace abft::core {

namespace {
bool all_zero(const int64_t* s) { return !s[0] && !s[1] && !s[2] && !s[3]; }
}  // namespace

void attention_strides(const int64_t* given, int64_t n1, int64_t n2, int64_t n3, int64_t* out) {
  if (!all_zero(given)) {
    for (int i = 0; i < 4; ++i) out[i] = given[i];
    return;
  }
  out[3] = 1;
  out[2] = n3;
  out[1] = n2 * n3;
  out[0] = n1 * n2 * n3;
}

abft_status check_attention_desc(const abft_attention_desc* d, abft_policy policy) {
  if (!d) return ABFT_STATUS_NULL_POINTER;
  if (policy < ABFT_POLICY_DEFAULT || policy > ABFT_POLICY_CORRECT) return ABFT_STATUS_INVALID_VALUE;
  if (d->causal != 0 && d->causal != 1) return ABFT_STATUS_INVALID_VALUE;
  if (!std::isfinite(d->scale)) return ABFT_STATUS_INVALID_VALUE;
  if (d->batch < 0 || d->heads < 0 || d->kv_heads < 0 || d->q_len < 0 || d->kv_len < 0 ||
      d->head_dim < 0)
    return ABFT_STATUS_INVALID_SIZE;
  if (d->head_dim == 0 || d->head_dim > ABFT_ATTENTION_MAX_HEAD_DIM) return ABFT_STATUS_INVALID_SIZE;
  if (d->heads > 0 && (d->kv_heads == 0 || d->heads % d->kv_heads != 0)) return ABFT_STATUS_INVALID_SIZE;
  if (d->heads == 0 && d->kv_heads != 0) return ABFT_STATUS_INVALID_SIZE;
  // A stride of zero is only meaningful for a broadcast mask; data tensors need the
  // dimensions they index to be distinct (a zero stride on a dimension of size > 1 would
  // make outputs alias).
  const int64_t qd[4] = {d->batch, d->heads, d->q_len, d->head_dim};
  const int64_t kd[4] = {d->batch, d->kv_heads, d->kv_len, d->head_dim};
  const int64_t* sets[4] = {d->q_strides, d->k_strides, d->v_strides, d->o_strides};
  const int64_t* dims[4] = {qd, kd, kd, qd};
  for (int t = 0; t < 4; ++t) {
    if (all_zero(sets[t])) continue;
    // An empty tensor (a zero size) has no two elements to alias: abft_attention_desc_init
    // writes zero strides for it (e.g. q_len 0 makes the heads stride 0).
    if (!dims[t][0] || !dims[t][1] || !dims[t][2] || !dims[t][3]) continue;
    for (int i = 0; i < 4; ++i)
      if (sets[t][i] == 0 && dims[t][i] > 1) return ABFT_STATUS_INVALID_LD;
  }
  return ABFT_STATUS_SUCCESS;
}

}  // namespace abft::core
