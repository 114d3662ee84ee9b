/** \file attention_row_check_test.cpp
 *  \brief The GPU attention forward's checks (abft/checksum/attention_row_check.hpp with the
 *  bounds of attention_bounds.hpp) on a host emulation of the kernel's arithmetic, in every CI
 *  run: cuda/attention_forward.cu calls the same verdict functions with the same coefficients
 *  on its registers. The emulation follows the kernel step by step for one query row: key
 *  blocks of 32, four lanes (lane r: keys r + 4t, head_dim columns r + 4a, sums by a butterfly),
 *  scores as DM-term fused multiply-adds in order, the online softmax, the V checksum columns
 *  through the rescaling, the output rounded to the storage format.
 *  Checked: no false verdict on random and adversarial rows (wide dynamic range, ties, large
 *  common offsets, masked keys, head_dim padding, 16-bit storage), and a fault at each site the
 *  kernel injects at is seen.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "abft/checksum/attention_bounds.hpp"
#include "abft/checksum/attention_row_check.hpp"
#include "abft/checksum/num_format.hpp"

namespace {

namespace ck = abft::checksum;
constexpr int kBC = 32, kLanes = 4;

/** Where the emulated row takes a fault (none by default). */
struct Fault {
  enum Site { None, Score, Prob, Max, Norm, Acc, Output } site = None;
  int key = 0;      ///< Score, Prob: the key; Max, Norm, Acc: after the block holding it
  int col = 0;      ///< Acc, Output: the head_dim column
  float factor = 1;  ///< the corrupted value = value * factor + add
  float add = 0;
};

template <class V>
V butterfly(V x[kLanes]) {  // what lane_sum leaves in every lane
  return (x[0] + x[1]) + (x[2] + x[3]);
}

/** The largest |obs - ref| / bound of the score tile checks seen on clean rows (reported). */
double g_tile_sharpness = 0.0;

