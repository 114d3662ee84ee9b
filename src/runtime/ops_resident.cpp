/** \file ops_resident.cpp
 *  \brief The GPU engine's resident pass (ops_resident.hpp): the pointwise ops on the runtime's
 *  device kernels (cuda/runtime_ops.hpp), their checks kept on the device until flush.
 *  Status: run on the CUDA emulator (tests/runtime/gpu_engine_test.cpp); not yet on a GPU.
 */
#include "ops_resident.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "abft/transformer/error.hpp"

#ifdef ABFT_HAVE_CUDA
#include <cuda_runtime.h>

#include "abft/abft_cuda.h"
#include "runtime_ops.hpp"
#endif

namespace abft::transformer::ops::resident {

#ifdef ABFT_HAVE_CUDA
namespace {

namespace rt = abft::cuda::rt;

/** Pending checks and protected calls a pass keeps before flushing early. */
constexpr size_t kMaxPending = 512;
constexpr size_t kMaxCalls = 1024;

[[noreturn]] void fail(const char* what, cudaError_t e) {
  throw Error(ABFT_STATUS_INTERNAL_ERROR, std::string("GPU engine: ") + what + ": " + cudaGetErrorString(e));
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    cudaGetLastError();
    fail(what, e);
  }
}

ResidentState& state(OpContext& cx) { return *cx.resident; }

/** The flags of a new pending check of (layer, op, pass). */
rt::CheckFlags* slot(OpContext& cx, int layer, OpKind op, Pass pass) {
  ResidentState& rs = state(cx);
  if (rs.pending.size() >= kMaxPending) flush(cx);
  if (rs.flags.size() < 2 * kMaxPending) {
    rs.flags.fit(2 * kMaxPending);
    check(cudaMemset(rs.flags.data(), 0, 2 * kMaxPending * sizeof(uint32_t)), "clearing the check flags");
  }
  rs.pending.push_back({layer, op, pass, 0.0});
  return reinterpret_cast<rt::CheckFlags*>(rs.flags.data() + 2 * (rs.pending.size() - 1));
}

/** After a checked launch: its error, its host time. */
void launched(OpContext& cx, cudaError_t e, const char* what, Clock::time_point t0) {
  check(e, what);
  state(cx).pending.back().sec = seconds_since(t0);
}

bool recompute(const OpContext& cx) { return cx.opt && cx.opt->invariant_checks; }

}  // namespace

void begin(OpContext& cx) {
  ResidentState& rs = state(cx);
  if (rs.open) {
    // What a pass that threw left: its checks forgotten and their flags cleared; its calls'
    // snapshots dropped, and counts of a call it launched but did not take taken away (into the
    // ledger's first snapshot, dropped), so that the next call's snapshot holds its own alone.
    if (!rs.pending.empty())
      check(cudaMemset(rs.flags.data(), 0, 2 * rs.pending.size() * sizeof(uint32_t)), "clearing the check flags");
    rs.pending.clear();
    rs.ledger.fit(kMaxCalls * abft_cuda_counters_bytes());
    abft_cuda_take_counters(cx.handle, nullptr, rs.ledger.data());
    rs.calls.clear();
  }
  rs.open = true;
}

void end(OpContext& cx) {
  flush(cx);
  state(cx).open = false;
}

void record_call(OpContext& cx, int layer, OpKind op, Pass pass, abft_status s, double sec, const char* what) {
  ResidentState& rs = state(cx);
  if (s >= 0) {
    const size_t bytes = abft_cuda_counters_bytes();
    if (rs.calls.size() >= kMaxCalls) flush(cx);
    rs.ledger.fit(kMaxCalls * bytes);
    const abft_status t = abft_cuda_take_counters(cx.handle, nullptr, rs.ledger.data() + rs.calls.size() * bytes);
    if (t != ABFT_STATUS_SUCCESS) s = t;
    else rs.calls.push_back({layer, op, pass});
  }
  cx.record(layer, op, pass, s, abft_report{}, sec, what);
}

