/** \file gemm_tiles_test.cpp
 *  \brief The GEMM kernel set's three full tiles against each other, on the kernels this CPU
 *  runs (active_kernels): the reference tile (ukr_ref) and the fingerprinting tile (ukr_fp)
 *  store the plain tile's outputs and column sums bit for bit; ukr_ref's reference equals
 *  colref's within rounding; ukr_fp's fingerprint equals the whole sliver's
 *  (checksum::fingerprint) and moves with any one flipped bit of it. A kernel set without one
 *  of the tiles (AVX2, reference) skips that part and says so. Every tile's C0 backup is the
 *  caller's C bit for bit (backup_is_c0). The packing of a complex expansion, full or as half
 *  slivers, gives ComplexB::at's values, |B| sums and fingerprints (expansion_packs_as_at); the
 *  half-sliver tiles compute what the full tiles do on the expansion (half_tiles_agree).
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <memory>
#include <random>
#include <vector>

#include "abft/checksum/fingerprint.hpp"
#include "cpu/gemm/gemm_kernels.hpp"
#include "cpu/gemm/gemm_pack.hpp"  // kChunk

namespace {

using abft::checksum::Fingerprint;
using namespace abft::cpu::gemm;

/** A 64-byte aligned buffer (the tiles load packed B with aligned loads). */
template <class T>
struct Aligned {
  std::unique_ptr<T, void (*)(void*)> p;
  explicit Aligned(size_t n)
      : p(static_cast<T*>(std::aligned_alloc(64, (n * sizeof(T) + 63) / 64 * 64)), std::free) {}
  T* get() const { return p.get(); }
};

template <class T>
void tiles_agree() {
  const KernelSet<T>& ks = active_kernels<T>();
  if (!ks.ukr_fp && !ks.ukr_ref) GTEST_SKIP() << ks.desc << ": no reference or fingerprinting tile";
  const int mr = ks.mr, nr = ks.nr;
  std::mt19937_64 rng(20261202);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  for (int64_t kb : {1, 2, 7, 64, 333, 1024}) {
    SCOPED_TRACE(std::string(ks.desc) + ", kb = " + std::to_string(kb));
    Aligned<T> a{size_t(mr * kb)}, b{size_t(kb * nr)}, v{size_t(kb)};
    for (int64_t t = 0; t < mr * kb; ++t) a.get()[t] = static_cast<T>(d(rng));
    for (int64_t t = 0; t < kb * nr; ++t) b.get()[t] = static_cast<T>(d(rng));
    for (int64_t t = 0; t < kb; ++t) v.get()[t] = static_cast<T>(d(rng));
    const int64_t ldc = nr + 3;  // a padded C: the tiles write nr columns of mr rows
    auto run = [&](int kind, std::vector<T>& c, std::vector<double>& obs, std::vector<double>& ref,
                   Fingerprint* fp) {
      c.assign(size_t(mr * ldc), T(0.5));
      obs.assign(size_t(nr), 0.0);
      ref.assign(size_t(nr), 0.0);
      Epi<T> e;
      e.alpha = T(-1.5);
      e.beta = T(0.25);
      e.flags = kLoadC | kSumOut;
      e.obs = obs.data();
      e.v = v.get();
      e.ref = ref.data();
      e.fp = fp;
      if (kind == 0) ks.ukr(kb, a.get(), b.get(), c.data(), ldc, e);
      if (kind == 1) ks.ukr_ref(kb, a.get(), b.get(), c.data(), ldc, e);
      if (kind == 2) ks.ukr_fp(kb, a.get(), b.get(), c.data(), ldc, e);
    };
    std::vector<T> c0, c1;
    std::vector<double> obs0, obs1, ref0, ref1;
    run(0, c0, obs0, ref0, nullptr);
    if (ks.ukr_ref) {
      run(1, c1, obs1, ref1, nullptr);
      EXPECT_EQ(0, std::memcmp(c0.data(), c1.data(), c0.size() * sizeof(T))) << "ukr_ref's outputs";
      EXPECT_EQ(obs0, obs1) << "ukr_ref's column sums";
      // The reference colref forms from the same sliver (another summation order).
      std::vector<double> want(size_t(nr), 0.0);
      ks.colref(kb, nr, v.get(), b.get(), -1.5, want.data());
      for (int j = 0; j < nr; ++j) {
        double mag = 0.0;
        for (int64_t p = 0; p < kb; ++p) mag += std::fabs(double(v.get()[p]) * double(b.get()[p * nr + j]));
        EXPECT_NEAR(ref1[size_t(j)], want[size_t(j)], 4.0 * 1.5 * (kb + 1) * std::numeric_limits<T>::epsilon() * mag)
            << "column " << j;
      }
    }
    if (ks.ukr_fp) {
      Fingerprint fp;
      run(2, c1, obs1, ref1, &fp);
      EXPECT_EQ(0, std::memcmp(c0.data(), c1.data(), c0.size() * sizeof(T))) << "ukr_fp's outputs";
      EXPECT_EQ(obs0, obs1) << "ukr_fp's column sums";
      const Fingerprint whole = abft::checksum::fingerprint(b.get(), kb * nr);
      EXPECT_TRUE(fp == whole) << "ukr_fp's fingerprint differs from the sliver's";
      EXPECT_TRUE(ks.fingerprint(b.get(), kb * nr) == whole) << "the kernel set's fingerprint";
      // One flipped bit anywhere in the sliver moves the tile's fingerprint.
      for (int trial = 0; trial < 8; ++trial) {
        const int64_t t = int64_t(rng() % uint64_t(kb * nr));
        const int bit = int(rng() % (8 * sizeof(T)));
        unsigned char* byte = reinterpret_cast<unsigned char*>(b.get() + t) + bit / 8;
        *byte ^= static_cast<unsigned char>(1u << (bit % 8));
        Fingerprint moved;
        run(2, c1, obs1, ref1, &moved);
        EXPECT_TRUE(moved != whole) << "bit " << bit << " of element " << t;
        *byte ^= static_cast<unsigned char>(1u << (bit % 8));
      }
    } else {
      std::printf("[ skipped ] %s has no fingerprinting tile (the driver re-checks in a pass)\n", ks.desc);
    }
  }
}

