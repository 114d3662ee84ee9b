/** \file kernel_cuda_fft.cpp
 *  \brief Campaign adapter of the protected GPU FFT (abft_cuda_fft_*, issue 10): kernel
 *  "cuda-fft", f32 and f64, a batch of transforms, --variant c2c (forward), c2c-bwd, r2c, c2r
 *  (1D; --sizes n[,batch], default 4096,8), or the same with -2d / -3d appended (--sizes
 *  n0,n1[,batch], default 64,64,8, or n0,n1,n2[,batch], default 16,16,16,8). A C2R's input is
 *  drawn Hermitian-consistent, as a real signal's spectrum is. Built only with the CUDA engine;
 *  without a usable device the kernel cannot be made (the campaign says why). Not yet run on a GPU.
 *
 *  A run copies the trial's input to the device, executes the plan (made once per handle), reads
 *  the device counters back with abft_cuda_sync (the run's report) and the output. Sites: the
 *  output before verification and the input cuFFT reads (ABFT_SITE_FFT_STAGE, kpos 0).
 *  Limits, per signal: what an escaped fault can leave, from the engine's own bound
 *  (fft_library_bound over the same shape, weights and sum depth): an output fault moves the
 *  check by at least half of itself (R2C's mirror at half weight; fully for C2C and C2R, whose
 *  min |w_j| is 1), an input fault by at least half of its largest effect on an output (|v_j| >=
 *  1/2), so 4 x (bound) covers both together with the clean residual; C2R's input errors move
 *  the check by at least g of themselves, g the engine's tables' smallest gain over bin and
 *  phase (fft_c2r_min_gain, docs/ABFT.md §12.1), and its outputs by up to twice: 4 / g x (and
 *  at least 4 x).
 */
#include "campaign/kernel.hpp"

#ifdef ABFT_HAVE_CUDA
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "abft/abft_cuda.h"
#include "abft/fft.h"
#include "abft/checksum/fft_c2r_weights.hpp"
#include "campaign/cuda_device.hpp"
#include "campaign/input_gen.hpp"
#include "cpu/fft/c2r_tables.hpp"

namespace abft::campaign {
namespace {

namespace ck = abft::checksum;

struct CudaFftShape {
  abft_fft_kind kind = ABFT_FFT_C2C;
  int sign = -1;
  std::string variant = "c2c";
  int rank = 1;
  int64_t n[3] = {4096, 1, 1};
  int64_t batch = 8;
  ck::FftLibraryShape lib() const {
    ck::FftLibraryShape sh;
    sh.rank = rank;
    for (int d = 0; d < 3; ++d) sh.n[d] = n[d];
    sh.kind = int(kind);
    sh.sign = sign;
    return sh;
  }
  int64_t in_elems() const { return lib().in_count(); }
  int64_t out_elems() const { return lib().out_count(); }
  int in_per() const { return kind == ABFT_FFT_R2C ? 1 : 2; }
  int out_per() const { return kind == ABFT_FFT_C2R ? 1 : 2; }
};

template <class T>
class CudaFftKernel final : public Kernel {
 public:
  explicit CudaFftKernel(const CudaFftShape& s)
      : s_(s), in_(size_t(s.batch * s.in_elems() * s.in_per())), limits_(size_t(s.batch * s.out_elems() * s.out_per())) {}
  ~CudaFftKernel() override {
    if (plan_) abft_cuda_fft_destroy(plan_);
    cudaFree(din_);
    cudaFree(dout_);
  }
  CudaFftKernel(const CudaFftKernel&) = delete;
  CudaFftKernel& operator=(const CudaFftKernel&) = delete;
  bool allocate() {
    return cudaMalloc(&din_, in_.size() * sizeof(T)) == cudaSuccess &&
           cudaMalloc(&dout_, limits_.size() * sizeof(T)) == cudaSuccess;
  }

  std::string describe() const override {
    std::ostringstream os;
    os << (sizeof(T) == 4 ? "cuda sfft " : "cuda dfft ") << s_.variant << " n=";
    for (int d = 0; d < s_.rank; ++d) os << (d ? "x" : "") << s_.n[d];
    os << " batch=" << s_.batch
       << " (cuFFT transform, abft checks)";
    return os.str();
  }
  std::vector<abft_site> sites() const override { return {ABFT_SITE_OUTPUT, ABFT_SITE_FFT_STAGE}; }

