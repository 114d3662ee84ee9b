/** \file weights.cpp
 *  \brief The parameter layout of both architectures under Hugging Face names, random
 *  initialization, and safetensors load/save.
 */
#include "abft/transformer/weights.hpp"

#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <sstream>

#include "abft/transformer/error.hpp"
#include "abft/transformer/safetensors.hpp"

namespace abft::transformer {

namespace {

std::string shape_str(const std::vector<int64_t>& s) {
  std::ostringstream o;
  o << '[';
  for (size_t i = 0; i < s.size(); ++i) o << (i ? ", " : "") << s[i];
  o << ']';
  return o.str();
}

}  // namespace

size_t ParamLayout::add(const std::string& name, std::vector<int64_t> shape, bool decay) {
  ParamInfo p;
  p.name = name;
  p.numel = 1;
  for (int64_t d : shape) p.numel *= size_t(d);
  p.shape = std::move(shape);
  // 16-float (64-byte) alignment of every tensor: the kernels' loads stay aligned.
  size_ = (size_ + 15) & ~size_t(15);
  p.offset = size_;
  p.decay = decay;
  size_ += p.numel;
  params_.push_back(p);
  return p.offset;
}

ParamLayout::ParamLayout(const Config& c) : cfg_(c) {
  const std::string bad = c.validate();
  if (!bad.empty()) throw Error(ABFT_STATUS_INVALID_VALUE, "config: " + bad);
  const int64_t d = c.d_model, hd = c.head_dim(), f = c.ffn, V = c.vocab;
  layers_.resize(size_t(c.layers));
  if (c.arch == Arch::GPT2) {
    tok_emb = add("transformer.wte.weight", {V, d}, true);
    pos_emb = add("transformer.wpe.weight", {c.context, d}, true);
    for (int64_t i = 0; i < c.layers; ++i) {
      const std::string p = "transformer.h." + std::to_string(i) + ".";
      LayerOffsets& L = layers_[size_t(i)];
      L.ln1_w = add(p + "ln_1.weight", {d}, false);
      L.ln1_b = add(p + "ln_1.bias", {d}, false);
      L.qkv_w = add(p + "attn.c_attn.weight", {d, 3 * d}, true);
      L.qkv_b = add(p + "attn.c_attn.bias", {3 * d}, false);
      L.o_w = add(p + "attn.c_proj.weight", {d, d}, true);
      L.o_b = add(p + "attn.c_proj.bias", {d}, false);
      L.ln2_w = add(p + "ln_2.weight", {d}, false);
      L.ln2_b = add(p + "ln_2.bias", {d}, false);
      L.up_w = add(p + "mlp.c_fc.weight", {d, f}, true);
      L.up_b = add(p + "mlp.c_fc.bias", {f}, false);
      L.down_w = add(p + "mlp.c_proj.weight", {f, d}, true);
      L.down_b = add(p + "mlp.c_proj.bias", {d}, false);
    }
    lnf_w = add("transformer.ln_f.weight", {d}, false);
    lnf_b = add("transformer.ln_f.bias", {d}, false);
    lm_head = tok_emb;
  } else {
    const int64_t kv = c.kv_heads * hd;
    tok_emb = add("model.embed_tokens.weight", {V, d}, true);
    for (int64_t i = 0; i < c.layers; ++i) {
      const std::string p = "model.layers." + std::to_string(i) + ".";
      LayerOffsets& L = layers_[size_t(i)];
      L.ln1_w = add(p + "input_layernorm.weight", {d}, false);
      L.q_w = add(p + "self_attn.q_proj.weight", {c.heads * hd, d}, true);
      L.k_w = add(p + "self_attn.k_proj.weight", {kv, d}, true);
      L.v_w = add(p + "self_attn.v_proj.weight", {kv, d}, true);
      L.o_w = add(p + "self_attn.o_proj.weight", {d, c.heads * hd}, true);
      L.ln2_w = add(p + "post_attention_layernorm.weight", {d}, false);
      L.gate_w = add(p + "mlp.gate_proj.weight", {f, d}, true);
      L.up_w = add(p + "mlp.up_proj.weight", {f, d}, true);
      L.down_w = add(p + "mlp.down_proj.weight", {d, f}, true);
    }
    lnf_w = add("model.norm.weight", {d}, false);
    lm_head = c.tie_embeddings ? tok_emb : add("lm_head.weight", {V, d}, true);
  }
  size_ = (size_ + 15) & ~size_t(15);
}

const ParamInfo* ParamLayout::find(const std::string& name) const {
  for (const ParamInfo& p : params_)
    if (p.name == name) return &p;
  return nullptr;
}

Weights::Weights(const Config& c) : layout_(c), data_(layout_.size(), 0.0f) {}

void Weights::init_random(uint64_t seed) {
  const Config& c = config();
  std::mt19937_64 gen(seed);
  const float std0 = 0.02f;
  const float std_res = 0.02f / std::sqrt(2.0f * float(c.layers));
  std::fill(data_.begin(), data_.end(), 0.0f);
  for (const ParamInfo& p : layout_.params()) {
    float* w = data_.data() + p.offset;
    const bool is_norm = p.name.find("ln_") != std::string::npos ||
                         p.name.find("layernorm") != std::string::npos ||
                         p.name.find("model.norm") != std::string::npos;
    const bool is_bias = p.name.size() > 5 && p.name.compare(p.name.size() - 5, 5, ".bias") == 0;
    if (is_bias) continue;  // zero
    if (is_norm) {
      std::fill(w, w + p.numel, 1.0f);
      continue;
    }
    const bool residual = p.name.find("c_proj.weight") != std::string::npos ||
                          p.name.find("o_proj") != std::string::npos ||
                          p.name.find("down_proj") != std::string::npos;
    std::normal_distribution<float> nd(0.0f, residual ? std_res : std0);
    for (size_t i = 0; i < p.numel; ++i) w[i] = nd(gen);
  }
}

namespace {

/** The layout name a file's tensor name stands for ("" for a buffer to ignore). */
std::string canonical_name(const std::string& n, Arch arch) {
  if (arch == Arch::GPT2) {
    // Buffers of older GPT-2 checkpoints: the causal mask, not a parameter.
    auto ends = [&](const char* s) {
      const size_t l = std::strlen(s);
      return n.size() >= l && n.compare(n.size() - l, l, s) == 0;
    };
    if (ends(".attn.bias") || ends(".attn.masked_bias")) return "";
    if (n.rfind("transformer.", 0) == 0 || n == "lm_head.weight") return n;
    return "transformer." + n;
  }
  if (n.size() > 20 && n.find("rotary_emb.inv_freq") != std::string::npos) return "";
  return n;
}

}  // namespace

void Weights::load(const std::string& path) {
  StFile f = read_safetensors(path);
  const Config& c = config();
  std::vector<float> next(data_);
  std::set<std::string> seen;
  const StTensor* lm_head = nullptr;
  for (const auto& [name, t] : f.tensors) {
    std::string canon = canonical_name(name, c.arch);
    if (canon.empty()) continue;
    if (canon == "lm_head.weight" && (c.arch == Arch::GPT2 || c.tie_embeddings)) {
      lm_head = &t;  // a tied head stored anyway: it must equal the embedding (checked below)
      continue;
    }
    const ParamInfo* p = layout_.find(canon);
    if (!p)
      throw Error(ABFT_STATUS_INVALID_VALUE,
                  path + ": tensor '" + name + "' is not a parameter of a " + arch_name(c.arch) +
                      " model with " + std::to_string(c.layers) + " layers");
    if (t.shape != p->shape)
      throw Error(ABFT_STATUS_INVALID_SIZE, path + ": tensor '" + name + "' has shape " +
                                                shape_str(t.shape) + ", expected " +
                                                shape_str(p->shape));
    if (!seen.insert(canon).second)
      throw Error(ABFT_STATUS_INVALID_VALUE,
                  path + ": tensor '" + canon + "' appears twice (with and without a prefix)");
    std::memcpy(next.data() + p->offset, t.data.data(), p->numel * sizeof(float));
  }
  for (const ParamInfo& p : layout_.params())
    if (!seen.count(p.name))
      throw Error(ABFT_STATUS_INVALID_VALUE,
                  path + ": tensor '" + p.name + "' " + shape_str(p.shape) + " is missing");
  if (lm_head) {
    const ParamInfo* e = layout_.find(layout_.params()[0].name);  // the token embedding
    if (lm_head->shape != e->shape)
      throw Error(ABFT_STATUS_INVALID_SIZE, path + ": tensor 'lm_head.weight' has shape " +
                                                shape_str(lm_head->shape) + ", expected " +
                                                shape_str(e->shape) + " (tied to the embedding)");
    if (std::memcmp(lm_head->data.data(), next.data() + e->offset, e->numel * sizeof(float)) != 0)
      throw Error(ABFT_STATUS_INVALID_VALUE,
                  path + ": 'lm_head.weight' differs from the token embedding, but the config "
                         "ties them (set tie_word_embeddings to false)");
  }
  data_.swap(next);
}

void Weights::save(const std::string& path) const {
  std::vector<StWrite> out;
  for (const ParamInfo& p : layout_.params()) out.push_back({p.name, p.shape, data_.data() + p.offset});
  const Config& c = config();
  std::map<std::string, std::string> meta = {{"format", "pt"},
                                             {"producer", "abft"},
                                             {"architecture", arch_name(c.arch)}};
  write_safetensors(path, out, meta);
}

}  // namespace abft::transformer
