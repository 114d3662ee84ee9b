/** \file config.cpp
 *  \brief Model configuration: consistency checks, parameter counts, the named presets and
 *  Hugging Face config.json (GPT2LMHeadModel, LlamaForCausalLM) in and out.
 */
#include "abft/transformer/config.hpp"

#include <cmath>
#include <iterator>

#include "abft/transformer/error.hpp"
#include "json.hpp"

namespace abft::transformer {

const char* arch_name(Arch a) {
  switch (a) {
    case Arch::GPT2: return "gpt2";
    case Arch::Llama: return "llama";
  }
  return "unknown";
}

namespace {

constexpr int64_t kMaxHeadDim = 256;  // the attention kernel's limit

/** Parameter count in 128-bit arithmetic, so validate() can reject what overflows int64. */
__int128 count_parameters(const Config& c) {
  const __int128 d = c.d_model, f = c.ffn, V = c.vocab, T = c.context, L = c.layers;
  if (c.arch == Arch::GPT2) {
    const __int128 layer = 2 * d                // ln_1
                           + d * 3 * d + 3 * d  // attn.c_attn
                           + d * d + d          // attn.c_proj
                           + 2 * d              // ln_2
                           + d * f + f          // mlp.c_fc
                           + f * d + d;         // mlp.c_proj
    return V * d + T * d + L * layer + 2 * d;   // wte, wpe, layers, ln_f
  }
  const __int128 kv = static_cast<__int128>(c.kv_heads) * c.head_dim();
  const __int128 layer = d                  // input_layernorm
                         + d * d            // q_proj
                         + 2 * d * kv       // k_proj, v_proj
                         + d * d            // o_proj
                         + d                // post_attention_layernorm
                         + 3 * d * f;       // gate_proj, up_proj, down_proj
  return V * d + L * layer + d + (c.tie_embeddings ? 0 : V * d);
}

std::string num(double v) { return json::number(v); }

}  // namespace

std::string Config::validate() const {
  const auto positive = [](const char* field, int64_t v) -> std::string {
    return v > 0 ? std::string() : std::string(field) + " must be positive (got " +
                                       std::to_string(v) + ")";
  };
  for (const auto& [field, v] : {std::pair<const char*, int64_t>{"layers", layers},
                                 {"d_model", d_model},
                                 {"heads", heads},
                                 {"kv_heads", kv_heads},
                                 {"ffn", ffn},
                                 {"vocab", vocab},
                                 {"context", context}}) {
    std::string m = positive(field, v);
    if (!m.empty()) return m;
  }
  if (d_model % heads != 0)
    return "d_model " + std::to_string(d_model) + " is not divisible by heads " +
           std::to_string(heads);
  if (heads % kv_heads != 0)
    return "heads " + std::to_string(heads) + " is not divisible by kv_heads " +
           std::to_string(kv_heads);
  if (arch == Arch::GPT2 && kv_heads != heads)
    return "kv_heads " + std::to_string(kv_heads) + " must equal heads " +
           std::to_string(heads) + " for gpt2 (no grouped-query attention)";
  if (arch == Arch::GPT2 && !tie_embeddings)
    return "tie_embeddings false is not possible for gpt2 (its LM head is wte)";
  if (head_dim() > kMaxHeadDim)
    return "head_dim " + std::to_string(head_dim()) + " (d_model / heads) exceeds " +
           std::to_string(kMaxHeadDim) + ", the attention kernel's limit";
  if (arch == Arch::Llama && head_dim() % 2 != 0)
    return "head_dim " + std::to_string(head_dim()) +
           " (d_model / heads) must be even for rotary embeddings";
  if (!(norm_eps > 0) || !std::isfinite(norm_eps))
    return "norm_eps must be positive and finite (got " + num(norm_eps) + ")";
  if (arch == Arch::Llama && (!(rope_theta > 0) || !std::isfinite(rope_theta)))
    return "rope_theta must be positive and finite (got " + num(rope_theta) + ")";
  if (count_parameters(*this) > (static_cast<__int128>(1) << 62))
    return "the configuration is too large (its parameter count overflows)";
  return {};
}

int64_t Config::parameter_count() const { return static_cast<int64_t>(count_parameters(*this)); }

namespace {

Config make(Arch arch, int64_t layers, int64_t d, int64_t heads, int64_t kv, int64_t ffn,
            int64_t vocab, int64_t ctx, bool tied) {
  Config c;
  c.arch = arch;
  c.layers = layers;
  c.d_model = d;
  c.heads = heads;
  c.kv_heads = kv;
  c.ffn = ffn;
  c.vocab = vocab;
  c.context = ctx;
  c.norm_eps = 1e-5;
  c.rope_theta = 10000.0;
  c.tie_embeddings = tied;
  return c;
}

Config gpt2(int64_t layers, int64_t d, int64_t heads, int64_t ffn, int64_t vocab, int64_t ctx) {
  return make(Arch::GPT2, layers, d, heads, heads, ffn, vocab, ctx, true);
}

Config llama(int64_t layers, int64_t d, int64_t heads, int64_t kv, int64_t ffn, int64_t vocab,
             int64_t ctx, bool tied) {
  return make(Arch::Llama, layers, d, heads, kv, ffn, vocab, ctx, tied);
}

struct Preset {
  const char* name;
  Config config;
};

const std::vector<Preset>& presets() {
  static const std::vector<Preset> list = {
      {"gpt2-small", gpt2(12, 768, 12, 3072, 50257, 1024)},
      {"gpt2-tiny", gpt2(2, 32, 4, 128, 64, 32)},
      {"gpt2-demo", gpt2(4, 128, 4, 512, 256, 128)},
      {"llama-small", llama(12, 768, 12, 4, 2048, 32000, 2048, false)},
      {"llama-tiny", llama(2, 32, 4, 2, 96, 64, 32, false)},
      {"llama-demo", llama(4, 128, 4, 2, 352, 256, 128, true)},
  };
  return list;
}

}  // namespace

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const Preset& p : presets()) names.emplace_back(p.name);
  return names;
}

