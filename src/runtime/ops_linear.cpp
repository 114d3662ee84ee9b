/** \file ops_linear.cpp
 *  \brief The products of a decoder pass on the protected GEMM, attention on the protected
 *  attention kernel, and the bookkeeping every protected call shares (OpContext): report,
 *  status, time, injected faults, check-time samples.
 */
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "abft/transformer/error.hpp"
#include "ops.hpp"
#include "ops_gpu.hpp"
#include "ops_resident.hpp"

namespace abft::transformer::ops {

void OpContext::record(int layer, OpKind op, Pass pass, abft_status s, const abft_report& r,
                       double sec, const char* what) {
  if (s < 0)
    throw Error(s, std::string(what) + " (layer " + std::to_string(layer) + ", " + op_name(op) +
                       " " + pass_name(pass) + "): " + abft_status_string(s));
  OpCounters& c = stats->at(layer, op, pass);
  c.calls += 1;
  c.add_report(r);
  c.seconds += sec;
  if (injector) {
    abft_fault f[8];
    int n = 0;
    if (abft_injector_last(injector, f, 8, &n) == ABFT_STATUS_SUCCESS)
      for (int i = 0; i < n && i < 8; ++i) c.injected += f[i].applied ? 1 : 0;
  }
}

bool OpContext::sample_timing(int layer, OpKind op, Pass pass) {
  if (!opt || !opt->check_timing || policy == ABFT_POLICY_OFF) return false;
  const int period = std::max(1, opt->timing_period);
  return stats->at(layer, op, pass).calls % uint64_t(period) == 0;
}

void OpContext::record_invariant(int layer, OpKind op, Pass pass, bool ok, bool recomputed_ok,
                                 double sec) {
  OpCounters& c = stats->at(layer, op, pass);
  c.calls += 1;
  c.seconds += sec;
  if (!opt || !opt->invariant_checks) return;
  c.checks += 1;
  if (ok) return;
  c.detected += 1;
  c.recomputed += 1;
  if (recomputed_ok) c.corrected += 1;
  else c.uncorrectable += 1;
}

namespace {

/** One sgemm on the handle, recorded under (layer, op, pass); with a check-time sample, the
 *  same call again with policy off into scratch memory (not injected, not counted). */
void gemm(OpContext& cx, int layer, OpKind op, Pass pass, abft_op ta, abft_op tb, int64_t m,
          int64_t n, int64_t k, const float* A, int64_t lda, const float* B, int64_t ldb,
          float beta, float* C, int64_t ldc) {
  if (cx.resident) {  // the GPU engine: no check-time samples (the calls are asynchronous)
    const Clock::time_point t0 = Clock::now();
    // A weight's encoding made once per copy of the weights (resident::weight_encoding).
    const double* enc = resident::weight_encoding(cx, ta, tb, m, n, k, A, lda, B, ldb);
    const abft_status s = gpu_sgemm_device(cx.handle, cx.policy, ta, tb, m, n, k, A, lda, B, ldb, beta, C, ldc, enc);
    resident::record_call(cx, layer, op, pass, s, seconds_since(t0), "sgemm (GPU)");
    return;
  }
  const bool sample = cx.sample_timing(layer, op, pass);
  abft_report r{};
  const Clock::time_point t0 = Clock::now();
  const abft_status s = abft_sgemm(cx.handle, cx.policy, ABFT_ROW_MAJOR, ta, tb, m, n, k, 1.0f, A,
                                   lda, B, ldb, beta, C, ldc, &r);
  const double sec = seconds_since(t0);
  cx.record(layer, op, pass, s, r, sec, "sgemm");
  if (!sample) return;
  // The shadow: C's rows copied (beta != 0 reads them), the call timed with policy off.
  cx.shadow.resize(size_t(m) * size_t(n));
  float* S = cx.shadow.data();
  if (beta != 0.0f)
    for (int64_t i = 0; i < m; ++i) std::memcpy(S + i * n, C + i * ldc, size_t(n) * sizeof(float));
  const Clock::time_point t1 = Clock::now();
  abft_sgemm(nullptr, ABFT_POLICY_OFF, ABFT_ROW_MAJOR, ta, tb, m, n, k, 1.0f, A, lda, B, ldb, beta,
             S, n, nullptr);
  const double off = seconds_since(t1);
  OpCounters& c = cx.stats->at(layer, op, pass);
  c.check_seconds += std::max(0.0, sec - off) * double(std::max(1, cx.opt->timing_period));
  c.timing_samples += 1;
}

}  // namespace

void linear(OpContext& cx, int layer, OpKind op, int64_t N, int64_t in, int64_t out,
            const float* X, int64_t ldx, const float* W, WLayout wl, float* Y, int64_t ldy,
            bool accumulate) {
  if (wl == WLayout::InOut)
    gemm(cx, layer, op, Pass::Forward, ABFT_NO_TRANS, ABFT_NO_TRANS, N, out, in, X, ldx, W, out,
         accumulate ? 1.0f : 0.0f, Y, ldy);
  else
    gemm(cx, layer, op, Pass::Forward, ABFT_NO_TRANS, ABFT_TRANS, N, out, in, X, ldx, W, in,
         accumulate ? 1.0f : 0.0f, Y, ldy);
}

void linear_dx(OpContext& cx, int layer, OpKind op, int64_t N, int64_t in, int64_t out,
               const float* dY, int64_t ldy, const float* W, WLayout wl, float* dX, int64_t ldx,
               bool accumulate) {
  if (wl == WLayout::InOut)
    gemm(cx, layer, op, Pass::Backward, ABFT_NO_TRANS, ABFT_TRANS, N, in, out, dY, ldy, W, out,
         accumulate ? 1.0f : 0.0f, dX, ldx);
  else
    gemm(cx, layer, op, Pass::Backward, ABFT_NO_TRANS, ABFT_NO_TRANS, N, in, out, dY, ldy, W, in,
         accumulate ? 1.0f : 0.0f, dX, ldx);
}

void linear_dw(OpContext& cx, int layer, OpKind op, int64_t N, int64_t in, int64_t out,
               const float* X, int64_t ldx, const float* dY, int64_t ldy, WLayout wl, float* dW,
               float* db, bool overwrite) {
  const float beta = overwrite ? 0.0f : 1.0f;
  if (wl == WLayout::InOut)
    gemm(cx, layer, op, Pass::Weight, ABFT_TRANS, ABFT_NO_TRANS, in, out, N, X, ldx, dY, ldy,
         beta, dW, out);
  else
    gemm(cx, layer, op, Pass::Weight, ABFT_TRANS, ABFT_NO_TRANS, out, in, N, dY, ldy, X, ldx,
         beta, dW, in);
  if (!db) return;
  if (cx.resident) return resident::column_sums_add(cx, N, out, dY, ldy, db);
  // Column sums of dY, in double per column block (not checksummed: a bias gradient is a
  // reduction, not a product).
  const int64_t nb = 64;
#pragma omp parallel for num_threads(cx.threads) schedule(static)
  for (int64_t j0 = 0; j0 < out; j0 += nb) {
    const int64_t j1 = std::min(out, j0 + nb);
    double acc[64] = {0};
    for (int64_t i = 0; i < N; ++i) {
      const float* row = dY + i * ldy;
      for (int64_t j = j0; j < j1; ++j) acc[j - j0] += row[j];
    }
    for (int64_t j = j0; j < j1; ++j) db[j] += float(acc[j - j0]);
  }
}

void attention_fwd(OpContext& cx, int layer, const AttnViews& a) {
  if (cx.resident) {
    const Clock::time_point t0 = Clock::now();
    const abft_status s = gpu_attention_forward_device(cx.handle, cx.policy, a.d, a.q, a.k, a.v, a.o, a.lse);
    resident::record_call(cx, layer, OpKind::Attention, Pass::Forward, s, seconds_since(t0), "attention forward (GPU)");
    return;
  }
  const bool sample = cx.sample_timing(layer, OpKind::Attention, Pass::Forward);
  abft_report r{};
  const Clock::time_point t0 = Clock::now();
  const abft_status s = abft_attention_forward(cx.handle, cx.policy, &a.d, a.q, a.k, a.v, nullptr,
                                               a.o, a.lse, &r);
  const double sec = seconds_since(t0);
  cx.record(layer, OpKind::Attention, Pass::Forward, s, r, sec, "attention forward");
  if (!sample) return;
  // The shadow writes a contiguous O and lse into scratch.
  const abft_attention_desc& d = a.d;
  const int64_t on = d.batch * d.heads * d.q_len * d.head_dim, ln = d.batch * d.heads * d.q_len;
  cx.shadow.resize(size_t(on + ln));
  abft_attention_desc sd = d;
  sd.o_strides[3] = 1;
  sd.o_strides[2] = d.head_dim;
  sd.o_strides[1] = d.q_len * d.head_dim;
  sd.o_strides[0] = d.heads * d.q_len * d.head_dim;
  const Clock::time_point t1 = Clock::now();
  abft_attention_forward(nullptr, ABFT_POLICY_OFF, &sd, a.q, a.k, a.v, nullptr, cx.shadow.data(),
                         cx.shadow.data() + on, nullptr);
  const double off = seconds_since(t1);
  OpCounters& c = cx.stats->at(layer, OpKind::Attention, Pass::Forward);
  c.check_seconds += std::max(0.0, sec - off) * double(std::max(1, cx.opt->timing_period));
  c.timing_samples += 1;
}

void attention_bwd(OpContext& cx, int layer, const AttnViews& a, const float* dO, float* dq,
                   float* dk, float* dv) {
  if (cx.resident) {
    const Clock::time_point t0 = Clock::now();
    const abft_status s =
        gpu_attention_backward_device(cx.handle, cx.policy, a.d, a.q, a.k, a.v, a.o, dO, a.lse, dq, dk, dv);
    resident::record_call(cx, layer, OpKind::Attention, Pass::Backward, s, seconds_since(t0),
                          "attention backward (GPU)");
    return;
  }
  const bool sample = cx.sample_timing(layer, OpKind::Attention, Pass::Backward);
  abft_report r{};
  const Clock::time_point t0 = Clock::now();
  const abft_status s = abft_attention_backward(cx.handle, cx.policy, &a.d, a.q, a.k, a.v, nullptr,
                                                a.o, dO, a.lse, dq, dk, dv, &r);
  const double sec = seconds_since(t0);
  cx.record(layer, OpKind::Attention, Pass::Backward, s, r, sec, "attention backward");
  if (!sample) return;
  // The shadow writes contiguous dQ, dK, dV into scratch (strides of contiguous Q, K, V).
  abft_attention_desc sd = a.d;
  const int64_t D = sd.head_dim;
  auto contiguous = [&](int64_t* st, int64_t h, int64_t len) {
    st[3] = 1; st[2] = D; st[1] = len * D; st[0] = h * len * D;
  };
  const int64_t qn = sd.batch * sd.heads * sd.q_len * D, kn = sd.batch * sd.kv_heads * sd.kv_len * D;
  cx.shadow.resize(size_t(qn + 2 * kn));
  // Inputs keep their strides; only the outputs move, so copy Q/K/V views into the shadow
  // descriptor's layout is unnecessary: dQ/dK/dV must share Q/K/V's strides, so the shadow
  // reads contiguous copies of them.
  std::vector<float> q(static_cast<size_t>(qn)), k(static_cast<size_t>(kn)), v(static_cast<size_t>(kn));
  auto gather = [&](const float* src, const int64_t* st, int64_t h, int64_t len, float* dst) {
    for (int64_t b = 0; b < sd.batch; ++b)
      for (int64_t hh = 0; hh < h; ++hh)
        for (int64_t t = 0; t < len; ++t)
          for (int64_t i = 0; i < D; ++i)
            *dst++ = src[b * st[0] + hh * st[1] + t * st[2] + i * st[3]];
  };
  gather(a.q, a.d.q_strides, sd.heads, sd.q_len, q.data());
  gather(a.k, a.d.k_strides, sd.kv_heads, sd.kv_len, k.data());
  gather(a.v, a.d.v_strides, sd.kv_heads, sd.kv_len, v.data());
  contiguous(sd.q_strides, sd.heads, sd.q_len);
  contiguous(sd.k_strides, sd.kv_heads, sd.kv_len);
  contiguous(sd.v_strides, sd.kv_heads, sd.kv_len);
  float* S = cx.shadow.data();
  const Clock::time_point t1 = Clock::now();
  abft_attention_backward(nullptr, ABFT_POLICY_OFF, &sd, q.data(), k.data(), v.data(), nullptr, a.o,
                          dO, a.lse, S, S + qn, S + qn + kn, nullptr);
  const double off = seconds_since(t1);
  OpCounters& c = cx.stats->at(layer, OpKind::Attention, Pass::Backward);
  c.check_seconds += std::max(0.0, sec - off) * double(std::max(1, cx.opt->timing_period));
  c.timing_samples += 1;
}

}  // namespace abft::transformer::ops
