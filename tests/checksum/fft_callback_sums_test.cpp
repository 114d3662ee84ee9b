/** \file fft_callback_sums_test.cpp
 *  \brief The GPU FFT's callback sums (abft/checksum/fft_callback_sums.hpp, cuda/fft_callbacks.cu)
 *  on the host: the division by plan-time constants, the decoding of an element's offset into
 *  its signal and multi-index for every layout the plan admits, and a replay of the bucketed
 *  sums — elements visited in a shuffled order and in "warps" of 32 visits, as cuFFT's threads
 *  may visit them, each term formed by the functions the callbacks call — checked against the
 *  CPU FFT: clean signals pass with the bound the plan uses, a corrupted output element or a
 *  corrupted element the transform reads (after the input side summed the clean one) fails.
 *  The warp-level combination itself (a butterfly or one atomic a lane) and cuFFT's visiting order are the
 *  device's; they wait for a GPU (scripts/gpu-check.sh).
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "abft/checksum/fft_callback_sums.hpp"
#include "abft/checksum/fft_library_check.hpp"
#include "abft/fft.h"

namespace {

namespace ck = abft::checksum;
using ck::Cd;
using ck::FftLibraryShape;

TEST(FastDivU64, MatchesDivisionForEveryDividendClass) {
  std::mt19937_64 g(7);
  const uint64_t top = std::numeric_limits<uint64_t>::max();
  std::vector<uint64_t> divisors = {1, 2, 3, 5, 7, 10, 255, 256, 257, 1000, 1025, 65537, 4294967295ull, 4294967297ull,
                                    (1ull << 40) + 3, (1ull << 62) + 1, (1ull << 63) - 1, 1ull << 63, (1ull << 63) + 5,
                                    top};
  for (int i = 0; i < 200; ++i) divisors.push_back((g() >> (g() % 63)) | 1);
  for (uint64_t d : divisors) {
    const ck::FastDivU64 f = ck::FastDivU64::make(d);
    std::vector<uint64_t> xs = {0, 1, d - 1, d, d + 1, 2 * d - 1, 2 * d, top, top - 1, top / d * d, top / d * d - 1};
    for (int i = 0; i < 300; ++i) xs.push_back(g() >> (g() % 64));
    for (uint64_t x : xs) ASSERT_EQ(f.div(x), x / d) << x << " / " << d;
  }
}

/** One side's layout as the plan admits it, and where element idx of signal b sits. */
struct Layout {
  int rank = 1;
  int64_t dims[3] = {1, 1, 1}, embed[3] = {1, 1, 1};
  int64_t stride = 1, dist = 0, batch = 1;
  bool interleaved = false;
  int64_t offset(int64_t b, const int64_t* idx) const {
    int64_t o = idx[0];
    for (int d = 1; d < rank; ++d) o = o * embed[d] + idx[d];
    return b * dist + o * stride;
  }
  int64_t count() const { return dims[0] * dims[1] * dims[2]; }
  int64_t span() const {  // one signal's elements, first to last, plus one
    int64_t last[3] = {0, 0, 0};
    for (int d = 0; d < rank; ++d) last[d] = dims[d] - 1;
    return offset(0, last) + 1;
  }
  ck::FftSideDecoder decoder(int shift) const {
    return ck::FftSideDecoder::make(rank, dims, embed, stride, dist, batch, interleaved, shift);
  }
};

Layout random_layout(std::mt19937_64& g) {
  Layout L;
  L.rank = 1 + int(g() % 3);
  for (int d = 0; d < L.rank; ++d) {
    L.dims[d] = 1 + int64_t(g() % 9);
    L.embed[d] = L.dims[d] + int64_t(g() % 3);
  }
  L.stride = 1 + int64_t(g() % 3);
  L.batch = 1 + int64_t(g() % 4);
  L.interleaved = L.batch > 1 && L.span() > 1 && g() % 3 == 0;
  if (L.interleaved) {  // the batch inside one stride: batch dist <= stride
    L.dist = 1 + int64_t(g() % 2);
    L.stride = L.batch * L.dist + int64_t(g() % 3);
  } else {
    L.dist = L.span() + int64_t(g() % 5);
  }
  return L;
}

