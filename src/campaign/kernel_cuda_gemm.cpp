/** \file kernel_cuda_gemm.cpp
 *  \brief Campaign adapter of the protected GPU GEMM (abft_cuda_sgemm / dgemm, issue 9): kernel
 *  "cuda-gemm", f32 and f64, column-major, --sizes m,n,k (default 512,512,512), --variant
 *  <ta><tb> (default nn). Built only with the CUDA engine; without a usable device the kernel
 *  cannot be made (the campaign says why). Not yet run on a GPU.
 *
 *  A run copies the trial's C0 to the device, calls the engine, reads the device counters back
 *  with abft_cuda_sync (the run's report) and C. Sites: output and the operand copies (a
 *  library's product has no accumulator site). Limits: twice the engine's column bound
 *  (library_line_escape of gemm_library_check.hpp), from the same shared functions on the host
 *  data.
 */
#include "campaign/kernel.hpp"

#ifdef ABFT_HAVE_CUDA
#include <cuda_runtime.h>

#include <cmath>

#include "abft/abft_cuda.h"
#include "abft/checksum/gemm_library_check.hpp"
#include "campaign/cuda_device.hpp"
#include "campaign/input_gen.hpp"

namespace abft::campaign {
namespace {

namespace ck = abft::checksum;

template <class T>
class CudaGemmKernel final : public Kernel {
 public:
  CudaGemmKernel(int64_t m, int64_t n, int64_t k, bool ta, bool tb) : m_(m), n_(n), k_(k), ta_(ta), tb_(tb) {
    A_.resize(size_t(m * k));
    B_.resize(size_t(k * n));
    C0_.resize(size_t(m * n));
    lim_.resize(C0_.size());
  }
  ~CudaGemmKernel() override {
    cudaFree(dA_);
    cudaFree(dB_);
    cudaFree(dC_);
  }
  bool allocate() {
    return cudaMalloc(&dA_, A_.size() * sizeof(T)) == cudaSuccess &&
           cudaMalloc(&dB_, B_.size() * sizeof(T)) == cudaSuccess &&
           cudaMalloc(&dC_, C0_.size() * sizeof(T)) == cudaSuccess;
  }

  std::string describe() const override {
    return std::string(sizeof(T) == 4 ? "cuda sgemm" : "cuda dgemm") + " m=" + std::to_string(m_) +
           " n=" + std::to_string(n_) + " k=" + std::to_string(k_) + " column-major " + (ta_ ? "t" : "n") +
           (tb_ ? "t" : "n") + ", alpha 1, beta in {0,0.5} (cuBLAS product, abft checks)";
  }
  std::vector<abft_site> sites() const override {
    return {ABFT_SITE_OUTPUT, ABFT_SITE_PACKED_A, ABFT_SITE_PACKED_B};
  }

  void prepare(uint64_t trial, uint64_t seed) override {
    InputRng r(seed);
    const InputDist d = input_dist_of(trial);
    for (T& x : A_) x = T(r.draw(d, -3.0, 3.0));
    for (T& x : B_) x = T(r.draw(d, -3.0, 3.0));
    for (T& x : C0_) x = T(r.draw(d, -3.0, 3.0));
    beta_ = (trial / 3) % 2 ? T(0.5) : T(0);
    cudaMemcpy(dA_, A_.data(), A_.size() * sizeof(T), cudaMemcpyHostToDevice);
    cudaMemcpy(dB_, B_.data(), B_.size() * sizeof(T), cudaMemcpyHostToDevice);
    compute_limits();
  }

  RunResult run(abft_handle_t h, abft_policy policy) override {
    RunResult r;
    if (cudaMemcpy(dC_, C0_.data(), C0_.size() * sizeof(T), cudaMemcpyHostToDevice) != cudaSuccess) {
      r.status = ABFT_STATUS_INTERNAL_ERROR;
      return r;
    }
    const abft_op a = ta_ ? ABFT_TRANS : ABFT_NO_TRANS, b = tb_ ? ABFT_TRANS : ABFT_NO_TRANS;
    const int64_t lda = ta_ ? k_ : m_, ldb = tb_ ? n_ : k_;
    if constexpr (sizeof(T) == 4)
      r.status = abft_cuda_sgemm(h, nullptr, policy, ABFT_COL_MAJOR, a, b, m_, n_, k_, 1.0f, dA_, lda, dB_, ldb,
                                 beta_, dC_, m_);
    else
      r.status = abft_cuda_dgemm(h, nullptr, policy, ABFT_COL_MAJOR, a, b, m_, n_, k_, 1.0, dA_, lda, dB_, ldb,
                                 beta_, dC_, m_);
    // Always read the counters back: a failed call's counts must not leak into the next run's.
    const abft_status synced = abft_cuda_sync(h, nullptr, &r.report);
    if (r.status == ABFT_STATUS_SUCCESS) r.status = synced;
    r.calls = 1;
    std::vector<T> C(C0_.size());
    cudaMemcpy(C.data(), dC_, C.size() * sizeof(T), cudaMemcpyDeviceToHost);
    r.out.assign(C.begin(), C.end());
    return r;
  }
  const std::vector<double>& limits() const override { return lim_; }