/** One query row through the kernel's sweep; returns the worst verdict of its checks. */
ck::AttnVerdict emulate(const std::vector<float>& q, const std::vector<float>& K, const std::vector<float>& V,
                        const std::vector<float>& maskrow, int Lk, int D, int DM, ck::NumFormat storage,
                        const Fault& f) {
  const int nkb = (Lk + kBC - 1) / kBC;
  const double c_tile = ck::attn_float_tile_coefficient<float>(kBC, DM, DM, kLanes);
  const double abs_tile = ck::attn_float_tile_abs_term<float>(kBC, DM, DM);
  const double su = storage == ck::NumFormat::F32 ? 0.0 : ck::format_unit_roundoff(storage);
  const bool partial = DM <= 128;  // the kernel's kPartialMaxDim
  const double c_out = ck::attn_output_coefficient<float>(partial ? kBC : int64_t(kBC) * nkb, nkb, DM);
  const double s_abs = storage == ck::NumFormat::F16 ? DM * std::ldexp(1.0, -25) : 0.0;
  const double c_norm = ck::attn_normalizer_coefficient<float>(kBC, nkb);
  const double abs_out = ck::attn_abs_term<float>(double(Lk) + DM, 0.0);
  auto worst = ck::AttnVerdict::Pass;
  auto note = [&](ck::AttnVerdict v) {
    if (v == ck::AttnVerdict::Fail || (v == ck::AttnVerdict::Skip && worst == ck::AttnVerdict::Pass)) worst = v;
  };
  std::vector<float> qs(size_t(DM), 0.f);
  for (int c = 0; c < D; ++c) qs[size_t(c)] = q[size_t(c)];
  float m = -INFINITY, m2 = -INFINITY, l = 0.f, l2 = 0.f;
  std::vector<float> acc(size_t(DM), 0.f);
  float accv = 0.f, acca = 0.f;
  for (int kb = 0; kb < nkb; ++kb) {
    const int j0 = kb * kBC, nk = std::min(kBC, Lk - j0);
    auto kv = [&](const std::vector<float>& X, int j, int c) {
      return (j < nk && c < D) ? X[size_t((j0 + j) * D + c)] : 0.f;
    };
    // The key block's column sums in double, rounded to float once (the pre-pass's records).
    std::vector<float> ksum(static_cast<size_t>(DM)), kabs(static_cast<size_t>(DM));
    for (int c = 0; c < DM; ++c) {
      double s = 0, sa = 0;
      for (int j = 0; j < nk; ++j) s += kv(K, j, c), sa += std::fabs(double(kv(K, j, c)));
      ksum[size_t(c)] = float(s), kabs[size_t(c)] = float(sa);
    }
    float sc[kBC];
    for (int j = 0; j < kBC; ++j) {
      float s = 0.f;
      for (int d = 0; d < DM; ++d) s = std::fma(qs[size_t(d)], kv(K, j, d), s);
      sc[j] = s;
    }
    // The check in float: each lane's scores in order, its columns' fused multiply-adds, the
    // butterfly; the verdict in double.
    float obs[kLanes] = {}, ref[kLanes] = {}, mag[kLanes] = {};
    for (int r = 0; r < kLanes; ++r) {
      for (int t = 0; t < kBC / kLanes; ++t) {
        const int j = r + kLanes * t;
        if (j >= nk) continue;
        if (f.site == Fault::Score && f.key == j0 + j) sc[j] = sc[j] * f.factor + f.add;
        obs[r] += sc[j];
      }
      for (int c = r; c < DM; c += kLanes) {
        ref[r] = std::fma(qs[size_t(c)], ksum[size_t(c)], ref[r]);
        mag[r] = std::fma(std::fabs(qs[size_t(c)]), kabs[size_t(c)], mag[r]);
      }
    }
    const double o = butterfly(obs), rf = butterfly(ref), mg = butterfly(mag);
    note(ck::attn_tile_verdict(o, rf, mg, c_tile, abs_tile));
    if (std::isfinite(mg) && mg > 0) g_tile_sharpness = std::max(g_tile_sharpness, std::fabs(o - rf) / (c_tile * mg + abs_tile));
    for (int j = 0; j < kBC; ++j) sc[j] = j < nk ? sc[j] + maskrow[size_t(j0 + j)] : -INFINITY;
    float tm[kLanes];
    for (int r = 0; r < kLanes; ++r) {
      tm[r] = -INFINITY;
      for (int t = 0; t < kBC / kLanes; ++t) tm[r] = std::fmax(tm[r], sc[r + kLanes * t]);
    }
    const float tmax = std::fmax(std::fmax(tm[0], tm[1]), std::fmax(tm[2], tm[3]));
    if (!(m == m2) && !(std::isnan(m) && std::isnan(m2))) worst = ck::AttnVerdict::Fail;
    const float mnew = std::fmax(m, tmax), m2new = std::fmax(m2, tmax);
    const float corr = mnew == -INFINITY ? 1.f : std::exp(m - mnew);
    float p[kBC], ts[kLanes] = {};
    for (int r = 0; r < kLanes; ++r)
      for (int t = 0; t < kBC / kLanes; ++t) {
        const int j = r + kLanes * t;
        p[j] = mnew == -INFINITY ? 0.f : std::exp(sc[j] - mnew);
        if (!(p[j] >= 0.f && p[j] <= 1.f + 4.f * FLT_EPSILON)) worst = ck::AttnVerdict::Fail;
        ts[r] += p[j];
      }
    l = l * corr + butterfly(ts);
    m = mnew, m2 = m2new;
    const bool here = f.key >= j0 && f.key < j0 + nk;
    if (f.site == Fault::Max && here) m = m * f.factor + f.add;
    if (f.site == Fault::Norm && here) l = l * f.factor + f.add;
    if (f.site == Fault::Prob && here) p[f.key - j0] = p[f.key - j0] * f.factor + f.add;
    // P V: per-block partials added once (partial), or every key straight into the accumulator.
    std::vector<float> t(static_cast<size_t>(DM), 0.f);
    float tv = 0.f, ta = 0.f;
    if (!partial) {
      for (int c = 0; c < DM; ++c) acc[size_t(c)] *= corr;
      accv *= corr, acca *= corr;
    }
    float& ov = partial ? tv : accv;
    float& oa = partial ? ta : acca;
    for (int j = 0; j < kBC; ++j) {
      double lv[kLanes] = {}, la[kLanes] = {};  // the checksum columns, per lane then the butterfly
      for (int c = 0; c < DM; ++c) lv[c % kLanes] += kv(V, j, c), la[c % kLanes] += std::fabs(double(kv(V, j, c)));
      const double vs = butterfly(lv), va = butterfly(la);
      for (int c = 0; c < DM; ++c) {
        float& o = partial ? t[size_t(c)] : acc[size_t(c)];
        o = std::fma(p[j], kv(V, j, c), o);
      }
      ov = std::fma(p[j], float(vs), ov);
      oa = std::fma(p[j], float(va), oa);
    }
    if (partial) {
      for (int c = 0; c < DM; ++c) acc[size_t(c)] = std::fma(acc[size_t(c)], corr, t[size_t(c)]);
      accv = std::fma(accv, corr, tv);
      acca = std::fma(acca, corr, ta);
    }
    float ts2[kLanes] = {};
    for (int r = 0; r < kLanes; ++r)
      for (int t = 0; t < kBC / kLanes; ++t) ts2[r] += p[r + kLanes * t];
    l2 = l2 * corr + butterfly(ts2);
    if (f.site == Fault::Acc && here) acc[size_t(f.col)] = acc[size_t(f.col)] * f.factor + f.add;
  }
  if (m == -INFINITY) return worst;  // no admissible key: nothing to check
  double rs[kLanes] = {}, ss[kLanes] = {};
  for (int c = 0; c < D; ++c) {
    const float o = acc[size_t(c)] / l;
    rs[c % kLanes] += double(o);
    double st = ck::round_to_format(double(o), storage);
    if (f.site == Fault::Output && f.col == c) st = ck::round_to_format(st * f.factor + f.add, storage);
    ss[c % kLanes] += st;
  }
  ck::AttnRowState s;
  s.m = m, s.m2 = m2, s.l = l, s.l2 = l2, s.rowsum = butterfly(rs), s.stored = butterfly(ss);
  s.accv = accv, s.acca = acca;
  note(ck::attn_row_verdict(s, c_out, c_norm, abs_out, su, s_abs));
  return worst;
}

