/** \file attention_bench.cpp
 *  \brief Google Benchmark suite: protected fused attention (policy correct)
 *         against the same engine unprotected (policy off) and a naive,
 *         unfused baseline built from our own GEMM, forward and backward, in
 *         the same run; plus our GEMM's throughput (square and attention
 *         shaped) as the reference for "fraction of GEMM GFLOP/s".
 *
 *  Names (filter with --benchmark_filter; "/manual_time" is appended):
 *    attn_fwd/h:12,d:64,s:1024,causal:0   abft_attention_forward
 *    attn_bwd/h:12,d:64,s:1024,causal:1   abft_attention_backward
 *    gemm/n:2048                          C = A B, square, row-major
 *    gemm_attn/s:1024,d:64                S = Q K^T (s x s x d), then O = P V (s x d x s)
 *  Attention shapes: batch 1, kv_heads = heads, q_len = kv_len = s, no mask,
 *  scale 1/sqrt(d), contiguous [batch, heads, seq, head_dim] tensors of
 *  uniform random values in [-1, 1).
 *
 *  One benchmark row per shape and direction times every variant, in a
 *  rotating order (each goes first in turn, across iterations and across
 *  repetitions), inside each iteration:
 *    prot   the engine with ABFT_POLICY_CORRECT
 *    off    the engine with ABFT_POLICY_OFF
 *    naive  per head: S = scale Q K^T (abft_sgemm, policy off), a row softmax
 *           (causal mask, lse; exp(S - max) in place, the 1/sum applied to
 *           the rows of O), O = P V (abft_sgemm); backward per head: P
 *           recomputed from S and the forward's lse, dV = P^T dO, dP = dO V^T,
 *           dS = P o (dP - D) with D_i = dO_i . O_i, dQ = scale dS K,
 *           dK = scale dS^T Q (all abft_sgemm, policy off). It holds a
 *           seq x seq block of P (and of dP) per head, reused across heads.
 *           Causal shapes go by blocks of 128 query rows, each multiplying
 *           only the key columns some row of the block may attend: about half
 *           the work, like the fused engine (the masked part of the diagonal
 *           block is computed and zeroed).
 *  The backward's inputs O and lse are the engine's (policy off) forward of
 *  the same shape (taken from the attn_fwd row when it ran just before); all
 *  three variants get the same inputs and write their own outputs.
 *
 *  Counters (per call; GFLOP/s from the median over iterations of each
 *  variant's time):
 *    prot_GFLOP/s, off_GFLOP/s, naive_GFLOP/s   throughput of each variant
 *    prot_s, off_s, naive_s                      median seconds per call
 *    vs_off    median over iterations of prot time / off time (overhead = vs_off - 1)
 *    naive_vs_off  median of naive time / off time (> 1: the fused engine is faster)
 *    flop      flops of one call (below)
 *    err_off, err_prot  max over the outputs (O and lse; dQ, dK and dV) of
 *              max |engine - naive| / max |naive|, from the outputs of the
 *              row's timed rounds (once per shape and direction): fast garbage
 *              would show here (the naive path is the reference)
 *    checks    checksum verifications of one protected call (its abft_report)
 *    gemm_GFLOP/s  forward rows: our square 2048 sgemm (policy off), timed
 *              once right after the row's loop: the GEMM reference of the same
 *              minutes, as load on a shared machine drifts
 *              (ABFT_BENCH_GEMM_REF=0: not measured)
 *    other_load  mean number of CPUs that other processes kept busy during the
 *              row's timed loop (/proc/stat minus this process's getrusage):
 *              above ~0.2 the row's figures are contaminated (also gemm rows)
 *  Time column: one round (every variant once); gemm rows: off and correct.
 *  GEMM rows: off_GFLOP/s, prot_GFLOP/s (policy correct), vs_off, same pairing.
 *
 *  Flop convention: forward = 4 * batch * heads * head_dim * pairs, where
 *  pairs = the exact number of admissible (query, key) pairs: q_len * kv_len,
 *  or for causal sum_i clamp(i + kv_len - q_len + 1, 0, kv_len) (= s(s+1)/2).
 *  Backward = 2.5 x forward (FlashAttention's convention: five s x s x d
 *  products against the forward's two). The naive causal path computes a few
 *  more (whole diagonal blocks) but is credited with the same count.
 *
 *  Environment:
 *    ABFT_BENCH_THREADS    threads for every variant (the handle's, and the
 *                          naive softmax's OpenMP loops); default
 *                          omp_get_max_threads()
 *    ABFT_BENCH_SET        quick | default | full (ABFT_BENCH_QUICK=1 = quick):
 *                          full = heads {12,16} x head_dim {64,128} x seq
 *                          {128 ... 8192} x causal {0,1}; default = full
 *                          without seq 8192 except heads 16, head_dim 128;
 *                          quick = h12 d64 s {256,1024,4096} and h16 d128
 *                          s {1024,2048}, causal {0,1}
 *    ABFT_BENCH_MAX_SEQ    drop shapes with a longer sequence
 *    ABFT_BENCH_NAIVE=0    no naive variant (a third less time)
 *    ABFT_BENCH_WARMUP_GFLOP  an untimed round first when one call of the row
 *                          does fewer flops than this (default 32: rows
 *                          whose round lasts up to about 2 s on 2 cores);
 *                          the first call of a shape pays for page faults
 *                          and the engine's first workspace allocation
 *    ABFT_BENCH_GEMM_REF=0 no in-row GEMM reference (gemm_GFLOP/s)
 */
