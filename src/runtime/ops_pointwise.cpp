/** \file ops_pointwise.cpp
 *  \brief The pointwise ops of a decoder pass: biases, residual adds, GELU, SwiGLU, rotary
 *  embeddings and the embedding lookup. None is checksummed; each checks a cheap invariant of
 *  what it wrote (finite values; GELU's and SiLU's lower bounds; a rotation keeps each pair's
 *  norm) and recomputes once when it can.
 */
#include <algorithm>
#include <cmath>
#include <string>

#include "abft/transformer/error.hpp"
#include "fast_math.hpp"
#include "ops.hpp"
#include "ops_resident.hpp"

namespace abft::transformer::ops {

namespace {

using fastm::gelu;
using fastm::kGeluMin;
using fastm::kSiluMin;
inline float sigmoid(float g) { return fastm::sigmoid(g); }

/** Run `pass` (returns true when its invariant held); once more if it failed and checks are on. */
template <class F>
void checked(OpContext& cx, int layer, OpKind op, Pass pass, F&& run) {
  const Clock::time_point t0 = Clock::now();
  const bool ok = run();
  bool ok2 = ok;
  if (!ok && cx.opt && cx.opt->invariant_checks) ok2 = run();
  cx.record_invariant(layer, op, pass, ok, ok2, seconds_since(t0));
}

}  // namespace

void add_bias(OpContext& cx, int64_t N, int64_t n, float* Y, int64_t ldy, const float* b) {
  if (cx.resident) return resident::add_bias(N, n, Y, ldy, b);
#pragma omp parallel for num_threads(cx.threads) schedule(static)
  for (int64_t i = 0; i < N; ++i) {
    float* y = Y + i * ldy;
    for (int64_t j = 0; j < n; ++j) y[j] += b[j];
  }
}

void residual_add(OpContext& cx, int64_t N, int64_t d, float* y, const float* r, const float* b) {
  if (cx.resident) return resident::residual_add(N, d, y, r, b);
#pragma omp parallel for num_threads(cx.threads) schedule(static)
  for (int64_t i = 0; i < N; ++i) {
    float* yr = y + i * d;
    const float* rr = r + i * d;
    if (b)
      for (int64_t j = 0; j < d; ++j) yr[j] += rr[j] + b[j];
    else
      for (int64_t j = 0; j < d; ++j) yr[j] += rr[j];
  }
}

void fill_zero(OpContext& cx, float* p, int64_t n) {
  if (cx.resident) return resident::zero(p, n);
  if (n > 0) std::fill(p, p + n, 0.0f);
}

void bias_gelu_fwd(OpContext& cx, int layer, int64_t N, int64_t f, float* u, const float* b, float* a) {
  if (cx.resident) return resident::bias_gelu_fwd(cx, layer, N, f, u, b, a);
  if (b) add_bias(cx, N, f, u, f, b);
  checked(cx, layer, OpKind::Activation, Pass::Forward, [&] {
    int bad = 0;
#pragma omp parallel for num_threads(cx.threads) schedule(static) reduction(| : bad)
    for (int64_t i = 0; i < N; ++i) {
      const float* ur = u + i * f;
      float* ar = a + i * f;
      float lo = 0.0f, sum = 0.0f;
#pragma omp simd reduction(min : lo) reduction(+ : sum)
      for (int64_t j = 0; j < f; ++j) {
        const float g = gelu(ur[j]);
        ar[j] = g;
        lo = std::min(lo, g);
        sum += g;
      }
      if (!(lo >= kGeluMin) || !std::isfinite(sum)) bad |= 1;
    }
    return bad == 0;
  });
}

void gelu_bwd(OpContext& cx, int layer, int64_t N, int64_t f, const float* u, const float* da, float* du) {
  if (cx.resident) return resident::gelu_bwd(cx, layer, N, f, u, da, du);
  checked(cx, layer, OpKind::Activation, Pass::Backward, [&] {
    int bad = 0;
#pragma omp parallel for num_threads(cx.threads) schedule(static) reduction(| : bad)
    for (int64_t i = 0; i < N; ++i) {
      const float* ur = u + i * f;
      const float* gr = da + i * f;
      float* o = du + i * f;
      float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
      for (int64_t j = 0; j < f; ++j) {
        o[j] = gr[j] * fastm::gelu_grad(ur[j]);
        sum += o[j];
      }
      if (!std::isfinite(sum)) bad |= 1;
    }
    return bad == 0;
  });
}

void swiglu_fwd(OpContext& cx, int layer, int64_t N, int64_t f, const float* g, const float* u, float* a) {
  if (cx.resident) return resident::swiglu_fwd(cx, layer, N, f, g, u, a);
  checked(cx, layer, OpKind::Activation, Pass::Forward, [&] {
    int bad = 0;
#pragma omp parallel for num_threads(cx.threads) schedule(static) reduction(| : bad)
    for (int64_t i = 0; i < N; ++i) {
      const float* gr = g + i * f;
      const float* ur = u + i * f;
      float* ar = a + i * f;
      float lo = 0.0f, sum = 0.0f;
#pragma omp simd reduction(min : lo) reduction(+ : sum)
      for (int64_t j = 0; j < f; ++j) {
        const float s = gr[j] * sigmoid(gr[j]);
        lo = std::min(lo, s);
        ar[j] = s * ur[j];
        sum += ar[j];
      }
      if (!(lo >= kSiluMin) || !std::isfinite(sum)) bad |= 1;
    }
    return bad == 0;
  });
}

void swiglu_bwd(OpContext& cx, int layer, int64_t N, int64_t f, const float* g, const float* u,
                const float* da, float* dg, float* du) {
  if (cx.resident) return resident::swiglu_bwd(cx, layer, N, f, g, u, da, dg, du);
  checked(cx, layer, OpKind::Activation, Pass::Backward, [&] {
    int bad = 0;
#pragma omp parallel for num_threads(cx.threads) schedule(static) reduction(| : bad)
    for (int64_t i = 0; i < N; ++i) {
      const float* gr = g + i * f;
      const float* ur = u + i * f;
      const float* ar = da + i * f;
      float* og = dg + i * f;
      float* ou = du + i * f;
      float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
      for (int64_t j = 0; j < f; ++j) {
        const float x = gr[j], sg = sigmoid(x);
        const float silu = x * sg;
        ou[j] = ar[j] * silu;
        og[j] = ar[j] * ur[j] * sg * (1.0f + x * (1.0f - sg));
        sum += ou[j] + og[j];
      }
      if (!std::isfinite(sum)) bad |= 1;
    }
    return bad == 0;
  });
}

void rope_tables(int64_t positions, int64_t hd, double theta, std::vector<float>& cos_t,
                 std::vector<float>& sin_t) {
  const int64_t h = hd / 2;
  cos_t.resize(size_t(positions * h));
  sin_t.resize(size_t(positions * h));
  for (int64_t i = 0; i < h; ++i) {
    const double inv = std::pow(theta, -2.0 * double(i) / double(hd));
    for (int64_t p = 0; p < positions; ++p) {
      const double a = double(p) * inv;
      cos_t[size_t(p * h + i)] = float(std::cos(a));
      sin_t[size_t(p * h + i)] = float(std::sin(a));
    }
  }
}

void rope(OpContext& cx, int layer, Pass pass, int64_t N, int64_t heads, int64_t hd, float* x,
          int64_t ld, const int32_t* pos, const float* cos_t, const float* sin_t, bool inverse) {
  if (cx.resident) return resident::rope(cx, layer, pass, N, heads, hd, x, ld, inverse);
  const Clock::time_point t0 = Clock::now();
  const int64_t h = hd / 2;
  const float sgn = inverse ? -1.0f : 1.0f;
  int bad = 0;
#pragma omp parallel for num_threads(cx.threads) schedule(static) reduction(| : bad)
  for (int64_t r = 0; r < N; ++r) {
    const float* c = cos_t + int64_t(pos[r]) * h;
    const float* s = sin_t + int64_t(pos[r]) * h;
    for (int64_t hh = 0; hh < heads; ++hh)
      if (!fastm::rotate_head(x + r * ld + hh * hd, c, s, h, sgn)) bad |= 1;
  }
  // In place: a failed check cannot be recomputed.
  cx.record_invariant(layer, OpKind::Rope, pass, bad == 0, false, seconds_since(t0));
}

void embed_fwd(OpContext& cx, int64_t N, int64_t d, int64_t vocab, int64_t npos, const int32_t* tok,
               const int32_t* pos, const float* wte, const float* wpe, float* x) {
  for (int64_t i = 0; i < N; ++i) {
    if (tok[i] < 0 || tok[i] >= vocab)
      throw Error(ABFT_STATUS_INVALID_VALUE, "token id " + std::to_string(tok[i]) + " at index " +
                                                 std::to_string(i) + " is outside the vocabulary [0, " +
                                                 std::to_string(vocab) + ")");
    if (pos[i] < 0 || pos[i] >= npos)
      throw Error(ABFT_STATUS_INVALID_SIZE, "position " + std::to_string(pos[i]) +
                                                " is outside the context of " + std::to_string(npos));
  }
  if (cx.resident) return resident::embed_fwd(cx, N, d, tok, pos, wte, wpe, x);
  checked(cx, -1, OpKind::Embedding, Pass::Forward, [&] {
    int bad = 0;
#pragma omp parallel for num_threads(cx.threads) schedule(static) reduction(| : bad)
    for (int64_t i = 0; i < N; ++i) {
      const float* e = wte + int64_t(tok[i]) * d;
      float* o = x + i * d;
      float sum = 0.0f;
      if (wpe) {
        const float* p = wpe + int64_t(pos[i]) * d;
        for (int64_t j = 0; j < d; ++j) sum += (o[j] = e[j] + p[j]);
      } else {
        for (int64_t j = 0; j < d; ++j) sum += (o[j] = e[j]);
      }
      if (!std::isfinite(sum)) bad |= 1;
    }
    return bad == 0;
  });
}

void embed_bwd(OpContext& cx, int64_t N, int64_t d, const int32_t* tok, const int32_t* pos,
               const float* dx, float* dwte, float* dwpe) {
  if (cx.resident) return resident::embed_bwd(cx, N, d, dx, dwte, dwpe);
  const Clock::time_point t0 = Clock::now();
  // Columns split across threads: rows that share a token add into the same row of dwte.
  const int64_t cb = 16;
#pragma omp parallel for num_threads(cx.threads) schedule(static)
  for (int64_t j0 = 0; j0 < d; j0 += cb) {
    const int64_t j1 = std::min(d, j0 + cb);
    for (int64_t i = 0; i < N; ++i) {
      const float* g = dx + i * d;
      float* e = dwte + int64_t(tok[i]) * d;
      for (int64_t j = j0; j < j1; ++j) e[j] += g[j];
      if (dwpe) {
        float* p = dwpe + int64_t(pos[i]) * d;
        for (int64_t j = j0; j < j1; ++j) p[j] += g[j];
      }
    }
  }
  // A scatter-add: nothing to check that the reads of the next step would not see.
  OpCounters& c = cx.stats->at(-1, OpKind::Embedding, Pass::Backward);
  c.calls += 1;
  c.seconds += seconds_since(t0);
}

}  // namespace abft::transformer::ops
