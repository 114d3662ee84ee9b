/** \file model_reference.hpp
 *  \brief An independent double-precision reference of the runtime's two architectures, for
 *  the model tests. It reads a parameter vector laid out by ParamLayout, finding every tensor
 *  by its Hugging Face name (so it shares nothing with the runtime but the names and the flat
 *  layout), and computes the logits and the loss of Model::forward / Model::loss:
 *
 *  GPT-2 (GPT2LMHeadModel; Conv1D weights [in, out]): x = wte[tok] + wpe[pos]; per layer
 *  h = LN(x; ln_1), qkv = h W_c_attn + b ([d, 3d]: q, k, v are column thirds, head j the
 *  columns j*hd..(j+1)*hd), causal softmax attention with scale 1/sqrt(hd),
 *  x += concat(heads) W_c_proj + b, x += gelu_tanh(LN(x; ln_2) W_c_fc + b) W_mlp_c_proj + b;
 *  LN(x; ln_f); logits = h wte^T. LayerNorm with the biased variance.
 *
 *  Llama (LlamaForCausalLM; nn.Linear weights [out, in]): x = embed_tokens[tok]; per layer
 *  h = RMSNorm(x) * input_layernorm, q = h Wq^T, k = h Wk^T, v = h Wv^T, rotary embedding of
 *  q and k (Hugging Face rotate-half, inv_freq_i = theta^(-2i/hd)), causal attention where
 *  query head j reads kv head j / (heads / kv_heads), x += attn Wo^T,
 *  x += (silu(h2 Wg^T) * (h2 Wu^T)) Wd^T with h2 = RMSNorm(x) * post_attention_layernorm;
 *  RMSNorm(x; model.norm); logits = h lm_head^T (embed_tokens^T when tied).
 *
 *  Loss: mean over the positions with target >= 0 of -log softmax(logits)[target].
 *
 *  Also the tests' common helpers: a seeded generator, weights randomised so that the tests
 *  are sensitive (larger than GPT-2's 0.02 initialisation, norms and biases not trivial), and
 *  small comparisons. No GoogleTest in here.
 */
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "abft/transformer/config.hpp"
#include "abft/transformer/weights.hpp"

namespace reftest {

using abft::transformer::Arch;
using abft::transformer::Config;
using abft::transformer::ParamInfo;
using abft::transformer::ParamLayout;
using abft::transformer::Weights;

// ------------------------------------------------------------------------------ helpers

/** splitmix64: a small seeded generator of its own (independent of the runtime's). */
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 0x1234567ull) {}
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }  // [0, 1)
  double uniform(double a, double b) { return a + (b - a) * uniform(); }
  double normal() {
    double u1 = uniform(), u2 = uniform();
    if (u1 < 1e-300) u1 = 1e-300;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  int64_t below(int64_t n) { return int64_t(next() % uint64_t(n)); }
};

inline bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
inline bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

/** Fill every tensor of `w` with values that make the tests sensitive: matrices
 *  N(0, (gain/sqrt(fan_in))^2), embeddings N(0, 0.5^2), norm weights 1 + U(-0.4, 0.4), biases
 *  U(-0.2, 0.2). Activations stay O(1), attention is far from uniform, every path matters. */
inline void randomize(Weights& w, uint64_t seed, double gain = 1.0) {
  Rng rng(seed);
  const ParamLayout& L = w.layout();
  const bool gpt2 = L.config().arch == Arch::GPT2;
  for (const ParamInfo& p : L.params()) {
    float* x = w.at(p.offset);
    if (p.shape.size() == 1) {
      const bool bias = ends_with(p.name, ".bias");
      for (size_t i = 0; i < p.numel; ++i)
        x[i] = float(bias ? rng.uniform(-0.2, 0.2) : 1.0 + rng.uniform(-0.4, 0.4));
    } else {
      const bool emb = contains(p.name, "wte") || contains(p.name, "wpe") ||
                       contains(p.name, "embed_tokens");
      double sd = 0.5;
      if (!emb) {
        // Conv1D [in, out] for GPT-2; nn.Linear [out, in] for Llama (and lm_head).
        const int64_t fan_in = gpt2 ? p.shape[0] : p.shape[1];
        sd = gain / std::sqrt(double(fan_in));
      }
      for (size_t i = 0; i < p.numel; ++i) x[i] = float(sd * rng.normal());
    }
  }
}

inline std::vector<int32_t> random_tokens(int64_t n, int64_t vocab, uint64_t seed) {
  Rng rng(seed ^ 0xABCDEFull);
  std::vector<int32_t> t(static_cast<size_t>(n));
  for (auto& v : t) v = int32_t(rng.below(vocab));
  return t;
}

