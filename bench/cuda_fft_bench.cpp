/** \file cuda_fft_bench.cpp
 *  \brief The protected GPU FFT (abft_cuda_fft_*) against plain cuFFT in the same run: batched
 *  1D c2c and r2c, float and double, n = 2^8 ... 2^22, out of place, the batch filling 2^25
 *  elements (float) or 2^24 (double) per call. Each iteration times both (CUDA events, the
 *  order alternating) after one untimed warm-up of each, so the ratio is paired; counters:
 *  GFLOP/s of each (5 n log2 n per complex transform, half for real) and `vs_cufft` =
 *  protected time / cuFFT time (each call from an idle device); `vs_cufft_burst`, the same for
 *  bursts of back-to-back calls (cuda_bench_util.hpp). Every row skips (with the reason) when no device is usable.
 *  Rows cuda_fft/...: the plan as made by default (its sums inside cuFFT's kernels, counter
 *  `sums` = 1, or in passes where cuFFT refused the callbacks, 0); rows cuda_fft-passes/...: a
 *  few sizes planned with ABFT_CUDA_FFT_SUMS=passes, the comparison between the two ways.
 *  `plan_ms`: the protected plan's making (the callbacks are linked into cuFFT's kernels then).
 *  Rows cuda_fft-md/...: 2D and 3D transforms (c2c forward, r2c, and c2r, whose protected call
 *  also makes its self-conjugate planes Hermitian first: docs/ABFT.md §12.1), float, a batch
 *  filling 2^24 elements; no bar (issue 10's is on the batched 1D rows).
 *  Run by scripts/gpu-check.sh. The passes ran on an H200 (2026-11-30); the callbacks and the
 *  multi-dimensional rows not yet.
 */
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>
#include <cufft.h>
#include <cufftXt.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "abft/abft.h"
#include "abft/abft_cuda.h"
#include "cuda_bench_util.hpp"

namespace {

/** What a row holds on the device: the handle, the protected plan, cuFFT's plan and the arrays,
 *  released on every way out. */
struct RowState {
  abft_handle_t h = nullptr;
  abft_cuda_fft_plan_t p = nullptr;
  cufftHandle plain = 0;
  std::vector<void*> bufs;
  void* alloc(size_t bytes) {
    void* d = nullptr;
    if (cudaMalloc(&d, bytes) != cudaSuccess) return nullptr;
    bufs.push_back(d);
    return d;
  }
  ~RowState() {
    if (plain) cufftDestroy(plain);
    if (p) abft_cuda_fft_destroy(p);
    if (h) abft_cuda_release(h), abft_handle_destroy(h);
    for (void* d : bufs) cudaFree(d);
  }
};

/** The counters of a row from its paired times (`flops` per call): GFLOP/s of each, the ratios,
 *  the device's detections after the run (a clean run flagged is an error), the batch, how the
 *  plan forms its sums (and cuFFT's result where it refused the callbacks) and its making. */
void report(benchmark::State& state, const abft_bench::PairedTimes& times, double flops, int64_t batch,
            abft_handle_t h, abft_cuda_fft_plan_t p, double plan_ms) {
  abft_report r{};
  const abft_status ss = abft_cuda_sync(h, nullptr, &r);
  state.counters["cufft_GFLOPs"] = flops * double(times.iterations) / times.plain * 1e-9;
  state.counters["abft_GFLOPs"] = flops * double(times.iterations) / times.protected_ * 1e-9;
  state.counters["vs_cufft"] = times.protected_ / times.plain;
  if (times.burst_plain > 0) state.counters["vs_cufft_burst"] = times.burst_protected / times.burst_plain;
  state.counters["detected"] = double(r.detected);
  state.counters["batch"] = double(batch);
  abft_cuda_fft_sums sums = ABFT_CUDA_FFT_SUMS_PASSES;
  abft_cuda_fft_get_sums(p, &sums);
  state.counters["sums"] = sums == ABFT_CUDA_FFT_SUMS_CALLBACKS ? 1.0 : 0.0;
  const char* refused_at = nullptr;  // a plan that fell back to passes: cuFFT's result, in the table
  int refused = 0;
  abft_cuda_fft_get_callback_refusal(p, &refused_at, &refused);
  state.counters["cb_refused"] = double(refused);
  state.counters["plan_ms"] = plan_ms;
  if (ss != ABFT_STATUS_SUCCESS || r.detected) state.SkipWithError("a clean run was flagged (false positive)");
}

void BM_fft(benchmark::State& state, bool dbl, bool real, int64_t n, bool passes) {
  if (!abft_bench::device_or_skip(state)) return;
  n = abft_bench::rehearsal_extent(n, 512);
  const int64_t total = abft_bench::rehearsal_extent(dbl ? (int64_t(1) << 24) : (int64_t(1) << 25), 2048);
  const int64_t batch = total / n > 0 ? total / n : 1;
  const int64_t half = n / 2 + 1;
  const int64_t in_elems = real ? n : n, out_elems = real ? half : n;
  const size_t sc = dbl ? 8 : 4;
  const size_t in_bytes = size_t(batch * in_elems) * sc * (real ? 1 : 2);
  const size_t out_bytes = size_t(batch * out_elems) * sc * 2;
  RowState rs;
  void* in = rs.alloc(in_bytes);
  void* out = in ? rs.alloc(out_bytes) : nullptr;
  if (!out) {
    state.SkipWithError("allocation failed");
    return;
  }
  {  // small values, a host pattern copied up
    std::vector<unsigned char> h(in_bytes);
    for (size_t i = 0; i < in_bytes / sc; ++i) {
      const double v = double(int((i * 2654435761u) % 2001) - 1000) / 1000.0;
      if (dbl) std::memcpy(&h[i * 8], &v, 8);
      else {
        const float f = float(v);
        std::memcpy(&h[i * 4], &f, 4);
      }
    }
    cudaMemcpy(in, h.data(), in_bytes, cudaMemcpyHostToDevice);
  }
  int nn = int(n);
  const cufftType type = real ? (dbl ? CUFFT_D2Z : CUFFT_R2C) : (dbl ? CUFFT_Z2Z : CUFFT_C2C);
  const auto t0 = std::chrono::steady_clock::now();
  bool planned = false;
  {  // the plan reads ABFT_CUDA_FFT_SUMS when it is made
    const abft_test::ScopedEnv env("ABFT_CUDA_FFT_SUMS", passes ? "passes" : nullptr);
    planned = abft_handle_create(&rs.h) == ABFT_STATUS_SUCCESS &&
              abft_cuda_fft_plan_1d(&rs.p, rs.h, dbl ? ABFT_PRECISION_DOUBLE : ABFT_PRECISION_FLOAT,
                                    real ? ABFT_FFT_R2C : ABFT_FFT_C2C, n, -1, batch) == ABFT_STATUS_SUCCESS;
  }
  const double plan_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!planned ||
      cufftPlanMany(&rs.plain, 1, &nn, nullptr, 1, int(in_elems), nullptr, 1, int(out_elems), type, int(batch)) !=
          CUFFT_SUCCESS) {
    state.SkipWithError("planning failed");
    return;
  }
  abft_cuda_fft_set_policy(rs.p, ABFT_POLICY_CORRECT);
  auto run_plain = [&] { cufftXtExec(rs.plain, in, out, CUFFT_FORWARD); };
  auto run_prot = [&] { abft_cuda_fft_execute(rs.p, nullptr, in, out); };
  const double flops = (real ? 2.5 : 5.0) * double(n) * std::log2(double(n)) * double(batch);
  report(state, abft_bench::time_paired(state, run_plain, run_prot), flops, batch, rs.h, rs.p, plan_ms);
}