  void prepare(uint64_t trial, uint64_t seed) override {
    InputRng rng(seed);
    const InputDist dist = input_dist_of(trial);
    for (T& x : in_) x = static_cast<T>(rng.draw(dist));
    const int64_t ie = s_.in_elems(), ip = s_.in_per();
    const ck::FftLibraryShape sh = s_.lib();
    if (s_.kind == ABFT_FFT_C2R)  // Hermitian-consistent, as a real signal's spectrum
      for (int64_t b = 0; b < s_.batch; ++b) ck::fft_c2r_make_hermitian(in_.data() + size_t(b * ie * 2), sh);
    double w_norm = ck::fft_library_w_norm(sh), v_norm = 0;
    if (s_.kind == ABFT_FFT_C2R) {
      if (c2r_w_norm_ == 0) {  // the engine's tables (if the CPU FFT cannot plan: generous norms)
        ck::FftC2RTables t;
        if (abft::fft::detail::c2r_tables(sh, t))
          c2r_w_norm_ = t.w_norm, c2r_v_norm_ = t.v_norm, c2r_gain_ = ck::fft_c2r_min_gain(sh, t);
        else
          c2r_w_norm_ = 4.0 * std::sqrt(double(sh.total())), c2r_v_norm_ = 4.0 * double(sh.total()), c2r_gain_ = 0.2;
      }
      w_norm = c2r_w_norm_, v_norm = c2r_v_norm_;
    } else {
      v_norm = ck::fft_library_v_norm(sh);
    }
    const ck::FftUnitBound b = ck::fft_library_bound<T>(sh, w_norm, v_norm, ck::fft_engine_sum_depth(ie, s_.out_elems()));
    // C2R: an input error moves the check by at least c2r_gain_ of itself at its worst phase
    // and an output by up to twice itself: 2 x 2 / gain.
    const double factor = s_.kind == ABFT_FFT_C2R ? std::max(4.0, 4.0 / c2r_gain_) : 4.0;
    const size_t out_sig = size_t(s_.out_elems() * s_.out_per());
    for (int64_t k = 0; k < s_.batch; ++k) {
      long double ss = 0;
      const T* x = in_.data() + size_t(k * ie * ip);
      for (int64_t i = 0; i < ie * ip; ++i) ss += static_cast<long double>(x[i]) * x[i];
      const double lim = factor * b.bound(double(std::sqrt(ss)));
      for (size_t e = 0; e < out_sig; ++e) limits_[size_t(k) * out_sig + e] = lim;
    }
    cudaMemcpy(din_, in_.data(), in_.size() * sizeof(T), cudaMemcpyHostToDevice);
  }

