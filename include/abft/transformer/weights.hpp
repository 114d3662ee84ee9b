/** \file weights.hpp
 *  \brief The parameters of a model in one flat float buffer, named with Hugging Face's tensor
 *  names (GPT2LMHeadModel / LlamaForCausalLM), so that a checkpoint's model.safetensors loads
 *  as it is. A gradient buffer has the same layout (ParamLayout), which keeps the optimizer,
 *  clipping and accumulation one loop over one array.
 */
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "abft/transformer/config.hpp"

namespace abft::transformer {

struct ParamInfo {
  std::string name;            ///< Hugging Face name, e.g. "transformer.h.0.attn.c_attn.weight"
  std::vector<int64_t> shape;  ///< as stored by Hugging Face
  size_t offset = 0;           ///< into the flat buffer (floats)
  size_t numel = 0;
  bool decay = false;          ///< AdamW weight decay applies (matrices; not norms, biases)
};

/** Offsets of one layer's tensors in the flat buffer; kNone where the architecture has none. */
struct LayerOffsets {
  static constexpr size_t kNone = ~size_t(0);
  size_t ln1_w = kNone, ln1_b = kNone;
  size_t qkv_w = kNone, qkv_b = kNone;              ///< GPT-2 c_attn [d, 3d] (in x out)
  size_t q_w = kNone, k_w = kNone, v_w = kNone;     ///< Llama [out, in]
  size_t o_w = kNone, o_b = kNone;
  size_t ln2_w = kNone, ln2_b = kNone;
  size_t up_w = kNone, up_b = kNone, gate_w = kNone;
  size_t down_w = kNone, down_b = kNone;
};

class ParamLayout {
 public:
  ParamLayout() = default;
  explicit ParamLayout(const Config& c);
  const Config& config() const { return cfg_; }
  size_t size() const { return size_; }  ///< floats
  const std::vector<ParamInfo>& params() const { return params_; }
  const ParamInfo* find(const std::string& hf_name) const;
  const LayerOffsets& layer(int64_t i) const { return layers_[size_t(i)]; }
  size_t tok_emb = LayerOffsets::kNone;  ///< wte / embed_tokens [vocab, d]
  size_t pos_emb = LayerOffsets::kNone;  ///< GPT-2 wpe [context, d]
  size_t lnf_w = LayerOffsets::kNone, lnf_b = LayerOffsets::kNone;
  size_t lm_head = LayerOffsets::kNone;  ///< [vocab, d]; == tok_emb when tied

 private:
  size_t add(const std::string& name, std::vector<int64_t> shape, bool decay);
  Config cfg_;
  size_t size_ = 0;
  std::vector<ParamInfo> params_;
  std::vector<LayerOffsets> layers_;
};

class Weights {
 public:
  Weights() = default;
  explicit Weights(const Config& c);  ///< all zero
  const Config& config() const { return layout_.config(); }
  const ParamLayout& layout() const { return layout_; }
  float* data() { return data_.data(); }
  const float* data() const { return data_.data(); }
  size_t size() const { return data_.size(); }
  float* at(size_t offset) { return data_.data() + offset; }
  const float* at(size_t offset) const { return data_.data() + offset; }

  /** GPT-2's initialization: N(0, 0.02) matrices and embeddings, the projections into the
   *  residual stream N(0, 0.02/sqrt(2*layers)), norms 1, biases 0. Deterministic for a seed. */
  void init_random(uint64_t seed);
  /** Load every tensor of a safetensors file by Hugging Face name (GPT-2 names with or without
   *  the "transformer." prefix; buffers such as attn.bias ignored; lm_head.weight optional when
   *  tied). Throws Error naming the file and tensor for a missing, mis-shaped or unknown
   *  tensor; on error the weights are left as they were. */
  void load(const std::string& path);
  /** Write every tensor under its Hugging Face name (tied head once), with the config as
   *  metadata. */
  void save(const std::string& path) const;

 private:
  ParamLayout layout_;
  std::vector<float> data_;
};

}  // namespace abft::transformer