inline std::vector<double> to_double(const float* p, size_t n) { return std::vector<double>(p, p + n); }

template <class T>
double max_abs(const T* p, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; ++i) m = std::max(m, std::fabs(double(p[i])));
  return m;
}
template <class A, class B>
double max_abs_diff(const A* a, const B* b, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; ++i) {
    const double d = std::fabs(double(a[i]) - double(b[i]));
    if (!(d <= m)) m = std::isnan(d) ? INFINITY : d;
  }
  return m;
}
template <class T>
bool all_finite(const T* p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (!std::isfinite(double(p[i]))) return false;
  return true;
}

// ------------------------------------------------------------------------------ reference

class Reference {
 public:
  /** `w` is a full parameter vector in the layout's order (doubles). */
  Reference(const ParamLayout& layout, const double* w) : L_(layout), c_(layout.config()), w_(w) {}

  /** Logits [B*T, vocab] of B sequences of T tokens at positions 0..T-1. */
  std::vector<double> logits(const int32_t* tok, int64_t B, int64_t T) const {
    const int64_t V = c_.vocab;
    std::vector<double> out(size_t(B * T * V));
    for (int64_t b = 0; b < B; ++b) sequence(tok + b * T, T, out.data() + b * T * V);
    return out;
  }

  /** Mean cross-entropy over the targets >= 0 (0 when there is none). */
  double loss(const int32_t* tok, const int32_t* tgt, int64_t B, int64_t T) const {
    const std::vector<double> lg = logits(tok, B, T);
    return loss_from_logits(lg.data(), tgt, B * T, c_.vocab);
  }

  static double loss_from_logits(const double* lg, const int32_t* tgt, int64_t rows,
                                 int64_t V) {
    double sum = 0;
    int64_t n = 0;
    for (int64_t r = 0; r < rows; ++r) {
      if (tgt[r] < 0) continue;
      const double* z = lg + r * V;
      double mx = z[0];
      for (int64_t v = 1; v < V; ++v) mx = std::max(mx, z[v]);
      double s = 0;
      for (int64_t v = 0; v < V; ++v) s += std::exp(z[v] - mx);
      sum += mx + std::log(s) - z[tgt[r]];
      ++n;
    }
    return n ? sum / double(n) : 0.0;
  }

 private:
  const double* P(const std::string& name, std::vector<int64_t> shape) const {
    const ParamInfo* p = L_.find(name);
    if (p == nullptr) throw std::runtime_error("reference: no tensor named " + name);
    if (p->shape != shape) throw std::runtime_error("reference: tensor " + name + " has another shape");
    return w_ + p->offset;
  }

