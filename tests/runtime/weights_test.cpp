// Weights: the parameter layout under Hugging Face names for both architectures, random
// initialisation, safetensors save/load (F32 round trip, F16/BF16 files, GPT-2 checkpoints
// without the "transformer." prefix and with attn.bias buffers), Model::save_pretrained /
// from_pretrained, and the errors of bad files (the weights stay as they were).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "abft/transformer/error.hpp"
#include "abft/transformer/model.hpp"
#include "abft/transformer/safetensors.hpp"
#include "abft/transformer/weights.hpp"
#include "model_reference.hpp"

namespace at = abft::transformer;
namespace fs = std::filesystem;

namespace {

using Shape = std::vector<int64_t>;

std::string tmp_dir(const std::string& name) {
  fs::path p = fs::path(ABFT_TEST_TMP_DIR) / "weights_test.tmp" / name;
  fs::remove_all(p);
  fs::create_directories(p);
  return p.string();
}

std::string lower(std::string s) {
  for (char& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

at::Config llama_tied() {
  at::Config c = at::preset("llama-tiny");
  c.tie_embeddings = true;
  c.kv_heads = 1;
  return c;
}

/** The Hugging Face names and shapes a configuration must have. */
std::map<std::string, Shape> expected_tensors(const at::Config& c) {
  const int64_t d = c.d_model, hd = c.head_dim(), F = c.ffn, V = c.vocab;
  std::map<std::string, Shape> m;
  if (c.arch == at::Arch::GPT2) {
    m["transformer.wte.weight"] = {V, d};
    m["transformer.wpe.weight"] = {c.context, d};
    for (int64_t l = 0; l < c.layers; ++l) {
      const std::string p = "transformer.h." + std::to_string(l) + ".";
      m[p + "ln_1.weight"] = {d};
      m[p + "ln_1.bias"] = {d};
      m[p + "attn.c_attn.weight"] = {d, 3 * d};
      m[p + "attn.c_attn.bias"] = {3 * d};
      m[p + "attn.c_proj.weight"] = {d, d};
      m[p + "attn.c_proj.bias"] = {d};
      m[p + "ln_2.weight"] = {d};
      m[p + "ln_2.bias"] = {d};
      m[p + "mlp.c_fc.weight"] = {d, F};
      m[p + "mlp.c_fc.bias"] = {F};
      m[p + "mlp.c_proj.weight"] = {F, d};
      m[p + "mlp.c_proj.bias"] = {d};
    }
    m["transformer.ln_f.weight"] = {d};
    m["transformer.ln_f.bias"] = {d};
  } else {
    m["model.embed_tokens.weight"] = {V, d};
    for (int64_t l = 0; l < c.layers; ++l) {
      const std::string p = "model.layers." + std::to_string(l) + ".";
      m[p + "input_layernorm.weight"] = {d};
      m[p + "self_attn.q_proj.weight"] = {c.heads * hd, d};
      m[p + "self_attn.k_proj.weight"] = {c.kv_heads * hd, d};
      m[p + "self_attn.v_proj.weight"] = {c.kv_heads * hd, d};
      m[p + "self_attn.o_proj.weight"] = {d, c.heads * hd};
      m[p + "post_attention_layernorm.weight"] = {d};
      m[p + "mlp.gate_proj.weight"] = {F, d};
      m[p + "mlp.up_proj.weight"] = {F, d};
      m[p + "mlp.down_proj.weight"] = {d, F};
    }
    m["model.norm.weight"] = {d};
    if (!c.tie_embeddings) m["lm_head.weight"] = {V, d};
  }
  return m;
}

void check_layout(const at::Config& c) {
  const at::ParamLayout L(c);
  const auto want = expected_tensors(c);
  std::map<std::string, Shape> got;
  std::vector<std::pair<size_t, size_t>> ranges;
  for (const at::ParamInfo& p : L.params()) {
    EXPECT_TRUE(got.emplace(p.name, p.shape).second) << "duplicate " << p.name;
    size_t n = 1;
    for (int64_t s : p.shape) n *= size_t(s);
    EXPECT_EQ(p.numel, n) << p.name;
    ranges.emplace_back(p.offset, p.numel);
    // Weight decay on matrices and embeddings, not on norms and biases.
    EXPECT_EQ(p.decay, p.shape.size() == 2) << p.name;
    const at::ParamInfo* f = L.find(p.name);
    ASSERT_NE(f, nullptr) << p.name;
    EXPECT_EQ(f->offset, p.offset);
  }
  EXPECT_EQ(got, want);
  EXPECT_EQ(L.find("no.such.tensor"), nullptr);
  // The tensors tile the buffer exactly.
  std::sort(ranges.begin(), ranges.end());
  size_t at_ = 0;
  for (auto& r : ranges) {
    EXPECT_EQ(r.first, at_);
    at_ = r.first + r.second;
  }
  EXPECT_EQ(at_, L.size());
  EXPECT_EQ(int64_t(L.size()), c.parameter_count());
  if (L.size() < (size_t(1) << 22)) {
    const at::Weights w(c);
    EXPECT_EQ(w.size(), L.size());
    EXPECT_EQ(reftest::max_abs(w.data(), w.size()), 0.0) << "a new Weights is all zero";
  }

  // The offsets by role agree with the names.
  auto off = [&](const std::string& name) {
    const at::ParamInfo* p = L.find(name);
    return p ? p->offset : at::LayerOffsets::kNone;
  };
  const size_t none = at::LayerOffsets::kNone;
  if (c.arch == at::Arch::GPT2) {
    EXPECT_EQ(L.tok_emb, off("transformer.wte.weight"));
    EXPECT_EQ(L.pos_emb, off("transformer.wpe.weight"));
    EXPECT_EQ(L.lnf_w, off("transformer.ln_f.weight"));
    EXPECT_EQ(L.lnf_b, off("transformer.ln_f.bias"));
    EXPECT_EQ(L.lm_head, L.tok_emb);
    for (int64_t l = 0; l < c.layers; ++l) {
      const std::string p = "transformer.h." + std::to_string(l) + ".";
      const at::LayerOffsets& o = L.layer(l);
      EXPECT_EQ(o.ln1_w, off(p + "ln_1.weight"));
      EXPECT_EQ(o.ln1_b, off(p + "ln_1.bias"));
      EXPECT_EQ(o.qkv_w, off(p + "attn.c_attn.weight"));
      EXPECT_EQ(o.qkv_b, off(p + "attn.c_attn.bias"));
      EXPECT_EQ(o.o_w, off(p + "attn.c_proj.weight"));
      EXPECT_EQ(o.o_b, off(p + "attn.c_proj.bias"));
      EXPECT_EQ(o.ln2_w, off(p + "ln_2.weight"));
      EXPECT_EQ(o.ln2_b, off(p + "ln_2.bias"));
      EXPECT_EQ(o.up_w, off(p + "mlp.c_fc.weight"));
      EXPECT_EQ(o.up_b, off(p + "mlp.c_fc.bias"));
      EXPECT_EQ(o.down_w, off(p + "mlp.c_proj.weight"));
      EXPECT_EQ(o.down_b, off(p + "mlp.c_proj.bias"));
      EXPECT_EQ(o.q_w, none);
      EXPECT_EQ(o.gate_w, none);
    }
  } else {
    EXPECT_EQ(L.tok_emb, off("model.embed_tokens.weight"));
    EXPECT_EQ(L.pos_emb, none);
    EXPECT_EQ(L.lnf_w, off("model.norm.weight"));
    EXPECT_EQ(L.lnf_b, none);
    EXPECT_EQ(L.lm_head, c.tie_embeddings ? L.tok_emb : off("lm_head.weight"));
    for (int64_t l = 0; l < c.layers; ++l) {
      const std::string p = "model.layers." + std::to_string(l) + ".";
      const at::LayerOffsets& o = L.layer(l);
      EXPECT_EQ(o.ln1_w, off(p + "input_layernorm.weight"));
      EXPECT_EQ(o.q_w, off(p + "self_attn.q_proj.weight"));
      EXPECT_EQ(o.k_w, off(p + "self_attn.k_proj.weight"));
      EXPECT_EQ(o.v_w, off(p + "self_attn.v_proj.weight"));
      EXPECT_EQ(o.o_w, off(p + "self_attn.o_proj.weight"));
      EXPECT_EQ(o.ln2_w, off(p + "post_attention_layernorm.weight"));
      EXPECT_EQ(o.gate_w, off(p + "mlp.gate_proj.weight"));
      EXPECT_EQ(o.up_w, off(p + "mlp.up_proj.weight"));
      EXPECT_EQ(o.down_w, off(p + "mlp.down_proj.weight"));
      EXPECT_EQ(o.ln1_b, none);
      EXPECT_EQ(o.qkv_w, none);
      EXPECT_EQ(o.qkv_b, none);
      EXPECT_EQ(o.o_b, none);
      EXPECT_EQ(o.up_b, none);
      EXPECT_EQ(o.down_b, none);
    }
  }
}

TEST(ParamLayout, Gpt2Names) { check_layout(at::preset("gpt2-tiny")); }
TEST(ParamLayout, Gpt2SmallNames) { check_layout(at::preset("gpt2-small")); }
TEST(ParamLayout, LlamaUntiedNames) { check_layout(at::preset("llama-tiny")); }
TEST(ParamLayout, LlamaTiedMqaNames) { check_layout(llama_tied()); }

TEST(ParamLayout, Gpt2SmallHasTheKnownParameterCount) {
  // GPT-2 small (124M): 124,439,808 parameters with the tied head.
  EXPECT_EQ(at::ParamLayout(at::preset("gpt2-small")).size(), size_t(124439808));
}

TEST(Weights, InitRandomFollowsGpt2Initialisation) {
  for (const at::Config& c : {at::preset("gpt2-tiny"), at::preset("llama-tiny")}) {
    at::Weights a(c), b(c), d(c);
    a.init_random(5);
    b.init_random(5);
    d.init_random(6);
    EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float))) << "deterministic";
    EXPECT_NE(0, std::memcmp(a.data(), d.data(), a.size() * sizeof(float))) << "seeded";
    for (const at::ParamInfo& p : a.layout().params()) {
      const float* x = a.at(p.offset);
      if (p.shape.size() == 1) {
        const float want = reftest::ends_with(p.name, ".bias") ? 0.0f : 1.0f;
        for (size_t i = 0; i < p.numel; ++i) ASSERT_EQ(x[i], want) << p.name;
        continue;
      }
      double s2 = 0, s1 = 0;
      for (size_t i = 0; i < p.numel; ++i) {
        s1 += x[i];
        s2 += double(x[i]) * x[i];
      }
      const double sd = std::sqrt(s2 / double(p.numel) - (s1 / double(p.numel)) * (s1 / double(p.numel)));
      const bool residual = reftest::contains(p.name, "c_proj") || reftest::contains(p.name, "o_proj") ||
                            reftest::contains(p.name, "down_proj");
      const double want = residual ? 0.02 / std::sqrt(2.0 * double(c.layers)) : 0.02;
      EXPECT_NEAR(sd, want, 0.2 * want) << p.name;
    }
  }
}

