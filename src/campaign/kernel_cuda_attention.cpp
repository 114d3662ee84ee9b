/** \file kernel_cuda_attention.cpp
 *  \brief Campaign adapters of the protected GPU attention (issue 11): kernel "cuda-attn-fwd"
 *  (abft_cuda_attention_forward) and, since 2026-12-07, "cuda-attn-bwd"
 *  (abft_cuda_attention_backward), f32 storage, batch 1, grouped-query heads, causal or full,
 *  no mask, contiguous layouts; --sizes and --variant as attn-fwd / attn-bwd
 *  (attention_shape.hpp). Built only with the CUDA engine; without a usable device the kernel
 *  cannot be made (the campaign says why). Not yet run on a GPU (the emulator runs both:
 *  tests/emu/gpu_campaign_emu_test.cpp).
 *
 *  A run copies nothing but the poisoned outputs (the inputs go up once per trial), calls the
 *  kernel, reads the device counters back with abft_cuda_sync (the run's report) and the
 *  outputs (O, lse / dQ, dK, dV). The backward's O and lse come from the GPU forward, run once
 *  per trial by prepare() under policy OFF on a handle of its own (never the driver's injector),
 *  so a run is the backward call alone. Sites: those the kernels inject at (attention.h; the
 *  forward's six, the backward's eight). Escape limits: the CPU adapters' rule (twice the
 *  bound of the engine's check over the element's block, never below the correctness
 *  tolerance), with the GPU kernels' blocking and coefficients (attn_ref::Blocking::gpu()).
 */
#include "campaign/kernel.hpp"

#ifdef ABFT_HAVE_CUDA
#include <cuda_runtime.h>

#include <limits>
#include <sstream>
#include <utility>
#include <vector>

#include "abft/abft_cuda.h"
#include "abft/checksum/attention_reference.hpp"
#include "campaign/attention_shape.hpp"
#include "campaign/cuda_device.hpp"

namespace abft::campaign {
namespace {

namespace ref = abft::checksum::attn_ref;

class CudaAttnKernel final : public Kernel {
 public:
  explicit CudaAttnKernel(const AttnShape& s) : s_(s) {
    abft_attention_desc_init(&d_, 1, s.heads, s.kv_heads, s.q_len, s.kv_len, s.head_dim);
    d_.causal = s.causal ? 1 : 0;
    Q_.resize(size_t(s.heads * s.q_len * s.head_dim));
    K_.resize(size_t(s.kv_heads * s.kv_len * s.head_dim));
    V_.resize(K_.size());
    if (s.bwd) {
      dO_.resize(Q_.size());
      limits_.resize(Q_.size() + 2 * K_.size());  // dQ, dK, dV
    } else {
      limits_.resize(Q_.size() + size_t(s.heads * s.q_len));  // O, lse
    }
  }
  ~CudaAttnKernel() override {
    for (float* p : {dq_, dk_, dv_, do_, dl_, ddo_, dgq_, dgk_, dgv_}) cudaFree(p);
    if (fwd_handle_) abft_cuda_release(fwd_handle_), abft_handle_destroy(fwd_handle_);
  }
  CudaAttnKernel(const CudaAttnKernel&) = delete;
  CudaAttnKernel& operator=(const CudaAttnKernel&) = delete;
  bool allocate() {
    const size_t nq = Q_.size() * 4, nk = K_.size() * 4;
    bool ok = cudaMalloc(&dq_, nq) == cudaSuccess && cudaMalloc(&dk_, nk) == cudaSuccess &&
              cudaMalloc(&dv_, nk) == cudaSuccess && cudaMalloc(&do_, nq) == cudaSuccess &&
              cudaMalloc(&dl_, size_t(s_.heads * s_.q_len) * 4) == cudaSuccess;
    if (ok && s_.bwd)
      ok = cudaMalloc(&ddo_, nq) == cudaSuccess && cudaMalloc(&dgq_, nq) == cudaSuccess &&
           cudaMalloc(&dgk_, nk) == cudaSuccess && cudaMalloc(&dgv_, nk) == cudaSuccess &&
           abft_handle_create(&fwd_handle_) == ABFT_STATUS_SUCCESS;
    return ok;
  }

