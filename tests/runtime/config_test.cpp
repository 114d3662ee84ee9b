/** \file config_test.cpp
 *  \brief Model configuration: presets, validation messages, parameter counts against known
 *  models (GPT-2 small, TinyLlama-1.1B), Hugging Face config.json in (real-looking files,
 *  defaults, every rejection naming its key) and out (exact round trip for every preset).
 */
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "abft/transformer/config.hpp"
#include "abft/transformer/error.hpp"
#include "json.hpp"

namespace {

using abft::transformer::Arch;
using abft::transformer::Config;
using abft::transformer::config_from_json;
using abft::transformer::config_to_json;
using abft::transformer::Error;
using abft::transformer::preset;
using abft::transformer::preset_names;

std::string error_of(const std::function<void()>& f, abft_status* status = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (status != nullptr) *status = e.status();
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "unexpected exception type: " << e.what();
    return "";
  }
  ADD_FAILURE() << "no exception";
  return "";
}

void expect_same(const Config& a, const Config& b, const std::string& what) {
  EXPECT_EQ(a.arch, b.arch) << what;
  EXPECT_EQ(a.layers, b.layers) << what;
  EXPECT_EQ(a.d_model, b.d_model) << what;
  EXPECT_EQ(a.heads, b.heads) << what;
  EXPECT_EQ(a.kv_heads, b.kv_heads) << what;
  EXPECT_EQ(a.ffn, b.ffn) << what;
  EXPECT_EQ(a.vocab, b.vocab) << what;
  EXPECT_EQ(a.context, b.context) << what;
  EXPECT_EQ(a.norm_eps, b.norm_eps) << what;
  EXPECT_EQ(a.rope_theta, b.rope_theta) << what;
  EXPECT_EQ(a.tie_embeddings, b.tie_embeddings) << what;
}

// ---------------------------------------------------------------------------------------------
// Presets and validation

TEST(ConfigPreset, NamesAndValidity) {
  const std::vector<std::string> expected = {"gpt2-small",  "gpt2-tiny",  "gpt2-demo",
                                             "llama-small", "llama-tiny", "llama-demo"};
  EXPECT_EQ(preset_names(), expected);
  for (const std::string& name : preset_names()) {
    const Config c = preset(name);
    EXPECT_EQ(c.validate(), "") << name;
    EXPECT_GT(c.parameter_count(), 0) << name;
    EXPECT_EQ(name.rfind(abft::transformer::arch_name(c.arch), 0), 0u) << name;
  }
}

TEST(ConfigPreset, Values) {
  const Config g = preset("gpt2-small");
  EXPECT_EQ(g.arch, Arch::GPT2);
  EXPECT_EQ(g.layers, 12);
  EXPECT_EQ(g.d_model, 768);
  EXPECT_EQ(g.heads, 12);
  EXPECT_EQ(g.kv_heads, 12);
  EXPECT_EQ(g.ffn, 3072);
  EXPECT_EQ(g.vocab, 50257);
  EXPECT_EQ(g.context, 1024);
  EXPECT_EQ(g.norm_eps, 1e-5);
  EXPECT_TRUE(g.tie_embeddings);
  EXPECT_EQ(g.head_dim(), 64);

  const Config t = preset("gpt2-tiny");
  EXPECT_EQ(t.layers, 2);
  EXPECT_EQ(t.d_model, 32);
  EXPECT_EQ(t.heads, 4);
  EXPECT_EQ(t.kv_heads, 4);
  EXPECT_EQ(t.ffn, 128);
  EXPECT_EQ(t.vocab, 64);
  EXPECT_EQ(t.context, 32);

  const Config d = preset("gpt2-demo");
  EXPECT_EQ(d.layers, 4);
  EXPECT_EQ(d.d_model, 128);
  EXPECT_EQ(d.ffn, 512);
  EXPECT_EQ(d.vocab, 256);
  EXPECT_EQ(d.context, 128);

  const Config l = preset("llama-small");
  EXPECT_EQ(l.arch, Arch::Llama);
  EXPECT_EQ(l.layers, 12);
  EXPECT_EQ(l.d_model, 768);
  EXPECT_EQ(l.heads, 12);
  EXPECT_EQ(l.kv_heads, 4);
  EXPECT_EQ(l.ffn, 2048);
  EXPECT_EQ(l.vocab, 32000);
  EXPECT_EQ(l.context, 2048);
  EXPECT_EQ(l.norm_eps, 1e-5);
  EXPECT_EQ(l.rope_theta, 10000.0);
  EXPECT_FALSE(l.tie_embeddings);

  const Config lt = preset("llama-tiny");
  EXPECT_EQ(lt.kv_heads, 2);
  EXPECT_EQ(lt.ffn, 96);
  EXPECT_EQ(lt.vocab, 64);
  EXPECT_FALSE(lt.tie_embeddings);

  const Config ld = preset("llama-demo");
  EXPECT_EQ(ld.layers, 4);
  EXPECT_EQ(ld.d_model, 128);
  EXPECT_EQ(ld.kv_heads, 2);
  EXPECT_EQ(ld.ffn, 352);
  EXPECT_EQ(ld.vocab, 256);
  EXPECT_TRUE(ld.tie_embeddings);
}

