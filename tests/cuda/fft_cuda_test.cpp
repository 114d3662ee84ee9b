/** \file fft_cuda_test.cpp
 *  \brief The protected FFT on device pointers (abft_cuda_fft_*, cuda/fft_protected.cu).
 *
 *  Argument checks run everywhere (they return before the device is touched; a valid plan on
 *  a machine without a GPU is NOT_SUPPORTED, said cleanly). Everything else needs a CUDA device
 *  and skips with the reason without one: results against the library's CPU FFT in double for
 *  C2C (both signs), R2C and C2R, ranks 1..3, batches with strides and distances, float and
 *  double, every policy; zero detections on clean data of several distributions; injected
 *  faults (at the output before verification, and in the input the transform reads) counted
 *  on the device, repaired, reported by abft_cuda_sync; the cuFFT-signature entry points
 *  against cuFFT itself.
 */
#include <cuda_runtime.h>
#include <cufft.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "abft/abft.h"
#include "abft/abft_cuda.h"
#include "cuda_test_util.hpp"
#include "abft/abft_cufft.h"
#include "abft/checksum/fft_c2r_weights.hpp"
#include "abft/fft.h"
#include "cpu/fft/c2r_tables.hpp"

namespace {

using abft_test::DeviceBuffer;

TEST(CudaFftArgs, BadArgumentsAreRejectedBeforeTheDevice) {
  abft_cuda_fft_plan_t p = nullptr;
  const int64_t n1[1] = {64}, n2[2] = {8, 8}, n0[1] = {0};
  const auto F = ABFT_PRECISION_FLOAT;
  EXPECT_EQ(abft_cuda_fft_plan_many(nullptr, nullptr, F, ABFT_FFT_C2C, 1, n1, -1, 1, nullptr, 1, 64, nullptr, 1, 64),
            ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(abft_cuda_fft_plan_many(&p, nullptr, F, ABFT_FFT_C2C, 1, nullptr, -1, 1, nullptr, 1, 64, nullptr, 1, 64),
            ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(abft_cuda_fft_plan_many(&p, nullptr, abft_precision(5), ABFT_FFT_C2C, 1, n1, -1, 1, nullptr, 1, 64,
                                    nullptr, 1, 64),
            ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(abft_cuda_fft_plan_many(&p, nullptr, F, abft_fft_kind(9), 1, n1, -1, 1, nullptr, 1, 64, nullptr, 1, 64),
            ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(abft_cuda_fft_plan_many(&p, nullptr, F, ABFT_FFT_C2C, 4, n1, -1, 1, nullptr, 1, 64, nullptr, 1, 64),
            ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(abft_cuda_fft_plan_many(&p, nullptr, F, ABFT_FFT_C2C, 1, n1, 0, 1, nullptr, 1, 64, nullptr, 1, 64),
            ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(abft_cuda_fft_plan_many(&p, nullptr, F, ABFT_FFT_R2C, 1, n1, +1, 1, nullptr, 1, 64, nullptr, 1, 33),
            ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(abft_cuda_fft_plan_many(&p, nullptr, F, ABFT_FFT_C2C, 1, n0, -1, 1, nullptr, 1, 64, nullptr, 1, 64),
            ABFT_STATUS_INVALID_SIZE);
  EXPECT_EQ(abft_cuda_fft_plan_many(&p, nullptr, F, ABFT_FFT_C2C, 1, n1, -1, 0, nullptr, 1, 64, nullptr, 1, 64),
            ABFT_STATUS_INVALID_SIZE);
  EXPECT_EQ(abft_cuda_fft_plan_many(&p, nullptr, F, ABFT_FFT_C2C, 1, n1, -1, 2, nullptr, 0, 64, nullptr, 1, 64),
            ABFT_STATUS_INVALID_LD);
  // Overlapping signals: a distance shorter than one signal.
  EXPECT_EQ(abft_cuda_fft_plan_many(&p, nullptr, F, ABFT_FFT_C2C, 1, n1, -1, 2, nullptr, 1, 63, nullptr, 1, 64),
            ABFT_STATUS_INVALID_LD);
  // An embedding smaller than the size it holds.
  const int64_t small[2] = {8, 7};
  EXPECT_EQ(abft_cuda_fft_plan_many(&p, nullptr, F, ABFT_FFT_C2C, 2, n2, -1, 1, small, 1, 64, nullptr, 1, 64),
            ABFT_STATUS_INVALID_LD);
  // R2C's output rows are n/2 + 1 long: an embedding of 4 cannot hold them.
  const int64_t half_small[2] = {8, 4};
  EXPECT_EQ(abft_cuda_fft_plan_many(&p, nullptr, F, ABFT_FFT_R2C, 2, n2, -1, 1, nullptr, 1, 64, half_small, 1, 40),
            ABFT_STATUS_INVALID_LD);
  // C2R's sign is +1 at every rank.
  EXPECT_EQ(abft_cuda_fft_plan_many(&p, nullptr, F, ABFT_FFT_C2R, 2, n2, -1, 1, nullptr, 1, 40, nullptr, 1, 64),
            ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(p, nullptr);
  // A valid plan: NOT_SUPPORTED without a device (said cleanly), a plan with one.
  const abft_status st = abft_cuda_fft_plan_1d(&p, nullptr, F, ABFT_FFT_C2C, 64, -1, 3);
  if (abft_cuda_device_count() < 1) {
    EXPECT_EQ(st, ABFT_STATUS_NOT_SUPPORTED);
    EXPECT_EQ(p, nullptr);
  } else {
    EXPECT_EQ(st, ABFT_STATUS_SUCCESS);
    EXPECT_EQ(abft_cuda_fft_set_policy(p, abft_policy(9)), ABFT_STATUS_INVALID_VALUE);
    EXPECT_EQ(abft_cuda_fft_execute(p, nullptr, nullptr, nullptr), ABFT_STATUS_NULL_POINTER);
    abft_cuda_fft_destroy(p);
  }
  EXPECT_EQ(abft_cuda_fft_set_policy(nullptr, ABFT_POLICY_OFF), ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(abft_cuda_fft_execute(nullptr, nullptr, nullptr, nullptr), ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(abft_cuda_fft_destroy(nullptr), ABFT_STATUS_SUCCESS);
}

/** A batch of signals in a tight or strided layout, and the CPU reference in double. */
template <class T>
struct Case {
  abft_fft_kind kind;
  int rank;
  std::vector<int64_t> n;
  int sign;
  int64_t batch, istride = 1, ostride = 1, idist = 0, odist = 0;
  int64_t in_cnt = 1, out_cnt = 1;
  std::vector<T> in;  // scalars
  bool cin() const { return kind != ABFT_FFT_R2C; }
  bool cout() const { return kind != ABFT_FFT_C2R; }
  /** hermitian (C2R): the half spectrum made Hermitian-consistent — the self-conjugate planes
   *  (last index 0, and n/2 for even n) hold conjugate pairs and real self-mirrored bins — as a
   *  real signal's spectrum is; false leaves them random. */
  Case(abft_fft_kind k, std::vector<int64_t> dims, int s, int64_t b, int64_t stride, uint64_t seed, int dist_kind = 0,
       bool hermitian = true)
      : kind(k), rank(int(dims.size())), n(dims), sign(s), batch(b), istride(stride), ostride(stride) {
    for (int d = 0; d < rank; ++d) {
      const bool last = d == rank - 1;
      in_cnt *= (k == ABFT_FFT_C2R && last) ? n[size_t(d)] / 2 + 1 : n[size_t(d)];
      out_cnt *= (k == ABFT_FFT_R2C && last) ? n[size_t(d)] / 2 + 1 : n[size_t(d)];
    }
    idist = in_cnt * istride + 3;
    odist = out_cnt * ostride + 5;
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<double> u(-1, 1), ex(-6, 6);
    std::normal_distribution<double> nd(0, 1);
    in.assign(size_t(idist * batch * (cin() ? 2 : 1)), T(0));
    for (int64_t b2 = 0; b2 < batch; ++b2)
      for (int64_t e = 0; e < in_cnt * (cin() ? 2 : 1); ++e) {
        double v = dist_kind == 0 ? u(g) : dist_kind == 1 ? nd(g) : (u(g) < 0 ? -1 : 1) * std::pow(10.0, ex(g));
        const int64_t el = cin() ? e / 2 : e;
        in[size_t((b2 * idist + el * istride) * (cin() ? 2 : 1) + (cin() ? e % 2 : 0))] = T(v);
      }
    if (k == ABFT_FFT_C2R && hermitian) make_hermitian();
  }
  /** C2R: the self-conjugate planes of every signal made Hermitian-consistent. */
  void make_hermitian() {
    abft::checksum::FftLibraryShape sh;
    sh.rank = rank, sh.kind = 2, sh.sign = 1;
    for (int d = 0; d < rank; ++d) sh.n[d] = n[size_t(d)];
    for (int64_t b2 = 0; b2 < batch; ++b2) abft::checksum::fft_c2r_make_hermitian(in.data() + 2 * b2 * idist, sh, istride);
  }
  size_t out_scalars() const { return size_t(odist * batch * (cout() ? 2 : 1)); }
  /** Reference of signal b in double (tight, scalars). */
  std::vector<double> reference(int64_t b) const {
    std::vector<double> x(size_t(in_cnt * (cin() ? 2 : 1))), y(size_t(out_cnt * (cout() ? 2 : 1)));
    for (int64_t e = 0; e < in_cnt; ++e)
      for (int c = 0; c < (cin() ? 2 : 1); ++c)
        x[size_t(e * (cin() ? 2 : 1) + c)] = double(in[size_t((b * idist + e * istride) * (cin() ? 2 : 1) + c)]);
    abft_fft_plan_t p = nullptr;
    EXPECT_EQ(abft_fft_plan_dft(&p, nullptr, ABFT_PRECISION_DOUBLE, kind, rank, n.data(), sign, 0),
              ABFT_STATUS_SUCCESS);
    abft_fft_set_policy(p, ABFT_POLICY_OFF);
    EXPECT_EQ(abft_fft_execute(p, x.data(), y.data(), nullptr), ABFT_STATUS_SUCCESS);
    abft_fft_destroy(p);
    return y;
  }
  /** Largest |got - ref| / ||ref||_2 over the signals (normwise relative error). */
  double error(const std::vector<T>& out) const {
    double worst = 0;
    const int so = cout() ? 2 : 1;
    for (int64_t b = 0; b < batch; ++b) {
      const std::vector<double> r = reference(b);
      double num = 0, den = 0;
      for (int64_t e = 0; e < out_cnt; ++e)
        for (int c = 0; c < so; ++c) {
          const double got = double(out[size_t((b * odist + e * ostride) * so + c)]);
          const double want = r[size_t(e * so + c)];
          num += (got - want) * (got - want);
          den += want * want;
        }
      worst = std::max(worst, std::sqrt(num / (den + 1e-300)));
    }
    return worst;
  }
  abft_status plan(abft_handle_t h, abft_cuda_fft_plan_t* p) const {
    return abft_cuda_fft_plan_many(p, h, sizeof(T) == 8 ? ABFT_PRECISION_DOUBLE : ABFT_PRECISION_FLOAT, kind, rank,
                                   n.data(), sign, batch, nullptr, istride, idist, nullptr, ostride, odist);
  }
};

/** The check's sharpness on a clean output: max over the signals of |out - in| / bound, with
 *  the engine's weights and plan-time bound (abft/checksum/fft_library_check.hpp) formed on the
 *  host from the case's input and the transform's output. Printed by check_clean: on a GPU it is
 *  cuFFT's own error against the bound that assumes an algorithm the engine does not see — the
 *  figure a tighter bound would start from (ABFT.md §12.2). */
template <class T>
double sharpness(const Case<T>& c, const std::vector<T>& out) {
  namespace ck = abft::checksum;
  ck::FftLibraryShape sh;
  sh.rank = c.rank, sh.kind = int(c.kind), sh.sign = c.sign;
  for (int d = 0; d < c.rank; ++d) sh.n[d] = c.n[size_t(d)];
  double w_norm = ck::fft_library_w_norm(sh), v_norm = 0;
  ck::FftC2RTables tab;
  if (c.kind == ABFT_FFT_C2R) {
    if (!abft::fft::detail::c2r_tables(sh, tab)) return -1;
    w_norm = tab.w_norm, v_norm = tab.v_norm;
  } else {
    v_norm = ck::fft_library_v_norm(sh);
  }
  const ck::FftUnitBound b =
      ck::fft_library_bound<T>(sh, w_norm, v_norm, ck::fft_engine_sum_depth(sh.in_count(), sh.out_count()));
  const ck::FftC2RWeights c2r = tab.view();
  int64_t din[3] = {1, 1, 1}, dout[3] = {1, 1, 1};
  for (int d = 0; d < c.rank; ++d) din[d] = sh.in_dim(d), dout[d] = sh.out_dim(d);
  const int si = c.cin() ? 2 : 1, so = c.cout() ? 2 : 1;
  double worst = 0;
  for (int64_t sig = 0; sig < c.batch; ++sig) {
    double ir = 0, ii = 0, orr = 0, oi = 0, x2 = 0;
    for (int64_t e = 0; e < c.in_cnt; ++e) {
      int64_t idx[3] = {0, 0, 0};
      ck::fft_unravel(e, c.rank, din, idx);
      const size_t at = size_t((sig * c.idist + e * c.istride) * si);
      const ck::Cd x{double(c.in[at]), si == 2 ? double(c.in[at + 1]) : 0.0};
      const ck::Cd t = ck::fft_in_term_of(x, sh, ck::FftDirectWeights{}, c2r, idx);
      ir += t.re, ii += t.im, x2 += x.re * x.re + x.im * x.im;
    }
    for (int64_t e = 0; e < c.out_cnt; ++e) {
      int64_t idx[3] = {0, 0, 0};
      ck::fft_unravel(e, c.rank, dout, idx);
      const size_t at = size_t((sig * c.odist + e * c.ostride) * so);
      const ck::Cd y{double(out[at]), so == 2 ? double(out[at + 1]) : 0.0};
      const ck::Cd t = ck::fft_out_term_of(y, sh, ck::FftDirectWeights{}, c2r, idx);
      orr += t.re, oi += t.im;
    }
    worst = std::max(worst, std::hypot(orr - ir, oi - ii) / b.bound(std::sqrt(x2)));
  }
  return worst;
}

template <class T>
double tolerance(int64_t N) {
  return (sizeof(T) == 4 ? 2e-6 : 4e-15) * std::log2(double(N) + 2.0) * 4.0;
}

/** The way of forming the sums a test asks for (ABFT_CUDA_FFT_SUMS at planning), set by the
 *  fixture below; every plan made under it must use it (a plan that fell back to passes when
 *  the callbacks were asked for fails here: the GPU check must say so). */
abft_cuda_fft_sums g_sums = ABFT_CUDA_FFT_SUMS_CALLBACKS;

void expect_sums(abft_cuda_fft_plan_t p) {
  abft_cuda_fft_sums got = ABFT_CUDA_FFT_SUMS_PASSES;
  ASSERT_EQ(abft_cuda_fft_get_sums(p, &got), ABFT_STATUS_SUCCESS);
  const char* where = nullptr;
  int result = 0;
  ASSERT_EQ(abft_cuda_fft_get_callback_refusal(p, &where, &result), ABFT_STATUS_SUCCESS);
  if (got == ABFT_CUDA_FFT_SUMS_CALLBACKS || g_sums == ABFT_CUDA_FFT_SUMS_PASSES)
    EXPECT_EQ(where, nullptr) << "a refusal reported for a plan that did not fall back";
  EXPECT_EQ(got, g_sums) << (g_sums == ABFT_CUDA_FFT_SUMS_CALLBACKS
                                 ? "cuFFT refused the callbacks: " + std::string(where ? where : "(no call named)") +
                                       " returned cufftResult " + std::to_string(result)
                                 : std::string("callbacks despite ABFT_CUDA_FFT_SUMS=passes"));
}

/** Runs a test once per way of forming the sums. */
class CudaFftSums : public ::testing::TestWithParam<abft_cuda_fft_sums> {
 protected:
  void SetUp() override {
    g_sums = GetParam();
    env_.emplace("ABFT_CUDA_FFT_SUMS", g_sums == ABFT_CUDA_FFT_SUMS_PASSES ? "passes" : nullptr);
  }
  void TearDown() override {
    env_.reset();
    g_sums = ABFT_CUDA_FFT_SUMS_CALLBACKS;
  }

 private:
  std::optional<abft_test::ScopedEnv> env_;
};
std::string sums_name(const ::testing::TestParamInfo<abft_cuda_fft_sums>& i) {
  return i.param == ABFT_CUDA_FFT_SUMS_CALLBACKS ? "Callbacks" : "Passes";
}

/** One plan, one call per policy in `pols` (in that order, on the same plan: a callback plan
 *  switches to its plain twin for OFF and back), each against the reference, no detection. */
template <class T>
void check_clean(const Case<T>& c, std::initializer_list<abft_policy> pols) {
  abft_handle_t h = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  abft_cuda_fft_plan_t p = nullptr;
  ASSERT_EQ(c.plan(h, &p), ABFT_STATUS_SUCCESS);
  expect_sums(p);
  DeviceBuffer<T> in(c.in), out(std::vector<T>(c.out_scalars(), T(0)));
  int64_t N = 1;
  for (int64_t x : c.n) N *= x;
  uint64_t calls = 0;
  bool reported = false;
  for (abft_policy pol : pols) {
    abft_cuda_fft_set_policy(p, pol);
    ASSERT_EQ(abft_cuda_fft_execute(p, nullptr, in.p, out.p), ABFT_STATUS_SUCCESS);
    ++calls;
    if (pol != ABFT_POLICY_OFF && !reported) {  // the check's margin on this output
      reported = true;
      const double r = sharpness(c, out.get(c.out_scalars()));
      std::string dims;
      for (int64_t x : c.n) dims += (dims.empty() ? "" : "x") + std::to_string(x);
      std::printf("sharpness %s %s %s batch %lld (%s): max |out - in| / bound = %.3g\n", sizeof(T) == 8 ? "f64" : "f32",
                  c.kind == ABFT_FFT_C2C ? (c.sign < 0 ? "c2c-fwd" : "c2c-bwd") : c.kind == ABFT_FFT_R2C ? "r2c" : "c2r",
                  dims.c_str(), (long long)c.batch, g_sums == ABFT_CUDA_FFT_SUMS_CALLBACKS ? "callbacks" : "passes", r);
      EXPECT_GE(r, 0.0);
      EXPECT_LE(r, 1.0) << "a clean output outside the bound";
    }
    abft_report r{};
    ASSERT_EQ(abft_cuda_sync(h, nullptr, &r), ABFT_STATUS_SUCCESS);
    EXPECT_EQ(r.detected, 0u) << "false positive, policy " << pol;
    EXPECT_EQ(r.checks, pol != ABFT_POLICY_OFF ? uint64_t(c.batch) : 0u) << "policy " << pol;
    EXPECT_LE(c.error(out.get(c.out_scalars())), tolerance<T>(N)) << "policy " << pol;
    if (c.kind == ABFT_FFT_C2R)  // cuFFT may overwrite a C2R input: the next call gets it again
      ASSERT_EQ(cudaMemcpy(in.p, c.in.data(), c.in.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
  // The handle's statistics table holds the calls and, after the syncs, their device counts.
  abft_counters st{};
  ASSERT_EQ(abft_stats_get(h, sizeof(T) == 8 ? ABFT_KERNEL_DFFT : ABFT_KERNEL_SFFT, &st), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(st.calls, calls);
  abft_cuda_fft_destroy(p);
  abft_cuda_release(h);
  abft_handle_destroy(h);
}
template <class T>
void check_clean(const Case<T>& c, abft_policy pol) {
  check_clean(c, {pol});
}

TEST_P(CudaFftSums, MatchesReferenceEveryKindRankAndPolicy) {
  REQUIRE_DEVICE();
  // Every policy on each plan, OFF between the two protected ones (a callback plan's twin).
  const auto pols = {ABFT_POLICY_DETECT, ABFT_POLICY_OFF, ABFT_POLICY_CORRECT};
  for (int s : {-1, +1}) {
    check_clean(Case<float>(ABFT_FFT_C2C, {1024}, s, 7, 1, 1), pols);
    check_clean(Case<double>(ABFT_FFT_C2C, {1000}, s, 5, 2, 2), pols);
    check_clean(Case<float>(ABFT_FFT_C2C, {1009}, s, 3, 1, 3), pols);  // prime: Bluestein in cuFFT
    check_clean(Case<float>(ABFT_FFT_C2C, {32, 48}, s, 3, 1, 4), pols);
    check_clean(Case<double>(ABFT_FFT_C2C, {8, 12, 10}, s, 2, 1, 5), pols);
  }
  check_clean(Case<float>(ABFT_FFT_R2C, {4096}, -1, 4, 1, 6), pols);
  check_clean(Case<double>(ABFT_FFT_R2C, {30, 50}, -1, 3, 1, 7), pols);
  check_clean(Case<float>(ABFT_FFT_C2R, {2048}, +1, 4, 1, 8), pols);
  check_clean(Case<double>(ABFT_FFT_C2R, {999}, +1, 3, 1, 9), pols);
  check_clean(Case<float>(ABFT_FFT_C2R, {24, 32}, +1, 3, 1, 10), pols);
  check_clean(Case<double>(ABFT_FFT_C2R, {15, 14}, +1, 2, 2, 11), pols);  // odd outer, strided
  check_clean(Case<float>(ABFT_FFT_C2R, {6, 10, 9}, +1, 3, 1, 12), pols);  // odd last: one plane
  check_clean(Case<double>(ABFT_FFT_C2R, {4, 8, 2}, +1, 2, 1, 13), pols);  // last 2: both planes only
}

// A C2R spectrum that is not Hermitian in its self-conjugate planes (a spectral filter that
// weights k and -k differently leaves one; at rank 1, imaginary parts in bins 0 and n/2): the
// transform of the half spectrum depends on what the algorithm reads there (the emulated cuFFT
// reads one value of each pair, and at rank 1 the imaginary part of bin 0). The engine makes
// those planes Hermitian first (rank 1: the load callback, or in place with the sums in
// passes), so the checked result is the transform of the spectrum's Hermitian part — the CPU
// FFT's result — with no detection, under both policies.
TEST_P(CudaFftSums, NonHermitianC2RIsTheHermitianPartsTransform) {
  REQUIRE_DEVICE();
  for (abft_policy pol : {ABFT_POLICY_DETECT, ABFT_POLICY_CORRECT}) {
    check_clean(Case<float>(ABFT_FFT_C2R, {64}, +1, 3, 1, 39, 0, false), pol);
    check_clean(Case<double>(ABFT_FFT_C2R, {45}, +1, 2, 2, 38, 0, false), pol);
    check_clean(Case<float>(ABFT_FFT_C2R, {12, 16}, +1, 3, 1, 40, 0, false), pol);
    check_clean(Case<double>(ABFT_FFT_C2R, {5, 6, 8}, +1, 2, 1, 41, 0, false), pol);
  }
}

TEST_P(CudaFftSums, NoFalsePositivesOnManyCleanSignals) {
  REQUIRE_DEVICE();
  for (int dist = 0; dist < 3; ++dist) {
    check_clean(Case<float>(ABFT_FFT_C2C, {256}, -1, 4096, 1, 100 + dist, dist), ABFT_POLICY_DETECT);
    check_clean(Case<double>(ABFT_FFT_C2C, {65536}, -1, 16, 1, 110 + dist, dist), ABFT_POLICY_DETECT);
    check_clean(Case<float>(ABFT_FFT_R2C, {1 << 20}, -1, 2, 1, 120 + dist, dist), ABFT_POLICY_DETECT);
    check_clean(Case<float>(ABFT_FFT_C2R, {64, 96}, +1, 16, 1, 130 + dist, dist), ABFT_POLICY_DETECT);
    check_clean(Case<double>(ABFT_FFT_C2R, {16, 12, 20}, +1, 8, 1, 140 + dist, dist), ABFT_POLICY_DETECT);
  }
}

/** One call with a fault at `site` in each signal of `rows` (empty: the last signal) at
 *  scalar `col`: every one detected and repaired, the output within the reference's tolerance. */
template <class T>
void check_fault(const Case<T>& c, abft_site site, abft_fault_model model, int bit, int64_t col = 6,
                 std::vector<int64_t> rows = {}) {
  if (rows.empty()) rows = {c.batch - 1};
  SCOPED_TRACE(::testing::Message() << "kind " << c.kind << " n[0] " << c.n[0] << " rank " << c.rank);
  abft_handle_t h = nullptr;
  abft_injector_t inj = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_injector_create(17, &inj), ABFT_STATUS_SUCCESS);
  for (int64_t row : rows) {
    abft_fault f{};
    f.site = site, f.model = model, f.bit = bit, f.row = row, f.col = col, f.kpos = 0;
    ASSERT_EQ(abft_injector_add(inj, &f), ABFT_STATUS_SUCCESS);
  }
  abft_handle_set_injector(h, inj);
  abft_cuda_fft_plan_t p = nullptr;
  ASSERT_EQ(c.plan(h, &p), ABFT_STATUS_SUCCESS);
  expect_sums(p);
  DeviceBuffer<T> in(c.in), out(std::vector<T>(c.out_scalars(), T(0)));
  ASSERT_EQ(abft_cuda_fft_execute(p, nullptr, in.p, out.p), ABFT_STATUS_SUCCESS);
  abft_report r{};
  EXPECT_EQ(abft_cuda_sync(h, nullptr, &r), ABFT_STATUS_SUCCESS);
  std::vector<abft_fault> landed(rows.size());
  int count = 0;
  abft_injector_last(inj, landed.data(), int(rows.size()), &count);
  ASSERT_EQ(count, int(rows.size()));
  for (const abft_fault& lf : landed) EXPECT_EQ(lf.applied, 1);
  const uint64_t nf = rows.size();
  EXPECT_GE(r.detected, nf) << "site " << site << " model " << model << " bit " << bit << " col " << col;
  EXPECT_GE(r.corrected, nf);
  EXPECT_EQ(r.uncorrectable, 0u);
  int64_t N = 1;
  for (int64_t x : c.n) N *= x;
  EXPECT_LE(c.error(out.get(c.out_scalars())), tolerance<T>(N)) << "site " << site << " col " << col;
  // The caller's input is untouched (the input fault went into a private copy) — except for
  // C2R, whose input cuFFT may overwrite out of place.
  if (c.kind != ABFT_FFT_C2R) EXPECT_EQ(in.get(c.in.size()), c.in);
  abft_handle_set_injector(h, nullptr);
  abft_injector_destroy(inj);
  abft_cuda_fft_destroy(p);
  abft_cuda_release(h);
  abft_handle_destroy(h);
}

TEST_P(CudaFftSums, InjectedFaultsAreRepairedOnTheDevice) {
  REQUIRE_DEVICE();
  for (abft_site site : {ABFT_SITE_OUTPUT, ABFT_SITE_FFT_STAGE}) {
    check_fault(Case<float>(ABFT_FFT_C2C, {512}, -1, 6, 1, 21), site, ABFT_FAULT_NAN, 0);
    check_fault(Case<float>(ABFT_FFT_C2C, {512}, +1, 6, 1, 22), site, ABFT_FAULT_BITFLIP, 30);
    check_fault(Case<double>(ABFT_FFT_C2C, {24, 20}, -1, 3, 1, 23), site, ABFT_FAULT_BITFLIP, 62);
    check_fault(Case<float>(ABFT_FFT_R2C, {1000}, -1, 4, 1, 24), site, ABFT_FAULT_POS_INF, 0);
    check_fault(Case<double>(ABFT_FFT_C2R, {256}, +1, 4, 1, 25), site, ABFT_FAULT_BITFLIP, 61);
    // Multi-dimensional C2R: a middle bin (col 6: element 3, real part), bins of the
    // self-conjugate planes (element 9 = (1, 0) in {12, 16}, its imaginary part too; element 6
    // = (0, 1, 0) in {4, 6, 10}), and the outputs of those indices.
    for (int64_t col : {6, 13, 18, 19}) {
      check_fault(Case<float>(ABFT_FFT_C2R, {12, 16}, +1, 3, 1, 26), site, ABFT_FAULT_BITFLIP, 29, col);
      check_fault(Case<double>(ABFT_FFT_C2R, {4, 6, 10}, +1, 2, 1, 27), site, ABFT_FAULT_BITFLIP, 60, col);
    }
  }
}

// The repair in levels (ABFT_CUDA_FFT_REPAIR=split: the default takes them only for signals of
// more than 2^16 points): rank 1 as p x q four-step (1000 = 25 x 40, 4096 = 64 x 64, C2R
// 256 = 16 x 16 and 999 = 27 x 37 over the stored half, R2C 1000 with its half of the outputs),
// rank 2 as the first dimension times the second, rank 3 in three levels, strided, odd and
// even, every kind; a
// prime length (1009) has no split and stays direct. Four failed signals in one call repair
// in four block slots at once. Against the double reference, at both sites. (The faults are
// ones the check must see. Two that it need not, in float: a bit 30 flip of an output of the
// prime length moved the output by 0.9 %, within a bound that for an algorithm the engine does
// not see allows Bluestein's error, so that one is a NaN; a bit 29 flip of one input of the C2R
// of 999, an error of 0.05 against an input norm of 18, moved it by 0.3 %, so that one is bit 30.)
TEST_P(CudaFftSums, TwoLevelRepairMatchesTheReference) {
  REQUIRE_DEVICE();
  const abft_test::ScopedEnv env("ABFT_CUDA_FFT_REPAIR", "split");
  for (abft_site site : {ABFT_SITE_OUTPUT, ABFT_SITE_FFT_STAGE}) {
    check_fault(Case<float>(ABFT_FFT_C2C, {1000}, -1, 3, 1, 51), site, ABFT_FAULT_BITFLIP, 30);
    check_fault(Case<double>(ABFT_FFT_C2C, {4096}, +1, 2, 1, 52), site, ABFT_FAULT_BITFLIP, 61);
    check_fault(Case<float>(ABFT_FFT_C2C, {1009}, -1, 2, 1, 53), site, ABFT_FAULT_NAN, 0);
    check_fault(Case<float>(ABFT_FFT_R2C, {1000}, -1, 3, 1, 54), site, ABFT_FAULT_NAN, 0);
    check_fault(Case<double>(ABFT_FFT_C2R, {256}, +1, 3, 1, 55), site, ABFT_FAULT_BITFLIP, 61);
    check_fault(Case<float>(ABFT_FFT_C2R, {999}, +1, 2, 1, 56), site, ABFT_FAULT_BITFLIP, 30);
    check_fault(Case<double>(ABFT_FFT_C2C, {12, 20}, -1, 2, 2, 57), site, ABFT_FAULT_BITFLIP, 62);
    check_fault(Case<float>(ABFT_FFT_R2C, {10, 14}, -1, 2, 1, 58), site, ABFT_FAULT_BITFLIP, 30);
    check_fault(Case<double>(ABFT_FFT_C2R, {6, 8, 10}, +1, 2, 1, 59), site, ABFT_FAULT_BITFLIP, 60, 13);
    check_fault(Case<float>(ABFT_FFT_C2R, {9, 7}, +1, 2, 1, 60), site, ABFT_FAULT_BITFLIP, 29, 18);
    check_fault(Case<float>(ABFT_FFT_C2C, {4, 6, 10}, +1, 6, 1, 61), site, ABFT_FAULT_BITFLIP, 30, 6, {0, 2, 3, 5});
    check_fault(Case<float>(ABFT_FFT_R2C, {4, 5, 8}, -1, 2, 1, 62), site, ABFT_FAULT_BITFLIP, 30);
  }
}

// A callback plan's own paths: in place (the load writes the repair's copy), an interleaved
// batch (signals inside one stride), both directions and policies alternating on one plan (the
// callbacks' arguments rewritten, the plain twin made for OFF), faults at both sites repaired.
TEST_P(CudaFftSums, InPlaceInterleavedAndAlternatingCallsStayCorrect) {
  REQUIRE_DEVICE();
  const int64_t n = 700, batch = 5;
  abft_handle_t h = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  // Interleaved: element j of signal b at b + j * batch (dist 1, stride batch).
  std::vector<float> x(size_t(2 * n * batch));
  std::mt19937_64 g(77);
  std::uniform_real_distribution<float> u(-1, 1);
  for (float& v : x) v = u(g);
  abft_cuda_fft_plan_t p = nullptr;
  const int64_t nn[1] = {n};
  ASSERT_EQ(abft_cuda_fft_plan_many(&p, h, ABFT_PRECISION_FLOAT, ABFT_FFT_C2C, 1, nn, -1, batch, nullptr, batch, 1,
                                    nullptr, batch, 1),
            ABFT_STATUS_SUCCESS);
  expect_sums(p);
  // The reference: each signal through the CPU FFT in double, forward then inverse.
  auto reference = [&](const std::vector<float>& src, int sign) {
    std::vector<float> y(src.size());
    abft_fft_plan_t cp = nullptr;
    EXPECT_EQ(abft_fft_plan_1d(&cp, nullptr, ABFT_PRECISION_DOUBLE, ABFT_FFT_C2C, n, sign, 0), ABFT_STATUS_SUCCESS);
    abft_fft_set_policy(cp, ABFT_POLICY_OFF);
    std::vector<double> a(size_t(2 * n)), b(size_t(2 * n));
    for (int64_t s = 0; s < batch; ++s) {
      for (int64_t j = 0; j < n; ++j)
        for (int c = 0; c < 2; ++c) a[size_t(2 * j + c)] = src[size_t(2 * (s + j * batch) + c)];
      abft_fft_execute(cp, a.data(), b.data(), nullptr);
      for (int64_t j = 0; j < n; ++j)
        for (int c = 0; c < 2; ++c) y[size_t(2 * (s + j * batch) + c)] = float(b[size_t(2 * j + c)]);
    }
    abft_fft_destroy(cp);
    return y;
  };
  auto close = [&](const std::vector<float>& got, const std::vector<float>& want) {
    double num = 0, den = 0;
    for (size_t i = 0; i < got.size(); ++i) num += std::pow(got[i] - want[i], 2), den += std::pow(want[i], 2);
    return std::sqrt(num / den) < tolerance<float>(n);
  };
  DeviceBuffer<float> buf(x), outb(std::vector<float>(x.size(), 0.0f));
  const std::vector<float> fwd = reference(x, -1), back = reference(fwd, +1);
  // Out of place forward, then in place inverse of that, then OFF, then CORRECT again.
  ASSERT_EQ(abft_cuda_fft_execute(p, nullptr, buf.p, outb.p), ABFT_STATUS_SUCCESS);
  EXPECT_TRUE(close(outb.get(x.size()), fwd));
  abft_cuda_fft_plan_t pi = nullptr;  // the inverse plan on the same layout, run in place
  ASSERT_EQ(abft_cuda_fft_plan_many(&pi, h, ABFT_PRECISION_FLOAT, ABFT_FFT_C2C, 1, nn, +1, batch, nullptr, batch, 1,
                                    nullptr, batch, 1),
            ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_cuda_fft_execute(pi, nullptr, outb.p, outb.p), ABFT_STATUS_SUCCESS);
  EXPECT_TRUE(close(outb.get(x.size()), back));
  abft_cuda_fft_set_policy(p, ABFT_POLICY_OFF);
  ASSERT_EQ(abft_cuda_fft_execute(p, nullptr, buf.p, outb.p), ABFT_STATUS_SUCCESS);
  EXPECT_TRUE(close(outb.get(x.size()), fwd));
  abft_cuda_fft_set_policy(p, ABFT_POLICY_CORRECT);
  ASSERT_EQ(abft_cuda_fft_execute(p, nullptr, buf.p, outb.p), ABFT_STATUS_SUCCESS);
  EXPECT_TRUE(close(outb.get(x.size()), fwd));
  abft_report r{};
  ASSERT_EQ(abft_cuda_sync(h, nullptr, &r), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(r.checks, uint64_t(3 * batch));  // three protected calls
  EXPECT_EQ(r.detected, 0u);
  // In place with a fault at each site: repaired from the copy the transform did not overwrite.
  for (abft_site site : {ABFT_SITE_OUTPUT, ABFT_SITE_FFT_STAGE}) {
    abft_injector_t inj = nullptr;
    ASSERT_EQ(abft_injector_create(5, &inj), ABFT_STATUS_SUCCESS);
    abft_fault f{};
    f.site = site, f.model = ABFT_FAULT_BITFLIP, f.bit = 29, f.row = 2, f.col = 11;
    ASSERT_EQ(abft_injector_add(inj, &f), ABFT_STATUS_SUCCESS);
    abft_handle_set_injector(h, inj);
    DeviceBuffer<float> ip(x);
    ASSERT_EQ(abft_cuda_fft_execute(p, nullptr, ip.p, ip.p), ABFT_STATUS_SUCCESS);
    ASSERT_EQ(abft_cuda_sync(h, nullptr, &r), ABFT_STATUS_SUCCESS);
    abft_fault landed{};
    int count = 0;
    abft_injector_last(inj, &landed, 1, &count);
    EXPECT_EQ(count, 1);
    EXPECT_EQ(landed.applied, 1) << "site " << site;
    EXPECT_EQ(r.detected, 1u) << "site " << site;
    EXPECT_EQ(r.corrected, 1u) << "site " << site;
    EXPECT_TRUE(close(ip.get(x.size()), fwd)) << "site " << site;
    abft_handle_set_injector(h, nullptr);
    abft_injector_destroy(inj);
  }
  abft_cuda_fft_destroy(p);
  abft_cuda_fft_destroy(pi);
  abft_cuda_release(h);
  abft_handle_destroy(h);
}

INSTANTIATE_TEST_SUITE_P(Sums, CudaFftSums,
                         ::testing::Values(ABFT_CUDA_FFT_SUMS_CALLBACKS, ABFT_CUDA_FFT_SUMS_PASSES), sums_name);

/** A batch of C2C signals of length n (a case's input, made contiguous) on the device, two
 *  outputs, and two plans of it with cuFFT's signatures: the library's and plain cuFFT's. */
struct C2CPlans {
  std::vector<float> tight;
  DeviceBuffer<float> in, o1, o2;
  cufftHandle ours = 0, plain = 0;
  static std::vector<float> contiguous(const Case<float>& c, int n, int batch) {
    std::vector<float> t(size_t(2 * n * batch));
    for (int b = 0; b < batch; ++b)
      for (int e = 0; e < 2 * n; ++e) t[size_t(b * 2 * n + e)] = c.in[size_t(b * c.idist * 2 + e)];
    return t;
  }
  C2CPlans(const Case<float>& c, int n, int batch)
      : tight(contiguous(c, n, batch)), in(tight), o1(std::vector<float>(tight.size())),
        o2(std::vector<float>(tight.size())) {
    EXPECT_EQ(abft_cufftPlan1d(&ours, n, CUFFT_C2C, batch), CUFFT_SUCCESS);
    EXPECT_EQ(cufftPlan1d(&plain, n, CUFFT_C2C, batch), CUFFT_SUCCESS);
  }
};

TEST(CudaFft, CufftSignaturesMatchCufft) {
  REQUIRE_DEVICE();
  const int n = 4096, batch = 8;
  C2CPlans pp(Case<float>(ABFT_FFT_C2C, {n}, -1, batch, 1, 31), n, batch);
  const std::vector<float>& tight = pp.tight;
  DeviceBuffer<float>&in = pp.in, &o1 = pp.o1, &o2 = pp.o2;
  const cufftHandle ours = pp.ours, plain = pp.plain;
  ASSERT_EQ(abft_cufftExecC2C(ours, reinterpret_cast<cufftComplex*>(in.p), reinterpret_cast<cufftComplex*>(o1.p),
                              CUFFT_INVERSE),
            CUFFT_SUCCESS);
  ASSERT_EQ(cufftExecC2C(plain, reinterpret_cast<cufftComplex*>(in.p), reinterpret_cast<cufftComplex*>(o2.p),
                         CUFFT_INVERSE),
            CUFFT_SUCCESS);
  cudaDeviceSynchronize();
  const std::vector<float> x = o1.get(tight.size()), y = o2.get(tight.size());
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(x[i], y[i], 1e-4f * (1.0f + std::fabs(y[i])));
  abft_report r{};
  ASSERT_EQ(abft_cuda_sync(abft_cufft_handle(), nullptr, &r), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(r.checks, uint64_t(batch));
  EXPECT_EQ(r.detected, 0u);
  // A plan the library did not make runs as plain cuFFT (unprotected, not counted).
  ASSERT_EQ(abft_cufftExecC2C(plain, reinterpret_cast<cufftComplex*>(in.p), reinterpret_cast<cufftComplex*>(o1.p),
                              CUFFT_FORWARD),
            CUFFT_SUCCESS);
  ASSERT_EQ(abft_cuda_sync(abft_cufft_handle(), nullptr, &r), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(r.checks, 0u);
  // cuFFT's own checks hold: a C2C plan refuses the R2C entry point, and a bad direction.
  EXPECT_EQ(abft_cufftExecR2C(ours, reinterpret_cast<cufftReal*>(in.p), reinterpret_cast<cufftComplex*>(o1.p)),
            CUFFT_INVALID_TYPE);
  EXPECT_EQ(abft_cufftExecC2C(ours, reinterpret_cast<cufftComplex*>(in.p), reinterpret_cast<cufftComplex*>(o1.p), 7),
            CUFFT_INVALID_VALUE);
  EXPECT_EQ(abft_cufftDestroy(ours), CUFFT_SUCCESS);
  EXPECT_EQ(abft_cufftDestroy(plain), CUFFT_SUCCESS);  // not ours: passed to cuFFT
}

// What one call leaves on the device for the next (the plan remembers it to skip launches,
// fft_protected.cu): a DETECT call's failed signal must not be repaired by the next CORRECT call
// (nor counted again); a C2C plan run both ways reopens its callbacks with each direction's
// sign. One cuFFT-signature plan, its calls alternating directions and policies, each against
// plain cuFFT, each call's counts read alone. Both ways of forming the sums.
TEST(CudaFft, EachCallStartsCleanAcrossPoliciesAndDirections) {
  REQUIRE_DEVICE();
  for (const char* sums : {"callbacks", "passes"}) {
    abft_test::ScopedEnv env("ABFT_CUDA_FFT_SUMS", sums);
    const int n = 512, batch = 6;
    C2CPlans pp(Case<float>(ABFT_FFT_C2C, {n}, -1, batch, 1, 41), n, batch);
    const std::vector<float>& tight = pp.tight;
    DeviceBuffer<float>&in = pp.in, &o1 = pp.o1, &o2 = pp.o2;
    abft_handle_t h = abft_cufft_handle();
    abft_report r{};
    abft_cuda_sync(h, nullptr, &r);  // (what earlier tests left)
    abft_injector_t inj = nullptr;
    ASSERT_EQ(abft_injector_create(5, &inj), ABFT_STATUS_SUCCESS);
    abft_fault f{};
    f.site = ABFT_SITE_OUTPUT, f.model = ABFT_FAULT_BITFLIP, f.bit = 30, f.row = 2, f.col = 7, f.kpos = -1;
    ASSERT_EQ(abft_injector_add(inj, &f), ABFT_STATUS_SUCCESS);
    struct Step {
      int dir;
      abft_policy pol;
      bool fault;
    };
    const Step steps[] = {{CUFFT_FORWARD, ABFT_POLICY_DETECT, true},  {CUFFT_FORWARD, ABFT_POLICY_CORRECT, false},
                          {CUFFT_INVERSE, ABFT_POLICY_CORRECT, true}, {CUFFT_FORWARD, ABFT_POLICY_CORRECT, false},
                          {CUFFT_INVERSE, ABFT_POLICY_DETECT, false}, {CUFFT_INVERSE, ABFT_POLICY_CORRECT, true},
                          {CUFFT_INVERSE, ABFT_POLICY_CORRECT, false}};
    int i = 0;
    for (const Step& st : steps) {
      const std::string what = std::string(sums) + " step " + std::to_string(i++);
      abft_handle_set_policy(h, st.pol);
      abft_handle_set_injector(h, st.fault ? inj : nullptr);
      ASSERT_EQ(abft_cufftExecC2C(pp.ours, reinterpret_cast<cufftComplex*>(in.p), reinterpret_cast<cufftComplex*>(o1.p),
                                  st.dir),
                CUFFT_SUCCESS)
          << what;
      abft_handle_set_injector(h, nullptr);
      ASSERT_EQ(cufftExecC2C(pp.plain, reinterpret_cast<cufftComplex*>(in.p), reinterpret_cast<cufftComplex*>(o2.p),
                             st.dir),
                CUFFT_SUCCESS);
      const abft_status s = abft_cuda_sync(h, nullptr, &r);
      EXPECT_EQ(r.checks, uint64_t(batch)) << what;
      EXPECT_EQ(r.detected, st.fault ? 1u : 0u) << what;
      EXPECT_EQ(r.corrected, st.fault && st.pol == ABFT_POLICY_CORRECT ? 1u : 0u) << what;
      EXPECT_EQ(r.uncorrectable, 0u) << what;
      EXPECT_EQ(s, st.fault && st.pol == ABFT_POLICY_DETECT ? ABFT_STATUS_FAULT_DETECTED : ABFT_STATUS_SUCCESS)
          << what;
      if (st.fault && st.pol == ABFT_POLICY_DETECT) continue;  // (the fault stays in the output)
      const std::vector<float> x = o1.get(tight.size()), y = o2.get(tight.size());
      double worst = 0;
      for (size_t e = 0; e < x.size(); ++e)
        worst = std::max(worst, double(std::fabs(x[e] - y[e])) / (1.0 + std::fabs(y[e])));
      EXPECT_LT(worst, 1e-4) << what;
    }
    abft_handle_set_policy(h, ABFT_POLICY_DEFAULT);
    abft_injector_destroy(inj);
    EXPECT_EQ(abft_cufftDestroy(pp.ours), CUFFT_SUCCESS);
    EXPECT_EQ(cufftDestroy(pp.plain), CUFFT_SUCCESS);
  }
}

// cuFFT's basic layout of a real transform run in place pads each real row to 2 (n/2 + 1):
// the same plan, in place and out of place, against plain cuFFT doing the same.
TEST(CudaFft, CufftSignatureInPlaceRealBatchUsesThePaddedLayout) {
  REQUIRE_DEVICE();
  const int n = 1000, batch = 4, row = 2 * (n / 2 + 1);
  std::vector<float> padded(size_t(row * batch), 0.0f);
  std::mt19937_64 g(41);
  std::uniform_real_distribution<float> u(-1, 1);
  for (int b = 0; b < batch; ++b)
    for (int j = 0; j < n; ++j) padded[size_t(b * row + j)] = u(g);
  DeviceBuffer<float> a(padded), bbuf(padded);
  cufftHandle ours = 0, plain = 0;
  ASSERT_EQ(abft_cufftPlan1d(&ours, n, CUFFT_R2C, batch), CUFFT_SUCCESS);
  ASSERT_EQ(cufftPlan1d(&plain, n, CUFFT_R2C, batch), CUFFT_SUCCESS);
  ASSERT_EQ(abft_cufftExecR2C(ours, a.p, reinterpret_cast<cufftComplex*>(a.p)), CUFFT_SUCCESS);
  ASSERT_EQ(cufftExecR2C(plain, bbuf.p, reinterpret_cast<cufftComplex*>(bbuf.p)), CUFFT_SUCCESS);
  cudaDeviceSynchronize();
  const std::vector<float> x = a.get(padded.size()), y = bbuf.get(padded.size());
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(x[i], y[i], 1e-3f * (1.0f + std::fabs(y[i])));
  abft_report r{};
  ASSERT_EQ(abft_cuda_sync(abft_cufft_handle(), nullptr, &r), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(r.checks, uint64_t(batch));
  EXPECT_EQ(r.detected, 0u);
  abft_cufftDestroy(ours);
  cufftDestroy(plain);
}

// A 2D round trip in place through the cuFFT signatures (basic layout: rows padded to
// 2 (n1/2 + 1) reals): R2C, then C2R of its spectrum, both checked, give n0 n1 times the input.
TEST(CudaFft, CufftSignatureTwoDimensionalRoundTripInPlace) {
  REQUIRE_DEVICE();
  const int n0 = 12, n1 = 18, row = 2 * (n1 / 2 + 1);
  std::vector<float> padded(size_t(n0 * row), 0.0f);
  std::mt19937_64 g(43);
  std::uniform_real_distribution<float> u(-1, 1);
  for (int i = 0; i < n0; ++i)
    for (int j = 0; j < n1; ++j) padded[size_t(i * row + j)] = u(g);
  DeviceBuffer<float> a(padded);
  cufftHandle fwd = 0, inv = 0;
  ASSERT_EQ(abft_cufftPlan2d(&fwd, n0, n1, CUFFT_R2C), CUFFT_SUCCESS);
  ASSERT_EQ(abft_cufftPlan2d(&inv, n0, n1, CUFFT_C2R), CUFFT_SUCCESS);
  ASSERT_EQ(abft_cufftExecR2C(fwd, a.p, reinterpret_cast<cufftComplex*>(a.p)), CUFFT_SUCCESS);
  ASSERT_EQ(abft_cufftExecC2R(inv, reinterpret_cast<cufftComplex*>(a.p), a.p), CUFFT_SUCCESS);
  const std::vector<float> back = a.get(padded.size());
  for (int i = 0; i < n0; ++i)
    for (int j = 0; j < n1; ++j)
      EXPECT_NEAR(back[size_t(i * row + j)], float(n0 * n1) * padded[size_t(i * row + j)], 2e-3f) << i << "," << j;
  abft_report r{};
  ASSERT_EQ(abft_cuda_sync(abft_cufft_handle(), nullptr, &r), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(r.checks, 2u);
  EXPECT_EQ(r.detected, 0u);
  abft_cufftDestroy(fwd);
  abft_cufftDestroy(inv);
}

}  // namespace