#include <benchmark/benchmark.h>
#include <omp.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "abft/abft.h"
#include "abft/attention.h"
#include "bench_util.hpp"

namespace {
using namespace abft_bench;

enum Variant { kProt = 0, kOff = 1, kNaive = 2 };
constexpr int kVariants = 3;
const char* const kVariantName[kVariants] = {"prot", "off", "naive"};
enum Direction { kFwd = 0, kBwd = 1 };

abft_handle_t g_handle = nullptr;
int g_threads = 1;
bool g_naive = true;
double g_warmup_gflop = 32.0;
constexpr int64_t kCausalBlock = 128;  // query rows per block of the naive causal path

struct Shape {
  int64_t heads, dim, seq;
  int causal;
  std::string label() const {
    return "h:" + std::to_string(heads) + ",d:" + std::to_string(dim) +
           ",s:" + std::to_string(seq) + ",causal:" + std::to_string(causal);
  }
  int64_t elems() const { return heads * seq * dim; }  // one [1, heads, seq, dim] tensor
};

/** Admissible (query, key) pairs of one head (bottom-right causal alignment). */
double pairs(int64_t q, int64_t kv, int causal) {
  if (!causal) return double(q) * double(kv);
  double p = 0;
  for (int64_t i = 0; i < q; ++i) p += double(std::clamp<int64_t>(i + kv - q + 1, 0, kv));
  return p;
}

double flops(const Shape& s, Direction dir) {
  const double fwd = 4.0 * double(s.heads) * double(s.dim) * pairs(s.seq, s.seq, s.causal);
  return dir == kFwd ? fwd : 2.5 * fwd;
}

std::string status_message(const char* who, abft_status st) {
  std::string msg = std::string(who) + " returned " + abft_status_string(st);
  if (st == ABFT_STATUS_FAULT_DETECTED || st == ABFT_STATUS_FAULT_UNCORRECTABLE)
    msg += " on clean data (false positive)";
  return msg;
}

// ------------------------------------------------------------------ naive baseline

/** exp(x) for x <= 0 (x - row max), about 2 ulp (Cephes' expf polynomial);
 *  plain float code the compiler vectorises in the row loops below (scalar
 *  std::exp would make the baseline's softmax, not its GEMMs, the
 *  bottleneck). Flushes below -87 to 0. */
inline float exp_neg(float x) {
  x = std::max(x, -87.0f);
  const float t = x * 1.44269504088896341f;
  const float k = (t + 12582912.0f) - 12582912.0f;  // round to nearest (|t| < 2^22)
  const float r = (x - k * 0.693359375f) + k * 2.12194440e-4f;  // x - k ln2, Cody-Waite
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  int32_t bits;
  std::memcpy(&bits, &p, 4);
  bits += int32_t(k) * (int32_t(1) << 23);  // k >= -126: a normal scale
  float y;
  std::memcpy(&y, &bits, 4);
  return y;
}

/** Admissible keys of query row i (bottom-right causal alignment), capped at ncols. */
inline int64_t admissible(int64_t i, int64_t q, int64_t kv, int causal, int64_t ncols) {
  return causal ? std::clamp<int64_t>(i + kv - q + 1, 0, ncols) : ncols;
}

// Row kernels, cloned for AVX2+FMA (x86-64-v3) and the baseline ISA; the
// OpenMP loops over rows stay outside the clones.
#define ABFT_BENCH_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))

/** One row of scale*Q K^T in p: p_j = exp(p_j - max) over its first na
 *  entries, zeros past them (na <= ncols). Returns the row's sum and sets mx
 *  (-inf and sum 0 when na == 0); the 1/sum scaling is left to the output row
 *  (one pass over P fewer). */
ABFT_BENCH_CLONES float softmax_row(float* p, int64_t ncols, int64_t na, float* mx_out) {
  float mx = -std::numeric_limits<float>::infinity(), sum = 0.0f;
#pragma omp simd reduction(max : mx)
  for (int64_t j = 0; j < na; ++j) mx = std::max(mx, p[j]);
#pragma omp simd reduction(+ : sum)
  for (int64_t j = 0; j < na; ++j) {
    const float e = exp_neg(p[j] - mx);
    p[j] = e;
    sum += e;
  }
  std::fill(p + na, p + ncols, 0.0f);
  *mx_out = mx;
  return sum;
}

/** Backward: one row of scale*Q K^T in p becomes P = exp(S - lse) over its
 *  first na entries, zeros past them. */
ABFT_BENCH_CLONES void probs_row(float* p, int64_t ncols, int64_t na, float lse) {
#pragma omp simd
  for (int64_t j = 0; j < na; ++j) p[j] = exp_neg(std::min(p[j] - lse, 0.0f));
  std::fill(p + na, p + ncols, 0.0f);
}

/** Backward: dS = P o (dP - D) in p, D = dO_i . O_i. */
ABFT_BENCH_CLONES void ds_row(float* p, const float* dp, int64_t ncols, const float* dO,
                              const float* O, int64_t d) {
  float D = 0.0f;
#pragma omp simd reduction(+ : D)
  for (int64_t c = 0; c < d; ++c) D += dO[c] * O[c];
#pragma omp simd
  for (int64_t j = 0; j < ncols; ++j) p[j] *= dp[j] - D;
}

/** Rows [i0, i0+rows) of one head's P (row stride ncols): unnormalised
 *  softmax, lse per row, 1/sum per row into inv. */
void softmax_rows(float* P, int64_t rows, int64_t ncols, int64_t i0, int64_t q, int64_t kv,
                  int causal, float* lse, float* inv) {
#pragma omp parallel for num_threads(g_threads) schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    float mx;
    const float sum = softmax_row(P + r * ncols, ncols, admissible(i0 + r, q, kv, causal, ncols), &mx);
    lse[r] = sum > 0.0f ? mx + std::log(sum) : -std::numeric_limits<float>::infinity();
    inv[r] = sum > 0.0f ? 1.0f / sum : 0.0f;
  }
}