 private:
  double opA(int64_t i, int64_t p) const { return double(ta_ ? A_[size_t(p + i * k_)] : A_[size_t(i + p * m_)]); }
  double opB(int64_t p, int64_t j) const { return double(tb_ ? B_[size_t(j + p * n_)] : B_[size_t(p + j * k_)]); }

  /** 2 x the engine's bound of each column, from the shared functions on the host data. */
  void compute_limits() {
    // TF32 may be on for float (ABFT_CUDA_TF32): its looser bound is the safe escape limit.
    const ck::LibraryGemmPrecision prec =
        ck::library_precision(sizeof(T) == 4 ? ck::NumFormat::F32 : ck::NumFormat::F64, true);
    const double coef = ck::library_line_coefficient(prec, m_, k_);
    const double coef_out = ck::library_line_output_coefficient(prec, m_);
    const double abs = ck::library_line_abs_term(prec, m_, k_, 1.0, std::fabs(double(beta_)));
    // The engine's column sums weight row i by r_i (1 or 2, library_row_weight): an element's
    // change counts r_i >= 1 times against a bound in the weighted magnitudes, so the escape of
    // one element is at most the bound's escape from the weighted X.
    auto rw = [](int64_t i) { return ck::library_row_weight(i); };
    std::vector<double> v(static_cast<size_t>(k_)), w(static_cast<size_t>(k_));
    for (int64_t p = 0; p < k_; ++p)
      ck::library_line_sum(m_, [&](int64_t i) { return rw(i) * opA(i, p); }, &v[size_t(p)], &w[size_t(p)]);
    for (int64_t j = 0; j < n_; ++j) {
      double c0s = 0, c0a = 0, ref = 0, X = 0;
      if (beta_ != T(0))
        ck::library_line_sum(m_, [&](int64_t i) { return rw(i) * double(C0_[size_t(i + j * m_)]); }, &c0s, &c0a);
      ck::library_line_reference(k_, v.data(), w.data(), [&](int64_t p) { return opB(p, j); }, 1.0, double(beta_),
                                 c0s, c0a, &ref, &X);
      // W (the clean column's sum of binade_floor |C_ij|) is at most sum |C_ij| <= 2 X here (no
      // output rounding for f32 / f64; coef_out is the double sums' share, ~m 2^-53).
      const double e = ck::library_line_escape(X, 2.0 * X, coef, coef_out, abs);
      for (int64_t i = 0; i < m_; ++i) lim_[size_t(i + j * m_)] = e;
    }
  }

  int64_t m_, n_, k_;
  bool ta_, tb_;
  T beta_ = T(0);
  std::vector<T> A_, B_, C0_;
  std::vector<double> lim_;
  T *dA_ = nullptr, *dB_ = nullptr, *dC_ = nullptr;
};

}  // namespace

std::unique_ptr<Kernel> make_cuda_gemm_kernel(const KernelOptions& o, std::string* error) {
  if (!cuda_device_usable("cuda-gemm", error)) return nullptr;
  const std::vector<int64_t> s = o.sizes.empty() ? std::vector<int64_t>{512, 512, 512} : o.sizes;
  if (s.size() != 3 || s[0] < 1 || s[1] < 1 || s[2] < 1) {
    *error = "--sizes for cuda-gemm needs m,n,k (positive)";
    return nullptr;
  }
  const std::string v = o.variant.empty() ? "nn" : o.variant;
  if (v.size() != 2 || (v[0] != 'n' && v[0] != 't') || (v[1] != 'n' && v[1] != 't')) {
    *error = "--variant for cuda-gemm needs <ta><tb> with ta, tb in n, t, got '" + o.variant + "'";
    return nullptr;
  }
  std::unique_ptr<Kernel> k;
  if (o.type == DataType::F32) {
    auto g = std::make_unique<CudaGemmKernel<float>>(s[0], s[1], s[2], v[0] == 't', v[1] == 't');
    if (g->allocate()) k = std::move(g);
  } else {
    auto g = std::make_unique<CudaGemmKernel<double>>(s[0], s[1], s[2], v[0] == 't', v[1] == 't');
    if (g->allocate()) k = std::move(g);
  }
  if (!k) *error = "cuda-gemm: device memory allocation failed";
  return k;
}

}  // namespace abft::campaign

#else  // no CUDA engine in this build

namespace abft::campaign {

std::unique_ptr<Kernel> make_cuda_gemm_kernel(const KernelOptions&, std::string* error) {
  *error = "kernel 'cuda-gemm' needs the CUDA engine, which this build does not have (no nvcc at configure time)";
  return nullptr;
}

}  // namespace abft::campaign

#endif
