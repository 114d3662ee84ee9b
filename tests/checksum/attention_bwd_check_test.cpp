/** \file attention_bwd_check_test.cpp
 *  \brief The GPU attention backward's gradient checks (abft/checksum/attention_bwd_check.hpp,
 *  attn_bwd_accumulated_coefficient) on a host emulation of its kernels' arithmetic
 *  (cuda/attention_backward.cu): per tile a partial of kc float FMAs from zero added once into
 *  the running float sum, one scaling, the rounding to the storage format (round_to_format);
 *  the column sums, the reference sum_t sum_i (sum_j a_tij) b_tic and its magnitude in double.
 *  dV (a = P, b = dO), dK (a = dS, b = Q, scaled) and dQ (a = dS, b = K, scaled) are the same
 *  computation with other operands. Checked: no false positive on random, wide-range and
 *  cancelling data in float, binary16 and bfloat16 storage (the sharpness is printed); a change
 *  of 1e-3 of the column's largest element magnitude fails; non-finite sums fail unless the
 *  magnitudes allow a legitimate overflow; the unit outcome's rules. No GPU needed.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "abft/checksum/attention_bounds.hpp"
#include "abft/checksum/attention_bwd_check.hpp"

namespace ck = abft::checksum;
using ck::AttnVerdict;
using ck::NumFormat;

namespace {

constexpr int kKc = 32;  // the kernels' tile: 32 queries (dK, dV) or 32 keys (dQ) per partial

/** One gradient block as the kernel computes it: `rows` output rows, `cols` columns, `chunks`
 *  tiles of kKc reduction terms. a[t][i][j], b[t][i][c]. */
struct Block {
  int rows = 0, cols = 0, chunks = 0;
  float scale = 1.0f;
  NumFormat fmt = NumFormat::F32;
  std::vector<float> a, b;
  std::vector<float> y;       // computed (scaled) values [rows][cols]
  std::vector<double> yst;    // stored values
  std::vector<double> ref, mag, peak, elem_mag;  // per column; elem_mag: max_j M_jc
  float A(int t, int i, int j) const { return a[(size_t(t) * kKc + i) * rows + j]; }
  float Bv(int t, int i, int c) const { return b[(size_t(t) * kKc + i) * cols + c]; }
};

/** The kernel's arithmetic (attention_backward.cu): tile partial by fmaf from zero, one add,
 *  one scaling, storage rounding; the references in double from the same float operands. */
void compute(Block& k) {
  const int R = k.rows, C = k.cols;
  std::vector<float> acc(size_t(R) * C, 0.0f);
  std::vector<double> M(size_t(R) * C, 0.0);
  k.ref.assign(size_t(C), 0.0);
  k.mag.assign(size_t(C), 0.0);
  std::vector<double> v(kKc), va(kKc);
  for (int t = 0; t < k.chunks; ++t) {
    for (int j = 0; j < R; ++j)
      for (int c = 0; c < C; ++c) {
        float tp = 0.0f;
        for (int i = 0; i < kKc; ++i) {
          tp = std::fma(k.A(t, i, j), k.Bv(t, i, c), tp);
          M[size_t(j) * C + c] += std::fabs(double(k.A(t, i, j)) * double(k.Bv(t, i, c)));
        }
        acc[size_t(j) * C + c] += tp;
      }
    for (int i = 0; i < kKc; ++i) {
      v[size_t(i)] = va[size_t(i)] = 0.0;
      for (int j = 0; j < R; ++j) {
        v[size_t(i)] += double(k.A(t, i, j));
        va[size_t(i)] += std::fabs(double(k.A(t, i, j)));
      }
    }
    for (int c = 0; c < C; ++c)
      for (int i = 0; i < kKc; ++i) {
        k.ref[size_t(c)] += v[size_t(i)] * double(k.Bv(t, i, c));
        k.mag[size_t(c)] += va[size_t(i)] * std::fabs(double(k.Bv(t, i, c)));
      }
  }
  const double s = double(k.scale), as = std::fabs(s);
  k.y.assign(acc.size(), 0.0f);
  k.yst.assign(acc.size(), 0.0);
  k.peak.assign(size_t(C), 0.0);
  k.elem_mag.assign(size_t(C), 0.0);
  for (size_t e = 0; e < acc.size(); ++e) {
    k.y[e] = k.scale * acc[e];
    k.yst[e] = ck::round_to_format(double(k.y[e]), k.fmt);
  }
  for (int c = 0; c < C; ++c) {
    k.peak[size_t(c)] = std::max(as * k.mag[size_t(c)], k.mag[size_t(c)]);
    k.ref[size_t(c)] *= s;
    k.mag[size_t(c)] *= as;
    for (int j = 0; j < R; ++j) k.elem_mag[size_t(c)] = std::max(k.elem_mag[size_t(c)], as * M[size_t(j) * C + c]);
  }
}