/** O rows *= inv (the softmax normalisation, applied after P V). */
void scale_rows(float* O, int64_t rows, int64_t d, const float* inv) {
#pragma omp parallel for num_threads(g_threads) schedule(static)
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < d; ++c) O[r * d + c] *= inv[r];
}

void probs_from_lse(float* P, int64_t rows, int64_t ncols, int64_t i0, int64_t q, int64_t kv,
                    int causal, const float* lse) {
#pragma omp parallel for num_threads(g_threads) schedule(static)
  for (int64_t r = 0; r < rows; ++r)
    probs_row(P + r * ncols, ncols,
              std::isfinite(lse[r]) ? admissible(i0 + r, q, kv, causal, ncols) : 0, lse[r]);
}

void ds_rows(float* P, const float* dP, int64_t rows, int64_t ncols, const float* dO,
             const float* O, int64_t d) {
#pragma omp parallel for num_threads(g_threads) schedule(static)
  for (int64_t r = 0; r < rows; ++r) ds_row(P + r * ncols, dP + r * ncols, ncols, dO + r * d, O + r * d, d);
}

/** Workspace of the naive path: one head's block of P (and dP), reused. */
struct NaiveWork {
  AlignedBuffer<float> P, dP;
  bool reserve(size_t n, bool with_dp) {
    if (P.count < n) P.reset(0), P.reset(n);
    if (with_dp && dP.count < n) dP.reset(0), dP.reset(n);
    return P.data() && (!with_dp || dP.data());
  }
} g_work;

inline abft_status gemm_rm(abft_op ta, abft_op tb, int64_t m, int64_t n, int64_t k, float alpha,
                           const float* A, int64_t lda, const float* B, int64_t ldb, float beta,
                           float* C, int64_t ldc) {
  return abft_sgemm(g_handle, ABFT_POLICY_OFF, ABFT_ROW_MAJOR, ta, tb, m, n, k, alpha, A, lda, B,
                    ldb, beta, C, ldc, nullptr);
}

#define ABFT_BENCH_TRY(call)                            \
  do {                                                  \
    abft_status st_ = (call);                           \
    if (st_ != ABFT_STATUS_SUCCESS) return st_;         \
  } while (0)

int64_t block_rows(const Shape& s) { return s.causal ? std::min(s.seq, kCausalBlock) : s.seq; }
/** Key columns a block of query rows [i0, i0+rows) needs. */
int64_t block_cols(const Shape& s, int64_t i0, int64_t rows) {
  const int64_t q = s.seq, kv = s.seq;
  return s.causal ? std::clamp<int64_t>(i0 + rows + kv - q, 0, kv) : kv;
}