TEST(FftSideDecoder, RecoversEveryElementOfEveryAdmittedLayout) {
  std::mt19937_64 g(11);
  for (int t = 0; t < 400; ++t) {
    const Layout L = random_layout(g);
    const ck::FftSideDecoder dec = L.decoder(8);
    ASSERT_EQ(dec.count, L.count());
    for (int64_t b = 0; b < L.batch; ++b)
      for (int64_t e = 0; e < L.count(); ++e) {
        int64_t idx[3] = {0, 0, 0}, got[3] = {-1, -1, -1}, gb = -1, ge = -1;
        ck::fft_unravel(e, L.rank, L.dims, idx);
        dec.decode(uint64_t(L.offset(b, idx)), gb, got, ge);
        ASSERT_EQ(gb, b) << "trial " << t;
        ASSERT_EQ(ge, e) << "trial " << t;
        ASSERT_TRUE(dec.holds(gb, got)) << "trial " << t;
        for (int d = 0; d < L.rank; ++d) ASSERT_EQ(got[d], idx[d]) << "trial " << t << " dim " << d;
        if (L.rank == 1) {  // the rank-1 instance the callbacks use
          int64_t r1[3] = {-1, -1, -1}, b1 = -1, e1 = -1;
          dec.decode<1>(uint64_t(L.offset(b, idx)), b1, r1, e1);
          ASSERT_EQ(b1, b);
          ASSERT_EQ(e1, e);
        }
      }
  }
}

/** holds() admits every element and refuses every offset whose decoded index is out of its
 *  range: the padding between rows (embed > dims), the gap after a signal, past the last one.
 *  It checks ranges, not remainders: an offset between two strided elements (stride > 1, or an
 *  interleaved batch's dist > 1) decodes to the element before it and is admitted, so there
 *  the test asks only that. With unit stride and dist, admitted is exactly an element. */
TEST(FftSideDecoder, HoldsRefusesOffsetsOutsideTheBatch) {
  std::mt19937_64 g(13);
  int64_t refused = 0;
  for (int t = 0; t < 400; ++t) {
    const Layout L = random_layout(g);
    const ck::FftSideDecoder dec = L.decoder(8);
    const int64_t zero[3] = {0, 0, 0};
    std::vector<char> element(size_t(L.offset(L.batch - 1, zero) + L.span() + 2 * L.dist + 2 * L.stride + 8), 0);
    for (int64_t b = 0; b < L.batch; ++b)
      for (int64_t e = 0; e < L.count(); ++e) {
        int64_t idx[3] = {0, 0, 0};
        ck::fft_unravel(e, L.rank, L.dims, idx);
        element[size_t(L.offset(b, idx))] = 1;
      }
    const bool gaps = L.stride > 1 || (L.interleaved && L.dist > 1);
    for (size_t off = 0; off < element.size(); ++off) {
      int64_t got[3] = {0, 0, 0}, gb = -1, ge = -1;
      dec.decode(uint64_t(off), gb, got, ge);
      const bool held = dec.holds(gb, got);
      if (element[off]) ASSERT_TRUE(held) << "trial " << t << " offset " << off;
      if (!gaps) ASSERT_EQ(held, element[off] == 1) << "trial " << t << " offset " << off;
      if (held && !element[off]) {  // between strided elements: the one before it
        ASSERT_TRUE(gaps);
        const int64_t at = L.offset(gb, got);
        ASSERT_LT(at, int64_t(off));
        ASSERT_EQ(element[size_t(at)], 1);
      }
      refused += !held;
      if (L.rank == 1) {
        int64_t r1[3] = {0, 0, 0}, b1 = -1, e1 = -1;
        dec.decode<1>(uint64_t(off), b1, r1, e1);
        ASSERT_EQ(dec.holds<1>(b1, r1), held) << "trial " << t << " offset " << off;
      }
    }
  }
  EXPECT_GT(refused, 1000);  // the trials did reach offsets outside the batch
}

