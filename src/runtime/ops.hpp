/** \file ops.hpp
 *  \brief The ops of a decoder pass, forward and backward. Products and attention go to the
 *  protected kernels through OpContext, which records each call's report, time and injected
 *  faults in the model's statistics; the other ops are plain loops that verify cheap
 *  invariants of their outputs (finite values, ranges) and recompute once when one fails.
 *  All matrices are row-major; a row is one token.
 */
#pragma once
#include <chrono>
#include <cstdint>
#include <vector>

#include "abft/abft.h"
#include "abft/attention.h"
#include "abft/transformer/model.hpp"
#include "abft/transformer/stats.hpp"

namespace abft::transformer::ops {

struct ResidentState;  // ops_resident.hpp

/** Where a kernel call's outcome goes. */
struct OpContext {
  abft_handle_t handle = nullptr;
  abft_policy policy = ABFT_POLICY_CORRECT;
  abft_injector_t injector = nullptr;  ///< to count the faults each call landed
  RunStats* stats = nullptr;
  const ModelOptions* opt = nullptr;
  int threads = 1;                     ///< for the pointwise loops
  std::vector<float> shadow;           ///< scratch of the check-time samples
  /** The GPU engine's resident pass (ops_resident.hpp): every array an op is given is device
   *  memory, and every op runs there. nullptr: host arrays, the CPU engine. */
  ResidentState* resident = nullptr;
  /** Record one protected call: report, status, seconds; throws Error on an argument error. */
  void record(int layer, OpKind op, Pass pass, abft_status s, const abft_report& r, double sec,
              const char* what);
  /** Should this call of (layer, op, pass) be repeated with policy off to time the checks? */
  bool sample_timing(int layer, OpKind op, Pass pass);
  /** Record an invariant check's outcome: ok first time, or failed and recomputed (ok2). */
  void record_invariant(int layer, OpKind op, Pass pass, bool ok, bool recomputed_ok, double sec);
};

using Clock = std::chrono::steady_clock;
inline double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/** How a weight is stored: GPT-2's Conv1D [in, out] or nn.Linear's [out, in]. */
enum class WLayout { InOut, OutIn };

/** Y[N, out] (ldy) = X[N, in] (ldx) * W. accumulate: Y += instead. */
void linear(OpContext& cx, int layer, OpKind op, int64_t N, int64_t in, int64_t out,
            const float* X, int64_t ldx, const float* W, WLayout wl, float* Y, int64_t ldy,
            bool accumulate = false);
/** dX[N, in] (ldx) (+)= dY[N, out] (ldy) * W^T. */
void linear_dx(OpContext& cx, int layer, OpKind op, int64_t N, int64_t in, int64_t out,
               const float* dY, int64_t ldy, const float* W, WLayout wl, float* dX, int64_t ldx,
               bool accumulate);
/** dW += X^T dY (in W's layout; with overwrite, dW = X^T dY); db += column sums of dY when db
 *  is given. */
void linear_dw(OpContext& cx, int layer, OpKind op, int64_t N, int64_t in, int64_t out,
               const float* X, int64_t ldx, const float* dY, int64_t ldy, WLayout wl, float* dW,
               float* db, bool overwrite = false);

/** Attention over views of the QKV buffer (see abft/attention.h for the layouts). */
struct AttnViews {
  abft_attention_desc d;
  const float *q, *k, *v;
  float* o;
  float* lse;
};
void attention_fwd(OpContext& cx, int layer, const AttnViews& a);
/** dq, dk, dv share the strides of q, k, v; do those of o. */
void attention_bwd(OpContext& cx, int layer, const AttnViews& a, const float* dO, float* dq,
                   float* dk, float* dv);

/** y = norm(x) * w (+ b): LayerNorm when b is given (mean and variance), else RMSNorm.
 *  mean (LayerNorm) and rstd per row are kept for the backward. */
void norm_fwd(OpContext& cx, int layer, int64_t N, int64_t d, const float* x, const float* w,
              const float* b, double eps, float* y, float* mean, float* rstd);
/** dx += norm backward of dy; dw (+ db) += parameter gradients. */
void norm_bwd(OpContext& cx, int layer, int64_t N, int64_t d, const float* x, const float* w,
              bool layernorm, const float* mean, const float* rstd, const float* dy, float* dx,
              float* dw, float* db);

/** u[N, f] += b; a = gelu_tanh(u). */
void bias_gelu_fwd(OpContext& cx, int layer, int64_t N, int64_t f, float* u, const float* b, float* a);
/** du = gelu'(u) * da. */
void gelu_bwd(OpContext& cx, int layer, int64_t N, int64_t f, const float* u, const float* da, float* du);
/** a = silu(g) * u. */
void swiglu_fwd(OpContext& cx, int layer, int64_t N, int64_t f, const float* g, const float* u, float* a);
/** dg, du from da. */
void swiglu_bwd(OpContext& cx, int layer, int64_t N, int64_t f, const float* g, const float* u,
                const float* da, float* dg, float* du);

/** cos and sin tables [positions, hd/2] of the rotary embedding: angle = pos * theta^(-2i/hd). */
void rope_tables(int64_t positions, int64_t hd, double theta, std::vector<float>& cos_t,
                 std::vector<float>& sin_t);
/** Rotate `heads` heads of hd values from column 0 of each row (ld apart) by the row's
 *  position (HF rotate-half); inverse rotates back (the backward). Checks that every pair
 *  keeps its norm. (Resident: the pass's positions and the device tables; pos, cos_t and sin_t
 *  are not read.) */
void rope(OpContext& cx, int layer, Pass pass, int64_t N, int64_t heads, int64_t hd, float* x,
          int64_t ld, const int32_t* pos, const float* cos_t, const float* sin_t, bool inverse);

/** Y[N, n] (ldy) += b (broadcast over rows) — a bias of a product, outside the checksum. */
void add_bias(OpContext& cx, int64_t N, int64_t n, float* Y, int64_t ldy, const float* b);
/** y = y + r (+ b), the residual add after a projection (its values are checked by the norm
 *  that reads them next). */
void residual_add(OpContext& cx, int64_t N, int64_t d, float* y, const float* r, const float* b);
/** p[0, n) = 0. */
void fill_zero(OpContext& cx, float* p, int64_t n);

/** x[N, d] = wte[tok] (+ wpe[pos]); throws Error for a token outside the vocabulary or a
 *  position outside the table. tok and pos are host arrays on every engine (resident: copied to
 *  the device for the pass's other ops). */
void embed_fwd(OpContext& cx, int64_t N, int64_t d, int64_t vocab, int64_t npos, const int32_t* tok,
               const int32_t* pos, const float* wte, const float* wpe, float* x);
/** dwte[tok] += dx, dwpe[pos] += dx (resident: the pass's ids; tok and pos are not read). */
void embed_bwd(OpContext& cx, int64_t N, int64_t d, const int32_t* tok, const int32_t* pos,
               const float* dx, float* dwte, float* dwpe);

/** Mean cross-entropy of rows with target >= 0; with dlogits, writes scale * d(loss)/d(logits)
 *  over the logits (which may be the same buffer). Returns the loss (0 with no targets) — on
 *  the GPU engine 0, the loss arriving with the pass's end (resident::pass_loss), so that the
 *  host does not wait between the forward and the backward. targets is a host array on every
 *  engine. */
double cross_entropy(OpContext& cx, int64_t N, int64_t V, float* logits, const int32_t* targets,
                     float* dlogits, float scale);

}  // namespace abft::transformer::ops