// ------------------------------------------------------------------------ files

/** The weights' tensors as write_safetensors arguments, under their layout names. */
std::vector<at::StWrite> tensors_of(const at::Weights& w) {
  std::vector<at::StWrite> t;
  for (const at::ParamInfo& p : w.layout().params()) t.push_back({p.name, p.shape, w.at(p.offset)});
  return t;
}

std::vector<at::StWrite> without(std::vector<at::StWrite> t, const std::string& name) {
  t.erase(std::remove_if(t.begin(), t.end(), [&](const at::StWrite& s) { return s.name == name; }),
          t.end());
  return t;
}

bool same(const at::Weights& a, const at::Weights& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

class WeightsFiles : public ::testing::TestWithParam<const char*> {
 protected:
  at::Config cfg() const {
    const std::string n = GetParam();
    return n == std::string("llama-tied") ? llama_tied() : at::preset(n);
  }
  std::string dir() const {
    std::string n = GetParam();
    std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    for (char& ch : test)
      if (ch == '/') ch = '_';
    return tmp_dir(n + "_" + test);
  }
};

std::string param_name(const ::testing::TestParamInfo<const char*>& info) {
  std::string s = info.param;
  for (char& ch : s)
    if (ch == '-') ch = '_';
  return s;
}

TEST_P(WeightsFiles, SaveLoadRoundTripIsBitwise) {
  const at::Config c = cfg();
  at::Weights w(c);
  reftest::randomize(w, 1);
  w.at(0)[0] = 1e-40f;  // a denormal survives too
  w.at(0)[1] = -0.0f;
  const std::string path = dir() + "/w.safetensors";
  w.save(path);
  at::Weights r(c);
  r.load(path);
  EXPECT_TRUE(same(w, r));
  EXPECT_TRUE(std::signbit(r.at(0)[1]));

  // The file holds exactly the Hugging Face names (a tied head once), as F32, and metadata.
  const at::StFile f = at::read_safetensors(path);
  std::set<std::string> names;
  for (const auto& kv : f.tensors) {
    names.insert(kv.first);
    EXPECT_EQ(kv.second.dtype, "F32") << kv.first;
    const at::ParamInfo* p = w.layout().find(kv.first);
    ASSERT_NE(p, nullptr) << kv.first;
    EXPECT_EQ(kv.second.shape, p->shape) << kv.first;
    EXPECT_EQ(0, std::memcmp(kv.second.data.data(), w.at(p->offset), p->numel * sizeof(float)));
  }
  std::set<std::string> want;
  for (const auto& kv : expected_tensors(c)) want.insert(kv.first);
  EXPECT_EQ(names, want);
  EXPECT_FALSE(f.metadata.empty()) << "the config is saved as metadata";
}

TEST_P(WeightsFiles, PretrainedDirectoryRoundTrip) {
  const at::Config c = cfg();
  at::Model m(c);
  reftest::randomize(m.weights(), 2);
  const std::string d = dir() + "/ckpt";
  m.save_pretrained(d);  // creates the directory
  EXPECT_TRUE(fs::exists(fs::path(d) / "config.json"));
  EXPECT_TRUE(fs::exists(fs::path(d) / "model.safetensors"));
  at::Model r = at::Model::from_pretrained(d);
  const at::Config& rc = r.config();
  EXPECT_EQ(rc.arch, c.arch);
  EXPECT_EQ(rc.layers, c.layers);
  EXPECT_EQ(rc.d_model, c.d_model);
  EXPECT_EQ(rc.heads, c.heads);
  EXPECT_EQ(rc.kv_heads, c.kv_heads);
  EXPECT_EQ(rc.ffn, c.ffn);
  EXPECT_EQ(rc.vocab, c.vocab);
  EXPECT_EQ(rc.context, c.context);
  EXPECT_EQ(rc.norm_eps, c.norm_eps);
  EXPECT_EQ(rc.tie_embeddings, c.tie_embeddings);
  if (c.arch == at::Arch::Llama) {
    EXPECT_EQ(rc.rope_theta, c.rope_theta);
  }
  EXPECT_TRUE(same(m.weights(), r.weights()));

  const int64_t T = 6, V = c.vocab;
  const auto tok = reftest::random_tokens(2 * T, V, 3);
  std::vector<float> a(size_t(2 * T * V)), b(a.size());
  m.forward(tok.data(), 2, T, a.data());
  r.forward(tok.data(), 2, T, b.data());
  EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float)));
}