TEST(FftSideDecoder, OffsetsBeyondThirtyTwoBits) {
  Layout L;
  L.rank = 2, L.dims[0] = 3, L.dims[1] = 5, L.embed[0] = 3, L.embed[1] = 7;
  L.stride = 3, L.batch = 4, L.dist = (int64_t(1) << 33) + 7;
  const ck::FftSideDecoder dec = L.decoder(6);
  for (int64_t b = 0; b < L.batch; ++b)
    for (int64_t e = 0; e < L.count(); ++e) {
      int64_t idx[3] = {0, 0, 0}, got[3], gb, ge;
      ck::fft_unravel(e, 2, L.dims, idx);
      dec.decode(uint64_t(L.offset(b, idx)), gb, got, ge);
      EXPECT_EQ(gb, b);
      EXPECT_EQ(ge, e);
    }
}

TEST(FftCallbackDepth, CountsTheChain) {
  // 5 warp levels, the bucket's atomics, the lane loop over the buckets, 5 levels.
  EXPECT_EQ(ck::fft_callback_sum_depth(1, 8), 5 + 1 + 1 + 5);
  EXPECT_EQ(ck::fft_callback_sum_depth(256, 8), 5 + 256 + 1 + 5);
  EXPECT_EQ(ck::fft_callback_sum_depth(257, 8), 5 + 256 + 1 + 5);
  EXPECT_EQ(ck::fft_callback_sum_depth(int64_t(1) << 22, 8), 5 + 256 + 512 + 5);
  EXPECT_EQ(ck::fft_callback_sum_depth(int64_t(1) << 22, 6), 5 + 64 + 2048 + 5);
}

TEST(FftCallbackDepth, BucketsGrowWithTheSignal) {
  EXPECT_EQ(ck::fft_callback_bucket_shift(false, 1), 8);
  EXPECT_EQ(ck::fft_callback_bucket_shift(true, 1), 6);
  EXPECT_EQ(ck::fft_callback_bucket_shift(true, 1 << 14), 6);
  EXPECT_EQ(ck::fft_callback_bucket_shift(true, 1 << 15), 7);
  EXPECT_EQ(ck::fft_callback_bucket_shift(false, 1 << 16), 8);
  EXPECT_EQ(ck::fft_callback_bucket_shift(false, 1 << 22), 14);
  EXPECT_EQ(ck::fft_callback_bucket_shift(true, (1 << 22) + 5), 14);
  for (int64_t n : {int64_t(1), int64_t(1000), int64_t(1) << 20, (int64_t(1) << 24) - 1})
    for (bool dbl : {false, true}) {  // at most 512 buckets a signal
      const int s = ck::fft_callback_bucket_shift(dbl, n);
      EXPECT_LE((n + (int64_t(1) << s) - 1) >> s, 512) << n;
    }
}

/** What the callbacks' depth costs the bound (fft_protected.cu takes the longer of theirs and
 *  the passes', which the re-check needs): under 2x for double at every length (the reason for
 *  double's smaller buckets), nothing visible for float, whose transform error dwarfs the sums'. */
TEST(FftCallbackDepth, TheBoundKeepsMostOfItsStrength) {
  for (int lg = 2; lg <= 24; lg += 2) {
    const int64_t n = int64_t(1) << lg;
    FftLibraryShape sh;
    sh.rank = 1, sh.n[0] = n, sh.kind = 0, sh.sign = -1;
    const double w = ck::fft_library_w_norm(sh), v = ck::fft_library_v_norm(sh);
    const double d0 = ck::fft_engine_sum_depth(n, n);
    const double dd = std::max(d0, ck::fft_callback_sum_depth(n, ck::fft_callback_bucket_shift(true, n)));
    const double df = std::max(d0, ck::fft_callback_sum_depth(n, ck::fft_callback_bucket_shift(false, n)));
    const double c0 = ck::fft_library_bound<double>(sh, w, v, d0).coefficient();
    const double c1 = ck::fft_library_bound<double>(sh, w, v, dd).coefficient();
    EXPECT_LE(c1 / c0, 2.0) << "n " << n;
    const double f0 = ck::fft_library_bound<float>(sh, w, v, d0).coefficient();
    const double f1 = ck::fft_library_bound<float>(sh, w, v, df).coefficient();
    EXPECT_LE(f1 / f0, 1.001) << "n " << n;
  }
}

// ------------------------------------------------------------------ the callbacks' sums, replayed