/** A 2D or 3D transform of kind c2c (forward), r2c or c2r, float, tight batches of `batch`
 *  signals, protected (default sums) against cuFFT's basic layout of the same shape. */
void BM_fft_md(benchmark::State& state, abft_fft_kind kind, std::vector<int64_t> dims, int64_t batch) {
  if (!abft_bench::device_or_skip(state)) return;
  for (int64_t& d : dims) d = abft_bench::rehearsal_extent(d, 12);
  batch = abft_bench::rehearsal_extent(batch, 2);
  const int rank = int(dims.size());
  int64_t N = 1;
  for (int64_t d : dims) N *= d;
  const int64_t half_cnt = N / dims.back() * (dims.back() / 2 + 1);
  const int64_t in_elems = kind == ABFT_FFT_C2R ? half_cnt : N, out_elems = kind == ABFT_FFT_R2C ? half_cnt : N;
  const size_t in_bytes = size_t(batch * in_elems) * 4 * (kind == ABFT_FFT_R2C ? 1 : 2);
  const size_t out_bytes = size_t(batch * out_elems) * 4 * (kind == ABFT_FFT_C2R ? 1 : 2);
  RowState rs;
  void* in = rs.alloc(in_bytes);
  void* out = in ? rs.alloc(out_bytes) : nullptr;
  void* src = out ? rs.alloc(in_bytes) : nullptr;
  if (!src) {
    state.SkipWithError("allocation failed");
    return;
  }
  {  // small values; a C2R gets the R2C spectrum of such data (Hermitian, as in use)
    std::vector<float> h(size_t(batch * N));
    for (size_t i = 0; i < h.size(); ++i) h[i] = float(int((i * 2654435761u) % 2001) - 1000) / 1000.0f;
    if (kind == ABFT_FFT_C2R) {
      void* real = nullptr;
      cufftHandle f = 0;
      std::vector<int> nn(dims.begin(), dims.end());
      if (cudaMalloc(&real, h.size() * 4) == cudaSuccess &&
          cufftPlanMany(&f, rank, nn.data(), nullptr, 1, int(N), nullptr, 1, int(half_cnt), CUFFT_R2C, int(batch)) ==
              CUFFT_SUCCESS) {
        cudaMemcpy(real, h.data(), h.size() * 4, cudaMemcpyHostToDevice);
        cufftExecR2C(f, static_cast<cufftReal*>(real), static_cast<cufftComplex*>(src));
        cudaDeviceSynchronize();
        cufftDestroy(f);
      }
      cudaFree(real);
    } else {
      std::vector<float> hc(in_bytes / 4);
      for (size_t i = 0; i < hc.size(); ++i) hc[i] = h[i % h.size()];
      cudaMemcpy(src, hc.data(), in_bytes, cudaMemcpyHostToDevice);
    }
  }
  std::vector<int> nn(dims.begin(), dims.end());
  const cufftType type = kind == ABFT_FFT_C2C ? CUFFT_C2C : kind == ABFT_FFT_R2C ? CUFFT_R2C : CUFFT_C2R;
  const auto t0 = std::chrono::steady_clock::now();
  const bool planned = abft_handle_create(&rs.h) == ABFT_STATUS_SUCCESS &&
                       abft_cuda_fft_plan_many(&rs.p, rs.h, ABFT_PRECISION_FLOAT, kind, rank, dims.data(),
                                               kind == ABFT_FFT_C2R ? +1 : -1, batch, nullptr, 1, in_elems, nullptr, 1,
                                               out_elems) == ABFT_STATUS_SUCCESS;
  const double plan_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!planned || cufftPlanMany(&rs.plain, rank, nn.data(), nullptr, 1, int(in_elems), nullptr, 1, int(out_elems),
                                type, int(batch)) != CUFFT_SUCCESS) {
    state.SkipWithError("planning failed");
    return;
  }
  abft_cuda_fft_set_policy(rs.p, ABFT_POLICY_CORRECT);
  const int dir = kind == ABFT_FFT_C2R ? CUFFT_INVERSE : CUFFT_FORWARD;
  // A C2R may overwrite its input: both sides start from the same fresh copy every call.
  const bool refill = kind == ABFT_FFT_C2R;
  auto run_plain = [&] {
    if (refill) cudaMemcpyAsync(in, src, in_bytes, cudaMemcpyDeviceToDevice, nullptr);
    cufftXtExec(rs.plain, in, out, dir);
  };
  auto run_prot = [&] {
    if (refill) cudaMemcpyAsync(in, src, in_bytes, cudaMemcpyDeviceToDevice, nullptr);
    abft_cuda_fft_execute(rs.p, nullptr, in, out);
  };
  if (!refill) cudaMemcpy(in, src, in_bytes, cudaMemcpyDeviceToDevice);
  const double flops = (kind == ABFT_FFT_C2C ? 5.0 : 2.5) * double(N) * std::log2(double(N)) * double(batch);
  report(state, abft_bench::time_paired(state, run_plain, run_prot), flops, batch, rs.h, rs.p, plan_ms);
}

