/** \file runtime_ops.hpp
 *  \brief The transformer runtime's pointwise ops on device memory (runtime_ops.cu), for the GPU
 *  engine's resident pass (src/runtime/ops_resident.cpp): norms, biases and residual adds,
 *  GELU and SwiGLU, rotary embeddings, the embedding lookup and its scatter-add, the
 *  cross-entropy and the column sums of bias gradients. The same formulas as the CPU engine's
 *  loops (src/runtime/fast_math.hpp is shared) and the same invariant checks; a row whose check
 *  fails is recomputed once by the block that made it, where its inputs are still there.
 *
 *  Every function enqueues on the legacy default stream (where the runtime's products and
 *  attention run), never waits for the device, and returns cudaSuccess or the launch's error.
 *  Row-major arrays; every pointer is device memory. A call with no rows launches nothing.
 */
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace abft::cuda::rt {

/** One op call's invariant check, on the device (zero before the call): `bad` some row failed
 *  its check; `bad2` some row still failed after its recomputation, or failed where it cannot
 *  be recomputed (an op that works in place). The host reads them after the pass: ok = !bad,
 *  recomputed_ok = !bad2 (OpContext::record_invariant). */
struct CheckFlags {
  unsigned bad, bad2;
};

/** y = norm(x) * w (+ b) per row: LayerNorm with b (mean kept), else RMSNorm; rstd kept. Check:
 *  the normalized values are bounded by sqrt(d) and rstd is finite. */
cudaError_t norm_fwd(int64_t N, int64_t d, const float* x, const float* w, const float* b, double eps,
                     float* y, float* mean, float* rstd, bool recompute, CheckFlags* f);

/** Doubles of scratch norm_bwd and column_sums_add need for N rows of n columns. */
size_t column_scratch(int64_t N, int64_t n);

/** dx += the norm's backward of dy (check: every row's sum finite; in place, not recomputed);
 *  dw (+ db) += the parameter gradients, summed over rows in double in a fixed order. */
cudaError_t norm_bwd(int64_t N, int64_t d, const float* x, const float* w, bool layernorm, const float* mean,
                     const float* rstd, const float* dy, float* dx, float* dw, float* db, double* scratch,
                     CheckFlags* f);

/** out[j] += sum_i Y[i, j] (N rows, n columns, ld apart), in double in a fixed order. */
cudaError_t column_sums_add(int64_t N, int64_t n, const float* Y, int64_t ldy, float* out, double* scratch);

/** Y[i, j] += b[j]. */
cudaError_t add_bias(int64_t N, int64_t n, float* Y, int64_t ldy, const float* b);
/** y += r (+ b), N rows of d. */
cudaError_t residual_add(int64_t N, int64_t d, float* y, const float* r, const float* b);

/** u += b (when given), a = gelu(u). Check: every value >= GELU's minimum, the row's sum finite. */
cudaError_t bias_gelu_fwd(int64_t N, int64_t f, float* u, const float* b, float* a, bool recompute,
                          CheckFlags* fl);
/** du = gelu'(u) * da. Check: the row's sum finite. */
cudaError_t gelu_bwd(int64_t N, int64_t f, const float* u, const float* da, float* du, bool recompute,
                     CheckFlags* fl);
/** a = silu(g) * u. Check: silu(g) >= SiLU's minimum, the row's sum finite. */
cudaError_t swiglu_fwd(int64_t N, int64_t f, const float* g, const float* u, float* a, bool recompute,
                       CheckFlags* fl);
/** dg, du from da. Check: the row's sums finite. */
cudaError_t swiglu_bwd(int64_t N, int64_t f, const float* g, const float* u, const float* da, float* dg,
                       float* du, bool recompute, CheckFlags* fl);

/** Rotate `heads` heads of hd values per row (ld apart) by the row's position (inverse: back).
 *  Check: every head keeps its norm (in place, not recomputed). */
cudaError_t rope(int64_t N, int64_t heads, int64_t hd, float* x, int64_t ld, const int32_t* pos,
                 const float* cos_t, const float* sin_t, bool inverse, CheckFlags* fl);

/** x[i] = wte[tok[i]] (+ wpe[pos[i]]); ids already checked by the caller. Check: row sums finite. */
cudaError_t embed_fwd(int64_t N, int64_t d, const int32_t* tok, const int32_t* pos, const float* wte,
                      const float* wpe, float* x, bool recompute, CheckFlags* fl);
/** dwte[tok[i]] += dx[i], dwpe[pos[i]] += dx[i]: one thread per column, rows in order (no atomics,
 *  the same sums every run). */
cudaError_t embed_bwd(int64_t N, int64_t d, const int32_t* tok, const int32_t* pos, const float* dx,
                      float* dwte, float* dwpe);

/** The KV cache's append: for t < count and h < kv_heads, row t's K head h (columns koff + h hd
 *  of rows ld apart from qkv) to kc[(h cap + len + t) hd], its V head (from voff) to vc alike. */
cudaError_t kv_append(int64_t count, int64_t kv_heads, int64_t hd, const float* qkv, int64_t ld, int64_t koff,
                      int64_t voff, float* kc, float* vc, int64_t cap, int64_t len);

/** Softmax cross-entropy per row (targets < 0 ignored, already checked < V): row_loss[i] (0 when
 *  ignored), *total = their sum in double in a fixed order; with dlogits (may be logits),
 *  dlogits = g * softmax - g at the target (0 for ignored rows). Check: every loss finite and
 *  >= 0 up to rounding; recomputed unless in place. */
cudaError_t cross_entropy(int64_t N, int64_t V, float* logits, const int32_t* targets, float* dlogits, float g,
                          double* row_loss, double* total, bool recompute, CheckFlags* fl);

/** AdamW on the device (src/runtime/optimizer.cpp's step_device): partial[b] = the sum of g[i]^2
 *  in double over block b of `block` elements (the host adds the blocks in order). */
cudaError_t sum_squares_blocks(int64_t n, const float* g, int64_t block, double* partial);
/** The update of every element, in double as the host's (optimizer.cpp): g *= clip_scale (when
 *  != 1), w *= shrink where decay[i], m and v updated, w -= step_size * m / (sqrt(v) *
 *  inv_sqrt_bc2 + eps). */
cudaError_t adamw_update(int64_t n, float* w, float* g, float* m, float* v, const uint8_t* decay, float clip_scale,
                         double b1, double b2, double step_size, double inv_sqrt_bc2, double shrink, double eps);

}  // namespace abft::cuda::rt
