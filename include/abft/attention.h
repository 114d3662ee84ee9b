/** \file attention.h
 *  \brief C API of the protected scaled dot-product attention: fused, tiled
 *         forward (online softmax, log-sum-exp out) and fused backward
 *         (dQ, dK, dV), with a checksum chain through Q*K^T, the softmax and
 *         P*V (docs/ABFT.md, "Attention").
 *
 *  Tensors are 4-D [batch, heads, seq, head_dim] views with element strides:
 *      Q, O, dQ, dO : [batch, heads,    q_len,  head_dim]
 *      K, V, dK, dV : [batch, kv_heads, kv_len, head_dim]
 *      mask         : [batch, heads,    q_len,  kv_len]   (additive, optional)
 *      lse          : [batch, heads,    q_len]            (contiguous)
 *  Query head h reads key/value head h / (heads / kv_heads) (grouped-query
 *  attention; kv_heads == 1 is multi-query attention).
 *
 *      S = scale * Q K^T + mask,   P = softmax_rows(S),   O = P V,
 *      lse_i = log sum_j exp(S_ij).
 *
 *  Causal attention aligns the last query with the last key (bottom-right,
 *  as FlashAttention-2 and a decoder reading a KV cache): query i may attend
 *  key j when j <= i + kv_len - q_len. A query row with no admissible key
 *  (every key masked by -inf, or causal with q_len > kv_len) gets O = 0,
 *  lse = -inf and zero gradients.
 *
 *  Compute is float. Outputs must not overlap inputs (a repair re-reads the
 *  inputs). Statistics go to ABFT_KERNEL_ATTN_FWD / _BWD; the policy, the
 *  handle and the injection hook work as for GEMM (abft.h).
 */
#pragma once
#include "abft/abft.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Shape, scale, causality and layout of one attention call. Fill it with
 *  abft_attention_desc_init() and change what differs. A stride array of all
 *  zeros means the contiguous layout of its tensor; otherwise strides are in
 *  elements, any sign, one per dimension (batch, heads, seq, head_dim).
 *  The gradients use the layouts of their primals: dQ that of Q, dK of K,
 *  dV of V, dO of O. */
typedef struct abft_attention_desc {
  int64_t batch, heads, kv_heads, q_len, kv_len, head_dim;
  float scale;         /**< softmax scale, any finite value (init: 1/sqrt(head_dim)) */
  int causal;          /**< 0 or 1 */
  int64_t q_strides[4], k_strides[4], v_strides[4], o_strides[4];
  /** A zero stride broadcasts the mask along that dimension ({0, 0, 0, 1}: one
   *  [kv_len] row for every query); all four zero means [batch, heads, q_len,
   *  kv_len] contiguous. */
  int64_t mask_strides[4];
} abft_attention_desc;

/** Contiguous layouts, scale 1/sqrt(head_dim), non-causal, no mask. */
ABFT_API abft_status abft_attention_desc_init(abft_attention_desc* d, int64_t batch,
                                              int64_t heads, int64_t kv_heads, int64_t q_len,
                                              int64_t kv_len, int64_t head_dim);

/* Fault injection (abft.h) into an attention call: the planner sees
 * call->batch = batch*heads, m = q_len, n = kv_len, k = head_dim. Coordinates:
 *   row  query sites: (b*heads + h)*q_len + i;  ATTN_DK / ATTN_DV: (b*heads + h)*kv_len + j
 *   col  SCORES, PROBS, DP, DS: the key j;  ROWSTAT: 0 = running max, 1 = normalizer;
 *        ACC, OUTPUT, DQ, DK, DV: the head_dim column c
 *   kpos ACC, ROWSTAT, DQ: the fault lands after the key block holding key kpos was
 *        accumulated; DK, DV: after head h's query block holding query kpos was
 *        accumulated; PACKED_A: the head_dim column; other sites ignore it.
 * SCORES and PROBS also fire in the backward, which recomputes them. PACKED_A is a
 * memory fault in the packed copy of (scale * Q) that every key block reads (col is
 * ignored): caught by the copy's exact fingerprint, repaired by re-packing. */

/** Largest head_dim the engine takes. */
#define ABFT_ATTENTION_MAX_HEAD_DIM 256

/** Forward: O (and lse when not NULL) from Q, K, V and the optional additive
 *  mask (-inf entries mask a key out). h may be NULL; policy DEFAULT defers to
 *  the handle; report may be NULL. Nothing is written when an argument is
 *  rejected:
 *    NULL_POINTER   d, or a tensor the call reads or writes (mask and lse may be NULL);
 *    INVALID_VALUE  policy, causal not 0/1, a non-finite scale;
 *    INVALID_SIZE   a negative size, head_dim 0 or above ABFT_ATTENTION_MAX_HEAD_DIM,
 *                   heads not a multiple of kv_heads (kv_heads 0 with heads > 0);
 *    INVALID_LD     a zero stride on a dimension of size > 1 of Q, K, V or O;
 *    ALLOC_FAILED   the workspace (packs of K, V and, backward, of Q and dO) could not
 *                   be allocated (outputs may then be partly written). */
ABFT_API abft_status abft_attention_forward(abft_handle_t h, abft_policy policy,
                                            const abft_attention_desc* d, const float* Q,
                                            const float* K, const float* V, const float* mask,
                                            float* O, float* lse, abft_report* report);

/** Backward: dQ, dK, dV (overwritten) from the forward's inputs, its O and
 *  lse, and the output gradient dO. The scores and probabilities are
 *  recomputed tile by tile (nothing seq x seq is stored). Errors as for the
 *  forward; lse is required. */
ABFT_API abft_status abft_attention_backward(abft_handle_t h, abft_policy policy,
                                             const abft_attention_desc* d, const float* Q,
                                             const float* K, const float* V, const float* mask,
                                             const float* O, const float* dO, const float* lse,
                                             float* dQ, float* dK, float* dV,
                                             abft_report* report);

/** Static description of the attention tiling the dispatch picks now, e.g.
 *  "avx2 q-block 64 kv-block 96, tile 6x16". */
ABFT_API const char* abft_attention_kernel_info(void);

#ifdef __cplusplus
}
#endif
