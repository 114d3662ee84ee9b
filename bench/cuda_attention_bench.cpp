/** \file cuda_attention_bench.cpp
 *  \brief The protected GPU attention (abft_cuda_attention_forward / _backward, policy CORRECT)
 *  against the same kernels without their checksums (policy OFF) in the same run: the ABFT
 *  overhead (bar <= 10 %, issue 11). Shapes: seq 512 ... 16384 (q_len = kv_len), head_dim 64
 *  and 128, causal and not, bfloat16 (binary16 and float at head_dim 128), batch x heads chosen
 *  so that every call holds 2^16 query rows. Rows, in the order they run (the first are the ones
 *  the bar is judged on, so a run stopped by its time limit keeps them):
 *    cuda_attention/fwd-mma/...         the forward on the mma.sync kernel (ABFT_CUDA_ATTN_TC=mma;
 *                                       its scope: bfloat16 and binary16, head_dim 64 and 128,
 *                                       causal and not, every length);
 *    cuda_attention/fwd/...             the forward (SIMT products);
 *    cuda_attention/fwd-tc/...          the 16-bit rows on WMMA tensor cores (ABFT_CUDA_ATTN_TC=1);
 *    cuda_attention/bwd-mma/...         the backward on the mma.sync kernels (bfloat16 and binary16,
 *                                       head_dim 64 and 128, causal and not, seq 1024, 4096, 16384);
 *    cuda_attention/bwd/...             the backward (SIMT: bfloat16, float at 128 full; same lengths);
 *    cuda_attention/fwd[-tc]-nokeysums/ the forward with each query block forming the key
 *                                       blocks' sums itself (ABFT_CUDA_ATTN_KEY_SUMS=0: the
 *                                       pre-pass's gain; bfloat16, seq 1024 and 16384; no bar;
 *                                       none for mma, whose pre-pass is its own).
 *  Each iteration times both (CUDA events, the order alternating) after one untimed warm-up of
 *  each; counters: TFLOP/s of each (4 L_q L_k D per head, halved when causal; the backward
 *  2.5 times that, the FlashAttention convention), `overhead` = protected / unprotected time -
 *  1. PyTorch's SDPA is timed on the same shapes, forward and backward, by
 *  scripts/gpu_attention_sdpa.py and joined in the table (scripts/gpu_bench_table.py
 *  attention). Every row skips (with the reason) without a device. Run by scripts/gpu-check.sh.
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

enum class Dir { Fwd, Bwd };

/** The forward's product engine, as ABFT_CUDA_ATTN_TC selects it (the backward: SIMT). */
enum class Engine { Simt, Wmma, Mma };

/** ABFT_CUDA_ATTN_TC's value for an engine (unset: SIMT). */
const char* engine_env(Engine e) { return e == Engine::Wmma ? "1" : e == Engine::Mma ? "mma" : nullptr; }

/** The row-name suffix of an engine's forward rows: fwd, fwd-tc, fwd-mma. */
const char* engine_tag(Engine e) { return e == Engine::Wmma ? "-tc" : e == Engine::Mma ? "-mma" : ""; }

/** A device buffer of n elements of es bytes holding the bench's value pattern (small values,
 *  the same bits for every storage type's width; `salt` makes the tensors differ). */