TEST(ConfigPreset, UnknownNameListsTheKnownOnes) {
  abft_status st{};
  const std::string m = error_of([] { preset("gpt3"); }, &st);
  EXPECT_EQ(st, ABFT_STATUS_INVALID_VALUE);
  EXPECT_NE(m.find("'gpt3'"), std::string::npos) << m;
  for (const std::string& name : preset_names())
    EXPECT_NE(m.find(name), std::string::npos) << m;
}

TEST(ConfigArch, Names) {
  EXPECT_STREQ(abft::transformer::arch_name(Arch::GPT2), "gpt2");
  EXPECT_STREQ(abft::transformer::arch_name(Arch::Llama), "llama");
}

TEST(ConfigParameterCount, Gpt2SmallIsTheKnownCount) {
  EXPECT_EQ(preset("gpt2-small").parameter_count(), 124439808);
}

TEST(ConfigParameterCount, LlamaByHand) {
  const Config c = preset("llama-tiny");  // d 32, 4 heads of 8, 2 kv heads, ffn 96, V 64
  const int64_t layer = 32 + 32 * 32 + 2 * 32 * 16 + 32 * 32 + 32 + 3 * 32 * 96;
  EXPECT_EQ(c.parameter_count(), 64 * 32 + 2 * layer + 32 + 64 * 32);
  Config tied = c;
  tied.tie_embeddings = true;
  EXPECT_EQ(tied.parameter_count(), c.parameter_count() - 64 * 32);
}

Config valid_llama() { return preset("llama-tiny"); }
Config valid_gpt2() { return preset("gpt2-tiny"); }

void expect_invalid(const Config& c, const std::string& fragment) {
  const std::string m = c.validate();
  EXPECT_NE(m.find(fragment), std::string::npos) << "'" << m << "' lacks '" << fragment << "'";
}

TEST(ConfigValidate, EveryRuleNamesFieldAndValue) {
  Config c = valid_gpt2();
  c.layers = 0;
  expect_invalid(c, "layers must be positive (got 0)");
  c = valid_gpt2();
  c.d_model = -4;
  expect_invalid(c, "d_model must be positive (got -4)");
  c = valid_llama();
  c.kv_heads = 0;
  expect_invalid(c, "kv_heads must be positive (got 0)");
  c = valid_gpt2();
  c.ffn = 0;
  expect_invalid(c, "ffn must be positive");
  c = valid_gpt2();
  c.vocab = 0;
  expect_invalid(c, "vocab must be positive");
  c = valid_gpt2();
  c.context = 0;
  expect_invalid(c, "context must be positive (got 0)");
  c = valid_gpt2();
  c.heads = 0;
  expect_invalid(c, "heads must be positive");
  c = valid_gpt2();
  c.heads = c.kv_heads = 3;
  expect_invalid(c, "d_model 32 is not divisible by heads 3");
  c = valid_llama();
  c.kv_heads = 3;
  expect_invalid(c, "heads 4 is not divisible by kv_heads 3");
  c = valid_gpt2();
  c.kv_heads = 2;
  expect_invalid(c, "kv_heads 2 must equal heads 4 for gpt2");
  c = valid_gpt2();
  c.tie_embeddings = false;
  expect_invalid(c, "tie_embeddings");
  c = valid_llama();
  c.d_model = 12;  // head_dim 3
  expect_invalid(c, "head_dim 3");
  expect_invalid(c, "even");
  c = valid_gpt2();
  c.d_model = 12;  // an odd head_dim is fine without rotary embeddings
  EXPECT_EQ(c.validate(), "");
  c = valid_llama();
  c.d_model = 4 * 258;
  expect_invalid(c, "head_dim 258");
  c.d_model = 4 * 256;
  EXPECT_EQ(c.validate(), "");
  c = valid_gpt2();
  c.norm_eps = 0;
  expect_invalid(c, "norm_eps must be positive and finite (got 0)");
  c.norm_eps = std::nan("");
  expect_invalid(c, "norm_eps");
  c = valid_llama();
  c.rope_theta = -1;
  expect_invalid(c, "rope_theta must be positive and finite (got -1)");
  c.rope_theta = std::numeric_limits<double>::infinity();
  expect_invalid(c, "rope_theta");
  c = valid_llama();
  c.vocab = int64_t{1} << 40;
  c.d_model = int64_t{1} << 30;
  c.heads = c.kv_heads = int64_t{1} << 24;
  expect_invalid(c, "too large");
}