abft_status naive_forward(const Shape& s, const float* Q, const float* K, const float* V, float* O,
                          float* lse) {
  const int64_t q = s.seq, kv = s.seq, d = s.dim, br = block_rows(s);
  const float scale = 1.0f / std::sqrt(float(d));
  if (!g_work.reserve(size_t(br) * size_t(kv), false)) return ABFT_STATUS_ALLOC_FAILED;
  float* P = g_work.P.data();
  std::vector<float> inv(static_cast<size_t>(br));
  for (int64_t h = 0; h < s.heads; ++h) {
    const float *Qh = Q + h * q * d, *Kh = K + h * kv * d, *Vh = V + h * kv * d;
    float* Oh = O + h * q * d;
    for (int64_t i0 = 0; i0 < q; i0 += br) {
      const int64_t rows = std::min(br, q - i0), nc = block_cols(s, i0, rows);
      if (nc == 0) {  // no admissible key for any row of the block
        std::fill(Oh + i0 * d, Oh + (i0 + rows) * d, 0.0f);
        std::fill(lse + h * q + i0, lse + h * q + i0 + rows, -std::numeric_limits<float>::infinity());
        continue;
      }
      ABFT_BENCH_TRY(gemm_rm(ABFT_NO_TRANS, ABFT_TRANS, rows, nc, d, scale, Qh + i0 * d, d, Kh, d,
                             0.0f, P, nc));
      softmax_rows(P, rows, nc, i0, q, kv, s.causal, lse + h * q + i0, inv.data());
      ABFT_BENCH_TRY(gemm_rm(ABFT_NO_TRANS, ABFT_NO_TRANS, rows, d, nc, 1.0f, P, nc, Vh, d, 0.0f,
                             Oh + i0 * d, d));
      scale_rows(Oh + i0 * d, rows, d, inv.data());
    }
  }
  return ABFT_STATUS_SUCCESS;
}

abft_status naive_backward(const Shape& s, const float* Q, const float* K, const float* V,
                           const float* O, const float* dO, const float* lse, float* dQ, float* dK,
                           float* dV) {
  const int64_t q = s.seq, kv = s.seq, d = s.dim, br = block_rows(s);
  const float scale = 1.0f / std::sqrt(float(d));
  if (!g_work.reserve(size_t(br) * size_t(kv), true)) return ABFT_STATUS_ALLOC_FAILED;
  float *P = g_work.P.data(), *dP = g_work.dP.data();
  for (int64_t h = 0; h < s.heads; ++h) {
    const float *Qh = Q + h * q * d, *Kh = K + h * kv * d, *Vh = V + h * kv * d;
    const float *Oh = O + h * q * d, *dOh = dO + h * q * d;
    float *dQh = dQ + h * q * d, *dKh = dK + h * kv * d, *dVh = dV + h * kv * d;
    std::fill(dKh, dKh + kv * d, 0.0f);  // accumulated over the query blocks
    std::fill(dVh, dVh + kv * d, 0.0f);
    for (int64_t i0 = 0; i0 < q; i0 += br) {
      const int64_t rows = std::min(br, q - i0), nc = block_cols(s, i0, rows);
      if (nc == 0) {
        std::fill(dQh + i0 * d, dQh + (i0 + rows) * d, 0.0f);
        continue;
      }
      const float *Qb = Qh + i0 * d, *dOb = dOh + i0 * d;
      ABFT_BENCH_TRY(gemm_rm(ABFT_NO_TRANS, ABFT_TRANS, rows, nc, d, scale, Qb, d, Kh, d, 0.0f, P,
                             nc));
      probs_from_lse(P, rows, nc, i0, q, kv, s.causal, lse + h * q + i0);
      // dV[0:nc] += P^T dO
      ABFT_BENCH_TRY(gemm_rm(ABFT_TRANS, ABFT_NO_TRANS, nc, d, rows, 1.0f, P, nc, dOb, d, 1.0f,
                             dVh, d));
      // dP = dO V^T
      ABFT_BENCH_TRY(gemm_rm(ABFT_NO_TRANS, ABFT_TRANS, rows, nc, d, 1.0f, dOb, d, Vh, d, 0.0f, dP,
                             nc));
      ds_rows(P, dP, rows, nc, dOb, Oh + i0 * d, d);
      // dQ = scale dS K ; dK[0:nc] += scale dS^T Q
      ABFT_BENCH_TRY(gemm_rm(ABFT_NO_TRANS, ABFT_NO_TRANS, rows, d, nc, scale, P, nc, Kh, d, 0.0f,
                             dQh + i0 * d, d));
      ABFT_BENCH_TRY(gemm_rm(ABFT_TRANS, ABFT_NO_TRANS, nc, d, rows, scale, P, nc, Qb, d, 1.0f,
                             dKh, d));
    }
  }
  return ABFT_STATUS_SUCCESS;
}

// ------------------------------------------------------------------ in-row GEMM reference

constexpr int64_t kGemmRefN = 2048;
bool g_gemm_ref = true;

/** Seconds of one square kGemmRefN sgemm (policy off, row-major), or a negative
 *  value when it failed. Operands allocated on first use and kept. */
double gemm_ref_seconds() {
  static AlignedBuffer<float> A, B, C;
  const size_t n2 = size_t(kGemmRefN) * size_t(kGemmRefN);
  if (!A.data()) {
    A.reset(n2), B.reset(n2), C.reset(n2);
    if (!A.data() || !B.data() || !C.data()) return A.reset(0), -1.0;
    fill_uniform(A.data(), n2, 11), fill_uniform(B.data(), n2, 12);
    std::memset(C.data(), 0, n2 * sizeof(float));
  }
  abft_status st = ABFT_STATUS_SUCCESS;
  const double t = time_call([&] {
    st = gemm_rm(ABFT_NO_TRANS, ABFT_NO_TRANS, kGemmRefN, kGemmRefN, kGemmRefN, 1.0f, A.data(),
                 kGemmRefN, B.data(), kGemmRefN, 0.0f, C.data(), kGemmRefN);
  });
  return st == ABFT_STATUS_SUCCESS ? t : -1.0;
}

