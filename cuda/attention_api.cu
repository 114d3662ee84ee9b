/** \file attention_api.cu
 *  \brief C entry points of the GPU attention: the argument check shared with the CPU engine
 *  (core/attention_desc), the descriptor mapped onto the kernels' AttnArgs, injection planned by
 *  the shared planner and handed to the kernel in engine coordinates, and the call counted in
 *  the handle's statistics (its checks arrive with abft_cuda_sync).
 *  Status: compiled for sm_90; run on an H200 (2026-11-30: tests pass, docs/RELIABILITY.md §12).
 */
#include <cuda_runtime.h>

#include <mutex>

#include "abft/abft_cuda.h"
#include "attention_launch.hpp"
#include "core/attention_desc.hpp"
#include "core/internal.hpp"
#include "device_state.hpp"

namespace abft::cuda::attn {
namespace {

bool known_dtype(abft_cuda_dtype t) {
  return t == ABFT_CUDA_FLOAT || t == ABFT_CUDA_HALF || t == ABFT_CUDA_BFLOAT16;
}

AttnArgs args_of(const abft_attention_desc* d) {
  AttnArgs a;
  a.B = d->batch;
  a.H = d->heads;
  a.HK = d->kv_heads;
  a.G = a.HK > 0 ? a.H / a.HK : 1;
  a.Lq = d->q_len;
  a.Lk = d->kv_len;
  a.D = d->head_dim;
  a.off = a.Lk - a.Lq;
  a.scale = d->scale;
  a.causal = d->causal;
  core::attention_strides(d->q_strides, a.H, a.Lq, a.D, a.qs);
  core::attention_strides(d->k_strides, a.HK, a.Lk, a.D, a.ks);
  core::attention_strides(d->v_strides, a.HK, a.Lk, a.D, a.vs);
  core::attention_strides(d->o_strides, a.H, a.Lq, a.D, a.os);
  core::attention_strides(d->mask_strides, a.H, a.Lq, a.Lk, a.ms);
  a.nqb = (a.Lq + kBR - 1) / kBR;
  return a;
}

/** The planned faults in engine coordinates (attention.h): rows of query sites are
 *  bh * q_len + i; the backward's ATTN_DK / ATTN_DV rows count keys, bh * kv_len + j. */
DevFaultList device_faults(const core::InjectionPlan& plan, const AttnArgs& a, bool backward) {
  DevFaultList fl;
  for (const abft_fault& f : plan.faults) {
    if (fl.n == kMaxDevFaults) break;
    DevFault& x = fl.f[fl.n++];
    x.site = int(f.site);
    x.model = int(f.model);
    x.bit = f.bit;
    x.value = f.value;
    const bool key_rows = backward && (f.site == ABFT_SITE_ATTN_DK || f.site == ABFT_SITE_ATTN_DV);
    const int64_t len = key_rows ? a.Lk : a.Lq;
    x.bh = len > 0 ? f.row / len : 0;
    x.r = len > 0 ? f.row % len : 0;
    x.c = f.col;
    x.kpos = f.kpos;
  }
  return fl;
}

/** One call of either direction after its argument checks: the device state, one call at a time
 *  per state in stream order, injection planned by the shared planner (only for the checked
 *  kernels) and landed on the device, the call counted in the handle's statistics once launched
 *  (its checks arrive with abft_cuda_sync). `launch(faults, state, stream, check, correct)`
 *  enqueues the kernels. */
template <class Launch>
abft_status run_call(abft_handle_t h, void* stream, abft_policy policy, abft_kernel kid, const AttnArgs& a,
                     Launch&& launch) {
  State* st = nullptr;
  const abft_status ss = state_of(h, &st);
  if (ss != ABFT_STATUS_SUCCESS) return ss;
  const abft_policy pol = abft::core::resolve_policy(h, policy);
  const bool check = pol != ABFT_POLICY_OFF;
  cudaStream_t s = static_cast<cudaStream_t>(stream);

  std::lock_guard<std::mutex> lock(st->mu);
  begin_call(st, s);
  // Faults land only in the checked kernels (the unprotected ones have no injection points).
  abft::core::InjectionPlan plan;
  if (check) plan = abft::core::plan_injection(h, abft_call_info{kid, a.Lq, a.Lk, a.D, 0, a.B * a.H});
  DevFaultList fl = device_faults(plan, a, kid == ABFT_KERNEL_ATTN_BWD);
  if (fl.n > 0) {
    if (cudaMalloc(&fl.landed, sizeof(double) * 3 * size_t(fl.n)) != cudaSuccess) {
      cudaGetLastError();
      abft::core::finish_injection(plan);
      end_call(st, s);
      return ABFT_STATUS_ALLOC_FAILED;
    }
    cudaMemsetAsync(fl.landed, 0, sizeof(double) * 3 * size_t(fl.n), s);
  }
  const abft_status ls = launch(fl, st, s, check, pol == ABFT_POLICY_CORRECT);
  if (fl.n > 0) {  // injection only: the fault-free path never waits here
    double landed[3 * kMaxDevFaults] = {};
    cudaMemcpyAsync(landed, fl.landed, sizeof(double) * 3 * size_t(fl.n), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    cudaFree(fl.landed);
    for (int x = 0; x < fl.n; ++x) {
      abft_fault& f = plan.faults[size_t(x)];
      if (landed[3 * x] == 0.0) continue;
      f.applied = 1;
      f.original = landed[3 * x + 1];
      f.corrupted = landed[3 * x + 2];
    }
  }
  abft::core::finish_injection(plan);
  end_call(st, s);
  if (ls == ABFT_STATUS_SUCCESS) abft::core::record_call(h, kid, abft_report{});
  return ls;
}

}  // namespace
}  // namespace abft::cuda::attn

using namespace abft::cuda;
using namespace abft::cuda::attn;

extern "C" abft_status abft_cuda_attention_forward(abft_handle_t h, void* stream, abft_policy policy,
                                                   const abft_attention_desc* d, abft_cuda_dtype dtype,
                                                   const void* Q, const void* K, const void* V, const void* mask,
                                                   void* O, float* lse) {
  if (!h) return ABFT_STATUS_NULL_POINTER;
  const abft_status cs = abft::core::check_attention_desc(d, policy);
  if (cs != ABFT_STATUS_SUCCESS) return cs;
  if (!known_dtype(dtype)) return ABFT_STATUS_INVALID_VALUE;
  if (d->batch == 0 || d->heads == 0 || d->q_len == 0) return ABFT_STATUS_SUCCESS;
  if (!Q || !O || (d->kv_len > 0 && (!K || !V))) return ABFT_STATUS_NULL_POINTER;
  AttnArgs a = args_of(d);
  a.q = Q;
  a.k = K;
  a.v = V;
  a.mask = d->kv_len > 0 ? mask : nullptr;
  a.o = O;
  a.lse = lse;
  return run_call(h, stream, policy, ABFT_KERNEL_ATTN_FWD, a,
                  [&](const DevFaultList& fl, State* st, cudaStream_t s, bool check, bool correct) {
                    return forward_launch(dtype, a, fl, st, s, check, correct);
                  });
}

extern "C" abft_status abft_cuda_attention_backward(abft_handle_t h, void* stream, abft_policy policy,
                                                    const abft_attention_desc* d, abft_cuda_dtype dtype,
                                                    const void* Q, const void* K, const void* V, const void* mask,
                                                    const void* O, const void* dO, const float* lse, void* dQ,
                                                    void* dK, void* dV) {
  // Argument checks first, in abft_attention_backward's order, before any CUDA call.
  if (!h) return ABFT_STATUS_NULL_POINTER;
  const abft_status cs = abft::core::check_attention_desc(d, policy);
  if (cs != ABFT_STATUS_SUCCESS) return cs;
  if (!known_dtype(dtype)) return ABFT_STATUS_INVALID_VALUE;
  const bool no_q = d->batch == 0 || d->heads == 0 || d->q_len == 0;
  const bool no_k = d->batch == 0 || d->heads == 0 || d->kv_len == 0;
  if (no_q && no_k) return ABFT_STATUS_SUCCESS;
  if (!no_q && (!Q || !O || !dO || !lse || !dQ)) return ABFT_STATUS_NULL_POINTER;
  if (!no_k && (!K || !V || !dK || !dV)) return ABFT_STATUS_NULL_POINTER;
  AttnArgs a = args_of(d);
  a.q = Q;
  a.k = K;
  a.v = V;
  a.mask = (no_q || no_k) ? nullptr : mask;
  a.o = const_cast<void*>(O);       // read only: the forward's output
  a.lse = const_cast<float*>(lse);  // read only
  AttnBwdPtrs g;
  g.dO = dO;
  g.dq = dQ;
  g.dk = dK;
  g.dv = dV;

  return run_call(h, stream, policy, ABFT_KERNEL_ATTN_BWD, a,
                  [&](const DevFaultList& fl, State* st, cudaStream_t s, bool check, bool correct) {
                    return backward_launch(dtype, a, g, fl, st, s, check, correct);
                  });
}
