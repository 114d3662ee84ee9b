/** \file attn_api.cpp
 *  \brief C entry points of the attention family: one argument check for both directions,
 *  the mapping of descriptors and planned faults onto the engine's Problem, and the policy /
 *  injection / statistics plumbing shared with GEMM and FFT.
 */
#include <cmath>
#include <new>

#include "core/attention_desc.hpp"
#include "core/cpu_features.hpp"
#include "core/internal.hpp"
#include "cpu/attention/attn_problem.hpp"

namespace abft::cpu::attention {

const AttnKernels& attn_active_kernels() {
  return abft::cpu::active_isa() == ABFT_ISA_REFERENCE ? *attn_kernels_ref() : *attn_kernels_avx2();
}

namespace {

abft_status check_desc(const abft_attention_desc* d, abft_policy policy) {
  return core::check_attention_desc(d, policy);
}

void strides_of(const int64_t* given, int64_t n1, int64_t n2, int64_t n3, int64_t* out) {
  core::attention_strides(given, n1, n2, n3, out);
}

void fill_problem(Problem& P, const abft_attention_desc* d, abft_handle_t h, abft_policy policy) {
  P.B = d->batch;
  P.H = d->heads;
  P.HK = d->kv_heads;
  P.G = P.HK > 0 ? P.H / P.HK : 1;
  P.Lq = d->q_len;
  P.Lk = d->kv_len;
  P.D = d->head_dim;
  P.Dp = (P.D + 15) / 16 * 16;
  P.Dv = (P.D + 2 + 15) / 16 * 16;
  P.scale = d->scale;
  P.causal = d->causal != 0;
  P.off = P.Lk - P.Lq;
  strides_of(d->q_strides, P.H, P.Lq, P.D, P.q.s);
  strides_of(d->k_strides, P.HK, P.Lk, P.D, P.k.s);
  strides_of(d->v_strides, P.HK, P.Lk, P.D, P.v.s);
  strides_of(d->o_strides, P.H, P.Lq, P.D, P.o.s);
  strides_of(d->mask_strides, P.H, P.Lq, P.Lk, P.mask.s);
  for (int i = 0; i < 4; ++i) {
    P.dq.s[i] = P.q.s[i];
    P.dk.s[i] = P.k.s[i];
    P.dv.s[i] = P.v.s[i];
    P.dO.s[i] = P.o_in.s[i] = P.o.s[i];
  }
  const abft_policy pol = core::resolve_policy(h, policy);
  P.check = pol != ABFT_POLICY_OFF;
  P.correct = pol == ABFT_POLICY_CORRECT;
  P.threads = core::resolve_threads(h);
  P.kern = &attn_active_kernels();
}

void map_faults(Problem& P, std::vector<abft_fault>& faults, bool backward) {
  for (abft_fault& f : faults) {
    AttnFault a;
    a.f = &f;
    const bool key_rows = backward && (f.site == ABFT_SITE_ATTN_DK || f.site == ABFT_SITE_ATTN_DV);
    const int64_t len = key_rows ? P.Lk : P.Lq;
    a.bh = f.row / len;
    a.r = f.row % len;
    a.c = f.col;
    a.kpos = f.kpos;
    P.faults.push_back(a);
  }
}

template <class Run>
abft_status entry(abft_kernel kid, abft_handle_t h, abft_policy policy, const abft_attention_desc* d,
                  abft_report* report, Problem& P, Run&& run) {
  try {
    fill_problem(P, d, h, policy);
    abft_call_info call{kid, P.Lq, P.Lk, P.D, 0, P.B * P.H};
    core::InjectionPlan plan = core::plan_injection(h, call);
    if (!plan.empty()) map_faults(P, plan.faults, kid == ABFT_KERNEL_ATTN_BWD);
    abft_report rep{};
    const abft_status rs = run(rep);
    core::finish_injection(plan);
    core::record_call(h, kid, rep);
    if (report) *report = rep;
    return rs;
  } catch (const std::bad_alloc&) {
    return ABFT_STATUS_ALLOC_FAILED;
  } catch (...) {
    return ABFT_STATUS_INTERNAL_ERROR;
  }
}

/** The inputs both directions read. */
void set_inputs(Problem& P, const float* Q, const float* K, const float* V, const float* mask) {
  P.q.data = Q;
  P.k.data = K;
  P.v.data = V;
  P.mask.data = mask;
  P.has_mask = mask != nullptr;
}

}  // namespace
}  // namespace abft::cpu::attention