enum class Data { Uniform, Wide, Ties, Offset, Peaked };

struct Row {
  std::vector<float> q, K, V, mask;
  int Lk, D, DM;
  ck::NumFormat storage;
  Row(int lk, int d, ck::NumFormat fmt, Data data, bool masked, uint64_t seed) : Lk(lk), D(d), storage(fmt) {
    DM = ck::attn_head_dim_bucket(d);
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<double> u(-1, 1), ex(-4, 4);
    auto st = [&](double x) { return float(ck::round_to_format(x, fmt)); };
    auto draw = [&](double base) {
      switch (data) {
        case Data::Uniform: return u(g);
        case Data::Wide: return (u(g) < 0 ? -1 : 1) * std::exp(ex(g));
        case Data::Ties: return std::round(u(g) * 2) / 2;
        case Data::Offset: return base + 1e-3 * u(g);
        case Data::Peaked: return 8 * u(g);  // scores up to ~64 * D: one key takes almost all weight
      }
      return 0.0;
    };
    const double scale = 1.0 / std::sqrt(double(d));
    q.resize(size_t(d));
    for (float& x : q) x = float(scale * st(draw(0.3)));
    K.resize(size_t(lk * d));
    V.resize(K.size());
    for (float& x : K) x = st(draw(0.3));
    for (float& x : V) x = st(draw(50.0));
    mask.assign(size_t(lk), 0.f);
    if (masked)
      for (int j = 0; j < lk; ++j) mask[size_t(j)] = j % 5 == 2 ? -INFINITY : st(0.5 * u(g));
  }
  ck::AttnVerdict run(const Fault& f = Fault{}) const { return emulate(q, K, V, mask, Lk, D, DM, storage, f); }
};