// ------------------------------------------------------------------ shape data

/** Tensors of the shape now running (the last one only: the largest take
 *  about 1 GB). Every variant has its own outputs. */
struct ShapeData {
  std::string key;
  Shape s{};
  abft_attention_desc desc{};
  AlignedBuffer<float> Q, K, V, dO;
  AlignedBuffer<float> O[kVariants], lse[kVariants];
  AlignedBuffer<float> dQ[kVariants], dK[kVariants], dV[kVariants];
  bool have_ref = false;  // O[kOff], lse[kOff] hold the engine's forward (the backward's input)
  bool warmed[2] = {false, false};
  double err[2][kVariants] = {{-1, -1, -1}, {-1, -1, -1}};
  uint64_t checks[2] = {0, 0};

  void release() {
    for (auto* b : {&Q, &K, &V, &dO}) b->reset(0);
    for (int v = 0; v < kVariants; ++v)
      for (auto* b : {&O[v], &lse[v], &dQ[v], &dK[v], &dV[v]}) b->reset(0);
    key.clear();
    have_ref = false;
    warmed[0] = warmed[1] = false;
    for (auto& e : err) std::fill(e, e + kVariants, -1.0);
    checks[0] = checks[1] = 0;
  }
};
ShapeData g_data;

/** Allocate (zero-filled: pages touched before any timing) unless present. */
bool ensure(AlignedBuffer<float>& b, size_t n) {
  if (b.count == n && b.data()) return true;
  b.reset(0);
  b.reset(n);
  if (!b.data()) return false;
  std::memset(b.data(), 0, n * sizeof(float));
  return true;
}

ShapeData* shape_data(const Shape& s, Direction dir) {
  ShapeData& g = g_data;
  const std::string key = s.label();
  if (g.key != key) {
    g.release();
    g.key = key;
    g.s = s;
    if (abft_attention_desc_init(&g.desc, 1, s.heads, s.heads, s.seq, s.seq, s.dim) !=
        ABFT_STATUS_SUCCESS)
      return g.release(), nullptr;
    g.desc.causal = s.causal;
    const size_t n = size_t(s.elems());
    if (!ensure(g.Q, n) || !ensure(g.K, n) || !ensure(g.V, n)) return g.release(), nullptr;
    fill_uniform(g.Q.data(), n, 0x5151u + uint64_t(s.seq));
    fill_uniform(g.K.data(), n, 0x4B4Bu + uint64_t(s.dim));
    fill_uniform(g.V.data(), n, 0x5656u + uint64_t(s.heads));
  }
  const size_t n = size_t(s.elems()), nl = size_t(s.heads * s.seq);
  // The backward reads the off variant's forward output as its input.
  for (int v = 0; v < kVariants; ++v)
    if ((dir == kFwd || v == kOff) && (!ensure(g.O[v], n) || !ensure(g.lse[v], nl)))
      return g.release(), nullptr;
  if (dir == kBwd) {
    if (!g.dO.data()) {
      if (!ensure(g.dO, n)) return g.release(), nullptr;
      fill_uniform(g.dO.data(), n, 0xD0D0u + uint64_t(s.seq));
    }
    for (int v = 0; v < kVariants; ++v)
      if (!ensure(g.dQ[v], n) || !ensure(g.dK[v], n) || !ensure(g.dV[v], n))
        return g.release(), nullptr;
  }
  return &g;
}

/** max |a - b| / max |b| over finite entries; entries equal in both (e.g. an
 *  lse of -inf) count as agreeing, one non-finite where the other is finite
 *  counts as infinite error. */
double rel_err(const float* a, const float* b, size_t n) {
  double diff = 0, ref = 0;
  for (size_t i = 0; i < n; ++i) {
    if (a[i] == b[i]) {
      if (std::isfinite(b[i])) ref = std::max(ref, std::fabs(double(b[i])));
      continue;
    }
    if (!std::isfinite(a[i]) || !std::isfinite(b[i])) return std::numeric_limits<double>::infinity();
    diff = std::max(diff, std::fabs(double(a[i]) - double(b[i])));
    ref = std::max(ref, std::fabs(double(b[i])));
  }
  return ref > 0 ? diff / ref : diff;
}

/** Error of variant v's outputs against the naive baseline's. */
double err_vs_naive(ShapeData& g, Direction dir, int v) {
  const size_t n = size_t(g.s.elems()), nl = size_t(g.s.heads * g.s.seq);
  if (dir == kFwd)
    return std::max(rel_err(g.O[v].data(), g.O[kNaive].data(), n),
                    rel_err(g.lse[v].data(), g.lse[kNaive].data(), nl));
  return std::max({rel_err(g.dQ[v].data(), g.dQ[kNaive].data(), n),
                   rel_err(g.dK[v].data(), g.dK[kNaive].data(), n),
                   rel_err(g.dV[v].data(), g.dV[kNaive].data(), n)});
}