TEST_P(WeightsFiles, MissingTensorIsRejected) {
  const at::Config c = cfg();
  at::Weights src(c), w(c);
  reftest::randomize(src, 3);
  reftest::randomize(w, 4);
  const at::Weights before = w;
  const std::string victim = c.arch == at::Arch::GPT2 ? "transformer.h.1.mlp.c_fc.bias"
                                                      : "model.layers.1.self_attn.v_proj.weight";
  const std::string path = dir() + "/missing.safetensors";
  at::write_safetensors(path, without(tensors_of(src), victim));
  try {
    w.load(path);
    ADD_FAILURE() << "a file without " << victim << " loaded";
  } catch (const at::Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("missing.safetensors"), std::string::npos) << msg;
    // The name as in the file (GPT-2 files may leave out the prefix, so the layer part).
    EXPECT_NE(msg.find(victim.substr(victim.find("1."))), std::string::npos) << msg;
    EXPECT_NE(lower(msg).find("missing"), std::string::npos) << msg;
    EXPECT_LT(e.status(), 0);
  }
  EXPECT_TRUE(same(w, before)) << "weights changed by a failed load";
}

TEST(WeightsHf, UntiedHeadIsRequired) {
  const at::Config c = at::preset("llama-tiny");
  ASSERT_FALSE(c.tie_embeddings);
  at::Weights src(c), w(c);
  reftest::randomize(src, 3);
  const std::string path = tmp_dir("nohead") + "/nohead.safetensors";
  at::write_safetensors(path, without(tensors_of(src), "lm_head.weight"));
  try {
    w.load(path);
    ADD_FAILURE() << "loaded without lm_head.weight";
  } catch (const at::Error& e) {
    EXPECT_NE(std::string(e.what()).find("lm_head.weight"), std::string::npos) << e.what();
  }
}