Config preset(const std::string& name) {
  std::string known;
  for (const Preset& p : presets()) {
    if (name == p.name) return p.config;
    known += (known.empty() ? "" : ", ") + std::string(p.name);
  }
  throw Error(ABFT_STATUS_INVALID_VALUE,
              "unknown model preset '" + name + "' (known: " + known + ")");
}

// ---------------------------------------------------------------------------------------------
// config.json

namespace {

/** Typed access to the members of a config.json object, with messages naming file and key. */
class Reader {
 public:
  Reader(const json::Value& root, const std::string& source) : root_(root), source_(source) {}

  [[noreturn]] void fail(const std::string& key, const std::string& what,
                         abft_status status = ABFT_STATUS_INVALID_VALUE) const {
    throw Error(status, source_ + ": \"" + key + "\" " + what);
  }

  /** The member, or nullptr when absent or null. */
  const json::Value* get(const std::string& key) const {
    const json::Value* v = root_.find(key);
    return (v == nullptr || v->is_null()) ? nullptr : v;
  }

  bool present(const std::string& key) const { return get(key) != nullptr; }

  /** A size: a positive integer. */
  int64_t integer(const std::string& key) const {
    const json::Value* v = get(key);
    if (v == nullptr) fail(key, "is missing");
    return to_int(key, *v);
  }

  int64_t integer(const std::string& key, int64_t fallback) const {
    const json::Value* v = get(key);
    return v == nullptr ? fallback : to_int(key, *v);
  }

  double real(const std::string& key, double fallback) const {
    const json::Value* v = get(key);
    if (v == nullptr) return fallback;
    if (!v->is_number()) fail(key, "must be a number");
    return v->number;
  }

  bool boolean(const std::string& key, bool fallback) const {
    const json::Value* v = get(key);
    if (v == nullptr) return fallback;
    if (v->type != json::Value::Type::Bool) fail(key, "must be true or false");
    return v->boolean;
  }

  std::string text(const std::string& key, const std::string& fallback) const {
    const json::Value* v = get(key);
    if (v == nullptr) return fallback;
    if (!v->is_string()) fail(key, "must be a string");
    return v->text;
  }

 private:
  const json::Value& root_;
  const std::string& source_;