using namespace abft::cpu::attention;

extern "C" abft_status abft_attention_desc_init(abft_attention_desc* d, int64_t batch,
                                                int64_t heads, int64_t kv_heads, int64_t q_len,
                                                int64_t kv_len, int64_t head_dim) {
  if (!d) return ABFT_STATUS_NULL_POINTER;
  *d = abft_attention_desc{};
  d->batch = batch;
  d->heads = heads;
  d->kv_heads = kv_heads;
  d->q_len = q_len;
  d->kv_len = kv_len;
  d->head_dim = head_dim;
  d->scale = head_dim > 0 ? float(1.0 / std::sqrt(double(head_dim))) : 1.0f;
  d->causal = 0;
  strides_of(d->q_strides, heads, q_len, head_dim, d->q_strides);
  strides_of(d->k_strides, kv_heads, kv_len, head_dim, d->k_strides);
  strides_of(d->v_strides, kv_heads, kv_len, head_dim, d->v_strides);
  strides_of(d->o_strides, heads, q_len, head_dim, d->o_strides);
  return ABFT_STATUS_SUCCESS;
}

extern "C" abft_status abft_attention_forward(abft_handle_t h, abft_policy policy,
                                              const abft_attention_desc* d, const float* Q,
                                              const float* K, const float* V, const float* mask,
                                              float* O, float* lse, abft_report* report) {
  const abft_status st = check_desc(d, policy);
  if (st != ABFT_STATUS_SUCCESS) return st;
  if (report) *report = abft_report{};
  if (d->batch == 0 || d->heads == 0 || d->q_len == 0) return ABFT_STATUS_SUCCESS;
  if (!Q || !O || (d->kv_len > 0 && (!K || !V))) return ABFT_STATUS_NULL_POINTER;
  Problem P;
  set_inputs(P, Q, K, V, mask);
  P.o.data = O;
  P.lse = lse;
  return entry(ABFT_KERNEL_ATTN_FWD, h, policy, d, report, P,
               [&](abft_report& rep) { return run_forward(P, rep); });
}

extern "C" abft_status abft_attention_backward(abft_handle_t h, abft_policy policy,
                                               const abft_attention_desc* d, const float* Q,
                                               const float* K, const float* V, const float* mask,
                                               const float* O, const float* dO, const float* lse,
                                               float* dQ, float* dK, float* dV,
                                               abft_report* report) {
  const abft_status st = check_desc(d, policy);
  if (st != ABFT_STATUS_SUCCESS) return st;
  if (report) *report = abft_report{};
  const bool no_q = d->batch == 0 || d->heads == 0 || d->q_len == 0;
  const bool no_k = d->batch == 0 || d->heads == 0 || d->kv_len == 0;
  if (no_q && no_k) return ABFT_STATUS_SUCCESS;
  if (!no_q && (!Q || !O || !dO || !lse || !dQ)) return ABFT_STATUS_NULL_POINTER;
  if (!no_k && (!K || !V || !dK || !dV)) return ABFT_STATUS_NULL_POINTER;
  Problem P;
  set_inputs(P, Q, K, V, mask);
  P.o_in.data = O;
  P.dO.data = dO;
  P.lse_in = lse;
  P.dq.data = dQ;
  P.dk.data = dK;
  P.dv.data = dV;
  return entry(ABFT_KERNEL_ATTN_BWD, h, policy, d, report, P,
               [&](abft_report& rep) { return run_backward(P, rep); });
}

extern "C" const char* abft_attention_kernel_info(void) { return attn_active_kernels().desc; }
