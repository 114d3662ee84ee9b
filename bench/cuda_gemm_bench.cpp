/** \file cuda_gemm_bench.cpp
 *  \brief The protected GPU GEMM (abft_cuda_*gemm) against plain cuBLAS in the same run:
 *  float, double and bfloat16 (float accumulation), square n = 1024 ... 16384 and transformer
 *  shapes, column-major NN, alpha = 1, beta = 0. Each iteration times both (CUDA events, the
 *  order alternating) after one untimed warm-up of each, so the ratio is paired; counters:
 *  TFLOP/s of each and `vs_cublas` = protected time / cuBLAS time, each call timed from an idle
 *  device (its latency, the host's launches included); `vs_cublas_burst`, the same ratio for
 *  bursts of back-to-back calls (the device's time per call with the host ahead of it). Skips every row (with the
 *  reason) when no device is usable. Run by scripts/gpu-check.sh; run on an H200 (2026-11-30).
 *  Rows cuda_gemm-overlap/...: a few shapes with ABFT_CUDA_GEMM_OVERLAP=1 (the encoding and the
 *  reference's reads of B on a second stream, concurrent with the product; an experiment, not
 *  yet run on a GPU), for the comparison in the same run. Rows cuda_gemm-batched/...: strided
 *  batches (96 items of attention's products) against cuBLAS's strided-batched calls. Rows
 *  cuda_gemm-linear-{fwd,dgrad,wgrad}/...: the three products of an nn.Linear as PyTorch hands
 *  them to cuBLAS (GPT-2 small's MLP, 2048 tokens, 768 -> 3072): forward A^T B with beta = 1
 *  (addmm over the bias), input gradient A B, weight gradient A B^T — 2, 2 and 3 launches of
 *  checks beside cuBLAS's since 2026-12-07 (docs/PERFORMANCE.md, "What a call asks of the
 *  device"); not yet run on a GPU.
 */
#include <benchmark/benchmark.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "abft/abft.h"
#include "abft/abft_cuda.h"
#include "cuda_bench_util.hpp"