TEST(AttentionRowCheck, NoFalseVerdictOnCleanRows) {
  uint64_t seed = 1;
  int rows = 0;
  for (ck::NumFormat fmt : {ck::NumFormat::F32, ck::NumFormat::F16, ck::NumFormat::BF16})
    for (Data data : {Data::Uniform, Data::Wide, Data::Ties, Data::Offset, Data::Peaked})
      for (int D : {40, 64, 128, 256})
        for (int Lk : {1, 31, 97, 300})
          for (bool masked : {false, true}) {
            const Row r(Lk, D, fmt, data, masked, ++seed);
            EXPECT_EQ(r.run(), ck::AttnVerdict::Pass)
                << "format " << int(fmt) << " data " << int(data) << " D " << D << " Lk " << Lk << " masked " << masked;
            ++rows;
          }
  EXPECT_EQ(rows, 3 * 5 * 4 * 4 * 2);
  // How close a clean tile check came to its bound (docs/ABFT.md §13.3 quotes it).
  std::printf("score tile checks in float: largest clean |obs - ref| / bound = %.3g\n", g_tile_sharpness);
  EXPECT_LT(g_tile_sharpness, 1.0);
}

TEST(AttentionRowCheck, LongRowsOfEqualWeightsPass) {
  // Every probability 1 (q = 0) and every V row the same vector: each accumulator takes all
  // Lk products in one chain, the worst case of the output bound (kBC * nkb roundings).
  for (int D : {64, 256})
    for (int Lk : {1024, 2048, 4100}) {
      Row r(Lk, D, ck::NumFormat::F32, Data::Uniform, false, 5);
      std::fill(r.q.begin(), r.q.end(), 0.f);
      for (int j = 0; j < Lk; ++j)
        for (int c = 0; c < D; ++c) r.V[size_t(j * D + c)] = 0.05f + 0.9f * float(c) / float(D - 1);
      EXPECT_EQ(r.run(), ck::AttnVerdict::Pass) << "D " << D << " Lk " << Lk;
    }
}

TEST(AttentionRowCheck, TinyValuesInBinary16Pass) {
  // V around 1e-6: binary16 stores it subnormal, an absolute rounding of up to 2^-25 each.
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    Row r(97, 64, ck::NumFormat::F16, Data::Uniform, false, seed);
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<double> u(1e-6, 3e-6);
    for (float& x : r.V) x = float(ck::round_to_format(u(g), ck::NumFormat::F16));
    EXPECT_EQ(r.run(), ck::AttnVerdict::Pass) << "seed " << seed;
  }
}

TEST(AttentionRowCheck, NonFiniteInputsSkipRatherThanFail) {
  Row r(64, 64, ck::NumFormat::F32, Data::Uniform, false, 9);
  r.K[100] = INFINITY;
  EXPECT_EQ(r.run(), ck::AttnVerdict::Skip);
  Row v(64, 64, ck::NumFormat::F32, Data::Uniform, false, 9);
  v.V[7] = NAN;
  EXPECT_EQ(v.run(), ck::AttnVerdict::Skip);
}

TEST(AttentionRowCheck, FaultsAtEverySiteAreSeen) {
  struct Case {
    Fault::Site site;
    float factor, add;
  };
  // Relative errors of 1e-2 .. 2 of a value, and the exponent-bit flips the campaigns inject.
  const Case cases[] = {
      {Fault::Score, 1.f, 0.5f}, {Fault::Score, 2.f, 0.f},  {Fault::Prob, 1.f, 0.25f}, {Fault::Prob, 0.f, 0.f},
      {Fault::Max, 1.f, 0.5f},   {Fault::Max, 1.f, -0.5f},  {Fault::Norm, 1.5f, 0.f},  {Fault::Norm, 0.5f, 0.f},
      {Fault::Acc, 1.f, 100.f},  {Fault::Acc, 1.02f, 0.f},  {Fault::Output, 1.f, 1.f}, {Fault::Output, 1e30f, 0.f},
  };
  int seen = 0, total = 0;
  for (ck::NumFormat fmt : {ck::NumFormat::F32, ck::NumFormat::BF16})
    for (const Case& c : cases) {
      const Row r(200, 64, fmt, Data::Uniform, false, 77);
      Fault f;
      f.site = c.site, f.factor = c.factor, f.add = c.add, f.key = 70, f.col = 5;
      ++total;
      const ck::AttnVerdict v = r.run(f);
      seen += v == ck::AttnVerdict::Fail;
      EXPECT_EQ(v, ck::AttnVerdict::Fail) << "site " << int(c.site) << " factor " << c.factor << " add " << c.add
                                          << " format " << int(fmt);
    }
  EXPECT_EQ(seen, total);
}

}  // namespace
