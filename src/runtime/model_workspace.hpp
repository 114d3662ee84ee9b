/** \file model_workspace.hpp
 *  \brief The activations of a pass (kept per layer for training, one layer's worth for
 *  decoding), the gradient scratch, the rotary tables and the op context of a Model. On the
 *  host, or on the device for the GPU engine's resident pass (ops_resident.hpp): the same
 *  buffers (Buf), the same pass code.
 */
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "abft/transformer/model.hpp"
#include "buffer.hpp"
#include "ops.hpp"
#include "ops_resident.hpp"

namespace abft::transformer {

/** The weights a pass reads: the model's own (host), or their device copy (resident). */
struct WeightsView {
  const ParamLayout* lay;
  const float* base;
  const ParamLayout& layout() const { return *lay; }
  const float* at(size_t offset) const { return base + offset; }
};

class Workspace {
 public:
  /** device: every activation buffer in device memory, ops run resident (the GPU engine). */
  explicit Workspace(const Config& c, bool device = false);
  ~Workspace();

  /** Size the buffers for N rows; keep: every layer's activations (training). */
  void prepare(int64_t N, bool keep);

  const Config cfg;
  const int64_t d, hd, H, KVH, F, V, W;  ///< W: width of a QKV row, (H + 2 KVH) hd
  const bool device;
  int64_t rows = 0;
  bool keep = false;

  // Activations; with keep, per layer (index l), else one layer's worth (index 0).
  Buf<float> x{device};     ///< residual stream: layer inputs (L+1 of them with keep, else 2)
  Buf<float> n1{device}, mean1{device}, rstd1{device}, qkv{device}, att{device}, lse{device}, xm{device},
      n2{device}, mean2{device}, rstd2{device}, up{device}, gate{device}, act{device};
  Buf<float> nf{device}, meanf{device}, rstdf{device};  ///< the final norm
  Buf<float> logits{device};
  std::vector<int32_t> tok, pos;  ///< host ids (resident: uploaded by the pass's embedding)

  // Backward scratch (resident: grads, the gradient of the weights).
  Buf<float> dx{device}, dn{device}, dqkv{device}, datt{device}, dact{device}, dup{device}, dgate{device};
  Buf<float> grads{device};

  std::vector<float> rope_cos, rope_sin;  ///< [context, hd/2] (Llama), host
  ops::OpContext cx;
  std::unique_ptr<ops::ResidentState> resident;  ///< device only (cx.resident points at it)

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
