/** \file attn_test_util.hpp
 *  \brief Attention test helpers: strided 4-D tensors with sentinel padding,
 *  masks (full, broadcast row, key padding), problems named after their
 *  configuration, engine runners, and componentwise comparison with the
 *  double reference (attn_reference.hpp).
 */
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.hpp"

#include "abft/abft.h"
#include "abft/attention.h"
#include "attn_reference.hpp"

namespace attn_test {

constexpr float kOutSentinel = -7777.25f;  ///< unwritten output storage
constexpr double kInf = std::numeric_limits<double>::infinity();
inline float qnan() { return std::numeric_limits<float>::quiet_NaN(); }

inline bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// ------------------------------------------------------------------ tensors
/** Storage layouts of a [d0, d1, d2, d3] tensor (batch, heads, seq, dim). */
enum class Layout {
  Contig,    ///< all-zero strides in the descriptor (contiguous default)
  Explicit,  ///< the contiguous strides written out
  BSHD,      ///< [batch, seq, heads, dim] storage
  Padded,    ///< rows, heads and batches padded (dim stride 1)
  NegSeq,    ///< sequence reversed (negative seq stride)
  NegAll,    ///< every dimension reversed (all strides negative)
};
inline const char* layout_tag(Layout l) {
  switch (l) {
    case Layout::Contig: return "contig";
    case Layout::Explicit: return "explicit";
    case Layout::BSHD: return "bshd";
    case Layout::Padded: return "padded";
    case Layout::NegSeq: return "negseq";
    case Layout::NegAll: return "negall";
  }
  return "?";
}

/** A strided 4-D float tensor inside a buffer with 8 guard elements on each
 *  side; storage that is not a logical element holds `pad`. */
struct Tensor {
  int64_t dim[4] = {0, 0, 0, 0};
  int64_t st[4] = {0, 0, 0, 0};       ///< resolved strides
  int64_t desc_st[4] = {0, 0, 0, 0};  ///< what the descriptor gets
  int64_t base = 0;
  float pad = 0.0f;
  std::vector<float> buf;