/** Bucketed sums as the callbacks and the verification kernel form them, on the host: terms
 *  added into (signal, bucket) slots in visiting order; a "warp" of 32 consecutive visits whose
 *  lanes of each bucket form contiguous runs sums each run in a segmented tree and adds it once,
 *  any other warp adds visit by visit (fft_callbacks.cu's add_to_bucket); then each signal's
 *  buckets are summed lane by lane and in a tree (fft_bucket_verify_kernel). */
struct BucketSums {
  int vals;
  int64_t buckets;
  std::vector<double> slot;
  BucketSums(int v, int64_t batch, int64_t nb) : vals(v), buckets(nb), slot(size_t(batch * nb * v), 0.0) {}
  /** visits: (key, terms) in the order cuFFT's threads reach them. */
  void add_visits(const std::vector<std::pair<int64_t, std::vector<double>>>& visits) {
    for (size_t w0 = 0; w0 < visits.size(); w0 += 32) {
      const int lanes = int(std::min(visits.size(), w0 + 32) - w0);
      auto key = [&](int l) { return visits[w0 + size_t(l)].first; };
      // Runs: every lane's key equal to its neighbour's, or a key not seen before.
      std::vector<int> last(static_cast<size_t>(lanes));
      bool contiguous = true;
      for (int l = lanes - 1; l >= 0; --l) last[size_t(l)] = (l + 1 < lanes && key(l + 1) == key(l)) ? last[size_t(l + 1)] : l;
      for (int l = 0; l < lanes; ++l)
        for (int m = last[size_t(l)] + 1; m < lanes; ++m) contiguous = contiguous && key(m) != key(l);
      if (!contiguous) {
        for (int l = 0; l < lanes; ++l)
          for (int c = 0; c < vals; ++c) slot[size_t(key(l) * vals + c)] += visits[w0 + size_t(l)].second[size_t(c)];
        continue;
      }
      for (int c = 0; c < vals; ++c) {
        double s[32];
        for (int l = 0; l < lanes; ++l) s[l] = visits[w0 + size_t(l)].second[size_t(c)];
        for (int o = 1; o < 32; o <<= 1) {  // the segmented tree: lane l adds lane l + o within its run
          double next[32];
          for (int l = 0; l < lanes; ++l) next[l] = s[l] + (l + o <= last[size_t(l)] ? s[l + o] : 0.0);
          std::copy(next, next + lanes, s);
        }
        for (int l = 0; l < lanes; ++l)
          if (l == 0 || key(l - 1) != key(l)) slot[size_t(key(l) * vals + c)] += s[l];
      }
    }
  }
  /** The verification kernel's totals of signal b. */
  std::vector<double> total(int64_t b) const {
    std::vector<double> out(size_t(vals), 0.0);
    for (int c = 0; c < vals; ++c) {
      double lane[32] = {};
      for (int64_t k = 0; k < buckets; ++k) lane[k % 32] += slot[size_t((b * buckets + k) * vals + c)];
      for (int o = 16; o > 0; o >>= 1)
        for (int l = 0; l < o; ++l) lane[l] += lane[l + o];
      out[size_t(c)] = lane[0];
    }
    return out;
  }
};

template <class T>
struct Prec;
template <>
struct Prec<float> {
  static constexpr abft_precision id = ABFT_PRECISION_FLOAT;
};
template <>
struct Prec<double> {
  static constexpr abft_precision id = ABFT_PRECISION_DOUBLE;
};

enum class Fault { None, Output, Input };

/** One batch through the replay: signals in a strided layout with gaps, the CPU FFT for cuFFT,
 *  the input side summed from the clean elements (a load), the output side from what is stored
 *  (a store); returns the worst verdict over the signals and the worst residual / bound. */
