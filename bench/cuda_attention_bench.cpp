/** \file cuda_attention_bench.cpp
 *  \brief The protected GPU attention forward (abft_cuda_attention_forward, policy CORRECT)
 *  against the same kernel without its checksums (policy OFF) in the same run: the ABFT
 *  overhead (bar <= 10 %, issue 11). Shapes: seq 512 ... 16384 (q_len = kv_len), head_dim 64
 *  and 128, causal and not, bfloat16 (binary16 and float at head_dim 128), batch x heads chosen
 *  so that every call holds 2^16 query rows; the 16-bit rows again on tensor cores ("fwd-tc",
 *  ABFT_CUDA_ATTN_TC=1). Each iteration times both (CUDA events, the order
 *  alternating) after one untimed warm-up of each; counters: TFLOP/s of each (4 L_q L_k D per
 *  head, halved when causal), `overhead` = protected / unprotected time - 1. PyTorch's SDPA is
 *  timed on the same shapes by scripts/gpu_attention_sdpa.py and joined in the table
 *  (scripts/gpu_bench_table.py attention). Every row skips (with the reason) without a device.
 *  Run by scripts/gpu-check.sh. Not yet run on a GPU.
 */
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "abft/abft.h"
#include "abft/abft_cuda.h"
#include "cuda_bench_util.hpp"

namespace {

const char* dtype_tag(abft_cuda_dtype t) {
  return t == ABFT_CUDA_FLOAT ? "f32" : t == ABFT_CUDA_HALF ? "f16" : "bf16";
}

void BM_attention(benchmark::State& state, abft_cuda_dtype t, int64_t seq, int64_t D, bool causal, bool tc) {
  if (!abft_bench::device_or_skip(state)) return;
  // The product engine: tensor cores (16-bit storage, head_dim 64 / 128) or SIMT.
  if (tc) setenv("ABFT_CUDA_ATTN_TC", "1", 1);
  else unsetenv("ABFT_CUDA_ATTN_TC");
  const int64_t heads = 8, rows = int64_t(1) << 16;
  const int64_t batch = rows / (seq * heads) > 0 ? rows / (seq * heads) : 1;
  const int64_t hb = rows / seq;  // batch x heads
  abft_attention_desc d{};
  abft_attention_desc_init(&d, batch, hb / batch, hb / batch, seq, seq, D);
  d.causal = causal ? 1 : 0;
  const size_t es = t == ABFT_CUDA_FLOAT ? 4 : 2;
  const size_t n = size_t(batch * d.heads * seq * D);
  void *Q = nullptr, *K = nullptr, *V = nullptr, *O = nullptr;
  float* lse = nullptr;
  if (cudaMalloc(&Q, n * es) != cudaSuccess || cudaMalloc(&K, n * es) != cudaSuccess ||
      cudaMalloc(&V, n * es) != cudaSuccess || cudaMalloc(&O, n * es) != cudaSuccess ||
      cudaMalloc(&lse, size_t(batch * d.heads * seq) * 4) != cudaSuccess) {
    cudaFree(Q), cudaFree(K), cudaFree(V), cudaFree(O);
    state.SkipWithError("allocation failed");
    return;
  }
  {  // small values, a host pattern copied up (the same bits for every storage type's width)
    std::vector<unsigned char> h(n * es);
    for (size_t i = 0; i < n; ++i) {
      const float v = float(int((i * 2654435761u) % 2001) - 1000) / 1000.0f;
      uint32_t b;
      std::memcpy(&b, &v, 4);
      if (es == 4) std::memcpy(&h[i * 4], &b, 4);
      else if (t == ABFT_CUDA_BFLOAT16) {
        const uint16_t hi = uint16_t(b >> 16);
        std::memcpy(&h[i * 2], &hi, 2);
      } else {  // binary16 of a value in [-1, 1]: via the exponent and top mantissa bits
        const int e = int((b >> 23) & 0xff) - 127;
        uint16_t x = 0;
        if (v != 0.0f && e >= -14) x = uint16_t(((b >> 16) & 0x8000) | ((e + 15) << 10) | ((b >> 13) & 0x3ff));
        std::memcpy(&h[i * 2], &x, 2);
      }
    }
    cudaMemcpy(Q, h.data(), n * es, cudaMemcpyHostToDevice);
    cudaMemcpy(K, h.data(), n * es, cudaMemcpyHostToDevice);
    cudaMemcpy(V, h.data(), n * es, cudaMemcpyHostToDevice);
  }
  abft_handle_t h = nullptr;
  abft_handle_create(&h);
  auto run_plain = [&] { abft_cuda_attention_forward(h, nullptr, ABFT_POLICY_OFF, &d, t, Q, K, V, nullptr, O, lse); };
  auto run_prot = [&] {
    abft_cuda_attention_forward(h, nullptr, ABFT_POLICY_CORRECT, &d, t, Q, K, V, nullptr, O, lse);
  };
  const abft_bench::PairedTimes times = abft_bench::time_paired(state, run_plain, run_prot);
  abft_report r{};
  const abft_status ss = abft_cuda_sync(h, nullptr, &r);
  const double flops = 4.0 * double(batch * d.heads) * double(seq) * double(seq) * double(D) * (causal ? 0.5 : 1.0);
  const double it = double(times.iterations);
  state.counters["plain_TFLOPs"] = flops * it / times.plain * 1e-12;
  state.counters["abft_TFLOPs"] = flops * it / times.protected_ * 1e-12;
  state.counters["overhead"] = times.protected_ / times.plain - 1.0;
  state.counters["batch_heads"] = double(hb);
  state.counters["detected"] = double(r.detected);
  if (ss != ABFT_STATUS_SUCCESS || r.detected) state.SkipWithError("a clean run was flagged (false positive)");
  abft_cuda_release(h);
  abft_handle_destroy(h);
  cudaFree(Q), cudaFree(K), cudaFree(V), cudaFree(O), cudaFree(lse);
  unsetenv("ABFT_CUDA_ATTN_TC");
}

void register_all() {
  for (bool tc : {false, true})
  for (abft_cuda_dtype t : {ABFT_CUDA_BFLOAT16, ABFT_CUDA_HALF, ABFT_CUDA_FLOAT})
    for (int64_t D : {64, 128})
      for (bool causal : {false, true})
        for (int64_t seq = 512; seq <= 16384; seq *= 2) {
          if (t != ABFT_CUDA_BFLOAT16 && (D != 128 || causal)) continue;
          if (tc && t == ABFT_CUDA_FLOAT) continue;  // tensor cores: 16-bit storage only
          const std::string name = std::string("cuda_attention/fwd") + (tc ? "-tc/" : "/") + dtype_tag(t) + "/d" +
                                   std::to_string(D) + (causal ? "/causal" : "/full") + "/seq" + std::to_string(seq);
          benchmark::RegisterBenchmark(name.c_str(), BM_attention, t, seq, D, causal, tc)
              ->UseManualTime()
              ->Iterations(5)
              ->Unit(benchmark::kMillisecond);
        }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