  static constexpr int64_t kGuard = 8;
  float* ptr() { return buf.data() + base; }
  const float* ptr() const { return buf.data() + base; }
  size_t off(int64_t a, int64_t b, int64_t c, int64_t d) const {
    return size_t(base + a * st[0] + b * st[1] + c * st[2] + d * st[3]);
  }
  float& at(int64_t a, int64_t b, int64_t c, int64_t d) { return buf[off(a, b, c, d)]; }
  float at(int64_t a, int64_t b, int64_t c, int64_t d) const { return buf[off(a, b, c, d)]; }
  int64_t count() const { return dim[0] * dim[1] * dim[2] * dim[3]; }
  template <class F>
  void for_each(F f) const {
    for (int64_t a = 0; a < dim[0]; ++a)
      for (int64_t b = 0; b < dim[1]; ++b)
        for (int64_t c = 0; c < dim[2]; ++c)
          for (int64_t d = 0; d < dim[3]; ++d) f(a, b, c, d);
  }
  /** Logical elements, contiguous, as doubles. */
  std::vector<double> logical() const {
    std::vector<double> v;
    v.reserve(size_t(count()));
    for_each([&](int64_t a, int64_t b, int64_t c, int64_t d) { v.push_back(double(at(a, b, c, d))); });
    return v;
  }
  std::vector<float> logical_f() const {
    std::vector<float> v;
    v.reserve(size_t(count()));
    for_each([&](int64_t a, int64_t b, int64_t c, int64_t d) { v.push_back(at(a, b, c, d)); });
    return v;
  }
  /** Storage outside the logical elements still holds the pad value (bitwise). */
  int64_t padding_written() const {
    std::vector<char> logical_mark(buf.size(), 0);
    for_each([&](int64_t a, int64_t b, int64_t c, int64_t d) { logical_mark[off(a, b, c, d)] = 1; });
    int64_t bad = 0;
    for (size_t t = 0; t < buf.size(); ++t)
      if (!logical_mark[t] && !same_bits(buf[t], pad)) ++bad;
    return bad;
  }
};

inline void layout_strides(Layout l, const int64_t dim[4], int64_t st[4]) {
  const int64_t H = dim[1], S = dim[2], D = dim[3];
  switch (l) {
    case Layout::Contig:
    case Layout::Explicit: st[0] = H * S * D, st[1] = S * D, st[2] = D, st[3] = 1; break;
    case Layout::BSHD: st[0] = S * H * D, st[1] = D, st[2] = H * D, st[3] = 1; break;
    case Layout::Padded: {
      const int64_t rs = D + 3, hs = S * rs + 5;
      st[0] = H * hs + 7, st[1] = hs, st[2] = rs, st[3] = 1;
      break;
    }
    case Layout::NegSeq: st[0] = H * S * D, st[1] = S * D, st[2] = -D, st[3] = 1; break;
    case Layout::NegAll: st[0] = -H * S * D, st[1] = -S * D, st[2] = -D, st[3] = -1; break;
  }
}

/** Tensor of the given dims with explicit strides (desc_st = st unless
 *  desc_zero), every storage element = pad. */
inline Tensor make_tensor_strided(const int64_t dim[4], const int64_t st[4], bool desc_zero,
                                  float pad) {
  Tensor t;
  int64_t lo = 0, hi = 0;
  bool empty = false;
  for (int i = 0; i < 4; ++i) {
    t.dim[i] = dim[i];
    t.st[i] = st[i];
    t.desc_st[i] = desc_zero ? 0 : st[i];
    if (dim[i] <= 0) empty = true;
  }
  if (!empty)
    for (int i = 0; i < 4; ++i) {
      const int64_t e = (dim[i] - 1) * st[i];
      lo += std::min<int64_t>(0, e);
      hi += std::max<int64_t>(0, e);
    }
  t.base = Tensor::kGuard - lo;
  t.pad = pad;
  t.buf.assign(size_t(hi - lo + 1 + 2 * Tensor::kGuard), pad);
  return t;
}
inline Tensor make_tensor(const int64_t dim[4], Layout l, float pad) {
  int64_t st[4] = {0, 0, 0, 0};
  layout_strides(l, dim, st);
  return make_tensor_strided(dim, st, l == Layout::Contig, pad);
}

// ------------------------------------------------------------------ masks
enum class MaskKind {
  None,
  Full,     ///< [batch, heads, q_len, kv_len] contiguous, random values and -inf entries,
            ///< one fully masked query row per head
  Padded,   ///< the same with padded rows (explicit strides)
  Row,      ///< one [kv_len] row for every query (strides {0, 0, 0, 1}), some -inf
  KeyPad,   ///< key padding per batch ({kv_len, 0, 0, 1}): the last b+1 keys of batch b are -inf
};
inline const char* mask_tag(MaskKind m) {
  switch (m) {
    case MaskKind::None: return "nomask";
    case MaskKind::Full: return "maskfull";
    case MaskKind::Padded: return "maskpadded";
    case MaskKind::Row: return "maskrow";
    case MaskKind::KeyPad: return "maskkeypad";
  }
  return "?";
}

// ------------------------------------------------------------------ problems
struct Case {
  int64_t batch = 1, heads = 1, kv_heads = 1, q_len = 1, kv_len = 1, head_dim = 64;
  int causal = 0;
  MaskKind mask = MaskKind::None;
  Layout lq = Layout::Contig, lk = Layout::Contig, lv = Layout::Contig, lo = Layout::Contig;
  bool custom_scale = false;
  float scale = 0.0f;
  uint64_t seed = 1;
  const char* tag = "";  ///< a prefix saying what the case is for

  std::string name() const {
    std::ostringstream os;
    if (*tag) os << tag << "_";
    os << "b" << batch << "_h" << heads << "_kvh" << kv_heads << "_q" << q_len << "_kv" << kv_len
       << "_d" << head_dim << (causal ? "_causal" : "_full") << "_" << mask_tag(mask);
    if (lq != Layout::Contig || lk != Layout::Contig || lv != Layout::Contig ||
        lo != Layout::Contig)
      os << "_Q" << layout_tag(lq) << "_K" << layout_tag(lk) << "_V" << layout_tag(lv) << "_O"
         << layout_tag(lo);
    if (custom_scale) {
      std::ostringstream sc;
      sc << scale;
      std::string s = sc.str();
      for (char& ch : s)
        if (ch == '-') ch = 'm'; else if (ch == '.') ch = 'p'; else if (ch == '+') ch = 'P';
      os << "_scale" << s;
    }
    return os.str();
  }
};

/** A configured call: descriptor and inputs (Q, K, V, mask, dO) in their
 *  layouts, input padding = NaN (reading it would poison the result). */
struct Problem {
  Case c;
  abft_attention_desc d{};
  Tensor Q, K, V, M, dO;
  bool has_mask = false;