template <class T>
ck::LineVerdict replay(const FftLibraryShape& sh, int64_t batch, Fault fault, bool shuffled, std::mt19937_64& g,
                       double* worst) {
  const bool dbl = sizeof(T) == 8;
  const int shift_in = ck::fft_callback_bucket_shift(dbl, sh.in_count());
  const int shift_out = ck::fft_callback_bucket_shift(dbl, sh.out_count());
  const bool cin = sh.kind == 0;
  const int si = cin ? 2 : 1;
  Layout li, lo;
  li.rank = lo.rank = sh.rank;
  for (int d = 0; d < sh.rank; ++d) li.dims[d] = li.embed[d] = sh.in_dim(d), lo.dims[d] = lo.embed[d] = sh.out_dim(d);
  li.stride = 2, lo.stride = 1, li.batch = lo.batch = batch;
  li.dist = li.span() + 3, lo.dist = lo.span() + 1;
  const ck::FftSideDecoder di = li.decoder(shift_in), dout = lo.decoder(shift_out);
  const ck::FftHostTables tabs(sh);

  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> mem(size_t(li.dist * batch * si), T(0));
  std::vector<int64_t> offs;  // the input elements' offsets
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t e = 0; e < li.count(); ++e) {
      int64_t idx[3] = {0, 0, 0};
      ck::fft_unravel(e, sh.rank, li.dims, idx);
      const int64_t off = li.offset(b, idx);
      offs.push_back(off);
      for (int c = 0; c < si; ++c) mem[size_t(off * si + c)] = T(u(g));
    }
  // Loads, in order (whole warps on one bucket) or shuffled: the input side's terms of the
  // clean element.
  if (shuffled) std::shuffle(offs.begin(), offs.end(), g);
  BucketSums in_sums(3, batch, di.buckets), out_sums(2, batch, dout.buckets);
  std::vector<std::pair<int64_t, std::vector<double>>> visits;
  for (int64_t off : offs) {
    int64_t b, e, idx[3] = {0, 0, 0};
    di.decode(uint64_t(off), b, idx, e);
    const Cd x{double(mem[size_t(off * si)]), cin ? double(mem[size_t(off * si + 1)]) : 0.0};
    const Cd t = ck::fft_in_term_of(x, sh, tabs.w, ck::FftC2RWeights{}, idx);
    visits.push_back({b * di.buckets + (e >> shift_in), {t.re, t.im, x.re * x.re + x.im * x.im}});
  }
  in_sums.add_visits(visits);
  // The plan's bound (fft_protected.cu: the passes' depth or the callbacks', the longer).
  const double depth = std::max({ck::fft_engine_sum_depth(sh.in_count(), sh.out_count()),
                                 ck::fft_callback_sum_depth(sh.in_count(), shift_in),
                                 ck::fft_callback_sum_depth(sh.out_count(), shift_out)});
  const ck::FftUnitBound bd =
      ck::fft_library_bound<T>(sh, ck::fft_library_w_norm(sh), ck::fft_library_v_norm(sh), depth);
  const double coef = bd.coefficient();
  // A fault of four times signal fb's bound (the weights it meets have modulus about one).
  const int64_t fb = batch - 1, fe = li.count() / 2;
  double x2 = 0;
  for (int64_t e = 0; e < li.count(); ++e) {
    int64_t idx[3] = {0, 0, 0};
    ck::fft_unravel(e, sh.rank, li.dims, idx);
    for (int c = 0; c < si; ++c) x2 += std::pow(double(mem[size_t(li.offset(fb, idx) * si + c)]), 2);
  }
  const double delta = 4.0 * (coef * std::sqrt(x2) + bd.abs);
  // What the transform gets: an input fault corrupts it after the load summed it.
  if (fault == Fault::Input) {
    int64_t idx[3] = {0, 0, 0};
    ck::fft_unravel(fe, sh.rank, li.dims, idx);
    T& v = mem[size_t(li.offset(fb, idx) * si)];
    v = T(double(v) + delta);
  }
  // The transform of every signal (the CPU FFT in place of cuFFT).
  abft_fft_plan_t plan = nullptr;
  EXPECT_EQ(abft_fft_plan_dft(&plan, nullptr, Prec<T>::id, abft_fft_kind(sh.kind), sh.rank, sh.n, sh.sign, 0),
            ABFT_STATUS_SUCCESS);
  abft_fft_set_policy(plan, ABFT_POLICY_OFF);
  std::vector<std::vector<T>> ys(static_cast<size_t>(batch));
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<T> x(size_t(li.count() * si));
    for (int64_t e = 0; e < li.count(); ++e) {
      int64_t idx[3] = {0, 0, 0};
      ck::fft_unravel(e, sh.rank, li.dims, idx);
      for (int c = 0; c < si; ++c) x[size_t(e * si + c)] = mem[size_t(li.offset(b, idx) * si + c)];
    }
    ys[size_t(b)].assign(size_t(2 * lo.count()), T(0));
    EXPECT_EQ(abft_fft_execute(plan, x.data(), ys[size_t(b)].data(), nullptr), ABFT_STATUS_SUCCESS);
  }
  abft_fft_destroy(plan);
  if (fault == Fault::Output) ys[size_t(fb)][size_t(2 * (lo.count() / 3))] += T(delta);
  // Stores, in order or in another shuffled order.
  std::vector<std::pair<int64_t, int64_t>> outs;  // (b, e)
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t e = 0; e < lo.count(); ++e) outs.push_back({b, e});
  if (shuffled) std::shuffle(outs.begin(), outs.end(), g);
  visits.clear();
  for (auto [b0, e0] : outs) {
    int64_t idx0[3] = {0, 0, 0};
    ck::fft_unravel(e0, sh.rank, lo.dims, idx0);
    int64_t b, e, idx[3] = {0, 0, 0};
    dout.decode(uint64_t(lo.offset(b0, idx0)), b, idx, e);
    const std::vector<T>& y = ys[size_t(b)];
    const Cd t = ck::fft_out_term_of(Cd{double(y[size_t(2 * e)]), double(y[size_t(2 * e + 1)])}, sh, tabs.w,
                                     ck::FftC2RWeights{}, idx);
    visits.push_back({b * dout.buckets + (e >> shift_out), {t.re, t.im}});
  }
  out_sums.add_visits(visits);
  ck::LineVerdict worst_v = ck::LineVerdict::Ok;
  *worst = 0;
  for (int64_t b = 0; b < batch; ++b) {
    const std::vector<double> a = in_sums.total(b), o = out_sums.total(b);
    const ck::LineVerdict v = ck::fft_library_verdict({a[0], a[1]}, {o[0], o[1]}, a[2], coef, bd.abs, bd.Y,
                                                      double(std::numeric_limits<T>::max()));
    const double res = std::hypot(o[0] - a[0], o[1] - a[1]);
    *worst = std::max(*worst, res / (coef * std::sqrt(a[2]) + bd.abs));
    if (v == ck::LineVerdict::Failed) worst_v = v;
  }
  return worst_v;
}

