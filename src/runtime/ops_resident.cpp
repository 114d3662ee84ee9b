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

/** The flags of a new pending check of (layer, op, pass) (begin made them, zeroed). */
rt::CheckFlags* slot(OpContext& cx, int layer, OpKind op, Pass pass) {
  ResidentState& rs = state(cx);
  if (rs.pending.size() >= kMaxPending) flush(cx);
  rs.pending.push_back({layer, op, pass, 0.0});
  return reinterpret_cast<rt::CheckFlags*>(rs.flags.data() + 2 * (rs.pending.size() - 1));
}

/** The handle counts its next protected call into ledger snapshot i. */
void count_into(OpContext& cx, size_t i) {
  const abft_status s = abft_cuda_count_into(cx.handle, state(cx).ledger.data() + i * abft_cuda_counters_bytes());
  if (s != ABFT_STATUS_SUCCESS)
    throw Error(s, "GPU engine: the protected calls' counters cannot be pointed at the pass's ledger");
}

/** Zero the first `calls` snapshots of the ledger and `checks` pending checks' flags
 *  (stream-ordered, no wait). */
void clear_used(ResidentState& rs, size_t calls, size_t checks) {
  if (calls) check(cudaMemsetAsync(rs.ledger.data(), 0, calls * abft_cuda_counters_bytes()), "clearing the ledger");
  if (checks) check(cudaMemsetAsync(rs.flags.data(), 0, 2 * checks * sizeof(uint32_t)), "clearing the check flags");
}

/** host's bytes to dev through the pass's page-locked staging: the copy is queued, the host
 *  does not wait (a copy from pageable memory may wait for the device). */
void stage_upload(ResidentState& rs, void* dev, const void* host, size_t bytes) {
  if (!bytes) return;
  const size_t at = (rs.up_used + 15) / 16 * 16;
  if (at + bytes > rs.up.size()) {
    // Growing frees the staging the pass's earlier copies may still read from: wait for them
    // (only when a pass needs more than any before it).
    check(cudaStreamSynchronize(nullptr), "waiting for the device");
    rs.up.fit(std::max<size_t>(2 * (at + bytes), 4096));
  }
  std::memcpy(rs.up.data() + at, host, bytes);
  check(cudaMemcpyAsync(dev, rs.up.data() + at, bytes, cudaMemcpyHostToDevice), "copy to the device");
  rs.up_used = at + bytes;
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
  const size_t bytes = abft_cuda_counters_bytes();
  if (rs.ledger.size() < kMaxCalls * bytes || rs.flags.size() < 2 * kMaxPending) {  // the first pass
    rs.ledger.fit(kMaxCalls * bytes);
    rs.flags.fit(2 * kMaxPending);
    clear_used(rs, kMaxCalls, kMaxPending);
  } else if (rs.open) {
    // What a pass that threw left: its checks and calls forgotten, their flags and snapshots
    // cleared — with the snapshot a call launched but not recorded counted into.
    clear_used(rs, std::min(rs.calls.size() + 1, kMaxCalls), rs.pending.size());
  }
  rs.pending.clear();
  rs.calls.clear();
  rs.loss_pending = false;
  // Every copy from the staging was waited for by the last pass's end (or by the wait above).
  rs.up_used = 0;
  count_into(cx, 0);
  rs.open = true;
}

void end(OpContext& cx) {
  flush(cx);
  ResidentState& rs = state(cx);
  rs.open = false;
  abft_cuda_count_into(cx.handle, nullptr);
}

void record_call(OpContext& cx, int layer, OpKind op, Pass pass, abft_status s, double sec, const char* what) {
  ResidentState& rs = state(cx);
  if (s >= 0) {
    rs.calls.push_back({layer, op, pass});
    if (rs.calls.size() >= kMaxCalls) flush(cx);  // (which points the handle at snapshot 0)
    else count_into(cx, rs.calls.size());
  }
  cx.record(layer, op, pass, s, abft_report{}, sec, what);
}