/** The C0 backup (kSaveC0): every tile kind copies the caller's C tile into it bit for bit,
 *  whatever the depth (the k loop streams part of it and the epilogue the rest; kb from 1 to
 *  past the loop's whole schedule), and its outputs and C0 sums are those of a tile without
 *  the backup. The backup starts as NaN, so a vector left uncopied shows. */
template <class T>
void backup_is_c0() {
  const KernelSet<T>& ks = active_kernels<T>();
  const int mr = ks.mr, nr = ks.nr;
  std::mt19937_64 rng(20261203);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  for (int64_t kb : {1, 5, 12, 48, 100, 127, 128, 333, 768, 1024}) {
    Aligned<T> a{size_t(mr * kb)}, b{size_t(kb * nr)}, v{size_t(kb)};
    for (int64_t t = 0; t < mr * kb; ++t) a.get()[t] = static_cast<T>(d(rng));
    for (int64_t t = 0; t < kb * nr; ++t) b.get()[t] = static_cast<T>(d(rng));
    for (int64_t t = 0; t < kb; ++t) v.get()[t] = static_cast<T>(d(rng));
    const int64_t ldc = nr + 5;
    std::vector<T> c_in(size_t(mr * ldc));
    for (T& x : c_in) x = static_cast<T>(d(rng));
    const int64_t ldc0 = nr + 16;  // vector-aligned rows, as the driver's backup
    Aligned<T> bk{size_t(mr * ldc0)};
    Fingerprint fp;
    for (int kind = 0; kind < 3; ++kind) {
      if ((kind == 1 && !ks.ukr_ref) || (kind == 2 && !ks.ukr_fp)) continue;
      SCOPED_TRACE(std::string(ks.desc) + ", kb = " + std::to_string(kb) + ", tile " +
                   (kind == 0 ? "plain" : kind == 1 ? "reference" : "fingerprint"));
      auto run = [&](bool save, std::vector<T>& c, std::vector<double>& sums) {
        c = c_in;
        sums.assign(size_t(3 * nr), 0.0);
        std::vector<double> ref(size_t(nr), 0.0);
        Epi<T> e;
        e.alpha = T(0.75);
        e.beta = T(-2);
        e.flags = kLoadC | kSumC0 | kSumOut | (save ? unsigned(kSaveC0) : 0u);
        e.c0 = bk.get();
        e.ldc0 = ldc0;
        e.obs = sums.data();
        e.c0sum = sums.data() + nr;
        e.c0abs = sums.data() + 2 * nr;
        e.v = v.get();
        e.ref = ref.data();
        e.fp = &fp;
        if (kind == 0) ks.ukr(kb, a.get(), b.get(), c.data(), ldc, e);
        if (kind == 1) ks.ukr_ref(kb, a.get(), b.get(), c.data(), ldc, e);
        if (kind == 2) ks.ukr_fp(kb, a.get(), b.get(), c.data(), ldc, e);
      };
      std::fill(bk.get(), bk.get() + mr * ldc0, std::numeric_limits<T>::quiet_NaN());
      std::vector<T> c_plain, c_save;
      std::vector<double> s_plain, s_save;
      run(false, c_plain, s_plain);
      run(true, c_save, s_save);
      EXPECT_EQ(0, std::memcmp(c_plain.data(), c_save.data(), c_plain.size() * sizeof(T))) << "outputs";
      EXPECT_EQ(s_plain, s_save) << "column sums of the outputs and of C0";
      int wrong = 0;
      for (int i = 0; i < mr; ++i)
        for (int j = 0; j < nr; ++j)
          wrong += std::memcmp(&bk.get()[i * ldc0 + j], &c_in[size_t(i * ldc + j)], sizeof(T)) != 0;
      EXPECT_EQ(wrong, 0) << "backup elements that differ from C0";
    }
  }
}

