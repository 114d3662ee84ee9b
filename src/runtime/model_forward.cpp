/** \file model_forward.cpp
 *  \brief Model: construction, policy and injection, checkpoints, and the forward pass —
 *  full sequences (training, evaluation) and incremental decoding with a KV cache. One layer
 *  body serves both; they differ only in where attention finds K and V.
 */
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "abft/transformer/error.hpp"
#include "model_pass.hpp"
#include "ops_gpu.hpp"

namespace abft::transformer {

// ------------------------------------------------------------------ workspace, cache

Workspace::Workspace(const Config& c, bool dev)
    : cfg(c), d(c.d_model), hd(c.head_dim()), H(c.heads), KVH(c.kv_heads), F(c.ffn), V(c.vocab),
      W((c.heads + 2 * c.kv_heads) * c.head_dim()), device(dev) {
  if (c.arch == Arch::Llama) ops::rope_tables(c.context, hd, c.rope_theta, rope_cos, rope_sin);
  if (!dev) return;
  resident = std::make_unique<ops::ResidentState>();
  cx.resident = resident.get();
  if (!rope_cos.empty()) {
    resident->cos_t.fit(rope_cos.size());
    resident->sin_t.fit(rope_sin.size());
    ops::resident::upload(resident->cos_t.data(), rope_cos.data(), rope_cos.size() * sizeof(float));
    ops::resident::upload(resident->sin_t.data(), rope_sin.data(), rope_sin.size() * sizeof(float));
  }
}

Workspace::~Workspace() = default;

void Workspace::prepare(int64_t N, bool keep_layers) {
  rows = N;
  keep = keep_layers;
  const size_t L = size_t(keep ? cfg.layers : 1), n = size_t(N);
  auto fit = [](Buf<float>& v, size_t sz) { v.fit(sz); };
  fit(x, (keep ? size_t(cfg.layers + 1) : 2) * n * size_t(d));
  fit(n1, L * n * size_t(d));
  fit(mean1, L * n);
  fit(rstd1, L * n);
  fit(qkv, L * n * size_t(W));
  fit(att, L * n * size_t(d));
  fit(lse, L * n * size_t(H));
  fit(xm, L * n * size_t(d));
  fit(n2, L * n * size_t(d));
  fit(mean2, L * n);
  fit(rstd2, L * n);
  fit(up, L * n * size_t(F));
  if (cfg.arch == Arch::Llama) fit(gate, L * n * size_t(F));
  fit(act, L * n * size_t(F));
  fit(nf, n * size_t(d));
  fit(meanf, n);
  fit(rstdf, n);
  if (tok.size() < n) {
    tok.resize(n);
    pos.resize(n);
  }
}

KVCache::KVCache(const Config& c, int64_t slots, int64_t capacity)
    : slots_(slots), capacity_(capacity) {
  if (slots < 1) throw Error(ABFT_STATUS_INVALID_SIZE, "KV cache: slots must be >= 1");
  if (capacity < 1 || capacity > c.context)
    throw Error(ABFT_STATUS_INVALID_SIZE, "KV cache: capacity " + std::to_string(capacity) +
                                              " is outside [1, context = " +
                                              std::to_string(c.context) + "]");
  len_.assign(size_t(slots), 0);
  per_ = size_t(slots) * size_t(c.kv_heads) * size_t(capacity) * size_t(c.head_dim());
  k_.assign(size_t(c.layers), std::vector<float>(per_, 0.0f));
  v_.assign(size_t(c.layers), std::vector<float>(per_, 0.0f));
}

struct KVCache::Device {
  float* p = nullptr;
};
void KVCache::DeviceFree::operator()(Device* d) const {
  if (d) ops::gpu_free(d->p);
  delete d;
}
KVCache::~KVCache() = default;

KVCache::KVCache(const KVCache& o)
    : slots_(o.slots_), capacity_(o.capacity_), per_(o.per_), len_(o.len_) {
  const_cast<KVCache&>(o).to_host();
  k_ = o.k_;
  v_ = o.v_;
}

KVCache& KVCache::operator=(const KVCache& o) {
  if (this != &o) {
    KVCache t(o);
    *this = std::move(t);
  }
  return *this;
}

void KVCache::to_host() {
  if (!dev_ || !dev_newer_) return;
  for (size_t l = 0; l < k_.size(); ++l) {
    ops::resident::download(k_[l].data(), dev_->p + 2 * l * per_, per_ * sizeof(float));
    ops::resident::download(v_[l].data(), dev_->p + (2 * l + 1) * per_, per_ * sizeof(float));
  }
  dev_newer_ = false;
}

float* KVCache::on_device() {
  if (!dev_) {
    std::unique_ptr<Device, DeviceFree> d(new Device);
    d->p = static_cast<float*>(ops::gpu_malloc(2 * k_.size() * per_ * sizeof(float)));
    if (!d->p)
      throw Error(ABFT_STATUS_ALLOC_FAILED, "KV cache: no device memory for " +
                                                std::to_string(2 * k_.size() * per_ * sizeof(float)) + " bytes");
    dev_ = std::move(d);
    dev_newer_ = false;  // the host's are the newer ones: copied below
  }
  if (!dev_newer_) {
    for (size_t l = 0; l < k_.size(); ++l) {
      ops::resident::upload(dev_->p + 2 * l * per_, k_[l].data(), per_ * sizeof(float));
      ops::resident::upload(dev_->p + (2 * l + 1) * per_, v_[l].data(), per_ * sizeof(float));
    }
    dev_newer_ = true;
  }
  return dev_->p;
}

void KVCache::clear() { std::fill(len_.begin(), len_.end(), 0); }
void KVCache::clear(int64_t slot) {
  if (slot < 0 || slot >= slots_) throw Error(ABFT_STATUS_INVALID_VALUE, "KV cache: no slot " + std::to_string(slot));
  len_[size_t(slot)] = 0;
}

// ------------------------------------------------------------------ model

Model::Model(const Config& cfg, const ModelOptions& opt) : opt_(opt), weights_(cfg) {
  const char* why = nullptr;
  if (opt_.engine == Engine::Gpu && !ops::gpu_engine_available(&why))
    throw Error(ABFT_STATUS_NOT_SUPPORTED, std::string("the GPU engine cannot run: ") + why);
  stats_.resize(int(cfg.layers));
  handle_.set_policy(opt_.policy);
  if (opt_.threads > 0) handle_.set_threads(opt_.threads);
  // The GPU engine's workspace is in device memory: every pass runs resident (ops_resident.hpp).
  ws_ = std::make_unique<Workspace>(cfg, opt_.engine == Engine::Gpu);
  ws_->cx.handle = handle_.get();
  ws_->cx.policy = static_cast<abft_policy>(opt_.policy);
  ws_->cx.stats = &stats_;
  ws_->cx.opt = &opt_;
#ifdef _OPENMP
  ws_->cx.threads = opt_.threads > 0 ? opt_.threads : omp_get_max_threads();
#else
  ws_->cx.threads = 1;
#endif
}

WeightsView Model::view_for(const Workspace& ws) {
  if (!ws.device) return WeightsView{&weights_.layout(), weights_.data()};
  const float* dev = resident_weights();
  // (The pass's products know a weight by its address: its checks' encoding is kept.)
  ws.cx.resident->weights = dev;
  ws.cx.resident->weights_n = weights_.size();
  return WeightsView{&weights_.layout(), dev};
}

Model::~Model() {
  if (opt_.engine == Engine::Gpu && handle_.get()) ops::gpu_release(handle_.get());
}
// The workspace's op context points at this object's statistics and options: a move must
// re-point them, or the moved model's calls would be recorded into (and read the options of)
// the moved-from object.
Model::Model(Model&& o) noexcept
    : opt_(std::move(o.opt_)), weights_(std::move(o.weights_)), handle_(std::move(o.handle_)),
      injector_(std::move(o.injector_)), inj_settings_(std::move(o.inj_settings_)),
      stats_(std::move(o.stats_)), ws_(std::move(o.ws_)) {
  if (ws_) {
    ws_->cx.stats = &stats_;
    ws_->cx.opt = &opt_;
  }
}

Model& Model::operator=(Model&& o) noexcept {
  if (this != &o) {
    // This model's GPU state goes with its handle (which the move hands to o, whose engine
    // may not be the GPU: its destructor would not release it).
    if (opt_.engine == Engine::Gpu && handle_.get()) ops::gpu_release(handle_.get());
    opt_ = std::move(o.opt_);
    weights_ = std::move(o.weights_);
    handle_ = std::move(o.handle_);
    injector_ = std::move(o.injector_);
    inj_settings_ = std::move(o.inj_settings_);
    stats_ = std::move(o.stats_);
    ws_ = std::move(o.ws_);
    if (ws_) {
      ws_->cx.stats = &stats_;
      ws_->cx.opt = &opt_;
    }
  }
  return *this;
}

Weights& Model::weights() {
  ops::gpu_drop_held_weights(handle_.get());  // the caller may change them: no stale copy
  return weights_;
}

const Weights& Model::weights() const {
  if (opt_.engine == Engine::Gpu && !ops::gpu_weights_to_host(handle_.get()))
    throw Error(ABFT_STATUS_INTERNAL_ERROR, "GPU engine: the weights updated on the device cannot be read back");
  return weights_;
}

float* Model::resident_weights() {
  float* p = ops::gpu_resident_weights(handle_.get(), weights_.data(), weights_.size());
  if (!p)
    throw Error(ABFT_STATUS_ALLOC_FAILED, "GPU engine: no device memory for the weights (" +
                                              std::to_string(weights_.size() * sizeof(float)) + " bytes)");
  return p;
}

Model::WeightsOnDevice::WeightsOnDevice(Model& m) {
  if (m.opt_.engine != Engine::Gpu || !m.handle_.get()) return;
  h_ = m.handle_.get();
  ops::gpu_hold_weights(h_);
}
Model::WeightsOnDevice::~WeightsOnDevice() {
  if (h_) ops::gpu_unhold_weights(h_);
}
Model::WeightsOnDevice& Model::WeightsOnDevice::operator=(WeightsOnDevice&& o) noexcept {
  if (this != &o) {
    if (h_) ops::gpu_unhold_weights(h_);
    h_ = o.h_;
    o.h_ = nullptr;
  }
  return *this;
}

void Model::set_policy(abft::Policy p) {
  if (p == abft::Policy::Default) p = static_cast<abft::Policy>(abft_default_policy());
  opt_.policy = p;
  handle_.set_policy(p);
  ws_->cx.policy = static_cast<abft_policy>(p);
}

void Model::set_injection(const InjectionSettings& s) {
  handle_.set_injector(nullptr);
  injector_.reset();
  ws_->cx.injector = nullptr;
  inj_settings_ = s;
  if (!s.enabled()) return;
  injector_ = std::make_unique<abft::Injector>(s.seed);
  for (abft_site site : s.effective_sites()) {
    abft_fault f{};
    f.site = site;
    f.model = s.model;
    f.bit = s.bit;
    f.row = f.col = f.kpos = -1;
    injector_->add(f);
  }
  if (s.per_flop) injector_->set_flop_rate(s.rate);
  else injector_->set_rate(s.rate);
  handle_.set_injector(injector_.get());
  ws_->cx.injector = injector_->get();
}

Model Model::from_pretrained(const std::string& dir, const ModelOptions& opt) {
  const std::string cpath = dir + "/config.json";
  std::ifstream in(cpath, std::ios::binary);
  if (!in) throw Error(ABFT_STATUS_INVALID_VALUE, cpath + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  Model m(config_from_json(text.str(), cpath), opt);
  m.weights().load(dir + "/model.safetensors");
  return m;
}

void Model::save_pretrained(const std::string& dir) const {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error(ABFT_STATUS_INVALID_VALUE, dir + ": cannot create the directory: " + ec.message());
  const std::string cpath = dir + "/config.json";
  {
    std::ofstream out(cpath, std::ios::binary | std::ios::trunc);
    out << config_to_json(config());
    if (!out) throw Error(ABFT_STATUS_INVALID_VALUE, cpath + ": write failed");
  }
  weights().save(dir + "/model.safetensors");  // (the GPU engine's newer weights brought back first)
}

// ------------------------------------------------------------------ the layer body

namespace pass {

void layer_forward(const WeightsView& w, Workspace& ws, int64_t l, const AttentionFn& attend) {
  ops::OpContext& cx = ws.cx;
  const Config& c = ws.cfg;
  const LayerOffsets& o = w.layout().layer(l);
  const int64_t N = ws.rows, d = ws.d, F = ws.F, W = ws.W, Hd = ws.H * ws.hd, KVd = ws.KVH * ws.hd;
  const int li = int(l);
  const bool gpt2 = c.arch == Arch::GPT2;
  auto P = [&](size_t off) { return off == LayerOffsets::kNone ? nullptr : w.at(off); };
  float* x = ws.X(l);
  float* qkv = ws.QKV(l);

  ops::norm_fwd(cx, li, N, d, x, P(o.ln1_w), P(o.ln1_b), c.norm_eps, ws.N1(l), gpt2 ? ws.M1(l) : nullptr, ws.R1(l));
  if (gpt2) {
    ops::linear(cx, li, OpKind::QKV, N, d, 3 * d, ws.N1(l), d, P(o.qkv_w), ops::WLayout::InOut, qkv, W);
    ops::add_bias(cx, N, W, qkv, W, P(o.qkv_b));
  } else {
    ops::linear(cx, li, OpKind::QKV, N, d, Hd, ws.N1(l), d, P(o.q_w), ops::WLayout::OutIn, qkv, W);
    ops::linear(cx, li, OpKind::QKV, N, d, KVd, ws.N1(l), d, P(o.k_w), ops::WLayout::OutIn, qkv + Hd, W);
    ops::linear(cx, li, OpKind::QKV, N, d, KVd, ws.N1(l), d, P(o.v_w), ops::WLayout::OutIn, qkv + Hd + KVd, W);
    ops::rope(cx, li, Pass::Forward, N, ws.H, ws.hd, qkv, W, ws.pos.data(), ws.rope_cos.data(), ws.rope_sin.data(), false);
    ops::rope(cx, li, Pass::Forward, N, ws.KVH, ws.hd, qkv + Hd, W, ws.pos.data(), ws.rope_cos.data(), ws.rope_sin.data(), false);
  }
  attend(l, qkv, ws.ATT(l));
  float* xm = ws.XM(l);
  ops::linear(cx, li, OpKind::OutProj, N, Hd, d, ws.ATT(l), Hd, P(o.o_w), gpt2 ? ops::WLayout::InOut : ops::WLayout::OutIn, xm, d);
  ops::residual_add(cx, N, d, xm, x, P(o.o_b));

  ops::norm_fwd(cx, li, N, d, xm, P(o.ln2_w), P(o.ln2_b), c.norm_eps, ws.N2(l), gpt2 ? ws.M2(l) : nullptr, ws.R2(l));
  float* next = ws.X(l + 1);
  if (gpt2) {
    ops::linear(cx, li, OpKind::MlpUp, N, d, F, ws.N2(l), d, P(o.up_w), ops::WLayout::InOut, ws.UP(l), F);
    ops::bias_gelu_fwd(cx, li, N, F, ws.UP(l), P(o.up_b), ws.ACT(l));
    ops::linear(cx, li, OpKind::MlpDown, N, F, d, ws.ACT(l), F, P(o.down_w), ops::WLayout::InOut, next, d);
    ops::residual_add(cx, N, d, next, xm, P(o.down_b));
  } else {
    ops::linear(cx, li, OpKind::MlpGate, N, d, F, ws.N2(l), d, P(o.gate_w), ops::WLayout::OutIn, ws.GATE(l), F);
    ops::linear(cx, li, OpKind::MlpUp, N, d, F, ws.N2(l), d, P(o.up_w), ops::WLayout::OutIn, ws.UP(l), F);
    ops::swiglu_fwd(cx, li, N, F, ws.GATE(l), ws.UP(l), ws.ACT(l));
    ops::linear(cx, li, OpKind::MlpDown, N, F, d, ws.ACT(l), F, P(o.down_w), ops::WLayout::OutIn, next, d);
    ops::residual_add(cx, N, d, next, xm, nullptr);
  }
}

void embed(const WeightsView& w, Workspace& ws) {
  const ParamLayout& lay = w.layout();
  ops::embed_fwd(ws.cx, ws.rows, ws.d, ws.V, ws.cfg.context, ws.tok.data(), ws.pos.data(),
                 w.at(lay.tok_emb), lay.pos_emb == LayerOffsets::kNone ? nullptr : w.at(lay.pos_emb),
                 ws.X(0));
}

void final_norm(const WeightsView& w, Workspace& ws) {
  const ParamLayout& lay = w.layout();
  const bool gpt2 = ws.cfg.arch == Arch::GPT2;
  ops::norm_fwd(ws.cx, -1, ws.rows, ws.d, ws.X(ws.cfg.layers), w.at(lay.lnf_w),
                gpt2 ? w.at(lay.lnf_b) : nullptr, ws.cfg.norm_eps, ws.nf.data(),
                gpt2 ? ws.meanf.data() : nullptr, ws.rstdf.data());
}

void lm_head(const WeightsView& w, Workspace& ws, const float* rows, int64_t n, int64_t ld, float* logits) {
  ops::linear(ws.cx, -1, OpKind::LmHead, n, ws.d, ws.V, rows, ld, w.at(w.layout().lm_head),
              ops::WLayout::OutIn, logits, ws.V);
}

ops::AttnViews sequence_attention(const Workspace& ws, int64_t B, int64_t T, const float* qkv, float* o,
                                  float* lse) {
  ops::AttnViews a;
  abft_attention_desc_init(&a.d, B, ws.H, ws.KVH, T, T, ws.hd);
  a.d.causal = 1;
  const int64_t st[4] = {T * ws.W, ws.hd, ws.W, 1};
  const int64_t so[4] = {T * ws.d, ws.hd, ws.d, 1};
  for (int i = 0; i < 4; ++i) {
    a.d.q_strides[i] = a.d.k_strides[i] = a.d.v_strides[i] = st[i];
    a.d.o_strides[i] = so[i];
  }
  a.q = qkv;
  a.k = qkv + ws.H * ws.hd;
  a.v = qkv + (ws.H + ws.KVH) * ws.hd;
  a.o = o;
  a.lse = lse;
  return a;
}

void full_sequence_forward(const WeightsView& w, Workspace& ws, const int32_t* tokens, int64_t B, int64_t T) {
  const Config& c = ws.cfg;
  if (B < 1 || T < 1) throw Error(ABFT_STATUS_INVALID_SIZE, "forward: batch and sequence length must be >= 1");
  if (T > c.context)
    throw Error(ABFT_STATUS_INVALID_SIZE, "forward: sequence length " + std::to_string(T) +
                                              " exceeds the context of " + std::to_string(c.context));
  if (!tokens) throw Error(ABFT_STATUS_NULL_POINTER, "forward: tokens is null");
  const int64_t N = B * T;
  for (int64_t i = 0; i < N; ++i) {
    ws.tok[size_t(i)] = tokens[i];
    ws.pos[size_t(i)] = int32_t(i % T);
  }
  embed(w, ws);
  for (int64_t l = 0; l < c.layers; ++l) {
    layer_forward(w, ws, l, [&](int64_t layer, float* qkv, float* out) {
      const ops::AttnViews a =
          sequence_attention(ws, B, T, qkv, out, ws.lse.data() + ws.slot(layer) * N * ws.H);
      ops::attention_fwd(ws.cx, int(layer), a);
    });
  }
  final_norm(w, ws);
}

}  // namespace pass

void Model::forward(const int32_t* tokens, int64_t B, int64_t T, float* logits) {
  if (!logits) throw Error(ABFT_STATUS_NULL_POINTER, "forward: logits is null");
  const WeightsOnDevice held(*this);
  Workspace& ws = *ws_;
  if (ws.device) ops::resident::begin(ws.cx);
  const WeightsView w = view_for(ws);
  ws.prepare(B > 0 && T > 0 ? B * T : 1, false);
  pass::full_sequence_forward(w, ws, tokens, B, T);
  if (!ws.device) {
    pass::lm_head(w, ws, ws.nf.data(), B * T, ws.d, logits);
    return;
  }
  const size_t n = size_t(B * T) * size_t(ws.V);
  ws.logits.fit(n);
  pass::lm_head(w, ws, ws.nf.data(), B * T, ws.d, ws.logits.data());
  ops::resident::download(logits, ws.logits.data(), n * sizeof(float));
  ops::resident::end(ws.cx);
}

void Model::decode(KVCache& cache, const std::vector<SeqChunk>& chunks, float* logits, bool all_logits) {
  const WeightsOnDevice held(*this);
  const Config& c = config();
  if (!logits) throw Error(ABFT_STATUS_NULL_POINTER, "decode: logits is null");
  if (chunks.empty()) throw Error(ABFT_STATUS_INVALID_SIZE, "decode: no sequences");
  std::set<int64_t> used;
  int64_t N = 0;
  for (size_t i = 0; i < chunks.size(); ++i) {
    const SeqChunk& ch = chunks[i];
    const std::string who = "decode: sequence " + std::to_string(i);
    if (ch.slot < 0 || ch.slot >= cache.slots())
      throw Error(ABFT_STATUS_INVALID_VALUE, who + ": slot " + std::to_string(ch.slot) + " is not in the cache");
    if (!used.insert(ch.slot).second) throw Error(ABFT_STATUS_INVALID_VALUE, who + ": slot used twice");
    if (ch.count < 1 || !ch.tokens) throw Error(ABFT_STATUS_INVALID_SIZE, who + ": no tokens");
    if (cache.length(ch.slot) + ch.count > cache.capacity())
      throw Error(ABFT_STATUS_INVALID_SIZE, who + ": " + std::to_string(cache.length(ch.slot)) + " + " +
                                                std::to_string(ch.count) + " tokens exceed the cache capacity " +
                                                std::to_string(cache.capacity()));
    for (int64_t t = 0; t < ch.count; ++t)
      if (ch.tokens[t] < 0 || ch.tokens[t] >= c.vocab)
        throw Error(ABFT_STATUS_INVALID_VALUE, who + ": token id " + std::to_string(ch.tokens[t]) +
                                                   " is outside the vocabulary");
    N += ch.count;
  }
  // The GPU engine decodes resident: the workspace and the cache's contents on the device.
  Workspace& ws = *ws_;
  if (ws.device) ops::resident::begin(ws.cx);
  const WeightsView w = view_for(ws);
  ws.prepare(N, false);
  std::vector<int64_t> row0(chunks.size());
  for (size_t i = 0, r = 0; i < chunks.size(); ++i) {
    row0[i] = int64_t(r);
    for (int64_t t = 0; t < chunks[i].count; ++t, ++r) {
      ws.tok[r] = chunks[i].tokens[t];
      ws.pos[r] = int32_t(cache.length(chunks[i].slot) + t);
    }
  }
  pass::embed(w, ws);
  const int64_t hd = ws.hd, KVH = ws.KVH, cap = cache.capacity();
  float* dcache = ws.device ? cache.on_device() : nullptr;
  for (int64_t l = 0; l < c.layers; ++l) {
    pass::layer_forward(w, ws, l, [&](int64_t layer, float* qkv, float* out) {
      float* kc = dcache ? dcache + 2 * size_t(layer) * cache.per_ : cache.k(layer);
      float* vc = dcache ? dcache + (2 * size_t(layer) + 1) * cache.per_ : cache.v(layer);
      for (size_t i = 0; i < chunks.size(); ++i) {
        const SeqChunk& ch = chunks[i];
        const int64_t len = cache.length(ch.slot);
        const int64_t base = ch.slot * KVH * cap * hd;
        if (dcache)
          ops::resident::kv_append(ch.count, KVH, hd, qkv + row0[i] * ws.W, ws.W, ws.H * hd, (ws.H + KVH) * hd,
                                   kc + base, vc + base, cap, len);
        for (int64_t t = 0; t < ch.count && !dcache; ++t) {
          const float* row = qkv + (row0[i] + t) * ws.W;
          for (int64_t h = 0; h < KVH; ++h) {
            std::memcpy(kc + base + (h * cap + len + t) * hd, row + (ws.H + h) * hd, size_t(hd) * sizeof(float));
            std::memcpy(vc + base + (h * cap + len + t) * hd, row + (ws.H + KVH + h) * hd, size_t(hd) * sizeof(float));
          }
        }
        ops::AttnViews a;
        abft_attention_desc_init(&a.d, 1, ws.H, KVH, ch.count, len + ch.count, hd);
        a.d.causal = 1;
        const int64_t sq[4] = {ch.count * ws.W, hd, ws.W, 1};
        const int64_t sk[4] = {KVH * cap * hd, cap * hd, hd, 1};
        const int64_t so[4] = {ch.count * ws.d, hd, ws.d, 1};
        for (int j = 0; j < 4; ++j) {
          a.d.q_strides[j] = sq[j];
          a.d.k_strides[j] = a.d.v_strides[j] = sk[j];
          a.d.o_strides[j] = so[j];
        }
        a.q = qkv + row0[i] * ws.W;
        a.k = kc + base;
        a.v = vc + base;
        a.o = out + row0[i] * ws.d;
        a.lse = nullptr;
        ops::attention_fwd(ws.cx, int(layer), a);
      }
    });
  }
  for (const SeqChunk& ch : chunks) cache.advance(ch.slot, ch.count);
  pass::final_norm(w, ws);
  const int64_t rows = all_logits ? N : int64_t(chunks.size());
  const float* head_in = ws.nf.data();
  std::vector<float> last;
  if (!all_logits) {
    // Only the last token of each sequence: gather their rows, one product (resident: into the
    // backward's scratch, unused while decoding).
    float* dst = nullptr;
    if (ws.device) {
      ws.dn.fit(chunks.size() * size_t(ws.d));
      dst = ws.dn.data();
    } else {
      last.resize(chunks.size() * size_t(ws.d));
      dst = last.data();
    }
    for (size_t i = 0; i < chunks.size(); ++i) {
      const float* src = ws.nf.data() + (row0[i] + chunks[i].count - 1) * ws.d;
      if (ws.device) ops::resident::copy(dst + i * size_t(ws.d), src, size_t(ws.d) * sizeof(float));
      else std::memcpy(dst + i * size_t(ws.d), src, size_t(ws.d) * sizeof(float));
    }
    head_in = dst;
  }
  if (!ws.device) {
    pass::lm_head(w, ws, head_in, rows, ws.d, logits);
    return;
  }
  const size_t n = size_t(rows) * size_t(ws.V);
  ws.logits.fit(n);
  pass::lm_head(w, ws, head_in, rows, ws.d, ws.logits.data());
  ops::resident::download(logits, ws.logits.data(), n * sizeof(float));
  ops::resident::end(ws.cx);
}

}  // namespace abft::transformer