TEST_P(WeightsFiles, MisshapedTensorIsRejected) {
  const at::Config c = cfg();
  at::Weights src(c), w(c);
  reftest::randomize(src, 5);
  reftest::randomize(w, 6);
  const at::Weights before = w;
  const std::string victim = c.arch == at::Arch::GPT2 ? "transformer.h.0.attn.c_attn.weight"
                                                      : "model.layers.0.self_attn.k_proj.weight";
  auto t = tensors_of(src);
  for (auto& s : t)
    if (s.name == victim) std::swap(s.shape[0], s.shape[1]);  // transposed: same size
  const std::string path = dir() + "/shape.safetensors";
  at::write_safetensors(path, t);
  try {
    w.load(path);
    ADD_FAILURE() << "a transposed " << victim << " loaded";
  } catch (const at::Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("shape.safetensors"), std::string::npos) << msg;
    EXPECT_NE(msg.find(victim.substr(victim.find("0."))), std::string::npos) << msg;
    EXPECT_NE(lower(msg).find("shape"), std::string::npos) << msg;
    EXPECT_LT(e.status(), 0);
  }
  EXPECT_TRUE(same(w, before));

  // Another size entirely (the embedding with one row too many).
  std::vector<float> big(size_t((c.vocab + 1) * c.d_model), 0.25f);
  t = tensors_of(src);
  const std::string emb = c.arch == at::Arch::GPT2 ? "transformer.wte.weight" : "model.embed_tokens.weight";
  for (auto& s : t)
    if (s.name == emb) {
      s.shape = {c.vocab + 1, c.d_model};
      s.data = big.data();
    }
  at::write_safetensors(path, t);
  EXPECT_THROW(w.load(path), at::Error);
  EXPECT_TRUE(same(w, before));
}