  int64_t to_int(const std::string& key, const json::Value& v) const {
    if (!v.is_number() || v.number != std::floor(v.number))
      fail(key, "must be a positive integer");
    if (v.number <= 0) fail(key, "must be a positive integer (got " + json::number(v.number) + ")");
    if (v.number > 9007199254740992.0)  // 2^53
      fail(key, "is out of range (" + json::number(v.number) + ")");
    return static_cast<int64_t>(v.number);
  }
};

Config gpt2_from_json(const Reader& r) {
  Config c;
  c.arch = Arch::GPT2;
  c.layers = r.integer("n_layer");
  c.d_model = r.integer("n_embd");
  c.heads = r.integer("n_head");
  c.kv_heads = c.heads;
  if (!r.present("n_positions") && !r.present("n_ctx"))
    r.fail("n_positions", "is missing (and so is n_ctx)");
  c.context = r.present("n_positions") ? r.integer("n_positions") : r.integer("n_ctx");
  c.vocab = r.integer("vocab_size");
  c.norm_eps = r.real("layer_norm_epsilon", 1e-5);
  c.ffn = r.integer("n_inner", 4 * c.d_model);
  c.rope_theta = 10000.0;
  c.tie_embeddings = true;
  // The runtime computes the tanh form of GELU that gelu_new / gelu_pytorch_tanh name;
  // Hugging Face's "gelu" is the exact (erf) form, up to 1e-3 away, so it is refused.
  const std::string act = r.text("activation_function", "gelu_new");
  if (act != "gelu_new" && act != "gelu_pytorch_tanh")
    r.fail("activation_function",
           "'" + act + "' is not supported (gelu_new or gelu_pytorch_tanh: the tanh GELU)",
           ABFT_STATUS_NOT_SUPPORTED);
  if (!r.boolean("tie_word_embeddings", true))
    r.fail("tie_word_embeddings", "false is not supported for gpt2 (the LM head is wte)",
           ABFT_STATUS_NOT_SUPPORTED);
  if (!r.boolean("scale_attn_weights", true))
    r.fail("scale_attn_weights", "false is not supported (attention is scaled by 1/sqrt(d))",
           ABFT_STATUS_NOT_SUPPORTED);
  if (r.boolean("scale_attn_by_inverse_layer_idx", false))
    r.fail("scale_attn_by_inverse_layer_idx", "true is not supported",
           ABFT_STATUS_NOT_SUPPORTED);
  return c;
}

Config llama_from_json(const Reader& r) {
  Config c;
  c.arch = Arch::Llama;
  c.layers = r.integer("num_hidden_layers");
  c.d_model = r.integer("hidden_size");
  c.heads = r.integer("num_attention_heads");
  c.kv_heads = r.integer("num_key_value_heads", c.heads);
  c.ffn = r.integer("intermediate_size");
  c.vocab = r.integer("vocab_size");
  c.context = r.integer("max_position_embeddings");
  c.norm_eps = r.real("rms_norm_eps", 1e-6);
  c.rope_theta = r.real("rope_theta", 10000.0);
  c.tie_embeddings = r.boolean("tie_word_embeddings", false);
  const std::string act = r.text("hidden_act", "silu");
  if (act != "silu")
    r.fail("hidden_act", "'" + act + "' is not supported (only silu)", ABFT_STATUS_NOT_SUPPORTED);
  if (r.present("rope_scaling"))
    r.fail("rope_scaling", "is not supported (must be absent or null)",
           ABFT_STATUS_NOT_SUPPORTED);
  if (r.present("head_dim") && c.heads > 0) {
    const int64_t hd = r.integer("head_dim");
    if (hd * c.heads != c.d_model)
      r.fail("head_dim",
             std::to_string(hd) + " differs from hidden_size / num_attention_heads = " +
                 std::to_string(c.d_model) + " / " + std::to_string(c.heads) +
                 " (not supported)",
             ABFT_STATUS_NOT_SUPPORTED);
  }
  if (r.boolean("attention_bias", false))
    r.fail("attention_bias", "true is not supported (Llama projections have no bias)",
           ABFT_STATUS_NOT_SUPPORTED);
  if (r.boolean("mlp_bias", false))
    r.fail("mlp_bias", "true is not supported (Llama projections have no bias)",
           ABFT_STATUS_NOT_SUPPORTED);
  return c;
}

}  // namespace