void flush(OpContext& cx) {
  ResidentState& rs = state(cx);
  if (!rs.calls.empty()) {
    const size_t bytes = abft_cuda_counters_bytes();
    std::vector<unsigned char> snaps(rs.calls.size() * bytes);
    download(snaps.data(), rs.ledger.data(), snaps.size());
    const std::vector<ResidentState::Call> done = std::move(rs.calls);
    rs.calls.clear();
    for (size_t i = 0; i < done.size(); ++i) {
      abft_report r{};
      abft_cuda_counters_report(cx.handle, snaps.data() + i * bytes, &r);
      cx.stats->at(done[i].layer, done[i].op, done[i].pass).add_report(r);
    }
  }
  if (rs.pending.empty()) return;
  std::vector<uint32_t> f(2 * rs.pending.size());
  download(f.data(), rs.flags.data(), f.size() * sizeof(uint32_t));
  check(cudaMemset(rs.flags.data(), 0, f.size() * sizeof(uint32_t)), "clearing the check flags");
  const std::vector<ResidentState::Pending> done = std::move(rs.pending);
  rs.pending.clear();
  for (size_t i = 0; i < done.size(); ++i)
    cx.record_invariant(done[i].layer, done[i].op, done[i].pass, f[2 * i] == 0, f[2 * i + 1] == 0, done[i].sec);
}

void upload(void* dev, const void* host, size_t bytes) {
  if (bytes) check(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice), "copy to the device");
}
void download(void* host, const void* dev, size_t bytes) {
  if (bytes) check(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost), "copy from the device");
}
void zero(float* p, int64_t n) {
  if (n > 0) check(cudaMemsetAsync(p, 0, size_t(n) * sizeof(float)), "clearing a buffer");
}

void copy(void* dst, const void* src, size_t bytes) {
  if (bytes) check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice), "copy on the device");
}

void kv_append(int64_t count, int64_t kv_heads, int64_t hd, const float* qkv, int64_t ld, int64_t koff,
               int64_t voff, float* kc, float* vc, int64_t cap, int64_t len) {
  check(rt::kv_append(count, kv_heads, hd, qkv, ld, koff, voff, kc, vc, cap, len), "KV cache append");
}

void sum_squares_blocks(int64_t n, const float* g, int64_t block, double* partial) {
  check(rt::sum_squares_blocks(n, g, block, partial), "gradient norm");
}

void adamw_update(int64_t n, float* w, float* g, float* m, float* v, const uint8_t* decay, float clip_scale, double b1,
                  double b2, double step_size, double inv_sqrt_bc2, double shrink, double eps) {
  check(rt::adamw_update(n, w, g, m, v, decay, clip_scale, b1, b2, step_size, inv_sqrt_bc2, shrink, eps),
        "AdamW update");
}

void norm_fwd(OpContext& cx, int layer, int64_t N, int64_t d, const float* x, const float* w, const float* b,
              double eps, float* y, float* mean, float* rstd) {
  const Clock::time_point t0 = Clock::now();
  rt::CheckFlags* f = slot(cx, layer, OpKind::Norm, Pass::Forward);
  launched(cx, rt::norm_fwd(N, d, x, w, b, eps, y, mean, rstd, recompute(cx), f), "norm forward", t0);
}

void norm_bwd(OpContext& cx, int layer, int64_t N, int64_t d, const float* x, const float* w, bool layernorm,
              const float* mean, const float* rstd, const float* dy, float* dx, float* dw, float* db) {
  const Clock::time_point t0 = Clock::now();
  ResidentState& rs = state(cx);
  rs.scratch.fit(rt::column_scratch(N, d));
  rt::CheckFlags* f = slot(cx, layer, OpKind::Norm, Pass::Backward);
  launched(cx, rt::norm_bwd(N, d, x, w, layernorm, mean, rstd, dy, dx, dw, db, rs.scratch.data(), f),
           "norm backward", t0);
}