abft_status run_variant(ShapeData& g, Direction dir, int v, abft_report* rep) {
  const float *Q = g.Q.data(), *K = g.K.data(), *V = g.V.data();
  if (dir == kFwd) {
    if (v == kNaive) return naive_forward(g.s, Q, K, V, g.O[v].data(), g.lse[v].data());
    return abft_attention_forward(g_handle, v == kProt ? ABFT_POLICY_CORRECT : ABFT_POLICY_OFF,
                                  &g.desc, Q, K, V, nullptr, g.O[v].data(), g.lse[v].data(), rep);
  }
  const float *O = g.O[kOff].data(), *lse = g.lse[kOff].data(), *dO = g.dO.data();
  if (v == kNaive)
    return naive_backward(g.s, Q, K, V, O, dO, lse, g.dQ[v].data(), g.dK[v].data(),
                          g.dV[v].data());
  return abft_attention_backward(g_handle, v == kProt ? ABFT_POLICY_CORRECT : ABFT_POLICY_OFF,
                                 &g.desc, Q, K, V, nullptr, O, dO, lse, g.dQ[v].data(),
                                 g.dK[v].data(), g.dV[v].data(), rep);
}

const char* variant_fn(Direction dir, int v) {
  if (v == kNaive) return dir == kFwd ? "naive forward" : "naive backward";
  if (v == kProt)
    return dir == kFwd ? "abft_attention_forward (correct)" : "abft_attention_backward (correct)";
  return dir == kFwd ? "abft_attention_forward (off)" : "abft_attention_backward (off)";
}

void bench_attention(benchmark::State& state, const Shape& s, Direction dir) {
  ShapeData* gp = shape_data(s, dir);
  if (!gp) {
    state.SkipWithError("tensor allocation failed");
    return;
  }
  ShapeData& g = *gp;
  if (dir == kBwd && !g.have_ref) {  // the backward's O and lse: the engine's forward, policy off
    abft_status st = run_variant(g, kFwd, kOff, nullptr);
    if (st != ABFT_STATUS_SUCCESS)
      return state.SkipWithError(status_message(variant_fn(kFwd, kOff), st).c_str());
  }
  if (dir == kFwd) g.have_ref = false;  // O[kOff] is rewritten below; valid again after the loop

  std::vector<int> order{kProt, kOff};
  if (g_naive) order.push_back(kNaive);
  const double flop = flops(s, dir);
  abft_report rep{};
  abft_status st = ABFT_STATUS_SUCCESS;
  int failed = kProt;
  auto round = [&](size_t first, double* dt) {
    for (size_t k = 0; k < order.size() && st == ABFT_STATUS_SUCCESS; ++k) {
      const int v = order[(first + k) % order.size()];
      if (v == kProt) rep = abft_report{};
      dt[v] = time_call([&] { st = run_variant(g, dir, v, v == kProt ? &rep : nullptr); });
      if (st != ABFT_STATUS_SUCCESS) failed = v;
    }
  };

  if (!g.warmed[dir] && flop * 1e-9 < g_warmup_gflop) {
    double dt[kVariants] = {};
    round(0, dt);
  }
  g.warmed[dir] = true;

  std::vector<double> times[kVariants], vs_off, naive_vs_off;
  // The variant that goes first rotates over iterations and, as large rows run
  // one iteration per repetition, over the runs of the row too.
  static std::map<std::string, size_t> next_first;
  size_t first = next_first[s.label() + (dir == kFwd ? "/fwd" : "/bwd")]++ % order.size();
  const CpuSample c0 = cpu_sample();
  for (auto _ : state) {
    double dt[kVariants] = {};
    round(first, dt);
    first = (first + 1) % order.size();
    if (st != ABFT_STATUS_SUCCESS) break;
    double total = 0;
    for (int v : order) times[v].push_back(dt[v]), total += dt[v];
    state.SetIterationTime(total);
    if (dt[kOff] > 0) {
      vs_off.push_back(dt[kProt] / dt[kOff]);
      if (g_naive) naive_vs_off.push_back(dt[kNaive] / dt[kOff]);
    }
  }
  const CpuSample c1 = cpu_sample();
  if (st != ABFT_STATUS_SUCCESS)
    return state.SkipWithError(status_message(variant_fn(dir, failed), st).c_str());
  state.counters["other_load"] = other_load(c0, c1);
  // Forward rows then time one square sgemm: our GEMM rate of the same minutes
  // (the machine is shared).
  if (dir == kFwd && g_gemm_ref) {
    const double t = gemm_ref_seconds();
    if (t > 0) state.counters["gemm_GFLOP/s"] = 2e-9 * std::pow(double(kGemmRefN), 3) / t;
  }
  if (dir == kFwd) g.have_ref = true;
  if (rep.checks) g.checks[dir] = rep.checks;
  if (g_naive && g.err[dir][kOff] < 0)
    for (int v : {kProt, kOff}) g.err[dir][v] = err_vs_naive(g, dir, v);

  for (int v : order) {
    const double t = median(times[v]);
    state.counters[std::string(kVariantName[v]) + "_s"] = t;
    state.counters[std::string(kVariantName[v]) + "_GFLOP/s"] = t > 0 ? flop * 1e-9 / t : 0.0;
  }
  state.counters["vs_off"] = median(vs_off);
  if (g_naive) {
    state.counters["naive_vs_off"] = median(naive_vs_off);
    state.counters["err_off"] = g.err[dir][kOff];
    state.counters["err_prot"] = g.err[dir][kProt];
  }
  state.counters["flop"] = flop;
  state.counters["checks"] = double(g.checks[dir]);
  if (rep.detected) state.counters["detected"] = double(rep.detected);  // clean data: a false alarm
  state.SetLabel(abft_attention_kernel_info());
}