/** Packing a complex expansion (the complex GEMM's B_int, ComplexB): every packed value is
 *  ComplexB::at's bit for bit (the repair path's view), the |B| chunk sums are the packed
 *  column's magnitudes summed in T in row order, and each panel's fingerprint is its buffer's;
 *  for even and odd first rows, with and without conjugation and transposition, full panels
 *  and a partial one. */
template <class T>
void expansion_packs_as_at() {
  const KernelSet<T>& ks = active_kernels<T>();
  const int nr = ks.nr;
  std::mt19937_64 rng(20261204);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  const int64_t m = 3 * nr / 2 + 3, k = 70, ldx = m + k + 5;  // 2m = three panels + 6 columns
  std::vector<T> x(size_t(2 * ldx * (m + k)));
  for (T& v : x) v = static_cast<T>(d(rng));
  x[7] = -0.0;
  for (int half = 0; half < 2; ++half)
  for (int mode = 0; mode < 3; ++mode)
    for (int64_t pc : {0, 1, 32, 33}) {
      if (half && pc % 2) continue;  // half slivers start on an even row of the expansion
      SCOPED_TRACE(std::string(ks.desc) + ", mode " + std::to_string(mode) + ", pc " +
                   std::to_string(pc) + (half ? ", half slivers" : ""));
      Problem<T> P;
      P.xb.x = x.data();
      P.xb.ldx = ldx;
      P.xb.trans = mode == 2;
      P.xb.conj = mode >= 1;
      P.xb.half = half;
      const int64_t nb = 2 * m, kb = 2 * k - pc, nq = (nb + nr - 1) / nr;
      const int64_t rows = half ? kb / 2 : kb, step = half ? 2 : 1;  // stored rows of a sliver
      const int64_t nchunk = (kb + kChunk - 1) / kChunk, crows = kChunk / step;
      std::vector<T> bp(size_t(nq * rows * nr)), babs(size_t(nchunk * nb));
      std::vector<Fingerprint> fp(static_cast<size_t>(nq));
      ks.pack_b(P, nr, 0, nb, pc, kb, 0, nq, bp.data(), babs.data(), nb, fp.data());
      int wrong = 0;
      for (int64_t q = 0; q < nq; ++q) {
        const T* panel = bp.data() + q * rows * nr;
        EXPECT_TRUE(fp[size_t(q)] == abft::checksum::fingerprint(panel, rows * nr)) << "panel " << q;
        for (int64_t j = q * nr; j < std::min(nb, (q + 1) * nr); ++j) {
          for (int64_t c = 0; c < nchunk; ++c) {
            // In T in row order; a half sliver's column adds its pair partner's sum.
            auto column_sum = [&](int64_t jj) {
              T sum = T(0);
              for (int64_t t = c * crows; t < std::min(rows, (c + 1) * crows); ++t)
                sum += std::fabs(P.xb.at(pc + t * step, jj));
              return sum;
            };
            T want = column_sum(j);
            if (half) want = (j % 2 == 0) ? want + column_sum(j + 1) : column_sum(j - 1) + want;
            wrong += std::memcmp(&want, &babs[size_t(c * nb + j)], sizeof(T)) != 0;
          }
          for (int64_t t = 0; t < rows; ++t) {
            const T want = P.xb.at(pc + t * step, j);
            wrong += std::memcmp(&want, &panel[t * nr + j % nr], sizeof(T)) != 0;
          }
        }
      }
      EXPECT_EQ(wrong, 0) << "packed values or |B| sums that differ from ComplexB::at's";
    }
}

/** The half-sliver tiles (ComplexB::half) against the full tiles on the expansion the half
 *  sliver stands for (row 2t the half row t, row 2t + 1 it pair-swapped with the first value
 *  negated): outputs, column sums and references bit for bit, colref_half's reference equal to
 *  the reference tile's (one chain in the same order), the fingerprinting tile's fingerprint the
 *  half sliver's. A kernel set without them (AVX2, reference) skips. */