void column_sums_add(OpContext& cx, int64_t N, int64_t n, const float* dY, int64_t ldy, float* db) {
  ResidentState& rs = state(cx);
  rs.scratch.fit(rt::column_scratch(N, n));
  check(rt::column_sums_add(N, n, dY, ldy, db, rs.scratch.data()), "bias gradient");
}

void add_bias(int64_t N, int64_t n, float* Y, int64_t ldy, const float* b) {
  check(rt::add_bias(N, n, Y, ldy, b), "bias");
}

void residual_add(int64_t N, int64_t d, float* y, const float* r, const float* b) {
  check(rt::residual_add(N, d, y, r, b), "residual add");
}

void bias_gelu_fwd(OpContext& cx, int layer, int64_t N, int64_t f, float* u, const float* b, float* a) {
  const Clock::time_point t0 = Clock::now();
  rt::CheckFlags* fl = slot(cx, layer, OpKind::Activation, Pass::Forward);
  launched(cx, rt::bias_gelu_fwd(N, f, u, b, a, recompute(cx), fl), "GELU", t0);
}

void gelu_bwd(OpContext& cx, int layer, int64_t N, int64_t f, const float* u, const float* da, float* du) {
  const Clock::time_point t0 = Clock::now();
  rt::CheckFlags* fl = slot(cx, layer, OpKind::Activation, Pass::Backward);
  launched(cx, rt::gelu_bwd(N, f, u, da, du, recompute(cx), fl), "GELU backward", t0);
}

void swiglu_fwd(OpContext& cx, int layer, int64_t N, int64_t f, const float* g, const float* u, float* a) {
  const Clock::time_point t0 = Clock::now();
  rt::CheckFlags* fl = slot(cx, layer, OpKind::Activation, Pass::Forward);
  launched(cx, rt::swiglu_fwd(N, f, g, u, a, recompute(cx), fl), "SwiGLU", t0);
}

void swiglu_bwd(OpContext& cx, int layer, int64_t N, int64_t f, const float* g, const float* u, const float* da,
                float* dg, float* du) {
  const Clock::time_point t0 = Clock::now();
  rt::CheckFlags* fl = slot(cx, layer, OpKind::Activation, Pass::Backward);
  launched(cx, rt::swiglu_bwd(N, f, g, u, da, dg, du, recompute(cx), fl), "SwiGLU backward", t0);
}

void rope(OpContext& cx, int layer, Pass pass, int64_t N, int64_t heads, int64_t hd, float* x, int64_t ld,
          bool inverse) {
  ResidentState& rs = state(cx);
  if (N > rs.ids || !rs.cos_t.data())
    throw Error(ABFT_STATUS_INTERNAL_ERROR, "GPU engine: rotary embedding without the pass's positions or tables");
  const Clock::time_point t0 = Clock::now();
  rt::CheckFlags* fl = slot(cx, layer, OpKind::Rope, pass);
  launched(cx, rt::rope(N, heads, hd, x, ld, rs.pos.data(), rs.cos_t.data(), rs.sin_t.data(), inverse, fl),
           "rotary embedding", t0);
}

void embed_fwd(OpContext& cx, int64_t N, int64_t d, const int32_t* tok, const int32_t* pos, const float* wte,
               const float* wpe, float* x) {
  ResidentState& rs = state(cx);
  const size_t n = size_t(std::max<int64_t>(N, 1));
  rs.tok.fit(n);
  rs.pos.fit(n);
  upload(rs.tok.data(), tok, size_t(N) * sizeof(int32_t));
  upload(rs.pos.data(), pos, size_t(N) * sizeof(int32_t));
  rs.ids = N;
  const Clock::time_point t0 = Clock::now();
  rt::CheckFlags* fl = slot(cx, -1, OpKind::Embedding, Pass::Forward);
  launched(cx, rt::embed_fwd(N, d, rs.tok.data(), rs.pos.data(), wte, wpe, x, recompute(cx), fl), "embedding",
           t0);
}

