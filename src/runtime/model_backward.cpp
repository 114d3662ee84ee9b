/** \file model_backward.cpp
 *  \brief Model::loss: the full-sequence forward with every layer's activations kept, the
 *  cross-entropy, and the backward through every op — each data and weight gradient product
 *  on the protected GEMM, attention's on the protected attention backward.
 */
#include <algorithm>
#include <cstring>

#include "abft/transformer/error.hpp"
#include "model_pass.hpp"

namespace abft::transformer {

namespace {

/** Backward of layer l: ws.dx holds d(loss)/d(X(l + 1)) on entry and d(loss)/d(X(l)) on exit. */
void layer_backward(const WeightsView& w, Workspace& ws, int64_t l, int64_t B, int64_t T, float* g, bool gz) {
  ops::OpContext& cx = ws.cx;
  const Config& c = ws.cfg;
  const LayerOffsets& o = w.layout().layer(l);
  const int64_t N = ws.rows, d = ws.d, F = ws.F, W = ws.W, Hd = ws.H * ws.hd, KVd = ws.KVH * ws.hd;
  const int li = int(l);
  const bool gpt2 = c.arch == Arch::GPT2;
  const ops::WLayout wl = gpt2 ? ops::WLayout::InOut : ops::WLayout::OutIn;
  auto P = [&](size_t off) { return off == LayerOffsets::kNone ? nullptr : w.at(off); };
  auto G = [&](size_t off) { return off == LayerOffsets::kNone ? nullptr : g + off; };
  float* dx = ws.dx.data();
  float* dn = ws.dn.data();

  // MLP: X(l+1) = XM + down(act) (+ b); the residual passes dx through to XM unchanged.
  ops::linear_dx(cx, li, OpKind::MlpDown, N, F, d, dx, d, P(o.down_w), wl, ws.dact.data(), F, false);
  ops::linear_dw(cx, li, OpKind::MlpDown, N, F, d, ws.ACT(l), F, dx, d, wl, G(o.down_w), G(o.down_b), gz);
  if (gpt2) {
    ops::gelu_bwd(cx, li, N, F, ws.UP(l), ws.dact.data(), ws.dup.data());
    ops::linear_dx(cx, li, OpKind::MlpUp, N, d, F, ws.dup.data(), F, P(o.up_w), wl, dn, d, false);
    ops::linear_dw(cx, li, OpKind::MlpUp, N, d, F, ws.N2(l), d, ws.dup.data(), F, wl, G(o.up_w), G(o.up_b), gz);
  } else {
    ops::swiglu_bwd(cx, li, N, F, ws.GATE(l), ws.UP(l), ws.dact.data(), ws.dgate.data(), ws.dup.data());
    ops::linear_dx(cx, li, OpKind::MlpUp, N, d, F, ws.dup.data(), F, P(o.up_w), wl, dn, d, false);
    ops::linear_dx(cx, li, OpKind::MlpGate, N, d, F, ws.dgate.data(), F, P(o.gate_w), wl, dn, d, true);
    ops::linear_dw(cx, li, OpKind::MlpUp, N, d, F, ws.N2(l), d, ws.dup.data(), F, wl, G(o.up_w), nullptr, gz);
    ops::linear_dw(cx, li, OpKind::MlpGate, N, d, F, ws.N2(l), d, ws.dgate.data(), F, wl, G(o.gate_w), nullptr, gz);
  }
  ops::norm_bwd(cx, li, N, d, ws.XM(l), P(o.ln2_w), gpt2, ws.M2(l), ws.R2(l), dn, dx, G(o.ln2_w), G(o.ln2_b));

  // Attention: XM = X(l) + out_proj(att) (+ b).
  ops::linear_dx(cx, li, OpKind::OutProj, N, Hd, d, dx, d, P(o.o_w), wl, ws.datt.data(), Hd, false);
  ops::linear_dw(cx, li, OpKind::OutProj, N, Hd, d, ws.ATT(l), Hd, dx, d, wl, G(o.o_w), G(o.o_b), gz);
  float* qkv = ws.QKV(l);
  float* dqkv = ws.dqkv.data();
  const ops::AttnViews a = pass::sequence_attention(ws, B, T, qkv, ws.ATT(l), ws.lse.data() + ws.slot(l) * N * ws.H);
  ops::attention_bwd(cx, li, a, ws.datt.data(), dqkv, dqkv + Hd, dqkv + Hd + KVd);
  if (gpt2) {
    ops::linear_dx(cx, li, OpKind::QKV, N, d, 3 * d, dqkv, W, P(o.qkv_w), wl, dn, d, false);
    ops::linear_dw(cx, li, OpKind::QKV, N, d, 3 * d, ws.N1(l), d, dqkv, W, wl, G(o.qkv_w), G(o.qkv_b), gz);
  } else {
    // The rotation is orthogonal: its backward rotates the gradients back.
    ops::rope(cx, li, Pass::Backward, N, ws.H, ws.hd, dqkv, W, ws.pos.data(), ws.rope_cos.data(), ws.rope_sin.data(), true);
    ops::rope(cx, li, Pass::Backward, N, ws.KVH, ws.hd, dqkv + Hd, W, ws.pos.data(), ws.rope_cos.data(), ws.rope_sin.data(), true);
    ops::linear_dx(cx, li, OpKind::QKV, N, d, Hd, dqkv, W, P(o.q_w), wl, dn, d, false);
    ops::linear_dx(cx, li, OpKind::QKV, N, d, KVd, dqkv + Hd, W, P(o.k_w), wl, dn, d, true);
    ops::linear_dx(cx, li, OpKind::QKV, N, d, KVd, dqkv + Hd + KVd, W, P(o.v_w), wl, dn, d, true);
    ops::linear_dw(cx, li, OpKind::QKV, N, d, Hd, ws.N1(l), d, dqkv, W, wl, G(o.q_w), nullptr, gz);
    ops::linear_dw(cx, li, OpKind::QKV, N, d, KVd, ws.N1(l), d, dqkv + Hd, W, wl, G(o.k_w), nullptr, gz);
    ops::linear_dw(cx, li, OpKind::QKV, N, d, KVd, ws.N1(l), d, dqkv + Hd + KVd, W, wl, G(o.v_w), nullptr, gz);
  }
  ops::norm_bwd(cx, li, N, d, ws.X(l), P(o.ln1_w), gpt2, ws.M1(l), ws.R1(l), dn, dx, G(o.ln1_w), G(o.ln1_b));
}

}  // namespace

double Model::loss(const int32_t* tokens, const int32_t* targets, int64_t B, int64_t T, float* grads,
                   float scale, bool grads_zero) {
  return loss_impl(tokens, targets, B, T, grads, scale, grads_zero, false);
}

double Model::loss_impl(const int32_t* tokens, const int32_t* targets, int64_t B, int64_t T, float* grads,
                        float scale, bool grads_zero, bool grads_on_device) {
  if (!targets) throw Error(ABFT_STATUS_NULL_POINTER, "loss: targets is null");
  const WeightsOnDevice held(*this);  // the forward and the backward read the same weights
  // (On the GPU engine the workspace is on the device: the pass runs resident, ops_resident.hpp.)
  Workspace& ws = *ws_;
  if (ws.device) ops::resident::begin(ws.cx);
  const Config& c = config();
  const bool train = grads != nullptr;
  const int64_t N = B * T;
  for (int64_t i = 0; i < N && B > 0 && T > 0; ++i)
    if (targets[i] >= c.vocab)
      throw Error(ABFT_STATUS_INVALID_VALUE, "loss: target " + std::to_string(targets[i]) + " at index " +
                                                 std::to_string(i) + " is outside the vocabulary");
  const WeightsView w = view_for(ws);
  ws.prepare(B > 0 && T > 0 ? B * T : 1, train);
  pass::full_sequence_forward(w, ws, tokens, B, T);
  ws.logits.fit(size_t(N) * size_t(ws.V));
  float* logits = ws.logits.data();
  pass::lm_head(w, ws, ws.nf.data(), N, ws.d, logits);
  // The gradient of the loss overwrites the logits.
  // (On the GPU engine the loss arrives with the pass's end: resident::pass_loss.)
  const double l = ops::cross_entropy(ws.cx, N, ws.V, logits, targets, train ? logits : nullptr, scale);
  if (!train) {
    if (!ws.device) return l;
    ops::resident::end(ws.cx);
    return ops::resident::pass_loss(ws.cx);
  }

  const ParamLayout& lay = weights_.layout();
  const int64_t d = ws.d;
  ws.dx.fit(size_t(N * d));
  ws.dn.fit(size_t(N * d));
  ws.dqkv.fit(size_t(N * ws.W));
  ws.datt.fit(size_t(N * d));
  ws.dact.fit(size_t(N * ws.F));
  ws.dup.fit(size_t(N * ws.F));
  if (c.arch == Arch::Llama) ws.dgate.fit(size_t(N * ws.F));
  float* g = grads;
  const size_t gbytes = weights_.size() * sizeof(float);
  if (ws.device && !grads_on_device) {  // the gradient on the device: zeros, or the caller's running sum
    ws.grads.fit(weights_.size());
    g = ws.grads.data();
    if (grads_zero) ops::fill_zero(ws.cx, g, int64_t(weights_.size()));
    else ops::resident::upload(g, grads, gbytes);
  } else if (grads_on_device && grads_zero) {
    ops::fill_zero(ws.cx, g, int64_t(weights_.size()));
  }
  // LM head: logits = nf E^T.
  ops::linear_dx(ws.cx, -1, OpKind::LmHead, N, d, ws.V, logits, ws.V, w.at(lay.lm_head),
                 ops::WLayout::OutIn, ws.dn.data(), d, false);
  // The LM head's gradient is written first (before the tied embedding's scatter-add).
  ops::linear_dw(ws.cx, -1, OpKind::LmHead, N, d, ws.V, ws.nf.data(), d, logits, ws.V,
                 ops::WLayout::OutIn, g + lay.lm_head, nullptr, grads_zero);
  ops::fill_zero(ws.cx, ws.dx.data(), N * d);
  const bool gpt2 = c.arch == Arch::GPT2;
  ops::norm_bwd(ws.cx, -1, N, d, ws.X(c.layers), w.at(lay.lnf_w), gpt2,
                gpt2 ? ws.meanf.data() : nullptr, ws.rstdf.data(), ws.dn.data(), ws.dx.data(),
                g + lay.lnf_w, gpt2 ? g + lay.lnf_b : nullptr);
  for (int64_t li = c.layers - 1; li >= 0; --li) layer_backward(w, ws, li, B, T, g, grads_zero);
  ops::embed_bwd(ws.cx, N, d, ws.tok.data(), ws.pos.data(), ws.dx.data(), g + lay.tok_emb,
                 lay.pos_emb == LayerOffsets::kNone ? nullptr : g + lay.pos_emb);
  if (ws.device) {
    if (!grads_on_device) ops::resident::download(grads, g, gbytes);
    ops::resident::end(ws.cx);
    return ops::resident::pass_loss(ws.cx);
  }
  return l;
}

}  // namespace abft::transformer