  RunResult run(abft_handle_t h, abft_policy policy) override {
    RunResult r;
    if (!plan_ || h != plan_handle_) {
      if (plan_) abft_cuda_fft_destroy(plan_);
      plan_ = nullptr;
      r.status = abft_cuda_fft_plan_many(&plan_, h, sizeof(T) == 4 ? ABFT_PRECISION_FLOAT : ABFT_PRECISION_DOUBLE,
                                         s_.kind, s_.rank, s_.n, s_.sign, s_.batch, nullptr, 1, s_.in_elems(), nullptr,
                                         1, s_.out_elems());
      if (r.status != ABFT_STATUS_SUCCESS) {
        plan_ = nullptr;
        return r;
      }
      plan_handle_ = h;
    }
    // The input again (a C2R transform may overwrite it), the output poisoned with NaN.
    std::vector<T> nan(limits_.size(), std::numeric_limits<T>::quiet_NaN());
    if (cudaMemcpy(din_, in_.data(), in_.size() * sizeof(T), cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(dout_, nan.data(), nan.size() * sizeof(T), cudaMemcpyHostToDevice) != cudaSuccess) {
      r.status = ABFT_STATUS_INTERNAL_ERROR;
      return r;
    }
    r.status = abft_cuda_fft_set_policy(plan_, policy);
    if (r.status == ABFT_STATUS_SUCCESS) r.status = abft_cuda_fft_execute(plan_, nullptr, din_, dout_);
    // Always read the counters back: a failed call's counts must not leak into the next run's.
    const abft_status synced = abft_cuda_sync(h, nullptr, &r.report);
    if (r.status == ABFT_STATUS_SUCCESS) r.status = synced;
    r.calls = 1;
    cudaMemcpy(nan.data(), dout_, nan.size() * sizeof(T), cudaMemcpyDeviceToHost);
    r.out.assign(nan.begin(), nan.end());
    return r;
  }
  const std::vector<double>& limits() const override { return limits_; }

 private:
  CudaFftShape s_;
  std::vector<T> in_;
  std::vector<double> limits_;
  T *din_ = nullptr, *dout_ = nullptr;
  double c2r_w_norm_ = 0, c2r_v_norm_ = 0;  ///< the engine's C2R weight norms (same construction)
  double c2r_gain_ = 0.2;                    ///< their smallest gain (fft_c2r_min_gain)
  abft_cuda_fft_plan_t plan_ = nullptr;
  abft_handle_t plan_handle_ = nullptr;
};

}  // namespace

std::unique_ptr<Kernel> make_cuda_fft_kernel(const KernelOptions& o, std::string* error) {
  CudaFftShape s;
  std::string base = o.variant.empty() ? "c2c" : o.variant;
  for (int r : {2, 3}) {
    const std::string suffix = "-" + std::to_string(r) + "d";
    if (base.size() > suffix.size() && base.compare(base.size() - suffix.size(), suffix.size(), suffix) == 0)
      s.rank = r, base.resize(base.size() - suffix.size());
  }
  if (base == "c2c") s.kind = ABFT_FFT_C2C, s.sign = -1;
  else if (base == "c2c-bwd") s.kind = ABFT_FFT_C2C, s.sign = +1;
  else if (base == "r2c") s.kind = ABFT_FFT_R2C, s.sign = -1;
  else if (base == "c2r") s.kind = ABFT_FFT_C2R, s.sign = +1;
  else {
    *error = "cuda-fft: --variant '" + o.variant +
             "' is not one of c2c (forward), c2c-bwd, r2c, c2r, optionally with -2d or -3d appended";
    return nullptr;
  }
  s.variant = o.variant.empty() ? "c2c" : o.variant;
  const int64_t defaults[3][3] = {{4096, 1, 1}, {64, 64, 1}, {16, 16, 16}};
  for (int d = 0; d < 3; ++d) s.n[d] = defaults[s.rank - 1][d];
  if (o.sizes.size() > size_t(s.rank) + 1) {
    *error = s.rank == 1 ? "cuda-fft: --sizes takes n[,batch] (a batch of 1D transforms of length n)"
                         : "cuda-fft: --sizes takes " + std::string(s.rank == 2 ? "n0,n1" : "n0,n1,n2") +
                               "[,batch] for a " + std::to_string(s.rank) + "D variant";
    return nullptr;
  }
  if (!o.sizes.empty()) {
    if (o.sizes.size() < size_t(s.rank)) {
      *error = "cuda-fft: --sizes needs all " + std::to_string(s.rank) + " lengths of a " + std::to_string(s.rank) +
               "D variant";
      return nullptr;
    }
    for (int d = 0; d < s.rank; ++d) s.n[d] = o.sizes[size_t(d)];
    if (o.sizes.size() == size_t(s.rank) + 1) s.batch = o.sizes[size_t(s.rank)];
  }
  int64_t total = 1;
  bool sizes_ok = s.batch >= 1;
  for (int d = 0; d < s.rank && sizes_ok; ++d) {
    sizes_ok = s.n[d] >= 1 && s.n[d] <= (int64_t(1) << 24) / total;
    if (sizes_ok) total *= s.n[d];
  }
  if (!sizes_ok || s.batch > (int64_t(1) << 26) / total) {
    *error = "cuda-fft: --sizes needs lengths >= 1, batch >= 1, at most 2^24 points a signal and 2^26 in all";
    return nullptr;
  }
  if (!cuda_device_usable("cuda-fft", error)) return nullptr;
  std::unique_ptr<Kernel> k;
  if (o.type == DataType::F32) {
    auto g = std::make_unique<CudaFftKernel<float>>(s);
    if (g->allocate()) k = std::move(g);
  } else {
    auto g = std::make_unique<CudaFftKernel<double>>(s);
    if (g->allocate()) k = std::move(g);
  }
  if (!k) *error = "cuda-fft: device memory allocation failed";
  return k;
}

}  // namespace abft::campaign

#else  // no CUDA engine in this build

namespace abft::campaign {

std::unique_ptr<Kernel> make_cuda_fft_kernel(const KernelOptions&, std::string* error) {
  *error = "kernel 'cuda-fft' needs the CUDA engine, which this build does not have (no nvcc at configure time)";
  return nullptr;
}

}  // namespace abft::campaign

#endif