TEST_P(WeightsFiles, UnknownTensorIsRejected) {
  const at::Config c = cfg();
  at::Weights src(c), w(c);
  reftest::randomize(src, 7);
  reftest::randomize(w, 8);
  const at::Weights before = w;
  // A layer the configuration does not have.
  const std::string extra = c.arch == at::Arch::GPT2 ? "transformer.h.7.ln_1.weight"
                                                     : "model.layers.7.input_layernorm.weight";
  auto t = tensors_of(src);
  std::vector<float> v(size_t(c.d_model), 1.0f);
  t.push_back({extra, {c.d_model}, v.data()});
  const std::string path = dir() + "/unknown.safetensors";
  at::write_safetensors(path, t);
  try {
    w.load(path);
    ADD_FAILURE() << "a file with " << extra << " loaded";
  } catch (const at::Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("unknown.safetensors"), std::string::npos) << msg;
    EXPECT_NE(msg.find(extra.substr(extra.find("7."))), std::string::npos) << msg;
    EXPECT_LT(e.status(), 0);
  }
  EXPECT_TRUE(same(w, before));
}

TEST_P(WeightsFiles, TruncatedFileIsRejected) {
  const at::Config c = cfg();
  at::Weights src(c), w(c);
  reftest::randomize(src, 9);
  reftest::randomize(w, 10);
  const at::Weights before = w;
  const std::string d = dir();  // (re)created empty by each call
  const std::string good = d + "/good.safetensors";
  src.save(good);
  const auto size = fs::file_size(good);
  for (uintmax_t keep : {uintmax_t(size - 1), uintmax_t(size / 2), uintmax_t(100), uintmax_t(4)}) {
    const std::string path = d + "/truncated.safetensors";
    fs::copy_file(good, path, fs::copy_options::overwrite_existing);
    fs::resize_file(path, keep);
    try {
      w.load(path);
      ADD_FAILURE() << "a file truncated to " << keep << " of " << size << " bytes loaded";
    } catch (const at::Error& e) {
      EXPECT_NE(std::string(e.what()).find("truncated.safetensors"), std::string::npos) << e.what();
      if (keep >= 8) {  // (a 4-byte file is no safetensors file at all)
        EXPECT_NE(lower(e.what()).find("truncat"), std::string::npos) << e.what();
      }
      EXPECT_LT(e.status(), 0);
    }
    EXPECT_TRUE(same(w, before)) << keep;
  }
  EXPECT_THROW(w.load(d + "/does-not-exist.safetensors"), at::Error);
  EXPECT_TRUE(same(w, before));
  // The good file still loads after all that.
  w.load(good);
  EXPECT_TRUE(same(w, src));
}