ck::AttnGradColumn column(const Block& k, int c) {
  ck::AttnGradColumn g;
  for (int j = 0; j < k.rows; ++j) {
    g.obs += double(k.y[size_t(j) * k.cols + c]);
    g.stored += k.yst[size_t(j) * k.cols + c];
  }
  g.ref = k.ref[size_t(c)];
  g.mag = k.mag[size_t(c)];
  g.peak = k.peak[size_t(c)];
  return g;
}

double coef_of(const Block& k) { return ck::attn_bwd_accumulated_coefficient<float>(kKc, k.chunks, kKc, k.rows); }
double abs_of(const Block& k) { return ck::attn_bwd_abs_term<float>(kKc, k.chunks, k.rows, std::fabs(double(k.scale))); }

/** Data kinds: 0 probabilities and uniform (dV), 1 signed wide range (dK, dQ: dS spans many
 *  binades), 2 cancelling (rows of b in +- pairs, a column sums near zero), 3 tiny (the storage
 *  format's subnormal range), 4 identical rows (ties). */
Block make(int kind, int rows, int cols, int chunks, float scale, NumFormat fmt, uint64_t seed) {
  Block k;
  k.rows = rows, k.cols = cols, k.chunks = chunks, k.scale = scale, k.fmt = fmt;
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1, 1), e(0, 1);
  k.a.resize(size_t(chunks) * kKc * rows);
  k.b.resize(size_t(chunks) * kKc * cols);
  auto wide = [&](double lo, double hi) { return (u(g) < 0 ? -1 : 1) * std::pow(10.0, lo + (hi - lo) * e(g)); };
  for (size_t x = 0; x < k.a.size(); ++x) {
    switch (kind) {
      case 0: k.a[x] = float(std::exp(-20.0 * e(g))); break;
      case 1: k.a[x] = float(wide(-12, 3)); break;
      case 2: k.a[x] = float(std::exp(-3.0 * e(g))); break;
      case 3: k.a[x] = float(wide(-9, -5)); break;
      default: k.a[x] = 0.37f; break;
    }
  }
  for (size_t x = 0; x < k.b.size(); ++x) {
    switch (kind) {
      case 0: k.b[x] = float(u(g)); break;
      case 1: k.b[x] = float(wide(-4, 4)); break;
      case 2: k.b[x] = float(u(g) * 100.0); break;
      case 3: k.b[x] = float(wide(-3, -1)); break;
      default: k.b[x] = -1.25f; break;
    }
  }
  if (kind == 2)  // every odd reduction row the negation of the one before: columns cancel
    for (int t = 0; t < chunks; ++t)
      for (int i = 1; i < kKc; i += 2)
        for (int c = 0; c < cols; ++c)
          k.b[(size_t(t) * kKc + i) * cols + c] = -k.b[(size_t(t) * kKc + i - 1) * cols + c];
  compute(k);
  return k;
}