  void layer_norm(const double* x, int64_t n, const double* g, const double* b, double* y) const {
    double mean = 0;
    for (int64_t i = 0; i < n; ++i) mean += x[i];
    mean /= double(n);
    double var = 0;
    for (int64_t i = 0; i < n; ++i) var += (x[i] - mean) * (x[i] - mean);
    var /= double(n);
    const double r = 1.0 / std::sqrt(var + c_.norm_eps);
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * r * g[i] + b[i];
  }
  void rms_norm(const double* x, int64_t n, const double* g, double* y) const {
    double ms = 0;
    for (int64_t i = 0; i < n; ++i) ms += x[i] * x[i];
    ms /= double(n);
    const double r = 1.0 / std::sqrt(ms + c_.norm_eps);
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] * r * g[i];
  }
  // y[o] (+)= sum_i x[i] * W[i][o], W [in, out] (Conv1D)
  static void mul_in_out(const double* x, const double* W, const double* bias, int64_t in,
                         int64_t out, double* y) {
    for (int64_t o = 0; o < out; ++o) {
      double s = bias ? bias[o] : 0.0;
      for (int64_t i = 0; i < in; ++i) s += x[i] * W[i * out + o];
      y[o] = s;
    }
  }
  // y[o] = sum_i x[i] * W[o][i], W [out, in] (nn.Linear)
  static void mul_out_in(const double* x, const double* W, int64_t in, int64_t out, double* y) {
    for (int64_t o = 0; o < out; ++o) {
      double s = 0;
      for (int64_t i = 0; i < in; ++i) s += x[i] * W[o * in + i];
      y[o] = s;
    }
  }

  /** Causal attention of T positions; q [T, H*hd], k/v [T, KV*hd] -> a [T, H*hd]. */
  void attention(const std::vector<double>& q, const std::vector<double>& k,
                 const std::vector<double>& v, int64_t T, std::vector<double>& a) const {
    const int64_t H = c_.heads, KV = c_.kv_heads, hd = c_.head_dim();
    const int64_t group = H / KV;
    const double scale = 1.0 / std::sqrt(double(hd));
    a.assign(size_t(T * H * hd), 0.0);
    std::vector<double> s(static_cast<size_t>(T));
    for (int64_t h = 0; h < H; ++h) {
      const int64_t g = h / group;
      for (int64_t t = 0; t < T; ++t) {
        double mx = -INFINITY;
        for (int64_t u = 0; u <= t; ++u) {
          double d = 0;
          for (int64_t c = 0; c < hd; ++c) d += q[size_t(t * H * hd + h * hd + c)] * k[size_t(u * KV * hd + g * hd + c)];
          s[size_t(u)] = d * scale;
          mx = std::max(mx, s[size_t(u)]);
        }
        double z = 0;
        for (int64_t u = 0; u <= t; ++u) z += (s[size_t(u)] = std::exp(s[size_t(u)] - mx));
        for (int64_t u = 0; u <= t; ++u) {
          const double p = s[size_t(u)] / z;
          for (int64_t c = 0; c < hd; ++c)
            a[size_t(t * H * hd + h * hd + c)] += p * v[size_t(u * KV * hd + g * hd + c)];
        }
      }
    }
  }

  void rope(double* x, int64_t nheads, int64_t pos) const {
    const int64_t hd = c_.head_dim(), half = hd / 2;
    for (int64_t h = 0; h < nheads; ++h) {
      double* y = x + h * hd;
      for (int64_t i = 0; i < half; ++i) {
        const double inv_freq = std::pow(c_.rope_theta, -2.0 * double(i) / double(hd));
        const double ang = double(pos) * inv_freq;
        const double cs = std::cos(ang), sn = std::sin(ang);
        const double x1 = y[i], x2 = y[i + half];
        y[i] = x1 * cs - x2 * sn;
        y[i + half] = x2 * cs + x1 * sn;
      }
    }
  }

  void sequence(const int32_t* tok, int64_t T, double* logits) const {
    const int64_t d = c_.d_model, V = c_.vocab, H = c_.heads, KV = c_.kv_heads;
    const int64_t hd = c_.head_dim(), F = c_.ffn;
    const bool gpt2 = c_.arch == Arch::GPT2;
    std::vector<double> x(static_cast<size_t>(T * d)), h(static_cast<size_t>(d)),
        tmp(static_cast<size_t>(3 * d + 3 * H * hd));
    std::vector<double> q(size_t(T * H * hd)), k(size_t(T * KV * hd)), v(size_t(T * KV * hd));
    std::vector<double> a, u(static_cast<size_t>(F)), gate(static_cast<size_t>(F)), y(static_cast<size_t>(d));
    const std::string lp = gpt2 ? "transformer.h." : "model.layers.";

    if (gpt2) {
      const double* wte = P("transformer.wte.weight", {V, d});
      const double* wpe = P("transformer.wpe.weight", {c_.context, d});
      for (int64_t t = 0; t < T; ++t)
        for (int64_t i = 0; i < d; ++i) x[size_t(t * d + i)] = wte[tok[t] * d + i] + wpe[t * d + i];
    } else {
      const double* emb = P("model.embed_tokens.weight", {V, d});
      for (int64_t t = 0; t < T; ++t)
        for (int64_t i = 0; i < d; ++i) x[size_t(t * d + i)] = emb[tok[t] * d + i];
    }

    for (int64_t l = 0; l < c_.layers; ++l) {
      const std::string pre = lp + std::to_string(l) + ".";
      // ---- attention block
      for (int64_t t = 0; t < T; ++t) {
        const double* xt = &x[size_t(t * d)];
        if (gpt2) {
          layer_norm(xt, d, P(pre + "ln_1.weight", {d}), P(pre + "ln_1.bias", {d}), h.data());
          mul_in_out(h.data(), P(pre + "attn.c_attn.weight", {d, 3 * d}),
                     P(pre + "attn.c_attn.bias", {3 * d}), d, 3 * d, tmp.data());
          for (int64_t i = 0; i < d; ++i) {
            q[size_t(t * d + i)] = tmp[size_t(i)];
            k[size_t(t * d + i)] = tmp[size_t(d + i)];
            v[size_t(t * d + i)] = tmp[size_t(2 * d + i)];
          }
        } else {
          rms_norm(xt, d, P(pre + "input_layernorm.weight", {d}), h.data());
          mul_out_in(h.data(), P(pre + "self_attn.q_proj.weight", {H * hd, d}), d, H * hd,
                     &q[size_t(t * H * hd)]);
          mul_out_in(h.data(), P(pre + "self_attn.k_proj.weight", {KV * hd, d}), d, KV * hd,
                     &k[size_t(t * KV * hd)]);
          mul_out_in(h.data(), P(pre + "self_attn.v_proj.weight", {KV * hd, d}), d, KV * hd,
                     &v[size_t(t * KV * hd)]);
          rope(&q[size_t(t * H * hd)], H, t);
          rope(&k[size_t(t * KV * hd)], KV, t);
        }
      }
      attention(q, k, v, T, a);
      for (int64_t t = 0; t < T; ++t) {
        if (gpt2)
          mul_in_out(&a[size_t(t * d)], P(pre + "attn.c_proj.weight", {d, d}),
                     P(pre + "attn.c_proj.bias", {d}), d, d, y.data());
        else
          mul_out_in(&a[size_t(t * H * hd)], P(pre + "self_attn.o_proj.weight", {d, H * hd}),
                     H * hd, d, y.data());
        for (int64_t i = 0; i < d; ++i) x[size_t(t * d + i)] += y[size_t(i)];
      }
      // ---- MLP block
      for (int64_t t = 0; t < T; ++t) {
        double* xt = &x[size_t(t * d)];
        if (gpt2) {
          layer_norm(xt, d, P(pre + "ln_2.weight", {d}), P(pre + "ln_2.bias", {d}), h.data());
          mul_in_out(h.data(), P(pre + "mlp.c_fc.weight", {d, F}), P(pre + "mlp.c_fc.bias", {F}),
                     d, F, u.data());
          const double c0 = std::sqrt(2.0 / 3.14159265358979323846);
          for (int64_t j = 0; j < F; ++j) {
            const double z = u[size_t(j)];
            u[size_t(j)] = 0.5 * z * (1.0 + std::tanh(c0 * (z + 0.044715 * z * z * z)));
          }
          mul_in_out(u.data(), P(pre + "mlp.c_proj.weight", {F, d}), P(pre + "mlp.c_proj.bias", {d}),
                     F, d, y.data());
        } else {
          rms_norm(xt, d, P(pre + "post_attention_layernorm.weight", {d}), h.data());
          mul_out_in(h.data(), P(pre + "mlp.gate_proj.weight", {F, d}), d, F, gate.data());
          mul_out_in(h.data(), P(pre + "mlp.up_proj.weight", {F, d}), d, F, u.data());
          for (int64_t j = 0; j < F; ++j) {
            const double g = gate[size_t(j)];
            u[size_t(j)] *= g / (1.0 + std::exp(-g));
          }
          mul_out_in(u.data(), P(pre + "mlp.down_proj.weight", {d, F}), F, d, y.data());
        }
        for (int64_t i = 0; i < d; ++i) xt[i] += y[size_t(i)];
      }
    }

    const double* head;
    if (gpt2)
      head = P("transformer.wte.weight", {V, d});
    else if (c_.tie_embeddings)
      head = P("model.embed_tokens.weight", {V, d});
    else
      head = P("lm_head.weight", {V, d});
    for (int64_t t = 0; t < T; ++t) {
      const double* xt = &x[size_t(t * d)];
      if (gpt2)
        layer_norm(xt, d, P("transformer.ln_f.weight", {d}), P("transformer.ln_f.bias", {d}), h.data());
      else
        rms_norm(xt, d, P("model.norm.weight", {d}), h.data());
      mul_out_in(h.data(), head, d, V, logits + t * V);
    }
  }

  const ParamLayout& L_;
  const Config& c_;
  const double* w_;
};