void flush(OpContext& cx) {
  ResidentState& rs = state(cx);
  const size_t nc = rs.calls.size(), np = rs.pending.size();
  if (!nc && !np && !rs.loss_pending) return;
  // The ledger's used snapshots, the flags and the loss into the staging, then the one wait.
  const size_t bytes = abft_cuda_counters_bytes(), lbytes = nc * bytes, fbytes = 2 * np * sizeof(uint32_t);
  const size_t loss_at = (lbytes + fbytes + 7) / 8 * 8;
  rs.down.fit(loss_at + sizeof(double));
  unsigned char* host = rs.down.data();
  if (lbytes) check(cudaMemcpyAsync(host, rs.ledger.data(), lbytes, cudaMemcpyDeviceToHost), "copy from the device");
  if (fbytes) check(cudaMemcpyAsync(host + lbytes, rs.flags.data(), fbytes, cudaMemcpyDeviceToHost), "copy from the device");
  if (rs.loss_pending)
    check(cudaMemcpyAsync(host + loss_at, rs.loss.data() + (rs.loss.size() - 1), sizeof(double),
                          cudaMemcpyDeviceToHost),
          "copy from the device");
  check(cudaStreamSynchronize(nullptr), "waiting for the device");
  // Cleared for what the pass does next (stream-ordered: after the copies).
  clear_used(rs, nc, np);
  if (rs.open) count_into(cx, 0);
  if (rs.loss_pending) std::memcpy(&rs.loss_total, host + loss_at, sizeof(double));
  rs.loss_pending = false;
  const std::vector<ResidentState::Call> calls = std::move(rs.calls);
  const std::vector<ResidentState::Pending> done = std::move(rs.pending);
  rs.calls.clear();
  rs.pending.clear();
  bool uncorrectable = false;
  for (size_t i = 0; i < calls.size(); ++i) {
    abft_report r{};
    abft_cuda_counters_report(cx.handle, host + i * bytes, &r);
    cx.stats->at(calls[i].layer, calls[i].op, calls[i].pass).add_report(r);
    uncorrectable = uncorrectable || r.uncorrectable > 0;
  }
  if (uncorrectable)  // (made again at their next use)
    for (const std::unique_ptr<ResidentState::Encoding>& e : rs.encodings) e->stale = true;
  const uint32_t* f = reinterpret_cast<const uint32_t*>(host + lbytes);
  for (size_t i = 0; i < done.size(); ++i)
    cx.record_invariant(done[i].layer, done[i].op, done[i].pass, f[2 * i] == 0, f[2 * i + 1] == 0, done[i].sec);
}

const double* weight_encoding(OpContext& cx, abft_op ta, abft_op tb, int64_t m, int64_t n, int64_t k, const float* A,
                              int64_t lda, const float* B, int64_t ldb) {
  ResidentState& rs = state(cx);
  if (cx.policy == ABFT_POLICY_OFF || !rs.weights || B < rs.weights || B >= rs.weights + rs.weights_n || k <= 0)
    return nullptr;
  const uint64_t v = gpu_weights_version(cx.handle);
  if (v != rs.encodings_version) {
    for (const std::unique_ptr<ResidentState::Encoding>& e : rs.encodings) e->stale = true;
    rs.encodings_version = v;
  }
  ResidentState::Encoding* found = nullptr;
  for (const std::unique_ptr<ResidentState::Encoding>& e : rs.encodings)
    if (e->w == B && e->ta == ta && e->tb == tb && e->n == n && e->k == k && e->ld == ldb) found = e.get();
  if (found && !found->stale) return found->pairs.data();
  if (!found) {
    auto e = std::make_unique<ResidentState::Encoding>();
    e->w = B, e->ta = ta, e->tb = tb, e->n = n, e->k = k, e->ld = ldb;
    e->pairs.fit(size_t(2 * k));
    rs.encodings.push_back(std::move(e));
    found = rs.encodings.back().get();
  }
  // (Its own launch: the encoding a call would have formed, formed once for this weight and shape.)
  if (gpu_sgemm_encode(cx.handle, ta, tb, m, n, k, A, lda, B, ldb, found->pairs.data()) != ABFT_STATUS_SUCCESS)
    return nullptr;  // (stale still: the call forms its own; its arguments' errors are its own)
  found->stale = false;
  return found->pairs.data();
}

double pass_loss(const OpContext& cx) {
  const ResidentState& rs = *cx.resident;
  return rs.loss_count ? rs.loss_total / double(rs.loss_count) : 0.0;
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
  stage_upload(rs, rs.tok.data(), tok, size_t(N) * sizeof(int32_t));
  stage_upload(rs, rs.pos.data(), pos, size_t(N) * sizeof(int32_t));
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

void cross_entropy(OpContext& cx, int64_t N, int64_t V, float* logits, const int32_t* targets, float* dlogits,
                   float g, int64_t count) {
  ResidentState& rs = state(cx);
  const size_t n = size_t(std::max<int64_t>(N, 1));
  rs.tgt.fit(n);
  rs.loss.fit(n + 1);
  stage_upload(rs, rs.tgt.data(), targets, size_t(N) * sizeof(int32_t));
  const Clock::time_point t0 = Clock::now();
  rt::CheckFlags* fl = slot(cx, -1, OpKind::Loss, Pass::Forward);
  // The total lands in the buffer's last element, which the flush brings back.
  launched(cx,
           rt::cross_entropy(N, V, logits, rs.tgt.data(), dlogits, g, rs.loss.data(),
                             rs.loss.data() + (rs.loss.size() - 1), recompute(cx), fl),
           "cross-entropy", t0);
  rs.loss_pending = true;
  rs.loss_count = count;
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
void cross_entropy(OpContext&, int64_t, int64_t, float*, const int32_t*, float*, float, int64_t) { none(); }
double pass_loss(const OpContext&) { none(); }
const double* weight_encoding(OpContext&, abft_op, abft_op, int64_t, int64_t, int64_t, const float*, int64_t,
                              const float*, int64_t) {
  none();
}

#endif

}  // namespace abft::transformer::ops::resident