INSTANTIATE_TEST_SUITE_P(Archs, WeightsFiles,
                         ::testing::Values("gpt2-tiny", "llama-tiny", "llama-tied"), param_name);

// -------------------------------------------------------------- Hugging Face file variants

TEST(WeightsHf, Gpt2NamesWithoutPrefixAndAttentionBuffers) {
  // What GPT2LMHeadModel checkpoints on the hub hold: names without "transformer.", the causal
  // mask buffers h.N.attn.bias [1, 1, ctx, ctx] (and masked_bias in old ones), no lm_head.
  const at::Config c = at::preset("gpt2-tiny");
  at::Weights src(c), w(c);
  reftest::randomize(src, 11);
  std::vector<at::StWrite> t;
  for (const at::ParamInfo& p : src.layout().params()) {
    std::string n = p.name;
    if (n.rfind("transformer.", 0) == 0) n = n.substr(12);
    t.push_back({n, p.shape, src.at(p.offset)});
  }
  std::vector<float> mask(size_t(c.context * c.context));
  for (int64_t i = 0; i < c.context; ++i)
    for (int64_t j = 0; j < c.context; ++j) mask[size_t(i * c.context + j)] = j <= i ? 1.0f : 0.0f;
  const float masked_bias = -1e4f;
  for (int64_t l = 0; l < c.layers; ++l) {
    t.push_back({"h." + std::to_string(l) + ".attn.bias", {1, 1, c.context, c.context}, mask.data()});
    t.push_back({"h." + std::to_string(l) + ".attn.masked_bias", {}, &masked_bias});
  }
  const std::string path = tmp_dir("hf_gpt2") + "/model.safetensors";
  at::write_safetensors(path, t, {{"format", "pt"}});
  w.load(path);
  EXPECT_TRUE(same(w, src));
}

// A safetensors writer of our own for the dtypes write_safetensors does not produce.
struct RawTensor {
  std::string name, dtype;
  Shape shape;
  std::vector<uint8_t> bytes;
};