bool upload_pattern(void** p, size_t n, size_t es, abft_cuda_dtype t, uint32_t salt) {
  if (cudaMalloc(p, n * es) != cudaSuccess) return false;
  std::vector<unsigned char> h(n * es);
  for (size_t i = 0; i < n; ++i) {
    const float v = float(int(((i + salt) * 2654435761u) % 2001) - 1000) / 1000.0f;
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
  return cudaMemcpy(*p, h.data(), n * es, cudaMemcpyHostToDevice) == cudaSuccess;
}

void BM_attention(benchmark::State& state, abft_cuda_dtype t, int64_t seq, int64_t D, bool causal, Engine eng,
                  Dir dir, bool records) {
  if (!abft_bench::device_or_skip(state)) return;
  // The product engine (mma.sync or WMMA tensor cores: 16-bit storage, head_dim 64 / 128; or
  // SIMT) and the key blocks' sums (the pre-pass, or each query block's own), each set or unset
  // for the row: none comes from the caller's environment.
  const abft_test::ScopedEnv engine("ABFT_CUDA_ATTN_TC", engine_env(eng));
  const abft_test::ScopedEnv sums("ABFT_CUDA_ATTN_KEY_SUMS", records ? nullptr : "0");
  // The rehearsal: one head of 96 queries and keys (two key blocks of 64, the last partial).
  seq = abft_bench::rehearsal_extent(seq, 96);
  const int64_t heads = 8, rows = abft_bench::rehearsal_extent(int64_t(1) << 16, seq);
  const int64_t batch = rows / (seq * heads) > 0 ? rows / (seq * heads) : 1;
  const int64_t hb = rows / seq;  // batch x heads
  abft_attention_desc d{};
  abft_attention_desc_init(&d, batch, hb / batch, hb / batch, seq, seq, D);
  d.causal = causal ? 1 : 0;
  const size_t es = t == ABFT_CUDA_FLOAT ? 4 : 2;
  const size_t n = size_t(batch * d.heads * seq * D);
  const bool bwd = dir == Dir::Bwd;
  void *Q = nullptr, *K = nullptr, *V = nullptr, *O = nullptr, *dO = nullptr, *dQ = nullptr, *dK = nullptr,
       *dV = nullptr;
  float* lse = nullptr;
  auto free_all = [&] {
    cudaFree(Q), cudaFree(K), cudaFree(V), cudaFree(O), cudaFree(lse);
    cudaFree(dO), cudaFree(dQ), cudaFree(dK), cudaFree(dV);
  };
  const bool ok = upload_pattern(&Q, n, es, t, 0) && upload_pattern(&K, n, es, t, 7) &&
                  upload_pattern(&V, n, es, t, 13) && cudaMalloc(&O, n * es) == cudaSuccess &&
                  cudaMalloc(reinterpret_cast<void**>(&lse), size_t(batch * d.heads * seq) * 4) == cudaSuccess &&
                  (!bwd || (upload_pattern(&dO, n, es, t, 29) && cudaMalloc(&dQ, n * es) == cudaSuccess &&
                            cudaMalloc(&dK, n * es) == cudaSuccess && cudaMalloc(&dV, n * es) == cudaSuccess));
  if (!ok) {
    free_all();
    state.SkipWithError("allocation failed");
    return;
  }
  abft_handle_t h = nullptr;
  abft_handle_create(&h);
  // The backward's O and lse: the forward's (unprotected: the same bits).
  if (bwd) abft_cuda_attention_forward(h, nullptr, ABFT_POLICY_OFF, &d, t, Q, K, V, nullptr, O, lse);
  auto call = [&](abft_policy pol) {
    if (bwd) abft_cuda_attention_backward(h, nullptr, pol, &d, t, Q, K, V, nullptr, O, dO, lse, dQ, dK, dV);
    else abft_cuda_attention_forward(h, nullptr, pol, &d, t, Q, K, V, nullptr, O, lse);
  };
  const abft_bench::PairedTimes times =
      abft_bench::time_paired(state, [&] { call(ABFT_POLICY_OFF); }, [&] { call(ABFT_POLICY_CORRECT); }, false);
  abft_report r{};
  const abft_status ss = abft_cuda_sync(h, nullptr, &r);
  const double flops = 4.0 * double(batch * d.heads) * double(seq) * double(seq) * double(D) *
                       (causal ? 0.5 : 1.0) * (bwd ? 2.5 : 1.0);
  const double it = double(times.iterations);
  state.counters["plain_TFLOPs"] = flops * it / times.plain * 1e-12;
  state.counters["abft_TFLOPs"] = flops * it / times.protected_ * 1e-12;
  state.counters["overhead"] = times.protected_ / times.plain - 1.0;
  state.counters["batch_heads"] = double(hb);
  state.counters["detected"] = double(r.detected);
  if (ss != ABFT_STATUS_SUCCESS || r.detected) state.SkipWithError("a clean run was flagged (false positive)");
  abft_cuda_release(h);
  abft_handle_destroy(h);
  free_all();
}

void add(const std::string& kind, abft_cuda_dtype t, int64_t D, bool causal, int64_t seq, Engine eng, Dir dir,
         bool records) {
  const std::string name = "cuda_attention/" + kind + "/" + dtype_tag(t) + "/d" + std::to_string(D) +
                           (causal ? "/causal" : "/full") + "/seq" + std::to_string(seq);
  benchmark::RegisterBenchmark(name.c_str(), BM_attention, t, seq, D, causal, eng, dir, records)
      ->UseManualTime()
      ->Iterations(abft_bench::iterations(5))
      ->Unit(benchmark::kMillisecond);
}

void register_all() {
  // The forward, the mma.sync rows first (the bar's rows; its scope: 16-bit storage, every head
  // dim, causal and not), then SIMT's (bfloat16 everywhere, binary16 and float at head_dim 128
  // full) and WMMA's (SIMT's 16-bit shapes).
  for (Engine eng : {Engine::Mma, Engine::Simt, Engine::Wmma})
    for (abft_cuda_dtype t : {ABFT_CUDA_BFLOAT16, ABFT_CUDA_HALF, ABFT_CUDA_FLOAT})
      for (int64_t D : {64, 128})
        for (bool causal : {false, true})
          for (int64_t seq = 512; seq <= 16384; seq *= 2) {
            if (eng != Engine::Simt && t == ABFT_CUDA_FLOAT) continue;  // tensor cores: 16-bit storage only
            if (eng != Engine::Mma && t != ABFT_CUDA_BFLOAT16 && (D != 128 || causal)) continue;
            add(std::string("fwd") + engine_tag(eng), t, D, causal, seq, eng, Dir::Fwd, true);
          }
  // The backward, the mma.sync rows first (16-bit storage, both head dims, causal and not), then
  // SIMT's (bfloat16 everywhere, float at head_dim 128 full).
  for (Engine eng : {Engine::Mma, Engine::Simt})
    for (abft_cuda_dtype t : {ABFT_CUDA_BFLOAT16, ABFT_CUDA_HALF, ABFT_CUDA_FLOAT})
      for (int64_t D : {64, 128})
        for (bool causal : {false, true})
          for (int64_t seq : {1024, 4096, 16384}) {
            if (eng == Engine::Mma ? t == ABFT_CUDA_FLOAT
                                   : t == ABFT_CUDA_HALF || (t == ABFT_CUDA_FLOAT && (D != 128 || causal)))
              continue;
            add(std::string("bwd") + engine_tag(eng), t, D, causal, seq, eng, Dir::Bwd, true);
          }
  for (Engine eng : {Engine::Simt, Engine::Wmma})
    for (int64_t D : {64, 128})
      for (int64_t seq : {1024, 16384})
        add(std::string("fwd") + engine_tag(eng) + "-nokeysums", ABFT_CUDA_BFLOAT16, D, false, seq, eng, Dir::Fwd,
            false);
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  return abft_bench::run_benchmarks(argc, argv);
}
