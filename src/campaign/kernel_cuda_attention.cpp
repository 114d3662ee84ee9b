/** \file kernel_cuda_attention.cpp
 *  \brief Campaign adapter of the protected GPU attention forward (abft_cuda_attention_forward,
 *  issue 11): kernel "cuda-attn-fwd", f32 storage, batch 1, grouped-query heads, causal or full,
 *  no mask, contiguous layouts; --sizes and --variant as attn-fwd (attention_shape.hpp). Built
 *  only with the CUDA engine; without a usable device the kernel cannot be made (the campaign
 *  says why). Not yet run on a GPU.
 *
 *  A run copies nothing but the poisoned outputs (the inputs go up once per trial), calls the
 *  forward, reads the device counters back with abft_cuda_sync (the run's report) and O, lse.
 *  Sites: those the kernel injects at (attention.h; the forward's six). Escape limits: the CPU
 *  adapter's rule (twice the bound of the engine's check over the element's block, never below
 *  the correctness tolerance), with the GPU kernel's blocking and tile coefficient
 *  (attn_ref::Blocking::gpu()).
 */
#include "campaign/kernel.hpp"

#ifdef ABFT_HAVE_CUDA
#include <cuda_runtime.h>

#include <limits>
#include <sstream>

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
    limits_.resize(Q_.size() + size_t(s.heads * s.q_len));
  }
  ~CudaAttnKernel() override {
    for (float* p : {dq_, dk_, dv_, do_, dl_}) cudaFree(p);
  }
  CudaAttnKernel(const CudaAttnKernel&) = delete;
  CudaAttnKernel& operator=(const CudaAttnKernel&) = delete;
  bool allocate() {
    return cudaMalloc(&dq_, Q_.size() * 4) == cudaSuccess && cudaMalloc(&dk_, K_.size() * 4) == cudaSuccess &&
           cudaMalloc(&dv_, V_.size() * 4) == cudaSuccess && cudaMalloc(&do_, Q_.size() * 4) == cudaSuccess &&
           cudaMalloc(&dl_, size_t(s_.heads * s_.q_len) * 4) == cudaSuccess;
  }

  std::string describe() const override {
    std::ostringstream os;
    os << "cuda attention forward f32 q=" << s_.q_len << " kv=" << s_.kv_len << " d=" << s_.head_dim
       << " heads=" << s_.heads << " kv_heads=" << s_.kv_heads << (s_.causal ? " causal" : " full")
       << " (fused kernel, 32x32 tiles)";
    return os.str();
  }
  std::vector<abft_site> sites() const override {
    return {ABFT_SITE_PACKED_A, ABFT_SITE_ATTN_SCORES, ABFT_SITE_ATTN_PROBS,
            ABFT_SITE_ATTN_ROWSTAT, ABFT_SITE_ATTN_ACC, ABFT_SITE_OUTPUT};
  }

  void prepare(uint64_t trial, uint64_t seed) override {
    draw_attention_inputs(trial, seed, Q_, K_, V_, nullptr);  // as attn-fwd
    const ref::Blocking gpu = ref::Blocking::gpu();
    const ref::Forward rf =
        ref::forward(d_, Q_.data(), K_.data(), V_.data(), static_cast<const float*>(nullptr), gpu);
    const ref::EscapeLimits e = ref::forward_escape_limits(d_, rf, 2.0, gpu);
    size_t at = 0;
    for (const auto& t : e.t) {
      std::copy(t.begin(), t.end(), limits_.begin() + long(at));
      at += t.size();
    }
    cudaMemcpy(dq_, Q_.data(), Q_.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dk_, K_.data(), K_.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dv_, V_.data(), V_.size() * 4, cudaMemcpyHostToDevice);
  }

  RunResult run(abft_handle_t h, abft_policy policy) override {
    RunResult r;
    // Outputs poisoned with NaN: one the call fails to write shows.
    std::vector<float> nan(limits_.size(), std::numeric_limits<float>::quiet_NaN());
    const size_t nO = Q_.size();
    if (cudaMemcpy(do_, nan.data(), nO * 4, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(dl_, nan.data() + nO, (nan.size() - nO) * 4, cudaMemcpyHostToDevice) != cudaSuccess) {
      r.status = ABFT_STATUS_INTERNAL_ERROR;
      return r;
    }
    r.status = abft_cuda_attention_forward(h, nullptr, policy, &d_, ABFT_CUDA_FLOAT, dq_, dk_, dv_, nullptr, do_, dl_);
    // Always read the counters back: a failed call's counts must not leak into the next run's.
    const abft_status synced = abft_cuda_sync(h, nullptr, &r.report);
    if (r.status == ABFT_STATUS_SUCCESS) r.status = synced;
    r.calls = 1;
    cudaMemcpy(nan.data(), do_, nO * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(nan.data() + nO, dl_, (nan.size() - nO) * 4, cudaMemcpyDeviceToHost);
    r.out.assign(nan.begin(), nan.end());
    return r;
  }
  const std::vector<double>& limits() const override { return limits_; }

 private:
  AttnShape s_;
  abft_attention_desc d_{};
  std::vector<float> Q_, K_, V_;
  std::vector<double> limits_;  ///< per output scalar: O, then lse
  float *dq_ = nullptr, *dk_ = nullptr, *dv_ = nullptr, *do_ = nullptr, *dl_ = nullptr;
};

}  // namespace

std::unique_ptr<Kernel> make_cuda_attention_kernel(const KernelOptions& o, std::string* error) {
  AttnShape s;
  if (!attention_shape_of(o, o.kernel, s, error)) return nullptr;
  if (!cuda_device_usable("cuda-attn-fwd", error)) return nullptr;
  auto k = std::make_unique<CudaAttnKernel>(s);
  if (!k->allocate()) {
    *error = "cuda-attn-fwd: device memory allocation failed";
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
  *error = "kernel 'cuda-attn-fwd' needs the CUDA engine, which this build does not have (no nvcc at configure time)";
  return nullptr;
}

}  // namespace abft::campaign

#endif
