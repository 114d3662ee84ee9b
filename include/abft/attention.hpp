/** \file attention.hpp
 *  \brief C++ API of the protected attention: strided 4-D tensor views whose shapes are
 *  checked against each other, forward() and backward() over the C API (abft/attention.h).
 */
#pragma once
#include <cmath>
#include <cstdint>

#include "abft/abft.hpp"
#include "abft/attention.h"

namespace abft::attention {

/** Non-owning [batch, heads, seq, head_dim] view (a mask: [batch, heads, q_len, kv_len]).
 *  Strides are in elements. */
template <class T>
struct Tensor4 {
  T* data = nullptr;
  int64_t dim[4] = {0, 0, 0, 0};
  int64_t stride[4] = {0, 0, 0, 0};

  /** A contiguous (row-major) tensor. */
  static Tensor4 contiguous(T* p, int64_t d0, int64_t d1, int64_t d2, int64_t d3) {
    Tensor4 t;
    t.data = p;
    t.dim[0] = d0; t.dim[1] = d1; t.dim[2] = d2; t.dim[3] = d3;
    t.stride[3] = 1; t.stride[2] = d3; t.stride[1] = d2 * d3; t.stride[0] = d1 * d2 * d3;
    return t;
  }
  /** The same view read-only. */
  operator Tensor4<const T>() const {
    Tensor4<const T> t;
    t.data = data;
    for (int i = 0; i < 4; ++i) { t.dim[i] = dim[i]; t.stride[i] = stride[i]; }
    return t;
  }
};

struct Options {
  float scale = NAN;  ///< NaN: 1/sqrt(head_dim)
  bool causal = false;
  Policy policy = Policy::Default;
};

namespace detail {
inline void copy_strides(const int64_t* from, int64_t* to) {
  for (int i = 0; i < 4; ++i) to[i] = from[i];
}

/** The descriptor of Q [b, h, q, d], K/V [b, hk, k, d], O like Q; a mask may have size-1
 *  batch/head dimensions (broadcast). INVALID_SIZE when the shapes disagree. (Any element
 *  types: the CUDA engine's views, abft/cuda.hpp, are 16-bit too.) */
template <class TQ, class TK, class TO, class TM>
Status describe(const Tensor4<TQ>& Q, const Tensor4<TK>& K, const Tensor4<TK>& V, const Tensor4<TO>& O,
                const Tensor4<TM>* mask, const Options& opt, abft_attention_desc& d) {
  for (int i = 0; i < 4; ++i)
    if (O.dim[i] != Q.dim[i] || V.dim[i] != K.dim[i]) return ABFT_STATUS_INVALID_SIZE;
  if (K.dim[0] != Q.dim[0] || K.dim[3] != Q.dim[3]) return ABFT_STATUS_INVALID_SIZE;
  Status s = abft_attention_desc_init(&d, Q.dim[0], Q.dim[1], K.dim[1], Q.dim[2], K.dim[2], Q.dim[3]);
  if (s != ABFT_STATUS_SUCCESS) return s;
  if (!std::isnan(opt.scale)) d.scale = opt.scale;
  d.causal = opt.causal ? 1 : 0;
  copy_strides(Q.stride, d.q_strides);
  copy_strides(K.stride, d.k_strides);
  copy_strides(V.stride, d.v_strides);
  copy_strides(O.stride, d.o_strides);
  if (mask) {
    const int64_t want[4] = {Q.dim[0], Q.dim[1], Q.dim[2], K.dim[2]};
    for (int i = 0; i < 4; ++i) {
      if (mask->dim[i] == want[i]) d.mask_strides[i] = mask->stride[i];
      else if (mask->dim[i] == 1 && i < 3) d.mask_strides[i] = 0;
      else return ABFT_STATUS_INVALID_SIZE;
    }
  }
  return ABFT_STATUS_SUCCESS;
}

/** The backward's gradients and dO share the shapes and strides of what they differentiate
 *  (Q, K, V; O): INVALID_LD when one does not. */
template <class T, class G>
Status same_layouts(const Tensor4<T>& O, const Tensor4<T>& dO, const Tensor4<T>& Q, const Tensor4<G>& dQ,
                    const Tensor4<T>& K, const Tensor4<G>& dK, const Tensor4<T>& V, const Tensor4<G>& dV) {
  for (int i = 0; i < 4; ++i) {
    if (dO.dim[i] != O.dim[i] || dO.stride[i] != O.stride[i]) return ABFT_STATUS_INVALID_LD;
    if (dQ.dim[i] != Q.dim[i] || dQ.stride[i] != Q.stride[i]) return ABFT_STATUS_INVALID_LD;
    if (dK.dim[i] != K.dim[i] || dK.stride[i] != K.stride[i]) return ABFT_STATUS_INVALID_LD;
    if (dV.dim[i] != V.dim[i] || dV.stride[i] != V.stride[i]) return ABFT_STATUS_INVALID_LD;
  }
  return ABFT_STATUS_SUCCESS;
}
}  // namespace detail

/** O (and lse, [batch, heads, q_len] contiguous, when given) from Q, K, V and an optional
 *  additive mask. Returns the status (negative: nothing written). */
inline Status forward(Handle* h, Tensor4<const float> Q, Tensor4<const float> K,
                      Tensor4<const float> V, Tensor4<float> O, float* lse = nullptr,
                      const Tensor4<const float>* mask = nullptr, const Options& opt = {},
                      Report* report = nullptr) {
  abft_attention_desc d;
  const Status s = detail::describe(Q, K, V, O, mask, opt, d);
  if (s != ABFT_STATUS_SUCCESS) return s;
  return abft_attention_forward(h ? h->get() : nullptr, static_cast<abft_policy>(opt.policy), &d,
                                Q.data, K.data, V.data, mask ? mask->data : nullptr, O.data, lse,
                                report);
}

/** dQ, dK, dV (same shapes and strides as Q, K, V) from the forward's inputs, O, lse and dO
 *  (the layout of O). */
inline Status backward(Handle* h, Tensor4<const float> Q, Tensor4<const float> K,
                       Tensor4<const float> V, Tensor4<const float> O, Tensor4<const float> dO,
                       const float* lse, Tensor4<float> dQ, Tensor4<float> dK, Tensor4<float> dV,
                       const Tensor4<const float>* mask = nullptr, const Options& opt = {},
                       Report* report = nullptr) {
  abft_attention_desc d;
  Status s = detail::describe(Q, K, V, O, mask, opt, d);
  if (s == ABFT_STATUS_SUCCESS) s = detail::same_layouts(O, dO, Q, dQ, K, dK, V, dV);
  if (s != ABFT_STATUS_SUCCESS) return s;
  return abft_attention_backward(h ? h->get() : nullptr, static_cast<abft_policy>(opt.policy),
                                 &d, Q.data, K.data, V.data, mask ? mask->data : nullptr, O.data,
                                 dO.data, lse, dQ.data, dK.data, dV.data, report);
}

}  // namespace abft::attention
