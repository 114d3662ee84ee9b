/** \file model_workspace.hpp
 *  \brief The activations of a pass (kept per layer for training, one layer's worth for
 *  decoding), the gradient scratch, the rotary tables and the op context of a Model.
 */
#pragma once
#include <cstdint>
#include <vector>

#include "abft/transformer/model.hpp"
#include "ops.hpp"

namespace abft::transformer {

class Workspace {
 public:
  explicit Workspace(const Config& c);

  /** Size the buffers for N rows; keep: every layer's activations (training). */
  void prepare(int64_t N, bool keep);

  const Config cfg;
  const int64_t d, hd, H, KVH, F, V, W;  ///< W: width of a QKV row, (H + 2 KVH) hd
  int64_t rows = 0;
  bool keep = false;

  // Activations; with keep, per layer (index l), else one layer's worth (index 0).
  std::vector<float> x;     ///< residual stream: layer inputs (L+1 of them with keep, else 2)
  std::vector<float> n1, mean1, rstd1, qkv, att, lse, xm, n2, mean2, rstd2, up, gate, act;
  std::vector<float> nf, meanf, rstdf;  ///< the final norm
  std::vector<float> logits;
  std::vector<int32_t> tok, pos;

  // Backward scratch.
  std::vector<float> dx, dn, dqkv, datt, dact, dup, dgate;

  std::vector<float> rope_cos, rope_sin;  ///< [context, hd/2] (Llama)
  ops::OpContext cx;

  int64_t slot(int64_t l) const { return keep ? l : 0; }
  float* X(int64_t l) { return x.data() + (keep ? l : (l & 1)) * rows * d; }
  float* N1(int64_t l) { return n1.data() + slot(l) * rows * d; }
  float* M1(int64_t l) { return mean1.data() + slot(l) * rows; }
  float* R1(int64_t l) { return rstd1.data() + slot(l) * rows; }
  float* QKV(int64_t l) { return qkv.data() + slot(l) * rows * W; }
  float* ATT(int64_t l) { return att.data() + slot(l) * rows * d; }
  float* XM(int64_t l) { return xm.data() + slot(l) * rows * d; }
  float* N2(int64_t l) { return n2.data() + slot(l) * rows * d; }
  float* M2(int64_t l) { return mean2.data() + slot(l) * rows; }
  float* R2(int64_t l) { return rstd2.data() + slot(l) * rows; }
  float* UP(int64_t l) { return up.data() + slot(l) * rows * F; }
  float* GATE(int64_t l) { return gate.data() + slot(l) * rows * F; }
  float* ACT(int64_t l) { return act.data() + slot(l) * rows * F; }
};

}  // namespace abft::transformer