std::vector<FftLibraryShape> replay_shapes() {
  std::vector<FftLibraryShape> v;
  auto add = [&](int kind, std::vector<int64_t> n, int sign) {
    FftLibraryShape sh;
    sh.rank = int(n.size());
    for (int d = 0; d < sh.rank; ++d) sh.n[d] = n[size_t(d)];
    sh.kind = kind, sh.sign = sign;
    v.push_back(sh);
  };
  add(0, {1000}, -1);  // several buckets a signal
  add(0, {64}, +1);    // under one bucket
  add(0, {12}, -1);    // several signals a warp: runs of lanes
  add(0, {24, 20}, -1);
  add(0, {6, 10, 8}, +1);
  add(1, {1000}, -1);
  add(1, {30, 50}, -1);
  return v;
}

template <class T>
void replay_all() {
  std::mt19937_64 g(sizeof(T) * 101);
  for (const FftLibraryShape& sh : replay_shapes())
    for (bool shuffled : {false, true}) {
      double worst = 0;
      const std::string what = "kind " + std::to_string(sh.kind) + " n " + std::to_string(sh.n[0]) +
                               (shuffled ? " shuffled" : " in order");
      EXPECT_EQ(replay<T>(sh, 3, Fault::None, shuffled, g, &worst), ck::LineVerdict::Ok) << what;
      EXPECT_LT(worst, 0.5) << "clean residual near the bound: " << what;
      EXPECT_EQ(replay<T>(sh, 3, Fault::Output, shuffled, g, &worst), ck::LineVerdict::Failed)
          << "output fault, " << what << " residual / bound " << worst;
      EXPECT_EQ(replay<T>(sh, 3, Fault::Input, shuffled, g, &worst), ck::LineVerdict::Failed)
          << "input fault, " << what;
    }
}

TEST(FftCallbackReplay, CleanPassesAndFaultsFailFloat) { replay_all<float>(); }
TEST(FftCallbackReplay, CleanPassesAndFaultsFailDouble) { replay_all<double>(); }

}  // namespace