void write_raw(const std::string& path, const std::vector<RawTensor>& ts) {
  std::string h = "{\"__metadata__\":{\"format\":\"pt\"}";
  size_t off = 0;
  for (const RawTensor& t : ts) {
    h += ",\"" + t.name + "\":{\"dtype\":\"" + t.dtype + "\",\"shape\":[";
    for (size_t i = 0; i < t.shape.size(); ++i) h += (i ? "," : "") + std::to_string(t.shape[i]);
    h += "],\"data_offsets\":[" + std::to_string(off) + "," + std::to_string(off + t.bytes.size()) + "]}";
    off += t.bytes.size();
  }
  h += "}";
  while (h.size() % 8) h += ' ';
  std::ofstream f(path, std::ios::binary);
  uint64_t n = h.size();
  unsigned char len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<unsigned char>(n >> (8 * i));
  f.write(reinterpret_cast<const char*>(len), 8);
  f.write(h.data(), std::streamsize(h.size()));
  for (const RawTensor& t : ts) f.write(reinterpret_cast<const char*>(t.bytes.data()), std::streamsize(t.bytes.size()));
}

/** IEEE half of a float that is exactly representable (normal or zero). */
uint16_t to_f16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint16_t sign = uint16_t((x >> 16) & 0x8000u);
  if ((x & 0x7fffffffu) == 0) return sign;
  const int e = int((x >> 23) & 0xff) - 127 + 15;
  EXPECT_TRUE(e >= 1 && e <= 30 && (x & 0x1fffu) == 0) << f;
  return uint16_t(sign | (uint32_t(e) << 10) | ((x & 0x7fffffu) >> 13));
}
uint16_t to_bf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  EXPECT_EQ(x & 0xffffu, 0u) << f;
  return uint16_t(x >> 16);
}

void check_half_file(const at::Config& c, const char* dtype) {
  // Weights quantised to multiples of 1/64 in (-2, 2): exact in F16 and BF16 (8 bits).
  at::Weights src(c), w(c);
  reftest::randomize(src, 13);
  for (size_t i = 0; i < src.size(); ++i) {
    float v = std::round(src.data()[i] * 64.0f) / 64.0f;
    src.data()[i] = std::max(-1.984375f, std::min(1.984375f, v));
  }
  std::vector<RawTensor> ts;
  for (const at::ParamInfo& p : src.layout().params()) {
    RawTensor t{p.name, dtype, p.shape, {}};
    for (size_t i = 0; i < p.numel; ++i) {
      const float v = src.at(p.offset)[i];
      const uint16_t b = std::string(dtype) == "F16" ? to_f16(v) : to_bf16(v);
      t.bytes.push_back(uint8_t(b & 0xff));
      t.bytes.push_back(uint8_t(b >> 8));
    }
    ts.push_back(std::move(t));
  }
  const std::string path = tmp_dir(std::string("half_") + dtype + "_" + at::arch_name(c.arch)) + "/model.safetensors";
  write_raw(path, ts);
  w.load(path);
  EXPECT_TRUE(same(w, src)) << dtype;
}

TEST(WeightsHf, F16TensorsLoad) {
  check_half_file(at::preset("gpt2-tiny"), "F16");
  check_half_file(at::preset("llama-tiny"), "F16");
}

TEST(WeightsHf, BF16TensorsLoad) {
  check_half_file(at::preset("gpt2-tiny"), "BF16");
  check_half_file(at::preset("llama-tiny"), "BF16");
}

TEST(WeightsHf, ConfigOfAnotherModelIsRejected) {
  // A gpt2-tiny file into a Llama layout and into a wider GPT-2: nothing fits, nothing changes.
  at::Weights src(at::preset("gpt2-tiny"));
  reftest::randomize(src, 15);
  const std::string path = tmp_dir("other") + "/model.safetensors";
  src.save(path);
  at::Config wide = at::preset("gpt2-tiny");
  wide.d_model = 64;
  for (const at::Config& c : {at::preset("llama-tiny"), wide}) {
    at::Weights w(c);
    reftest::randomize(w, 16);
    const at::Weights before = w;
    EXPECT_THROW(w.load(path), at::Error);
    EXPECT_TRUE(same(w, before));
  }
}

}  // namespace