  explicit Problem(const Case& cs) : c(cs) {
    // Filled by hand: abft_attention_desc_init() is checked in attn_args_test.
    d.batch = c.batch, d.heads = c.heads, d.kv_heads = c.kv_heads;
    d.q_len = c.q_len, d.kv_len = c.kv_len, d.head_dim = c.head_dim;
    d.scale = c.custom_scale ? c.scale : float(1.0 / std::sqrt(double(std::max<int64_t>(1, c.head_dim))));
    d.causal = c.causal;
    const int64_t qd[4] = {c.batch, c.heads, c.q_len, c.head_dim};
    const int64_t kd[4] = {c.batch, c.kv_heads, c.kv_len, c.head_dim};
    Q = make_tensor(qd, c.lq, qnan());
    K = make_tensor(kd, c.lk, qnan());
    V = make_tensor(kd, c.lv, qnan());
    dO = make_tensor(qd, c.lo, qnan());
    set_strides(d.q_strides, Q);
    set_strides(d.k_strides, K);
    set_strides(d.v_strides, V);
    set_strides(d.o_strides, dO);
    for (int i = 0; i < 4; ++i) d.mask_strides[i] = 0;
    std::mt19937_64 rng(c.seed * 0x9E3779B97F4A7C15ull + uint64_t(c.head_dim * 131 + c.kv_len));
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    fill(Q, [&] { return u(rng); });
    fill(K, [&] { return u(rng); });
    fill(V, [&] { return u(rng); });
    fill(dO, [&] { return u(rng); });
    make_mask(rng);
  }
  static void set_strides(int64_t out[4], const Tensor& t) {
    for (int i = 0; i < 4; ++i) out[i] = t.desc_st[i];
  }
  template <class G>
  static void fill(Tensor& t, G gen) {
    t.for_each([&](int64_t a, int64_t b, int64_t cc, int64_t e) { t.at(a, b, cc, e) = float(gen()); });
  }
  void make_mask(std::mt19937_64& rng) {
    const int64_t md[4] = {c.batch, c.heads, c.q_len, c.kv_len};
    std::uniform_real_distribution<double> u(-1.5, 1.5), coin(0.0, 1.0);
    const float ninf = -std::numeric_limits<float>::infinity();
    switch (c.mask) {
      case MaskKind::None: return;
      case MaskKind::Full:
      case MaskKind::Padded: {
        if (c.mask == MaskKind::Full) {
          M = make_tensor(md, Layout::Contig, qnan());
        } else {
          const int64_t st[4] = {c.heads * c.q_len * (c.kv_len + 2) + 3, c.q_len * (c.kv_len + 2) + 1,
                                 c.kv_len + 2, 1};
          M = make_tensor_strided(md, st, false, qnan());
        }
        M.for_each([&](int64_t a, int64_t b, int64_t i, int64_t j) {
          // Query row 1 of every head fully masked; elsewhere ~15% of keys.
          const bool off = (i == 1 && c.q_len > 2) || coin(rng) < 0.15;
          M.at(a, b, i, j) = off ? ninf : float(u(rng));
        });
        break;
      }
      case MaskKind::Row: {
        const int64_t st[4] = {0, 0, 0, 1};
        M = make_tensor_strided(md, st, false, qnan());
        for (int64_t j = 0; j < c.kv_len; ++j)
          M.at(0, 0, 0, j) = (coin(rng) < 0.2 && j != c.kv_len - 1) ? ninf : float(u(rng));
        break;
      }
      case MaskKind::KeyPad: {
        const int64_t st[4] = {c.kv_len, 0, 0, 1};
        M = make_tensor_strided(md, st, false, qnan());
        for (int64_t b = 0; b < c.batch; ++b)
          for (int64_t j = 0; j < c.kv_len; ++j) M.at(b, 0, 0, j) = (j >= c.kv_len - (b + 1)) ? ninf : 0.0f;
        break;
      }
    }
    has_mask = true;
    set_strides(d.mask_strides, M);
  }
  const float* mask_ptr() const { return has_mask ? M.ptr() : nullptr; }
  std::string describe() const { return c.name(); }
};

inline void PrintTo(const Case& c, std::ostream* os) { *os << c.name(); }

// ------------------------------------------------------------------ engine runs
struct Lse {
  std::vector<float> buf;  ///< 8 guard elements each side
  size_t n = 0;
  explicit Lse(size_t count = 0, float init = kOutSentinel) : buf(count + 16, init), n(count) {}
  float* ptr() { return buf.data() + 8; }
  const float* ptr() const { return buf.data() + 8; }
  float operator[](size_t i) const { return buf[i + 8]; }
  float& operator[](size_t i) { return buf[i + 8]; }
  bool guards_intact() const {
    for (size_t t = 0; t < 8; ++t)
      if (!same_bits(buf[t], kOutSentinel) || !same_bits(buf[n + 8 + t], kOutSentinel)) return false;
    return true;
  }
  std::vector<double> logical() const {
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = double((*this)[i]);
    return v;
  }
};

struct FwdRun {
  abft_status status = ABFT_STATUS_INTERNAL_ERROR;
  abft_report report{};
  Tensor O;
  Lse lse;
};
inline FwdRun run_forward(abft_handle_t h, abft_policy pol, const Problem& p, bool with_lse = true) {
  FwdRun r;
  const int64_t od[4] = {p.c.batch, p.c.heads, p.c.q_len, p.c.head_dim};
  r.O = make_tensor(od, p.c.lo, kOutSentinel);
  r.lse = Lse(size_t(p.c.batch * p.c.heads * p.c.q_len));
  r.status = abft_attention_forward(h, pol, &p.d, p.Q.ptr(), p.K.ptr(), p.V.ptr(), p.mask_ptr(),
                                    r.O.ptr(), with_lse ? r.lse.ptr() : nullptr, &r.report);
  return r;
}

struct BwdRun {
  abft_status status = ABFT_STATUS_INTERNAL_ERROR;
  abft_report report{};
  Tensor dQ, dK, dV;
};
/** Backward with the given forward outputs; dQ/dK/dV take the layouts of Q/K/V. */
inline BwdRun run_backward(abft_handle_t h, abft_policy pol, const Problem& p, const Tensor& O,
                           const Lse& lse) {
  BwdRun r;
  r.dQ = make_tensor_strided(p.Q.dim, p.Q.st, p.c.lq == Layout::Contig, kOutSentinel);
  r.dK = make_tensor_strided(p.K.dim, p.K.st, p.c.lk == Layout::Contig, kOutSentinel);
  r.dV = make_tensor_strided(p.V.dim, p.V.st, p.c.lv == Layout::Contig, kOutSentinel);
  r.status = abft_attention_backward(h, pol, &p.d, p.Q.ptr(), p.K.ptr(), p.V.ptr(), p.mask_ptr(),
                                     O.ptr(), p.dO.ptr(), lse.ptr(), r.dQ.ptr(), r.dK.ptr(),
                                     r.dV.ptr(), &r.report);
  return r;
}

// ------------------------------------------------------------------ tolerances
// The correctness tolerance (Tol, tolerance(), the exp() allowance, max_abs) lives with the
// reference in abft/checksum/attention_reference.hpp: the escape limits build on it.
using attn_ref::gamma_f;
using attn_ref::kExpUlps;
using attn_ref::max_abs;
using attn_ref::Tol;
using attn_ref::tolerance;

/** got vs ref elementwise: ref -inf/+inf/NaN must be reproduced; finite within
 *  coef * mag + floor (mag empty: floor only). dims name the logical indices. */
inline ::testing::AssertionResult compare(const std::string& what, const std::vector<double>& got,
                                          const std::vector<double>& ref,
                                          const std::vector<double>& mag, const Tol& tol,
                                          const std::vector<int64_t>& dims,
                                          double* worst_rel = nullptr) {
  if (got.size() != ref.size())
    return ::testing::AssertionFailure() << what << ": size " << got.size() << " vs " << ref.size();
  int64_t bad = 0;
  std::ostringstream os;
  double worst = 0.0;
  for (size_t t = 0; t < ref.size(); ++t) {
    const double g = got[t], r = ref[t];
    bool ok;
    double lim = 0.0;
    if (std::isnan(r)) ok = std::isnan(g);
    else if (std::isinf(r)) ok = g == r;
    else {
      lim = tol.coef * (mag.empty() ? 0.0 : mag[t]) + tol.floor;
      ok = std::isfinite(g) && std::fabs(g - r) <= lim;
      if (lim > 0 && std::isfinite(g)) worst = std::max(worst, std::fabs(g - r) / lim);
    }
    if (!ok) {
      if (bad < 6) {
        // Index (a, b, c, e) of element t.
        std::vector<int64_t> idx(dims.size());
        size_t rem = t;
        for (size_t k = dims.size(); k-- > 0;) {
          idx[k] = int64_t(rem % size_t(std::max<int64_t>(1, dims[k])));
          rem /= size_t(std::max<int64_t>(1, dims[k]));
        }
        os << "\n  " << what << "(";
        for (size_t k = 0; k < idx.size(); ++k) os << (k ? "," : "") << idx[k];
        os << ") = " << g << " ref " << r << " |diff| " << std::fabs(g - r) << " tol " << lim;
      }
      ++bad;
    }
  }
  if (worst_rel) *worst_rel = std::max(*worst_rel, worst);
  if (!bad) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": " << bad << " of " << ref.size()
                                       << " element(s) out of tolerance (coef " << tol.coef
                                       << ", floor " << tol.floor << ")" << os.str();
}

// ------------------------------------------------------------------ names
// site_tag and model_tag are the shared tests' (test_util.hpp).
using abft_test::model_tag;
using abft_test::site_tag;

inline std::string report_str(const abft_report& r) {
  std::ostringstream os;
  os << "{checks " << r.checks << ", detected " << r.detected << ", corrected " << r.corrected
     << ", recomputed " << r.recomputed << ", uncorrectable " << r.uncorrectable << ", skipped "
     << r.skipped << ", max_ratio " << r.max_ratio << "}";
  return os.str();
}

}  // namespace attn_test