TEST(AttnBwdCheck, StorageFormats) {
  const ck::AttnGradStorage f = ck::attn_grad_storage(NumFormat::F32);
  EXPECT_EQ(f.u, 0.0);
  EXPECT_EQ(f.tiny, 0.0);
  const ck::AttnGradStorage h = ck::attn_grad_storage(NumFormat::F16);
  EXPECT_EQ(h.u, std::ldexp(1.0, -11));
  EXPECT_EQ(h.max, 65504.0);
  EXPECT_EQ(h.tiny, std::ldexp(1.0, -25));  // half the binary16 subnormal quantum 2^-24
  const ck::AttnGradStorage b = ck::attn_grad_storage(NumFormat::BF16);
  EXPECT_EQ(b.u, std::ldexp(1.0, -8));
  EXPECT_EQ(b.tiny, std::ldexp(1.0, -134));
}

TEST(AttnBwdCheck, NoFalsePositivesAndFaultsAboveTheBoundFail) {
  double worst = 0.0;
  int blocks = 0, overflowed = 0;
  uint64_t seed = 1;
  for (NumFormat fmt : {NumFormat::F32, NumFormat::F16, NumFormat::BF16})
    for (int kind = 0; kind < 5; ++kind)
      for (int chunks : {1, 3, 40, 160})
        for (int rows : {32, 7}) {
          const float scale = kind == 1 ? 0.125f : kind == 3 ? 3.0f : 1.0f;
          const Block k = make(kind, rows, 12, chunks, scale, fmt, seed++);
          const double coef = coef_of(k), abs_t = abs_of(k);
          const ck::AttnGradStorage sto = ck::attn_grad_storage(fmt);
          for (int c = 0; c < k.cols; ++c) {
            const ck::AttnGradColumn g = column(k, c);
            if (!std::isfinite(g.stored)) {  // wide data past binary16's range: a legitimate overflow
              EXPECT_EQ(ck::attn_grad_verdict(g, coef, abs_t, k.rows, sto), AttnVerdict::Skip);
              ++overflowed;
              continue;
            }
            ASSERT_EQ(ck::attn_grad_verdict(g, coef, abs_t, k.rows, sto), AttnVerdict::Pass)
                << "fmt " << int(fmt) << " kind " << kind << " chunks " << chunks << " rows " << rows << " col " << c
                << " obs " << g.obs << " ref " << g.ref << " mag " << g.mag;
            worst = std::max(worst, std::fabs(g.obs - g.ref) / (coef * g.mag + abs_t));
            // A fault in one computed element, 1e-3 of the column's largest element magnitude,
            // stored with it: the check at float resolution sees it.
            const double delta = 1e-3 * k.elem_mag[size_t(c)];
            if (!(delta > 0.0)) continue;
            for (double sgn : {1.0, -1.0}) {
              ck::AttnGradColumn f = g;
              const int j = (c * 5) % k.rows;
              const double y = double(k.y[size_t(j) * k.cols + c]);
              const float yf = float(y + sgn * delta);
              f.obs += double(yf) - y;
              f.stored += ck::round_to_format(double(yf), fmt) - k.yst[size_t(j) * k.cols + c];
              EXPECT_EQ(ck::attn_grad_verdict(f, coef, abs_t, k.rows, sto), AttnVerdict::Fail)
                  << "fmt " << int(fmt) << " kind " << kind << " chunks " << chunks << " col " << c;
            }
          }
          ++blocks;
        }
  std::printf("attention backward gradient checks: %d blocks (%d columns overflowing binary16, skipped), largest "
              "clean residual %.3g of the bound\n",
              blocks, overflowed, worst);
  EXPECT_LT(worst, 1.0);
}