// ---------------------------------------------------------------------------------------------
// config.json in

// Hugging Face's "gpt2" config.json.
const char* kGpt2Json = R"({
  "activation_function": "gelu_new",
  "architectures": [
    "GPT2LMHeadModel"
  ],
  "attn_pdrop": 0.1,
  "bos_token_id": 50256,
  "embd_pdrop": 0.1,
  "eos_token_id": 50256,
  "initializer_range": 0.02,
  "layer_norm_epsilon": 1e-05,
  "model_type": "gpt2",
  "n_ctx": 1024,
  "n_embd": 768,
  "n_head": 12,
  "n_inner": null,
  "n_layer": 12,
  "n_positions": 1024,
  "resid_pdrop": 0.1,
  "summary_activation": null,
  "summary_first_dropout": 0.1,
  "summary_proj_to_labels": true,
  "summary_type": "cls_index",
  "summary_use_proj": true,
  "task_specific_params": {
    "text-generation": {
      "do_sample": true,
      "max_length": 50
    }
  },
  "vocab_size": 50257
}
)";

// TinyLlama-1.1B's config.json.
const char* kTinyLlamaJson = R"({
  "architectures": [
    "LlamaForCausalLM"
  ],
  "attention_bias": false,
  "bos_token_id": 1,
  "eos_token_id": 2,
  "hidden_act": "silu",
  "hidden_size": 2048,
  "initializer_range": 0.02,
  "intermediate_size": 5632,
  "max_position_embeddings": 2048,
  "model_type": "llama",
  "num_attention_heads": 32,
  "num_hidden_layers": 22,
  "num_key_value_heads": 4,
  "pretraining_tp": 1,
  "rms_norm_eps": 1e-05,
  "rope_scaling": null,
  "rope_theta": 10000.0,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.35.0",
  "use_cache": true,
  "vocab_size": 32000
}
)";

TEST(ConfigFromJson, Gpt2ConfigIsGpt2Small) {
  const Config c = config_from_json(kGpt2Json);
  expect_same(c, preset("gpt2-small"), "gpt2 config.json");
  EXPECT_EQ(c.parameter_count(), 124439808);
}

TEST(ConfigFromJson, TinyLlamaConfig) {
  const Config c = config_from_json(kTinyLlamaJson);
  EXPECT_EQ(c.arch, Arch::Llama);
  EXPECT_EQ(c.layers, 22);
  EXPECT_EQ(c.d_model, 2048);
  EXPECT_EQ(c.heads, 32);
  EXPECT_EQ(c.kv_heads, 4);
  EXPECT_EQ(c.head_dim(), 64);
  EXPECT_EQ(c.ffn, 5632);
  EXPECT_EQ(c.vocab, 32000);
  EXPECT_EQ(c.context, 2048);
  EXPECT_EQ(c.norm_eps, 1e-5);
  EXPECT_EQ(c.rope_theta, 10000.0);
  EXPECT_FALSE(c.tie_embeddings);
  EXPECT_EQ(c.parameter_count(), 1100048384);  // TinyLlama-1.1B's published count
}