Config config_from_json(const std::string& text, const std::string& source) {
  const json::Value root = json::parse(text, source);
  if (!root.is_object())
    throw Error(ABFT_STATUS_INVALID_VALUE, source + ": expected a JSON object");
  const Reader r(root, source);
  if (!r.present("model_type")) r.fail("model_type", "is missing (expected \"gpt2\" or \"llama\")");
  const std::string type = r.text("model_type", "");
  Config c;
  if (type == "gpt2") {
    c = gpt2_from_json(r);
  } else if (type == "llama") {
    c = llama_from_json(r);
  } else {
    r.fail("model_type", "'" + type + "' is not supported (gpt2 or llama)",
           ABFT_STATUS_NOT_SUPPORTED);
  }
  const std::string problem = c.validate();
  if (!problem.empty()) {
    // validate() speaks of Config's fields; say which config.json keys they come from.
    static const char* const gpt2_keys[][2] = {
        {"layers", "n_layer"}, {"d_model", "n_embd"},  {"heads", "n_head"},
        {"ffn", "n_inner"},    {"vocab", "vocab_size"}, {"context", "n_positions"},
        {"norm_eps", "layer_norm_epsilon"}, {"head_dim", "n_embd / n_head"}};
    static const char* const llama_keys[][2] = {
        {"layers", "num_hidden_layers"}, {"d_model", "hidden_size"},
        {"heads", "num_attention_heads"}, {"kv_heads", "num_key_value_heads"},
        {"ffn", "intermediate_size"}, {"vocab", "vocab_size"},
        {"context", "max_position_embeddings"}, {"norm_eps", "rms_norm_eps"},
        {"rope_theta", "rope_theta"}, {"head_dim", "hidden_size / num_attention_heads"}};
    std::string keys;
    const auto add = [&](const char* const (*table)[2], size_t n) {
      for (size_t k = 0; k < n; ++k) {
        const std::string field = table[k][0];
        bool word = false;
        for (size_t at = problem.find(field); at != std::string::npos && !word;
             at = problem.find(field, at + 1))
          word = (at == 0 || problem[at - 1] == ' ' || problem[at - 1] == '(') &&
                 (at + field.size() == problem.size() || problem[at + field.size()] == ' ');
        if (word) keys += (keys.empty() ? "" : ", ") + field + " is \"" + table[k][1] + "\"";
      }
    };
    if (c.arch == Arch::GPT2) add(gpt2_keys, std::size(gpt2_keys));
    else add(llama_keys, std::size(llama_keys));
    throw Error(ABFT_STATUS_INVALID_VALUE, source + ": invalid configuration: " + problem +
                                               (keys.empty() ? "" : " (" + keys + ")"));
  }
  return c;
}

std::string config_to_json(const Config& c) {
  using json::number;
  using json::quote;
  std::vector<std::pair<std::string, std::string>> kv;  // key, JSON value
  const auto i = [](int64_t v) { return std::to_string(v); };
  const auto b = [](bool v) { return std::string(v ? "true" : "false"); };
  if (c.arch == Arch::GPT2) {
    kv = {{"architectures", "[\"GPT2LMHeadModel\"]"},
          {"model_type", quote("gpt2")},
          {"n_layer", i(c.layers)},
          {"n_embd", i(c.d_model)},
          {"n_head", i(c.heads)},
          {"n_inner", i(c.ffn)},
          {"n_positions", i(c.context)},
          {"n_ctx", i(c.context)},
          {"vocab_size", i(c.vocab)},
          {"layer_norm_epsilon", number(c.norm_eps)},
          {"activation_function", quote("gelu_new")},
          {"scale_attn_weights", "true"},
          {"tie_word_embeddings", "true"}};
  } else {
    kv = {{"architectures", "[\"LlamaForCausalLM\"]"},
          {"model_type", quote("llama")},
          {"num_hidden_layers", i(c.layers)},
          {"hidden_size", i(c.d_model)},
          {"num_attention_heads", i(c.heads)},
          {"num_key_value_heads", i(c.kv_heads)},
          {"head_dim", i(c.head_dim())},
          {"intermediate_size", i(c.ffn)},
          {"vocab_size", i(c.vocab)},
          {"max_position_embeddings", i(c.context)},
          {"rms_norm_eps", number(c.norm_eps)},
          {"rope_theta", number(c.rope_theta)},
          {"rope_scaling", "null"},
          {"hidden_act", quote("silu")},
          {"attention_bias", "false"},
          {"mlp_bias", "false"},
          {"tie_word_embeddings", b(c.tie_embeddings)}};
  }
  std::string out = "{\n";
  for (size_t k = 0; k < kv.size(); ++k)
    out += "  " + quote(kv[k].first) + ": " + kv[k].second + (k + 1 < kv.size() ? ",\n" : "\n");
  return out + "}\n";
}

}  // namespace abft::transformer