void embed_bwd(OpContext& cx, int64_t N, int64_t d, const float* dx, float* dwte, float* dwpe) {
  ResidentState& rs = state(cx);
  if (N > rs.ids) throw Error(ABFT_STATUS_INTERNAL_ERROR, "GPU engine: embedding backward of rows the pass lacks");
  const Clock::time_point t0 = Clock::now();
  check(rt::embed_bwd(N, d, rs.tok.data(), rs.pos.data(), dx, dwte, dwpe), "embedding backward");
  OpCounters& c = cx.stats->at(-1, OpKind::Embedding, Pass::Backward);
  c.calls += 1;
  c.seconds += seconds_since(t0);
}

double cross_entropy(OpContext& cx, int64_t N, int64_t V, float* logits, const int32_t* targets, float* dlogits,
                     float g) {
  ResidentState& rs = state(cx);
  const size_t n = size_t(std::max<int64_t>(N, 1));
  rs.tgt.fit(n);
  rs.loss.fit(n + 1);
  upload(rs.tgt.data(), targets, size_t(N) * sizeof(int32_t));
  const Clock::time_point t0 = Clock::now();
  rt::CheckFlags* fl = slot(cx, -1, OpKind::Loss, Pass::Forward);
  launched(cx,
           rt::cross_entropy(N, V, logits, rs.tgt.data(), dlogits, g, rs.loss.data(), rs.loss.data() + n,
                             recompute(cx), fl),
           "cross-entropy", t0);
  double total = 0.0;
  download(&total, rs.loss.data() + n, sizeof total);
  return total;
}

#else  // no CUDA engine: a Model never runs a resident pass (its constructor refuses Engine::Gpu)

namespace {
[[noreturn]] void none() {
  throw Error(ABFT_STATUS_NOT_SUPPORTED, "this build has no CUDA engine (no nvcc at configure time)");
}
}  // namespace
void begin(OpContext&) {}
void flush(OpContext&) {}
void end(OpContext&) {}
void record_call(OpContext&, int, OpKind, Pass, abft_status, double, const char*) { none(); }
void upload(void*, const void*, size_t) { none(); }
void download(void*, const void*, size_t) { none(); }
void zero(float*, int64_t) { none(); }
void copy(void*, const void*, size_t) { none(); }
void sum_squares_blocks(int64_t, const float*, int64_t, double*) { none(); }
void adamw_update(int64_t, float*, float*, float*, float*, const uint8_t*, float, double, double, double, double, double,
                  double) {
  none();
}
void kv_append(int64_t, int64_t, int64_t, const float*, int64_t, int64_t, int64_t, float*, float*, int64_t, int64_t) {
  none();
}
void norm_fwd(OpContext&, int, int64_t, int64_t, const float*, const float*, const float*, double, float*, float*,
              float*) { none(); }
void norm_bwd(OpContext&, int, int64_t, int64_t, const float*, const float*, bool, const float*, const float*,
              const float*, float*, float*, float*) { none(); }
void column_sums_add(OpContext&, int64_t, int64_t, const float*, int64_t, float*) { none(); }
void add_bias(int64_t, int64_t, float*, int64_t, const float*) { none(); }
void residual_add(int64_t, int64_t, float*, const float*, const float*) { none(); }
void bias_gelu_fwd(OpContext&, int, int64_t, int64_t, float*, const float*, float*) { none(); }
void gelu_bwd(OpContext&, int, int64_t, int64_t, const float*, const float*, float*) { none(); }
void swiglu_fwd(OpContext&, int, int64_t, int64_t, const float*, const float*, float*) { none(); }
void swiglu_bwd(OpContext&, int, int64_t, int64_t, const float*, const float*, const float*, float*, float*) {
  none();
}
void rope(OpContext&, int, Pass, int64_t, int64_t, int64_t, float*, int64_t, bool) { none(); }
void embed_fwd(OpContext&, int64_t, int64_t, const int32_t*, const int32_t*, const float*, const float*, float*) {
  none();
}
void embed_bwd(OpContext&, int64_t, int64_t, const float*, float*, float*) { none(); }
double cross_entropy(OpContext&, int64_t, int64_t, float*, const int32_t*, float*, float) { none(); }

#endif

}  // namespace abft::transformer::ops::resident