TEST(ConfigFromJson, Defaults) {
  const Config g = config_from_json(
      R"({"model_type": "gpt2", "n_layer": 2, "n_embd": 64, "n_head": 4, "n_ctx": 77,
          "vocab_size": 100})");
  EXPECT_EQ(g.ffn, 256);  // 4 * n_embd
  EXPECT_EQ(g.context, 77);  // n_ctx when n_positions is absent
  EXPECT_EQ(g.norm_eps, 1e-5);
  EXPECT_EQ(g.kv_heads, 4);
  EXPECT_TRUE(g.tie_embeddings);
  const Config g2 = config_from_json(
      R"({"model_type": "gpt2", "n_layer": 2, "n_embd": 64, "n_head": 4, "n_ctx": 77,
          "n_positions": 99, "n_inner": 100, "vocab_size": 100,
          "activation_function": "gelu_pytorch_tanh"})");
  EXPECT_EQ(g2.context, 99);
  EXPECT_EQ(g2.ffn, 100);

  const Config l = config_from_json(
      R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64,
          "num_attention_heads": 4, "intermediate_size": 100, "vocab_size": 50,
          "max_position_embeddings": 16, "head_dim": 16, "num_key_value_heads": null})");
  EXPECT_EQ(l.kv_heads, 4);  // = heads
  EXPECT_EQ(l.norm_eps, 1e-6);
  EXPECT_EQ(l.rope_theta, 10000.0);
  EXPECT_FALSE(l.tie_embeddings);
}

struct BadCase {
  const char* name;
  std::string json;
  const char* fragment;  // what the message must hold (the key)
  abft_status status;
};

std::string gpt2_with(const std::string& extra) {
  return R"({"model_type": "gpt2", "n_layer": 2, "n_embd": 64, "n_head": 4, "n_positions": 32,
             "vocab_size": 100)" +
         (extra.empty() ? "" : ", " + extra) + "}";
}

std::string llama_with(const std::string& extra, const std::string& drop = "") {
  std::string base = R"("num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4,
      "num_key_value_heads": 2, "intermediate_size": 100, "vocab_size": 50,
      "max_position_embeddings": 16, "model_type": "llama")";
  if (!drop.empty()) {
    const size_t at = base.find("\"" + drop + "\"");
    const size_t end = base.find(',', at);
    base.erase(at, end == std::string::npos ? std::string::npos : end + 1 - at);
  }
  return "{" + base + (extra.empty() ? "" : ", " + extra) + "}";
}