  std::string describe() const override {
    std::ostringstream os;
    os << (s_.bwd ? "cuda attention backward" : "cuda attention forward") << " f32 q=" << s_.q_len
       << " kv=" << s_.kv_len << " d=" << s_.head_dim << " heads=" << s_.heads << " kv_heads=" << s_.kv_heads
       << (s_.causal ? " causal" : " full") << " (fused kernel" << (s_.bwd ? "s" : "") << ", 32x32 tiles)";
    return os.str();
  }
  std::vector<abft_site> sites() const override {
    if (s_.bwd)
      return {ABFT_SITE_PACKED_A, ABFT_SITE_ATTN_SCORES, ABFT_SITE_ATTN_PROBS, ABFT_SITE_ATTN_DP,
              ABFT_SITE_ATTN_DS,  ABFT_SITE_ATTN_DQ,     ABFT_SITE_ATTN_DK,    ABFT_SITE_ATTN_DV};
    return {ABFT_SITE_PACKED_A, ABFT_SITE_ATTN_SCORES, ABFT_SITE_ATTN_PROBS,
            ABFT_SITE_ATTN_ROWSTAT, ABFT_SITE_ATTN_ACC, ABFT_SITE_OUTPUT};
  }

  void prepare(uint64_t trial, uint64_t seed) override {
    draw_attention_inputs(trial, seed, Q_, K_, V_, s_.bwd ? &dO_ : nullptr);  // as attn-fwd / attn-bwd
    const ref::Blocking gpu = ref::Blocking::gpu();
    cudaMemcpy(dq_, Q_.data(), Q_.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dk_, K_.data(), K_.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dv_, V_.data(), V_.size() * 4, cudaMemcpyHostToDevice);
    prep_status_ = ABFT_STATUS_SUCCESS;
    if (!s_.bwd) {
      const ref::Forward rf =
          ref::forward(d_, Q_.data(), K_.data(), V_.data(), static_cast<const float*>(nullptr), gpu);
      flatten(ref::forward_escape_limits(d_, rf, 2.0, gpu));
      return;
    }
    // The backward's O and lse: the GPU forward, unprotected, on a handle of its own.
    cudaMemcpy(ddo_, dO_.data(), dO_.size() * 4, cudaMemcpyHostToDevice);
    prep_status_ = abft_cuda_attention_forward(fwd_handle_, nullptr, ABFT_POLICY_OFF, &d_, ABFT_CUDA_FLOAT, dq_, dk_,
                                               dv_, nullptr, do_, dl_);
    if (prep_status_ == ABFT_STATUS_SUCCESS) prep_status_ = abft_cuda_sync(fwd_handle_, nullptr, nullptr);
    std::vector<float> O(Q_.size()), L(size_t(s_.heads * s_.q_len));
    cudaMemcpy(O.data(), do_, O.size() * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(L.data(), dl_, L.size() * 4, cudaMemcpyDeviceToHost);
    const std::vector<double> Od(O.begin(), O.end()), Ld(L.begin(), L.end());
    const ref::Backward rb = ref::backward(d_, Q_.data(), K_.data(), V_.data(), static_cast<const float*>(nullptr),
                                           Od.data(), Ld.data(), dO_.data());
    flatten(ref::backward_escape_limits(d_, rb, ref::max_abs(Ld), 2.0, gpu));
  }

  RunResult run(abft_handle_t h, abft_policy policy) override {
    RunResult r;
    if (prep_status_ != ABFT_STATUS_SUCCESS) {
      r.status = prep_status_;  // the forward prepare() needed failed: no call
      return r;
    }
    // Outputs poisoned with NaN: one the call fails to write shows.
    std::vector<float> nan(limits_.size(), std::numeric_limits<float>::quiet_NaN());
    std::vector<std::pair<float*, size_t>> outs;  // the call's outputs, in limits_' order
    if (s_.bwd) outs = {{dgq_, Q_.size()}, {dgk_, K_.size()}, {dgv_, V_.size()}};
    else outs = {{do_, Q_.size()}, {dl_, size_t(s_.heads * s_.q_len)}};
    size_t at = 0;
    for (const auto& o : outs) {
      if (cudaMemcpy(o.first, nan.data() + at, o.second * 4, cudaMemcpyHostToDevice) != cudaSuccess) {
        r.status = ABFT_STATUS_INTERNAL_ERROR;
        return r;
      }
      at += o.second;
    }
    r.status = s_.bwd ? abft_cuda_attention_backward(h, nullptr, policy, &d_, ABFT_CUDA_FLOAT, dq_, dk_, dv_, nullptr,
                                                     do_, ddo_, dl_, dgq_, dgk_, dgv_)
                      : abft_cuda_attention_forward(h, nullptr, policy, &d_, ABFT_CUDA_FLOAT, dq_, dk_, dv_, nullptr,
                                                    do_, dl_);
    // Always read the counters back: a failed call's counts must not leak into the next run's.
    const abft_status synced = abft_cuda_sync(h, nullptr, &r.report);
    if (r.status == ABFT_STATUS_SUCCESS) r.status = synced;
    r.calls = 1;
    at = 0;
    for (const auto& o : outs) {
      cudaMemcpy(nan.data() + at, o.first, o.second * 4, cudaMemcpyDeviceToHost);
      at += o.second;
    }
    r.out.assign(nan.begin(), nan.end());
    return r;
  }
  const std::vector<double>& limits() const override { return limits_; }

 private:
  /** The limits of every output tensor, in run()'s order. */
  void flatten(const ref::EscapeLimits& e) {
    size_t at = 0;
    for (const auto& t : e.t) {
      std::copy(t.begin(), t.end(), limits_.begin() + long(at));
      at += t.size();
    }
  }

  AttnShape s_;
  abft_attention_desc d_{};
  std::vector<float> Q_, K_, V_, dO_;
  std::vector<double> limits_;  ///< per output scalar: O, then lse / dQ, dK, dV
  // Device: Q, K, V, the forward's O and lse; the backward's dO and gradients.
  float *dq_ = nullptr, *dk_ = nullptr, *dv_ = nullptr, *do_ = nullptr, *dl_ = nullptr;
  float *ddo_ = nullptr, *dgq_ = nullptr, *dgk_ = nullptr, *dgv_ = nullptr;
  abft_handle_t fwd_handle_ = nullptr;  ///< backward: the handle of prepare()'s forward
  abft_status prep_status_ = ABFT_STATUS_SUCCESS;
};

}  // namespace

std::unique_ptr<Kernel> make_cuda_attention_kernel(const KernelOptions& o, std::string* error) {
  AttnShape s;
  s.bwd = o.kernel == "cuda-attn-bwd";
  if (!attention_shape_of(o, o.kernel, s, error)) return nullptr;
  if (!cuda_device_usable(o.kernel.c_str(), error)) return nullptr;
  auto k = std::make_unique<CudaAttnKernel>(s);
  if (!k->allocate()) {
    *error = o.kernel + ": device memory allocation failed";
    return nullptr;
  }
  return k;
}

}  // namespace abft::campaign

#else  // no CUDA engine in this build

#include "campaign/attention_shape.hpp"

namespace abft::campaign {

std::unique_ptr<Kernel> make_cuda_attention_kernel(const KernelOptions& o, std::string* error) {
  AttnShape s;  // bad options are said first, as in a CUDA build
  if (!attention_shape_of(o, o.kernel, s, error)) return nullptr;
  *error = "kernel '" + o.kernel + "' needs the CUDA engine, which this build does not have (no nvcc at configure time)";
  return nullptr;
}

}  // namespace abft::campaign

#endif