TEST(AttnBwdCheck, NonFiniteSums) {
  const ck::AttnGradStorage f32 = ck::attn_grad_storage(NumFormat::F32);
  const ck::AttnGradStorage f16 = ck::attn_grad_storage(NumFormat::F16);
  const double coef = ck::attn_bwd_accumulated_coefficient<float>(32, 4, 32, 32);
  ck::AttnGradColumn g;
  g.obs = g.stored = g.ref = 10.0;
  g.mag = g.peak = 100.0;
  EXPECT_EQ(ck::attn_grad_verdict(g, coef, 0.0, 32, f32), AttnVerdict::Pass);
  // A NaN or Inf from magnitudes far from any overflow: a fault.
  ck::AttnGradColumn n = g;
  n.obs = n.stored = NAN;
  EXPECT_EQ(ck::attn_grad_verdict(n, coef, 0.0, 32, f32), AttnVerdict::Fail);
  n.obs = n.stored = INFINITY;
  EXPECT_EQ(ck::attn_grad_verdict(n, coef, 0.0, 32, f32), AttnVerdict::Fail);
  // ... unless the float accumulator may have overflowed (its peak, before the scaling).
  n.peak = 2e38;
  EXPECT_EQ(ck::attn_grad_verdict(n, coef, 0.0, 32, f32), AttnVerdict::Skip);
  // Finite sums check whatever the magnitude (no element overflowed).
  ck::AttnGradColumn big = g;
  big.mag = big.peak = 1e200;
  EXPECT_EQ(ck::attn_grad_verdict(big, coef, 0.0, 32, f32), AttnVerdict::Pass);
  // binary16 storage: Inf in the stored sum is an overflow when X reaches 65504 / 2, else a fault.
  ck::AttnGradColumn h = g;
  h.stored = INFINITY;
  EXPECT_EQ(ck::attn_grad_verdict(h, coef, 0.0, 32, f16), AttnVerdict::Fail);
  h.mag = h.peak = 40000.0;
  h.obs = h.ref = 39000.0;
  EXPECT_EQ(ck::attn_grad_verdict(h, coef, 0.0, 32, f16), AttnVerdict::Skip);
  // A stored sum off the computed one by more than the storage rounding allows.
  ck::AttnGradColumn s = g;
  s.stored = 10.0 + 0.01 * 100.0;
  EXPECT_EQ(ck::attn_grad_verdict(s, coef, 0.0, 32, f16), AttnVerdict::Fail);
  s.stored = 10.0 + 0.5 * std::ldexp(1.0, -11) * 100.0;
  EXPECT_EQ(ck::attn_grad_verdict(s, coef, 0.0, 32, f16), AttnVerdict::Pass);
  // Non-finite references or magnitudes: data.
  ck::AttnGradColumn d = g;
  d.mag = INFINITY;
  EXPECT_EQ(ck::attn_grad_verdict(d, coef, 0.0, 32, f32), AttnVerdict::Skip);
  d = g;
  d.ref = NAN;
  EXPECT_EQ(ck::attn_grad_verdict(d, coef, 0.0, 32, f32), AttnVerdict::Skip);
}

TEST(AttnBwdCheck, UnitOutcome) {
  // skip_in: data, whatever failed; a downstream Skip never hides a failure.
  EXPECT_FALSE(ck::attn_unit_outcome(true, true, false).failed);
  EXPECT_TRUE(ck::attn_unit_outcome(true, true, false).skipped);
  EXPECT_TRUE(ck::attn_unit_outcome(false, true, true).failed);
  EXPECT_FALSE(ck::attn_unit_outcome(false, true, true).skipped);
  EXPECT_TRUE(ck::attn_unit_outcome(false, false, true).skipped);
  EXPECT_FALSE(ck::attn_unit_outcome(false, false, false).failed);
  EXPECT_FALSE(ck::attn_unit_outcome(false, false, false).skipped);
  // hard (a fingerprint): a failure whatever else said Skip, and not counted skipped.
  EXPECT_TRUE(ck::attn_unit_outcome(true, false, true, true).failed);
  EXPECT_FALSE(ck::attn_unit_outcome(true, false, true, true).skipped);
  EXPECT_TRUE(ck::attn_unit_outcome(false, false, false, true).failed);
}

TEST(AttnBwdCheck, CoefficientGrowsWithTheChain) {
  const double c1 = ck::attn_bwd_accumulated_coefficient<float>(32, 1, 32, 32);
  const double c2 = ck::attn_bwd_accumulated_coefficient<float>(32, 512, 32, 32);
  EXPECT_GT(c1, 33.0 * std::ldexp(1.0, -24));  // at least the float chain kc + chunks
  EXPECT_LT(c1, 40.0 * std::ldexp(1.0, -24));
  EXPECT_GT(c2, c1);
  EXPECT_LT(c2, 560.0 * std::ldexp(1.0, -24));
}

}  // namespace