TEST(ConfigFromJson, BadConfigsNameTheKey) {
  const abft_status kInvalid = ABFT_STATUS_INVALID_VALUE, kUnsupported = ABFT_STATUS_NOT_SUPPORTED;
  const std::vector<BadCase> cases = {
      {"no model_type", R"({"n_layer": 2})", "\"model_type\" is missing", kInvalid},
      {"model_type number", R"({"model_type": 2})", "\"model_type\" must be a string", kInvalid},
      {"mistral", R"({"model_type": "mistral"})", "'mistral' is not supported", kUnsupported},
      {"no n_embd", R"({"model_type": "gpt2", "n_layer": 2})", "\"n_embd\" is missing",
       kInvalid},
      {"n_embd string", gpt2_with("").replace(gpt2_with("").find("64"), 2, "\"64\""),
       "\"n_embd\" must be a positive integer", kInvalid},
      {"n_layer zero", gpt2_with("\"n_layer\": 0"), "\"n_layer\" must be a positive integer (got 0)",
       kInvalid},
      {"n_layer fraction", gpt2_with("\"n_layer\": 2.5"), "\"n_layer\" must be a positive integer",
       kInvalid},
      {"n_head negative", gpt2_with("\"n_head\": -4"), "\"n_head\" must be a positive integer (got -4)",
       kInvalid},
      {"no positions", R"({"model_type": "gpt2", "n_layer": 2, "n_embd": 64, "n_head": 4,
                          "vocab_size": 100})",
       "\"n_positions\" is missing", kInvalid},
      {"relu", gpt2_with("\"activation_function\": \"relu\""), "\"activation_function\" 'relu'",
       kUnsupported},
      {"eps string", gpt2_with("\"layer_norm_epsilon\": \"1e-5\""),
       "\"layer_norm_epsilon\" must be a number", kInvalid},
      {"eps zero", gpt2_with("\"layer_norm_epsilon\": 0"), "layer_norm_epsilon", kInvalid},
      {"heads indivisible", gpt2_with("\"n_head\": 5"), "\"n_head\"", kInvalid},
      {"gpt2 untied", gpt2_with("\"tie_word_embeddings\": false"), "\"tie_word_embeddings\"",
       kUnsupported},
      {"gpt2 unscaled", gpt2_with("\"scale_attn_weights\": false"), "\"scale_attn_weights\"",
       kUnsupported},
      {"no hidden_size", llama_with("", "hidden_size"), "\"hidden_size\" is missing", kInvalid},
      {"no max_position", llama_with("", "max_position_embeddings"),
       "\"max_position_embeddings\" is missing", kInvalid},
      {"gelu llama", llama_with("\"hidden_act\": \"gelu\""), "\"hidden_act\" 'gelu'",
       kUnsupported},
      {"rope scaling", llama_with(R"("rope_scaling": {"type": "linear", "factor": 2.0})"),
       "\"rope_scaling\"", kUnsupported},
      {"head_dim", llama_with("\"head_dim\": 32"), "\"head_dim\" 32 differs", kUnsupported},
      {"attention_bias", llama_with("\"attention_bias\": true"), "\"attention_bias\"",
       kUnsupported},
      {"mlp_bias", llama_with("\"mlp_bias\": true"), "\"mlp_bias\"", kUnsupported},
      {"tie string", llama_with("\"tie_word_embeddings\": \"false\""),
       "\"tie_word_embeddings\" must be true or false", kInvalid},
      {"kv indivisible", llama_with("\"num_key_value_heads\": 3"), "\"num_key_value_heads\"",
       kInvalid},
      {"theta", llama_with("\"rope_theta\": 0"), "\"rope_theta\"", kInvalid},
      {"rms eps", llama_with("\"rms_norm_eps\": -1e-6"), "\"rms_norm_eps\"", kInvalid},
      {"odd head_dim", llama_with("\"hidden_size\": 12"), "even", kInvalid},
      {"not an object", "[1, 2]", "expected a JSON object", kInvalid},
      {"malformed", "{\n  \"model_type\": \"gpt2\",\n  \"n_layer\": 2,,\n}",
       "config.json:3:16: expected a string", kInvalid},
  };
  for (const BadCase& bad : cases) {
    abft_status st{};
    const std::string m = error_of([&] { config_from_json(bad.json, "config.json"); }, &st);
    EXPECT_NE(m.find(bad.fragment), std::string::npos)
        << bad.name << ": '" << m << "' lacks '" << bad.fragment << "'";
    EXPECT_EQ(m.rfind("config.json", 0), 0u) << bad.name << ": '" << m << "'";
    EXPECT_EQ(st, bad.status) << bad.name << ": '" << m << "'";
  }
}

TEST(ConfigFromJson, SourceNameIsUsed) {
  const std::string m = error_of([] { config_from_json("{}", "models/x/config.json"); });
  EXPECT_EQ(m.rfind("models/x/config.json: ", 0), 0u) << m;
}

// ---------------------------------------------------------------------------------------------
// config.json out

TEST(ConfigToJson, RoundTripsEveryPreset) {
  for (const std::string& name : preset_names()) {
    const Config c = preset(name);
    const std::string text = config_to_json(c);
    expect_same(config_from_json(text, name), c, name);
    const auto doc = abft::transformer::json::parse(text);
    ASSERT_NE(doc.find("architectures"), nullptr) << name;
    ASSERT_EQ(doc.find("architectures")->items.size(), 1u) << name;
    EXPECT_EQ(doc.find("architectures")->items[0].text,
              c.arch == Arch::GPT2 ? "GPT2LMHeadModel" : "LlamaForCausalLM")
        << name;
    EXPECT_EQ(doc.find("model_type")->text, abft::transformer::arch_name(c.arch)) << name;
  }
}

TEST(ConfigToJson, RoundTripsAwkwardValues) {
  Config c = preset("llama-tiny");
  c.norm_eps = 3.3e-7;
  c.rope_theta = 500000.0;
  c.tie_embeddings = true;
  c.kv_heads = 1;
  expect_same(config_from_json(config_to_json(c)), c, "llama");
  Config g = preset("gpt2-tiny");
  g.norm_eps = 0.1 + 0.2;
  g.ffn = 100;  // not 4 * d_model
  expect_same(config_from_json(config_to_json(g)), g, "gpt2");
  EXPECT_EQ(config_from_json(config_to_json(preset("gpt2-small")))
                .parameter_count(),
            124439808);
}

}  // namespace
