/** \file config.hpp
 *  \brief Model configuration of the transformer runtime: the two decoder-only architectures,
 *  named presets and Hugging Face config.json in and out.
 */
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace abft::transformer {

/** GPT2: learned positions, LayerNorm, GELU (tanh) MLP, fused QKV with bias, tied LM head.
 *  Llama: RMSNorm, rotary embeddings (Hugging Face rotate-half), SwiGLU MLP, grouped-query
 *  attention, no biases, LM head tied or not. */
enum class Arch { GPT2, Llama };

const char* arch_name(Arch a);  ///< "gpt2" / "llama"

struct Config {
  Arch arch = Arch::GPT2;
  int64_t layers = 2;
  int64_t d_model = 64;
  int64_t heads = 4;
  int64_t kv_heads = 4;  ///< GPT2: always heads
  int64_t ffn = 256;     ///< hidden width of the MLP (GPT-2: 4*d_model by default)
  int64_t vocab = 256;
  int64_t context = 128;  ///< maximum positions (GPT-2: rows of wpe)
  double norm_eps = 1e-5;
  double rope_theta = 10000.0;  ///< Llama only
  bool tie_embeddings = true;   ///< GPT2: always true

  int64_t head_dim() const { return heads > 0 ? d_model / heads : 0; }
  /** Empty when the configuration is consistent; otherwise what is wrong with it. */
  std::string validate() const;
  /** Number of parameters (tied embeddings counted once). */
  int64_t parameter_count() const;
};

/** Named presets: "gpt2-small" (12 x 768, 12 heads, vocab 50257, context 1024), "gpt2-tiny",
 *  "gpt2-demo" (byte vocabulary), "llama-small", "llama-tiny", "llama-demo". Throws Error
 *  (INVALID_VALUE, listing the names) for an unknown name. */
Config preset(const std::string& name);
std::vector<std::string> preset_names();

/** Parse the text of a Hugging Face config.json (model_type "gpt2" or "llama"; GPT-2's n_layer,
 *  n_embd, n_head, n_inner, n_positions, layer_norm_epsilon; Llama's num_hidden_layers,
 *  hidden_size, num_attention_heads, num_key_value_heads, intermediate_size,
 *  max_position_embeddings, rms_norm_eps, rope_theta, tie_word_embeddings). Throws Error naming
 *  the file (`source`) and the key for anything missing, mistyped or unsupported (rope_scaling,
 *  an activation other than GELU/SiLU). */
Config config_from_json(const std::string& text, const std::string& source = "config.json");
/** A config.json Hugging Face's loaders (and config_from_json) read back. */
std::string config_to_json(const Config& c);

}  // namespace abft::transformer