namespace {

enum class Type { F32, F64, BF16 };

size_t elem_size(Type t) { return t == Type::F64 ? 8 : t == Type::F32 ? 4 : 2; }

/** Device buffers of one shape, filled once with small values (a kernel-free fill: a host
 *  pattern copied up). */
struct Buffers {
  void *A = nullptr, *B = nullptr, *C = nullptr;
  bool ok = false;
  Buffers(Type t, int64_t m, int64_t n, int64_t k, int64_t batch = 1) {
    const size_t es = elem_size(t);
    const size_t na = size_t(m * k * batch), nb = size_t(k * n * batch), nc = size_t(m * n * batch);
    if (cudaMalloc(&A, na * es) != cudaSuccess || cudaMalloc(&B, nb * es) != cudaSuccess ||
        cudaMalloc(&C, nc * es) != cudaSuccess)
      return;
    auto fill = [&](void* d, size_t n_el) {
      std::vector<unsigned char> h(n_el * es);
      for (size_t i = 0; i < n_el; ++i) {
        const float v = float(int((i * 2654435761u) % 2001) - 1000) / 1000.0f;
        if (t == Type::F64) {
          const double x = v;
          std::memcpy(&h[i * es], &x, es);
        } else if (t == Type::F32) {
          std::memcpy(&h[i * es], &v, es);
        } else {
          const __nv_bfloat16 x = __float2bfloat16(v);
          std::memcpy(&h[i * es], &x, es);
        }
      }
      return cudaMemcpy(d, h.data(), h.size(), cudaMemcpyHostToDevice) == cudaSuccess;
    };
    ok = fill(A, na) && fill(B, nb) && fill(C, nc);
  }
  ~Buffers() {
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
  }
};

/** One row's call: op(A), op(B) and beta (column-major; both sides the same call). */
struct Call {
  abft_op ta = ABFT_NO_TRANS, tb = ABFT_NO_TRANS;
  float beta = 0.0f;
};
cublasOperation_t to_cublas(abft_op op) { return op == ABFT_NO_TRANS ? CUBLAS_OP_N : CUBLAS_OP_T; }

void BM_gemm(benchmark::State& state, Type t, int64_t m, int64_t n, int64_t k, bool overlap, int64_t batch,
             Call call) {
  if (!abft_bench::device_or_skip(state)) return;
  // The rehearsal's shape: small, and still neither square nor a multiple of the blocks' widths.
  m = abft_bench::rehearsal_extent(m, 97), n = abft_bench::rehearsal_extent(n, 83);
  k = abft_bench::rehearsal_extent(k, 71), batch = abft_bench::rehearsal_extent(batch, 3);
  // The handle's device state reads ABFT_CUDA_GEMM_OVERLAP when its first call makes it.
  const abft_test::ScopedEnv env("ABFT_CUDA_GEMM_OVERLAP", overlap ? "1" : nullptr);
  Buffers b(t, m, n, k, batch);
  // A strided batch: items packed one after another (cuBLAS's strided-batched calls against the
  // engine's, one protected call for the batch).
  const long long sa = m * k, sb = k * n, sc = m * n;
  const int nb = int(batch);
  cublasHandle_t cb = nullptr;
  abft_handle_t h = nullptr;
  if (!b.ok || cublasCreate(&cb) != CUBLAS_STATUS_SUCCESS || abft_handle_create(&h) != ABFT_STATUS_SUCCESS) {
    state.SkipWithError("allocation failed");
    if (cb) cublasDestroy(cb);
    if (h) abft_handle_destroy(h);
    return;
  }
  const float one_f = 1.0f, zero_f = call.beta;
  const double one_d = 1.0, zero_d = call.beta;
  // Leading dimensions of the stored operands (op(A) m x k, op(B) k x n).
  const int lda = int(call.ta == ABFT_NO_TRANS ? m : k), ldb = int(call.tb == ABFT_NO_TRANS ? k : n);
  const cublasOperation_t ca = to_cublas(call.ta), cbo = to_cublas(call.tb);
  auto plain = [&] {
    if (batch > 1) {
      if (t == Type::F32)
        cublasSgemmStridedBatched(cb, CUBLAS_OP_N, CUBLAS_OP_N, int(m), int(n), int(k), &one_f,
                                  static_cast<float*>(b.A), int(m), sa, static_cast<float*>(b.B), int(k), sb, &zero_f,
                                  static_cast<float*>(b.C), int(m), sc, nb);
      else if (t == Type::F64)
        cublasDgemmStridedBatched(cb, CUBLAS_OP_N, CUBLAS_OP_N, int(m), int(n), int(k), &one_d,
                                  static_cast<double*>(b.A), int(m), sa, static_cast<double*>(b.B), int(k), sb, &zero_d,
                                  static_cast<double*>(b.C), int(m), sc, nb);
      else
        cublasGemmStridedBatchedEx(cb, CUBLAS_OP_N, CUBLAS_OP_N, int(m), int(n), int(k), &one_f, b.A, CUDA_R_16BF,
                                   int(m), sa, b.B, CUDA_R_16BF, int(k), sb, &zero_f, b.C, CUDA_R_16BF, int(m), sc, nb,
                                   CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
      return;
    }
    if (t == Type::F32)
      cublasSgemm(cb, ca, cbo, int(m), int(n), int(k), &one_f, static_cast<float*>(b.A), lda,
                  static_cast<float*>(b.B), ldb, &zero_f, static_cast<float*>(b.C), int(m));
    else if (t == Type::F64)
      cublasDgemm(cb, ca, cbo, int(m), int(n), int(k), &one_d, static_cast<double*>(b.A), lda,
                  static_cast<double*>(b.B), ldb, &zero_d, static_cast<double*>(b.C), int(m));
    else
      cublasGemmEx(cb, ca, cbo, int(m), int(n), int(k), &one_f, b.A, CUDA_R_16BF, lda, b.B, CUDA_R_16BF, ldb,
                   &zero_f, b.C, CUDA_R_16BF, int(m), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  };
  auto protected_ = [&] {
    if (batch > 1) {
      if (t == Type::F32)
        abft_cuda_sgemm_strided_batched(h, nullptr, ABFT_POLICY_CORRECT, ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, m,
                                        n, k, 1.0f, static_cast<float*>(b.A), m, sa, static_cast<float*>(b.B), k, sb,
                                        0.0f, static_cast<float*>(b.C), m, sc, batch);
      else if (t == Type::F64)
        abft_cuda_dgemm_strided_batched(h, nullptr, ABFT_POLICY_CORRECT, ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, m,
                                        n, k, 1.0, static_cast<double*>(b.A), m, sa, static_cast<double*>(b.B), k, sb,
                                        0.0, static_cast<double*>(b.C), m, sc, batch);
      else
        abft_cuda_bf16gemm_strided_batched(h, nullptr, ABFT_POLICY_CORRECT, ABFT_COL_MAJOR, ABFT_NO_TRANS,
                                           ABFT_NO_TRANS, m, n, k, 1.0f, b.A, m, sa, b.B, k, sb, 0.0f, b.C, m, sc,
                                           batch);
      return;
    }
    if (t == Type::F32)
      abft_cuda_sgemm(h, nullptr, ABFT_POLICY_CORRECT, ABFT_COL_MAJOR, call.ta, call.tb, m, n, k, 1.0f,
                      static_cast<float*>(b.A), lda, static_cast<float*>(b.B), ldb, zero_f, static_cast<float*>(b.C),
                      m);
    else if (t == Type::F64)
      abft_cuda_dgemm(h, nullptr, ABFT_POLICY_CORRECT, ABFT_COL_MAJOR, call.ta, call.tb, m, n, k, 1.0,
                      static_cast<double*>(b.A), lda, static_cast<double*>(b.B), ldb, zero_d,
                      static_cast<double*>(b.C), m);
    else
      abft_cuda_bf16gemm(h, nullptr, ABFT_POLICY_CORRECT, ABFT_COL_MAJOR, call.ta, call.tb, m, n, k, 1.0f, b.A, lda,
                         b.B, ldb, zero_f, b.C, m);
  };
  const abft_bench::PairedTimes times = abft_bench::time_paired(state, plain, protected_);
  const double sum_plain = times.plain, sum_prot = times.protected_;
  const int64_t it = times.iterations;
  abft_report r{};
  const abft_status ss = abft_cuda_sync(h, nullptr, &r);
  const double flops = 2.0 * double(m) * double(n) * double(k) * double(batch);
  state.counters["cublas_TFLOPs"] = flops * double(it) / sum_plain * 1e-12;
  state.counters["abft_TFLOPs"] = flops * double(it) / sum_prot * 1e-12;
  state.counters["vs_cublas"] = sum_prot / sum_plain;
  if (times.burst_plain > 0) state.counters["vs_cublas_burst"] = times.burst_protected / times.burst_plain;
  state.counters["detected"] = double(r.detected);
  if (ss != ABFT_STATUS_SUCCESS || r.detected) state.SkipWithError("a clean run was flagged (false positive)");
  abft_cuda_release(h);
  abft_handle_destroy(h);
  cublasDestroy(cb);
}

void register_all() {
  struct Shape {
    int64_t m, n, k;
  };
  std::vector<Shape> shapes;
  for (int64_t s : {1024, 2048, 4096, 8192, 16384}) shapes.push_back({s, s, s});
  shapes.push_back({2048, 768, 3072});
  shapes.push_back({2048, 3072, 768});
  for (Type t : {Type::F32, Type::F64, Type::BF16})
    for (const Shape& s : shapes) {
      if (t == Type::F64 && s.m > 8192) continue;  // keeps gpu-check.sh under its time
      const char* tn = t == Type::F32 ? "f32" : t == Type::F64 ? "f64" : "bf16";
      const std::string name = std::string("cuda_gemm/") + tn + "/m" + std::to_string(s.m) + "n" +
                               std::to_string(s.n) + "k" + std::to_string(s.k);
      benchmark::RegisterBenchmark(name.c_str(), BM_gemm, t, s.m, s.n, s.k, false, int64_t(1), Call{})
          ->UseManualTime()
          ->Iterations(abft_bench::iterations(t == Type::F64 && s.m >= 8192 ? 3 : 10))
          ->Unit(benchmark::kMillisecond);
    }
  // The encoding overlapped with the product, where the checks' share is largest.
  const Shape overlap_shapes[] = {{4096, 4096, 4096}, {2048, 768, 3072}, {2048, 3072, 768}};
  for (Type t : {Type::F32, Type::BF16})
    for (const Shape& s : overlap_shapes) {
      const char* tn = t == Type::F32 ? "f32" : "bf16";
      const std::string name = std::string("cuda_gemm-overlap/") + tn + "/m" + std::to_string(s.m) + "n" +
                               std::to_string(s.n) + "k" + std::to_string(s.k);
      benchmark::RegisterBenchmark(name.c_str(), BM_gemm, t, s.m, s.n, s.k, true, int64_t(1), Call{})
          ->UseManualTime()
          ->Iterations(abft_bench::iterations(10))
          ->Unit(benchmark::kMillisecond);
    }
  // Strided batches, the shapes of attention's products in a model that calls bmm (GPT-2 small:
  // 8 x 12 heads, 512 tokens, head_dim 64): S = Q K^T (512 x 512 x 64) and O = P V (512 x 64 x
  // 512), as one protected call each.
  const Shape batched_shapes[] = {{512, 512, 64}, {512, 64, 512}};
  for (Type t : {Type::F32, Type::BF16})
    for (const Shape& s : batched_shapes) {
      const char* tn = t == Type::F32 ? "f32" : "bf16";
      const std::string name = std::string("cuda_gemm-batched/") + tn + "/b96m" + std::to_string(s.m) + "n" +
                               std::to_string(s.n) + "k" + std::to_string(s.k);
      benchmark::RegisterBenchmark(name.c_str(), BM_gemm, t, s.m, s.n, s.k, false, int64_t(96), Call{})
          ->UseManualTime()
          ->Iterations(abft_bench::iterations(10))
          ->Unit(benchmark::kMillisecond);
    }
  // nn.Linear's three products as PyTorch issues them (column-major cuBLAS calls on row-major
  // tensors), GPT-2 small's MLP up-projection over 2048 tokens: y = x W^T + b, dx = dy W,
  // dW = dy^T x.
  struct LinearCall {
    const char* what;
    Shape s;
    Call call;
  };
  const LinearCall linear[] = {{"fwd", {3072, 2048, 768}, {ABFT_TRANS, ABFT_NO_TRANS, 1.0f}},
                               {"dgrad", {768, 2048, 3072}, {ABFT_NO_TRANS, ABFT_NO_TRANS, 0.0f}},
                               {"wgrad", {768, 3072, 2048}, {ABFT_NO_TRANS, ABFT_TRANS, 0.0f}}};
  for (Type t : {Type::F32, Type::BF16})
    for (const LinearCall& l : linear) {
      const char* tn = t == Type::F32 ? "f32" : "bf16";
      const std::string name = std::string("cuda_gemm-linear-") + l.what + "/" + tn + "/m" + std::to_string(l.s.m) +
                               "n" + std::to_string(l.s.n) + "k" + std::to_string(l.s.k);
      benchmark::RegisterBenchmark(name.c_str(), BM_gemm, t, l.s.m, l.s.n, l.s.k, false, int64_t(1), l.call)
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