// ------------------------------------------------------------------ GEMM reference

/** kind 0: square n x n x n (dim unused); kind 1: attention-shaped, S = Q K^T
 *  (seq x seq x dim) then O = P V (seq x dim x seq). */
struct GemmCase {
  int kind;
  int64_t seq, dim;
  std::string label() const {
    return kind == 0 ? "gemm/n:" + std::to_string(seq)
                     : "gemm_attn/s:" + std::to_string(seq) + ",d:" + std::to_string(dim);
  }
  double flop() const {
    return kind == 0 ? 2.0 * double(seq) * double(seq) * double(seq)
                     : 4.0 * double(seq) * double(seq) * double(dim);
  }
};

void bench_gemm(benchmark::State& state, const GemmCase& c) {
  g_data.release();  // the attention tensors of a previous row
  const int64_t n = c.seq, d = c.kind == 0 ? c.seq : c.dim;
  // Square: A = Q (n x n), B = K (n x n), C = S. Attention: Q, K, V n x d, S n x n, O n x d.
  AlignedBuffer<float> Q(size_t(n * d)), K(size_t(n * d)), V(size_t(n * d)), S(size_t(n * n)),
      O(size_t(n * d));
  if (!Q.data() || !K.data() || !V.data() || !S.data() || !O.data())
    return state.SkipWithError("operand allocation failed");
  fill_uniform(Q.data(), Q.count, 1), fill_uniform(K.data(), K.count, 2);
  fill_uniform(V.data(), V.count, 3), fill_uniform(S.data(), S.count, 4);
  std::memset(O.data(), 0, O.count * sizeof(float));
  auto run = [&](abft_policy p) -> abft_status {
    if (c.kind == 0)
      return abft_sgemm(g_handle, p, ABFT_ROW_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, n, n, n, 1.0f,
                        Q.data(), n, K.data(), n, 0.0f, S.data(), n, nullptr);
    abft_status st = abft_sgemm(g_handle, p, ABFT_ROW_MAJOR, ABFT_NO_TRANS, ABFT_TRANS, n, n, d,
                                1.0f / std::sqrt(float(d)), Q.data(), d, K.data(), d, 0.0f,
                                S.data(), n, nullptr);
    if (st != ABFT_STATUS_SUCCESS) return st;
    return abft_sgemm(g_handle, p, ABFT_ROW_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, n, d, n, 1.0f,
                      S.data(), n, V.data(), d, 0.0f, O.data(), d, nullptr);
  };
  const abft_policy pol[2] = {ABFT_POLICY_CORRECT, ABFT_POLICY_OFF};  // 0: prot, 1: off
  abft_status st = ABFT_STATUS_SUCCESS;
  for (int w = 0; w < 2 && st == ABFT_STATUS_SUCCESS; ++w)  // warm-up: workspace, page faults
    st = run(pol[w]);
  std::vector<double> t[2], ratio;
  static std::map<std::string, int> next_first;  // rotates across runs too
  int first = next_first[c.label()]++ % 2;
  const CpuSample c0 = cpu_sample();
  for (auto _ : state) {
    if (st != ABFT_STATUS_SUCCESS) break;
    double dt[2] = {};
    for (int k = 0; k < 2 && st == ABFT_STATUS_SUCCESS; ++k) {
      const int w = (first + k) % 2;
      dt[w] = time_call([&] { st = run(pol[w]); });
    }
    first ^= 1;
    if (st != ABFT_STATUS_SUCCESS) break;
    t[0].push_back(dt[0]), t[1].push_back(dt[1]);
    if (dt[1] > 0) ratio.push_back(dt[0] / dt[1]);
    state.SetIterationTime(dt[0] + dt[1]);
  }
  const CpuSample c1 = cpu_sample();
  if (st != ABFT_STATUS_SUCCESS) return state.SkipWithError(status_message("abft_sgemm", st).c_str());
  state.counters["other_load"] = other_load(c0, c1);
  const double tp = median(t[0]), to = median(t[1]);
  state.counters["prot_s"] = tp;
  state.counters["off_s"] = to;
  state.counters["prot_GFLOP/s"] = tp > 0 ? c.flop() * 1e-9 / tp : 0.0;
  state.counters["off_GFLOP/s"] = to > 0 ? c.flop() * 1e-9 / to : 0.0;
  state.counters["vs_off"] = median(ratio);
  state.counters["flop"] = c.flop();
  state.SetLabel(abft_gemm_kernel_info(ABFT_KERNEL_SGEMM));
}