void register_all() {
  for (bool dbl : {false, true})
    for (bool real : {false, true})
      for (int lg = 8; lg <= 22; lg += 2) {
        const std::string name = std::string("cuda_fft/") + (real ? "r2c" : "c2c") + "/" + (dbl ? "f64" : "f32") +
                                 "/n" + std::to_string(int64_t(1) << lg);
        benchmark::RegisterBenchmark(name.c_str(), BM_fft, dbl, real, int64_t(1) << lg, false)
            ->UseManualTime()
            ->Iterations(abft_bench::iterations(10))
            ->Unit(benchmark::kMillisecond);
      }
  // The same transforms with the sums in passes, at three sizes (short, mid, long).
  for (bool dbl : {false, true})
    for (bool real : {false, true})
      for (int lg : {8, 12, 22}) {
        if (dbl && real) continue;
        const std::string name = std::string("cuda_fft-passes/") + (real ? "r2c" : "c2c") + "/" +
                                 (dbl ? "f64" : "f32") + "/n" + std::to_string(int64_t(1) << lg);
        benchmark::RegisterBenchmark(name.c_str(), BM_fft, dbl, real, int64_t(1) << lg, true)
            ->UseManualTime()
            ->Iterations(abft_bench::iterations(10))
            ->Unit(benchmark::kMillisecond);
      }
  // 2D and 3D, float: 2^24 elements a call (a C2R times its input's refill on both sides).
  struct Md {
    std::vector<int64_t> dims;
    int64_t batch;
  };
  for (const Md& m : {Md{{2048, 2048}, 4}, Md{{256, 256, 256}, 1}})
    for (abft_fft_kind kind : {ABFT_FFT_C2C, ABFT_FFT_R2C, ABFT_FFT_C2R}) {
      std::string shape;
      for (int64_t d : m.dims) shape += (shape.empty() ? "" : "x") + std::to_string(d);
      const std::string name = std::string("cuda_fft-md/") +
                               (kind == ABFT_FFT_C2C ? "c2c" : kind == ABFT_FFT_R2C ? "r2c" : "c2r") + "/f32/" + shape;
      benchmark::RegisterBenchmark(name.c_str(), BM_fft_md, kind, m.dims, m.batch)
          ->UseManualTime()
          ->Iterations(abft_bench::iterations(10))
          ->Unit(benchmark::kMillisecond);
    }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  return abft_bench::run_benchmarks(argc, argv);
}