/** The configurations the model tests run: the two tiny presets; GPT-2 with an MLP width other
 *  than 4d and a large norm epsilon; Llama with tied embeddings and kv_heads == heads; Llama
 *  with multi-query attention (kv_heads == 1), another rope theta and a large epsilon. */
struct NamedConfig {
  std::string name;
  Config config;
};
/** GoogleTest prints a parameter with this (found by argument-dependent lookup). */
inline void PrintTo(const NamedConfig& c, std::ostream* os) { *os << c.name; }

inline std::vector<NamedConfig> test_configs() {
  using abft::transformer::preset;
  Config gpt2_var = preset("gpt2-tiny");
  gpt2_var.ffn = 80;
  gpt2_var.norm_eps = 1e-2;
  Config llama_tied = preset("llama-tiny");
  llama_tied.tie_embeddings = true;
  llama_tied.kv_heads = llama_tied.heads;
  Config llama_mqa = preset("llama-tiny");
  llama_mqa.kv_heads = 1;
  llama_mqa.rope_theta = 500.0;
  llama_mqa.norm_eps = 1e-2;
  return {{"gpt2_tiny", preset("gpt2-tiny")},
          {"gpt2_ffn80_eps", gpt2_var},
          {"llama_tiny", preset("llama-tiny")},
          {"llama_tied_mha", llama_tied},
          {"llama_mqa", llama_mqa}};
}

}  // namespace reftest