// ------------------------------------------------------------------ registration

std::vector<Shape> shapes(const std::string& set, int64_t max_seq) {
  std::vector<Shape> all;
  if (set == "quick") {
    for (int causal : {0, 1}) {
      for (int64_t s : {256, 1024, 4096}) all.push_back({12, 64, s, causal});
      for (int64_t s : {1024, 2048}) all.push_back({16, 128, s, causal});
    }
  } else {
    for (int64_t h : {12, 16})
      for (int64_t d : {64, 128})
        for (int causal : {0, 1})
          for (int64_t s = 128; s <= 8192; s *= 2) {
            if (s == 8192 && set != "full" && !(h == 16 && d == 128)) continue;
            all.push_back({h, d, s, causal});
          }
  }
  if (max_seq > 0)
    all.erase(std::remove_if(all.begin(), all.end(), [&](const Shape& x) { return x.seq > max_seq; }),
              all.end());
  return all;
}

void register_all(const std::vector<Shape>& list) {
  std::vector<GemmCase> gemms{{0, 2048, 0}};
  for (const Shape& s : list) {
    GemmCase c{1, s.seq, s.dim};
    if (std::none_of(gemms.begin(), gemms.end(),
                     [&](const GemmCase& x) { return x.kind == 1 && x.seq == c.seq && x.dim == c.dim; }))
      gemms.push_back(c);
  }
  std::sort(gemms.begin() + 1, gemms.end(), [](const GemmCase& a, const GemmCase& b) {
    return a.dim != b.dim ? a.dim < b.dim : a.seq < b.seq;
  });
  for (const GemmCase& c : gemms)
    benchmark::RegisterBenchmark(c.label().c_str(), [c](benchmark::State& st) { bench_gemm(st, c); })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  // Forward then backward of each shape: the backward reuses the forward's output.
  for (const Shape& s : list)
    for (Direction dir : {kFwd, kBwd}) {
      const std::string name = std::string(dir == kFwd ? "attn_fwd/" : "attn_bwd/") + s.label();
      benchmark::RegisterBenchmark(name.c_str(),
                                   [s, dir](benchmark::State& st) { bench_attention(st, s, dir); })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
    }
}

void add_context(int threads, const std::string& set) {
  benchmark::AddCustomContext("abft_version", abft_version());
  benchmark::AddCustomContext("abft_isa", abft_isa_name(abft_cpu_isa()));
  benchmark::AddCustomContext("abft_sgemm_kernel", abft_gemm_kernel_info(ABFT_KERNEL_SGEMM));
  benchmark::AddCustomContext("abft_attention_kernel", abft_attention_kernel_info());
  benchmark::AddCustomContext("threads", std::to_string(threads));
  benchmark::AddCustomContext("cpu_model", cpuinfo_field("model name"));
  benchmark::AddCustomContext("cpu_avx512f", cpu_has_flag("avx512f") ? "yes" : "no");
  benchmark::AddCustomContext("case_set", set);
  benchmark::AddCustomContext("naive_variant", g_naive ? "yes" : "no");
  benchmark::AddCustomContext("gemm_ref_in_rows", g_gemm_ref ? "yes" : "no");
  benchmark::AddCustomContext("flop_convention",
                              "fwd 4*b*h*d*admissible pairs; bwd 2.5x fwd");
}

}  // namespace

int main(int argc, char** argv) {
  int threads = int(env_double("ABFT_BENCH_THREADS", 0));
  if (threads <= 0) threads = omp_get_max_threads();
  g_threads = threads;
  abft_status st = abft_handle_create(&g_handle);
  if (st == ABFT_STATUS_SUCCESS) st = abft_handle_set_threads(g_handle, threads);
  if (st != ABFT_STATUS_SUCCESS) {
    std::fprintf(stderr, "abft_bench_attention: handle setup failed: %s\n", abft_status_string(st));
    return 1;
  }
  g_naive = env_string("ABFT_BENCH_NAIVE", "1") != "0";
  g_warmup_gflop = env_double("ABFT_BENCH_WARMUP_GFLOP", 32.0);
  g_gemm_ref = env_string("ABFT_BENCH_GEMM_REF", "1") != "0";
  std::string set = env_string("ABFT_BENCH_SET", "default");
  if (env_string("ABFT_BENCH_QUICK", "0") == "1") set = "quick";
  if (set != "quick" && set != "default" && set != "full") {
    std::fprintf(stderr, "abft_bench_attention: ABFT_BENCH_SET=%s unknown (quick|default|full)\n",
                 set.c_str());
    return 2;
  }
  register_all(shapes(set, int64_t(env_double("ABFT_BENCH_MAX_SEQ", 0))));

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  add_context(threads, set);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  g_data.release();
  g_work.P.reset(0), g_work.dP.reset(0);
  abft_handle_destroy(g_handle);
  return 0;
}