template <class T>
void half_tiles_agree() {
  const KernelSet<T>& ks = active_kernels<T>();
  if (!ks.ukr_half) GTEST_SKIP() << ks.desc << ": no half-sliver tiles (complex products pack the full expansion)";
  const int mr = ks.mr, nr = ks.nr;
  std::mt19937_64 rng(20261205);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  for (int64_t kb : {2, 8, 64, 334, 1024}) {
    SCOPED_TRACE(std::string(ks.desc) + ", kb = " + std::to_string(kb));
    Aligned<T> a{size_t(mr * kb)}, h{size_t(kb / 2 * nr)}, x{size_t(kb * nr)}, v{size_t(kb)};
    for (int64_t t = 0; t < mr * kb; ++t) a.get()[t] = static_cast<T>(d(rng));
    for (int64_t t = 0; t < kb / 2 * nr; ++t) h.get()[t] = static_cast<T>(d(rng));
    for (int64_t t = 0; t < kb; ++t) v.get()[t] = static_cast<T>(d(rng));
    for (int64_t p = 0; p < kb; ++p)
      for (int q = 0; q < nr; ++q) {
        const T* row = h.get() + (p / 2) * nr;
        x.get()[p * nr + q] = (p % 2 == 0) ? row[q] : (q % 2) ? row[q - 1] : -row[q + 1];
      }
    const int64_t ldc = nr + 3;
    auto run = [&](auto tile, const T* b, std::vector<T>& c, std::vector<double>& sums,
                   std::vector<double>& ref, Fingerprint* fp) {
      c.assign(size_t(mr * ldc), T(0.5));
      sums.assign(size_t(nr), 0.0);
      ref.assign(size_t(nr), 0.0);
      Epi<T> e;
      e.alpha = T(1.25);
      e.beta = T(-0.5);
      e.flags = kLoadC | kSumOut;
      e.obs = sums.data();
      e.v = v.get();
      e.ref = ref.data();
      e.fp = fp;
      tile(kb, a.get(), b, c.data(), ldc, e);
    };
    std::vector<T> c0, c1;
    std::vector<double> s0, s1, r0, r1;
    run(ks.ukr, x.get(), c0, s0, r0, nullptr);
    run(ks.ukr_half, h.get(), c1, s1, r1, nullptr);
    EXPECT_EQ(0, std::memcmp(c0.data(), c1.data(), c0.size() * sizeof(T))) << "ukr_half's outputs";
    EXPECT_EQ(s0, s1) << "ukr_half's column sums";
    if (ks.ukr_ref && ks.ukr_half_ref) {
      run(ks.ukr_ref, x.get(), c0, s0, r0, nullptr);
      run(ks.ukr_half_ref, h.get(), c1, s1, r1, nullptr);
      EXPECT_EQ(0, std::memcmp(c0.data(), c1.data(), c0.size() * sizeof(T))) << "ukr_half_ref's outputs";
      EXPECT_EQ(r0, r1) << "ukr_half_ref's reference";
      std::vector<double> want(size_t(nr), 0.0);
      ks.colref_half(kb, nr, v.get(), h.get(), 1.25, want.data());
      EXPECT_EQ(want, r1) << "colref_half's reference";
    }
    if (ks.ukr_half_fp) {
      Fingerprint fp;
      run(ks.ukr_half_fp, h.get(), c1, s1, r1, &fp);
      run(ks.ukr, x.get(), c0, s0, r0, nullptr);
      EXPECT_EQ(0, std::memcmp(c0.data(), c1.data(), c0.size() * sizeof(T))) << "ukr_half_fp's outputs";
      EXPECT_TRUE(fp == abft::checksum::fingerprint(h.get(), kb / 2 * nr)) << "ukr_half_fp's fingerprint";
    }
  }
}

TEST(GemmTiles, AgreeWithThePlainTile_f32) { tiles_agree<float>(); }
TEST(GemmTiles, AgreeWithThePlainTile_f64) { tiles_agree<double>(); }
TEST(GemmTiles, BackupIsTheCallersC_f32) { backup_is_c0<float>(); }
TEST(GemmTiles, BackupIsTheCallersC_f64) { backup_is_c0<double>(); }
TEST(GemmTiles, ComplexExpansionPacksAsAt_f32) { expansion_packs_as_at<float>(); }
TEST(GemmTiles, ComplexExpansionPacksAsAt_f64) { expansion_packs_as_at<double>(); }
TEST(GemmTiles, HalfSliverTilesAgreeWithTheFullExpansion_f32) { half_tiles_agree<float>(); }
TEST(GemmTiles, HalfSliverTilesAgreeWithTheFullExpansion_f64) { half_tiles_agree<double>(); }

}  // namespace
