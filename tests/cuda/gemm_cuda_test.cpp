/** \file gemm_cuda_test.cpp
 *  \brief The protected GEMM on device pointers (abft_cuda_sgemm / dgemm, cuda/gemm_protected.cu).
 *
 *  Argument checks run everywhere (they return before the device is touched). Everything else
 *  needs a CUDA device and skips with the reason without one: results against a double
 *  reference for both layouts and every transpose pair, policies, zero detections on clean
 *  data, injected faults (NaN and exponent flips at the output, in the operand copies) counted
 *  on the device, repaired, reported by abft_cuda_sync; binary16 and bfloat16 storage; the
 *  cuBLAS-signature entry points against cuBLAS itself.
 */
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "abft/abft.h"
#include "abft/abft_cublas.h"
#include "abft/abft_cuda.h"
#include "cuda_test_util.hpp"

namespace {

using abft_test::DeviceBuffer;

template <class T>
abft_status gemm(abft_handle_t h, abft_policy pol, abft_layout lay, abft_op ta, abft_op tb, int64_t m, int64_t n,
                 int64_t k, T alpha, const T* A, int64_t lda, const T* B, int64_t ldb, T beta, T* C, int64_t ldc) {
  if constexpr (sizeof(T) == 4)
    return abft_cuda_sgemm(h, nullptr, pol, lay, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  else
    return abft_cuda_dgemm(h, nullptr, pol, lay, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

/** A problem with tight leading dimensions and its double reference. */
template <class T>
struct Problem {
  int64_t m, n, k, lda, ldb, ldc;
  abft_layout lay;
  abft_op ta, tb;
  T alpha = T(1), beta = T(0.5);
  std::vector<T> A, B, C0;
  Problem(int64_t m_, int64_t n_, int64_t k_, abft_layout l, abft_op a, abft_op b, uint64_t seed)
      : m(m_), n(n_), k(k_), lay(l), ta(a), tb(b) {
    const bool rm = l == ABFT_ROW_MAJOR;
    const int64_t ar = a == ABFT_NO_TRANS ? m : k, ac = a == ABFT_NO_TRANS ? k : m;
    const int64_t br = b == ABFT_NO_TRANS ? k : n, bc = b == ABFT_NO_TRANS ? n : k;
    lda = rm ? ac : ar;
    ldb = rm ? bc : br;
    ldc = rm ? n : m;
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    A.resize(size_t(ar * ac));
    B.resize(size_t(br * bc));
    C0.resize(size_t(m * n));
    for (T& x : A) x = T(u(g));
    for (T& x : B) x = T(u(g));
    for (T& x : C0) x = T(u(g));
  }
  double at(const std::vector<T>& M, int64_t ld, int64_t r, int64_t c) const {
    return double(lay == ABFT_ROW_MAJOR ? M[size_t(r * ld + c)] : M[size_t(r + c * ld)]);
  }
  double opA(int64_t i, int64_t p) const { return ta == ABFT_NO_TRANS ? at(A, lda, i, p) : at(A, lda, p, i); }
  double opB(int64_t p, int64_t j) const { return tb == ABFT_NO_TRANS ? at(B, ldb, p, j) : at(B, ldb, j, p); }
  /** Largest |C - reference| over (|alpha| |A||B| + |beta| |C0|) elementwise. */
  double error(const std::vector<T>& C) const {
    double worst = 0;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0, mag = 0;
        for (int64_t p = 0; p < k; ++p) s += opA(i, p) * opB(p, j), mag += std::fabs(opA(i, p) * opB(p, j));
        const double c0 = at(C0, ldc, i, j);
        const double want = double(alpha) * s + double(beta) * c0;
        const double got = at(C, ldc, i, j);
        worst = std::max(worst, std::fabs(got - want) / (std::fabs(double(alpha)) * mag + std::fabs(double(beta) * c0) + 1e-300));
      }
    return worst;
  }
};

TEST(CudaGemmArgs, BadArgumentsAreRejectedBeforeTheDevice) {
  abft_handle_t h = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  float x = 0;
  EXPECT_EQ(abft_cuda_sgemm(nullptr, nullptr, ABFT_POLICY_CORRECT, ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, 1,
                            1, 1, 1.f, &x, 1, &x, 1, 0.f, &x, 1),
            ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(abft_cuda_sgemm(h, nullptr, ABFT_POLICY_CORRECT, ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, -1, 1,
                            1, 1.f, &x, 1, &x, 1, 0.f, &x, 1),
            ABFT_STATUS_INVALID_SIZE);
  EXPECT_EQ(abft_cuda_dgemm(h, nullptr, ABFT_POLICY_CORRECT, ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, 4, 4, 4,
                            1.0, nullptr, 3, nullptr, 4, 0.0, nullptr, 4),
            ABFT_STATUS_INVALID_LD);
  EXPECT_EQ(abft_cuda_sgemm(h, nullptr, ABFT_POLICY_CORRECT, abft_layout(7), ABFT_NO_TRANS, ABFT_NO_TRANS, 1, 1, 1,
                            1.f, &x, 1, &x, 1, 0.f, &x, 1),
            ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(abft_cuda_sgemm(h, nullptr, abft_policy(9), ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, 1, 1, 1, 1.f,
                            &x, 1, &x, 1, 0.f, &x, 1),
            ABFT_STATUS_INVALID_VALUE);
  // m = 0 or n = 0: nothing to do, nothing touched.
  EXPECT_EQ(abft_cuda_sgemm(h, nullptr, ABFT_POLICY_CORRECT, ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, 0, 5, 5,
                            1.f, nullptr, 1, nullptr, 5, 0.f, nullptr, 1),
            ABFT_STATUS_SUCCESS);
  EXPECT_EQ(abft_cuda_release(h), ABFT_STATUS_SUCCESS);
  abft_handle_destroy(h);
}

template <class T>
void check_clean(abft_layout lay, abft_op ta, abft_op tb) {
  abft_handle_t h = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  // (200 x 150 x 700: a transposed operand's strided sums split into several chunks of rows,
  // each tile added up by its last block, gemm_check.cuh.)
  for (auto dims : {std::vector<int64_t>{1, 1, 1}, {37, 45, 29}, {128, 96, 300}, {257, 64, 33}, {200, 150, 700}}) {
    Problem<T> P(dims[0], dims[1], dims[2], lay, ta, tb, 7);
    for (abft_policy pol : {ABFT_POLICY_OFF, ABFT_POLICY_DETECT, ABFT_POLICY_CORRECT}) {
      DeviceBuffer<T> A(P.A), B(P.B), C(P.C0);
      ASSERT_EQ(gemm<T>(h, pol, lay, ta, tb, P.m, P.n, P.k, P.alpha, A.p, P.lda, B.p, P.ldb, P.beta, C.p, P.ldc),
                ABFT_STATUS_SUCCESS);
      abft_report r{};
      ASSERT_EQ(abft_cuda_sync(h, nullptr, &r), ABFT_STATUS_SUCCESS);
      EXPECT_EQ(r.detected, 0u);
      if (pol != ABFT_POLICY_OFF) EXPECT_EQ(r.checks, uint64_t(P.lay == ABFT_ROW_MAJOR ? P.m : P.n));
      const double tol = (sizeof(T) == 4 ? 1e-6 : 1e-14) * double(P.k + 8);
      EXPECT_LE(P.error(C.get(P.C0.size())), tol);
    }
  }
  abft_cuda_release(h);
  abft_handle_destroy(h);
}

TEST(CudaGemm, MatchesReferenceEveryLayoutAndTranspose) {
  REQUIRE_DEVICE();
  for (abft_layout lay : {ABFT_ROW_MAJOR, ABFT_COL_MAJOR})
    for (abft_op ta : {ABFT_NO_TRANS, ABFT_TRANS})
      for (abft_op tb : {ABFT_NO_TRANS, ABFT_TRANS}) {
        check_clean<float>(lay, ta, tb);
        check_clean<double>(lay, ta, tb);
      }
}

/** One fault f (injector seed 11) in a protected call of problem P under CORRECT: it lands, is
 *  detected and repaired to the reference's accuracy. */
template <class T>
void check_fault_in(const Problem<T>& P, const abft_fault& f, const std::string& what) {
  abft_handle_t h = nullptr;
  abft_injector_t inj = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_injector_create(11, &inj), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_injector_add(inj, &f), ABFT_STATUS_SUCCESS);
  DeviceBuffer<T> A(P.A), B(P.B), C(P.C0);
  abft_handle_set_injector(h, inj);
  ASSERT_EQ(gemm<T>(h, ABFT_POLICY_CORRECT, P.lay, P.ta, P.tb, P.m, P.n, P.k, P.alpha, A.p, P.lda, B.p, P.ldb, P.beta,
                    C.p, P.ldc),
            ABFT_STATUS_SUCCESS);
  abft_report r{};
  EXPECT_EQ(abft_cuda_sync(h, nullptr, &r), ABFT_STATUS_SUCCESS);
  abft_fault landed{};
  int count = 0;
  abft_injector_last(inj, &landed, 1, &count);
  ASSERT_EQ(count, 1);
  EXPECT_EQ(landed.applied, 1);
  EXPECT_GE(r.detected, 1u) << what;
  EXPECT_GE(r.corrected, 1u) << what;
  EXPECT_EQ(r.uncorrectable, 0u) << what;
  const double tol = (sizeof(T) == 4 ? 1e-6 : 1e-14) * double(P.k + 8);
  EXPECT_LE(P.error(C.get(P.C0.size())), tol) << what;
  abft_handle_set_injector(h, nullptr);
  abft_injector_destroy(inj);
  abft_cuda_release(h);
  abft_handle_destroy(h);
}

template <class T>
void check_fault(abft_site site, abft_fault_model model, int bit, abft_layout lay) {
  abft_fault f{};
  f.site = site, f.model = model, f.bit = bit, f.row = 5, f.col = 7, f.kpos = 3;
  check_fault_in(Problem<T>(64, 48, 100, lay, ABFT_NO_TRANS, ABFT_TRANS, 3), f,
                 "site " + std::to_string(site) + " model " + std::to_string(model));
}

// op(A) = A^T with beta != 0 (nn.Linear's forward as cuBLAS sees it): C0's sums and backup
// ride on the blocks of A^T's strided launch, a line per group of 256, 128, 64 or 32 threads by
// the number of C0's columns (line_group_threads). Every group size: the clean result, and an
// output fault repaired from the backup those groups stored.
TEST(CudaGemm, C0SumsRidingOnTheTransposedEncodingHoldForEveryGroupSize) {
  REQUIRE_DEVICE();
  for (int64_t n : {int64_t(9), int64_t(800), int64_t(2000), int64_t(4200)}) {
    for (abft_layout lay : {ABFT_COL_MAJOR, ABFT_ROW_MAJOR}) {
      // (Row-major: the engine's column-major view swaps the operands, so op(B) = B^T there.)
      const bool col = lay == ABFT_COL_MAJOR;
      const int64_t m = col ? 160 : n, nn = col ? n : 160;  // (160-element lines: two warps of a group read)
      Problem<float> P(m, nn, 40, lay, col ? ABFT_TRANS : ABFT_NO_TRANS, col ? ABFT_NO_TRANS : ABFT_TRANS, 13);
      const std::string what = std::string(col ? "col" : "row") + "-major, C0 lines " + std::to_string(n);
      abft_handle_t h = nullptr;
      ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
      DeviceBuffer<float> A(P.A), B(P.B), C(P.C0);
      ASSERT_EQ(gemm<float>(h, ABFT_POLICY_CORRECT, P.lay, P.ta, P.tb, P.m, P.n, P.k, P.alpha, A.p, P.lda, B.p, P.ldb,
                            P.beta, C.p, P.ldc),
                ABFT_STATUS_SUCCESS);
      abft_report r{};
      ASSERT_EQ(abft_cuda_sync(h, nullptr, &r), ABFT_STATUS_SUCCESS);
      EXPECT_EQ(r.detected, 0u) << what;
      EXPECT_EQ(r.checks, uint64_t(n)) << what;
      EXPECT_LE(P.error(C.get(P.C0.size())), 1e-6 * double(P.k + 8)) << what;
      abft_cuda_release(h);
      abft_handle_destroy(h);
      abft_fault f{};
      f.site = ABFT_SITE_OUTPUT, f.model = ABFT_FAULT_BITFLIP, f.bit = 30, f.kpos = -1;
      f.row = col ? 5 : n - 3, f.col = col ? n - 3 : 5;
      check_fault_in(P, f, what + ", output fault");
    }
  }
}

TEST(CudaGemm, InjectedFaultsAreRepairedOnTheDevice) {
  REQUIRE_DEVICE();
  for (abft_layout lay : {ABFT_ROW_MAJOR, ABFT_COL_MAJOR}) {
    check_fault<float>(ABFT_SITE_OUTPUT, ABFT_FAULT_NAN, 0, lay);
    check_fault<float>(ABFT_SITE_OUTPUT, ABFT_FAULT_BITFLIP, 30, lay);
    check_fault<double>(ABFT_SITE_OUTPUT, ABFT_FAULT_BITFLIP, 62, lay);
    check_fault<float>(ABFT_SITE_PACKED_A, ABFT_FAULT_POS_INF, 0, lay);
    check_fault<double>(ABFT_SITE_PACKED_B, ABFT_FAULT_BITFLIP, 61, lay);
  }
}

// Data whose lines sum to zero (the gradients after a LayerNorm or a softmax do, across their
// features): a fault in an operand copy moves a whole line of C by a multiple of such a line,
// which a plain sum along that line cannot see. Row-major dW = X^T dY with every row of dY
// centred, a fault in op(A) (X^T): the line of C it moves is a multiple of a row of dY; and
// column-major with every column of op(A) centred, a fault in op(B). The checks weight the rows
// of their column sums (library_row_weight), so both are detected and repaired. (Before the
// weights, both passed the check: an SDC of the cuda-train campaign, trial 151.)
TEST(CudaGemm, FaultsOnZeroSumLinesAreSeen) {
  REQUIRE_DEVICE();
  for (int lay_row : {1, 0}) {
    const abft_layout lay = lay_row ? ABFT_ROW_MAJOR : ABFT_COL_MAJOR;
    Problem<float> P(96, 32, 24, lay, ABFT_TRANS, ABFT_NO_TRANS, 9);
    P.beta = 0.0f;
    // Centre the lines: row-major, each row of B (op(B) = B, k x n); column-major, each column
    // of op(A) = A^T, i.e. each row of the stored k x m A... of length m.
    if (lay_row) {
      for (int64_t p = 0; p < P.k; ++p) {
        double s = 0;
        for (int64_t j = 0; j < P.n; ++j) s += P.B[size_t(p * P.ldb + j)];
        for (int64_t j = 0; j < P.n; ++j) P.B[size_t(p * P.ldb + j)] -= float(s / double(P.n));
      }
    } else {
      for (int64_t p = 0; p < P.k; ++p) {  // op(A)(i, p) = A[p + i lda] (column-major, transposed)
        double s = 0;
        for (int64_t i = 0; i < P.m; ++i) s += P.A[size_t(p + i * P.lda)];
        for (int64_t i = 0; i < P.m; ++i) P.A[size_t(p + i * P.lda)] -= float(s / double(P.m));
      }
    }
    abft_fault f{};
    f.site = lay_row ? ABFT_SITE_PACKED_A : ABFT_SITE_PACKED_B;
    f.model = ABFT_FAULT_BITFLIP, f.bit = 28, f.row = 41, f.col = 7, f.kpos = 5;
    check_fault_in(P, f, lay_row ? "row-major, fault in op(A)" : "column-major, fault in op(B)");
  }
}

/** An injector (seed) with one fault: bit 30 of output element (row, col) flipped. */
abft_injector_t output_flip_injector(uint64_t seed, int64_t row, int64_t col) {
  abft_injector_t inj = nullptr;
  if (abft_injector_create(seed, &inj) != ABFT_STATUS_SUCCESS) return nullptr;
  abft_fault f{};
  f.site = ABFT_SITE_OUTPUT, f.model = ABFT_FAULT_BITFLIP, f.bit = 30, f.row = row, f.col = col, f.kpos = -1;
  abft_injector_add(inj, &f);
  return inj;
}

// The deferred counters (abft_cuda_take_counters / abft_cuda_counters_report): two calls, one
// with a fault and one clean, each taken into its own snapshot without a wait; read afterwards,
// the first reports the detection and repair, the second only its checks; the counters were
// moved, so a sync then finds nothing; the handle's statistics got both as a sync gives them.
TEST(CudaGemm, DeferredCountersReportEachCallAlone) {
  REQUIRE_DEVICE();
  abft_handle_t h = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  abft_injector_t inj = output_flip_injector(19, 3, 4);
  ASSERT_NE(inj, nullptr);
  Problem<float> P(40, 24, 64, ABFT_ROW_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, 5);
  DeviceBuffer<float> A(P.A), B(P.B), C(P.C0);
  const size_t bytes = abft_cuda_counters_bytes();
  ASSERT_GT(bytes, 0u);
  DeviceBuffer<unsigned char> snaps(std::vector<unsigned char>(2 * bytes, 0xFF));
  EXPECT_EQ(abft_cuda_take_counters(nullptr, nullptr, snaps.p), ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(abft_cuda_take_counters(h, nullptr, nullptr), ABFT_STATUS_NULL_POINTER);
  abft_handle_set_injector(h, inj);
  ASSERT_EQ(gemm<float>(h, ABFT_POLICY_CORRECT, P.lay, P.ta, P.tb, P.m, P.n, P.k, P.alpha, A.p, P.lda, B.p, P.ldb,
                        P.beta, C.p, P.ldc),
            ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_cuda_take_counters(h, nullptr, snaps.p), ABFT_STATUS_SUCCESS);
  abft_handle_set_injector(h, nullptr);
  ASSERT_EQ(gemm<float>(h, ABFT_POLICY_CORRECT, P.lay, P.ta, P.tb, P.m, P.n, P.k, P.alpha, A.p, P.lda, B.p, P.ldb,
                        P.beta, C.p, P.ldc),
            ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_cuda_take_counters(h, nullptr, snaps.p + bytes), ABFT_STATUS_SUCCESS);
  const std::vector<unsigned char> host = snaps.get(2 * bytes);
  abft_report r1{}, r2{}, r3{};
  EXPECT_EQ(abft_cuda_counters_report(h, host.data(), &r1), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(abft_cuda_counters_report(h, host.data() + bytes, &r2), ABFT_STATUS_SUCCESS);
  EXPECT_GE(r1.detected, 1u);
  EXPECT_GE(r1.corrected, 1u);
  EXPECT_EQ(r1.uncorrectable, 0u);
  EXPECT_GT(r2.checks, 0u);
  EXPECT_EQ(r2.checks, r1.checks);
  EXPECT_EQ(r2.detected, 0u);
  EXPECT_EQ(abft_cuda_sync(h, nullptr, &r3), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(r3.checks, 0u) << "the counters were taken";
  abft_counters st{};
  ASSERT_EQ(abft_stats_get(h, ABFT_KERNEL_SGEMM, &st), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(st.calls, 2u);
  EXPECT_EQ(st.checks, r1.checks + r2.checks);
  EXPECT_EQ(st.detected, r1.detected);
  EXPECT_EQ(abft_cuda_counters_report(h, nullptr, &r3), ABFT_STATUS_NULL_POINTER);
  abft_injector_destroy(inj);
  abft_cuda_release(h);
  abft_handle_destroy(h);
}

// Counting into snapshots (abft_cuda_count_into): each call's counts written straight into a
// snapshot of its own, no take between them; a sync then finds nothing of theirs; after the
// counters are given back (NULL), the next call counts where a sync reads it. The repair's
// counts follow the detection into the snapshot.
TEST(CudaGemm, CallsCountIntoTheSnapshotTheyAreGiven) {
  REQUIRE_DEVICE();
  abft_handle_t h = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  abft_injector_t inj = output_flip_injector(23, 5, 2);
  ASSERT_NE(inj, nullptr);
  Problem<float> P(40, 24, 64, ABFT_COL_MAJOR, ABFT_TRANS, ABFT_NO_TRANS, 6);
  DeviceBuffer<float> A(P.A), B(P.B), C(P.C0);
  const size_t bytes = abft_cuda_counters_bytes();
  DeviceBuffer<unsigned char> snaps(std::vector<unsigned char>(2 * bytes, 0));
  EXPECT_EQ(abft_cuda_count_into(nullptr, snaps.p), ABFT_STATUS_NULL_POINTER);
  auto call = [&] {
    return gemm<float>(h, ABFT_POLICY_CORRECT, P.lay, P.ta, P.tb, P.m, P.n, P.k, P.alpha, A.p, P.lda, B.p, P.ldb,
                       P.beta, C.p, P.ldc);
  };
  ASSERT_EQ(abft_cuda_count_into(h, snaps.p), ABFT_STATUS_SUCCESS);
  abft_handle_set_injector(h, inj);
  ASSERT_EQ(call(), ABFT_STATUS_SUCCESS);
  abft_handle_set_injector(h, nullptr);
  ASSERT_EQ(abft_cuda_count_into(h, snaps.p + bytes), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(call(), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_cuda_count_into(h, nullptr), ABFT_STATUS_SUCCESS);
  abft_report r0{};
  EXPECT_EQ(abft_cuda_sync(h, nullptr, &r0), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(r0.checks, 0u) << "the calls counted into the snapshots";
  const std::vector<unsigned char> host = snaps.get(2 * bytes);
  abft_report r1{}, r2{}, r3{};
  EXPECT_EQ(abft_cuda_counters_report(h, host.data(), &r1), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(abft_cuda_counters_report(h, host.data() + bytes, &r2), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(r1.checks, uint64_t(P.n));
  EXPECT_GE(r1.detected, 1u);
  EXPECT_EQ(r1.corrected, r1.detected);
  EXPECT_EQ(r2.checks, uint64_t(P.n));
  EXPECT_EQ(r2.detected, 0u);
  ASSERT_EQ(call(), ABFT_STATUS_SUCCESS);  // counted in the handle's own counters again
  EXPECT_EQ(abft_cuda_sync(h, nullptr, &r3), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(r3.checks, uint64_t(P.n));
  abft_counters st{};
  ASSERT_EQ(abft_stats_get(h, ABFT_KERNEL_SGEMM, &st), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(st.calls, 3u);
  EXPECT_EQ(st.checks, r1.checks + r2.checks + r3.checks);
  abft_injector_destroy(inj);
  abft_cuda_release(h);
  abft_handle_destroy(h);
}

// ABFT_CUDA_GEMM_OVERLAP=1 (an experiment): the encoding and the reference's dot products with
// op(B) (column_reference_kernel, or the strided sums of B^T) run on a second stream while the
// product runs, joined before the check, which reads C alone; with beta != 0 the C0 sums and
// backup stay on the call's stream, before the product. Every layout and transpose, beta 0 and
// not, clean and with a fault in each site, on one handle made under the variable (its device
// state reads it once).
TEST(CudaGemm, OverlappedEncodingGivesTheSameResults) {
  REQUIRE_DEVICE();
  // The variable and the handle undone on every way out (an ASSERT returns early).
  struct Guard {
    abft_test::ScopedEnv overlap{"ABFT_CUDA_GEMM_OVERLAP", "1"};
    abft_handle_t h = nullptr;
    ~Guard() {
      if (h) abft_cuda_release(h), abft_handle_destroy(h);
    }
  } guard;
  ASSERT_EQ(abft_handle_create(&guard.h), ABFT_STATUS_SUCCESS);
  abft_handle_t h = guard.h;
  for (abft_layout lay : {ABFT_ROW_MAJOR, ABFT_COL_MAJOR})
    for (abft_op ta : {ABFT_NO_TRANS, ABFT_TRANS})
      for (abft_op tb : {ABFT_NO_TRANS, ABFT_TRANS})
        for (abft_site site : {abft_site(-1), ABFT_SITE_OUTPUT, ABFT_SITE_PACKED_A, ABFT_SITE_PACKED_B})
          for (float beta : {0.0f, 0.5f}) {
            Problem<float> P(96, 80, 130, lay, ta, tb, 9);
            P.beta = beta;
            DeviceBuffer<float> A(P.A), B(P.B), C(P.C0);
            abft_injector_t inj = nullptr;
            if (site != abft_site(-1)) {
              ASSERT_EQ(abft_injector_create(13, &inj), ABFT_STATUS_SUCCESS);
              abft_fault f{};
              f.site = site, f.model = ABFT_FAULT_BITFLIP, f.bit = 30, f.row = 4, f.col = 6, f.kpos = 2;
              ASSERT_EQ(abft_injector_add(inj, &f), ABFT_STATUS_SUCCESS);
              abft_handle_set_injector(h, inj);
            }
            ASSERT_EQ(gemm<float>(h, ABFT_POLICY_CORRECT, lay, ta, tb, P.m, P.n, P.k, P.alpha, A.p, P.lda, B.p, P.ldb,
                                  P.beta, C.p, P.ldc),
                      ABFT_STATUS_SUCCESS);
            abft_report r{};
            EXPECT_EQ(abft_cuda_sync(h, nullptr, &r), ABFT_STATUS_SUCCESS);
            EXPECT_EQ(r.checks, uint64_t(lay == ABFT_ROW_MAJOR ? P.m : P.n));
            // (an operand fault reaches a whole row or column of C: several lines detected)
            if (site == abft_site(-1))
              EXPECT_EQ(r.detected, 0u) << "ta " << ta << " tb " << tb << " beta " << beta;
            else
              EXPECT_GE(r.corrected, 1u) << "site " << site << " ta " << ta << " tb " << tb << " beta " << beta;
            EXPECT_EQ(r.uncorrectable, 0u);
            EXPECT_LE(P.error(C.get(P.C0.size())), 1e-6 * double(P.k + 8)) << "site " << site << " beta " << beta;
            if (inj) {
              abft_handle_set_injector(h, nullptr);
              abft_injector_destroy(inj);
            }
          }
}

/** 16-bit storage: the protected result against a double reference of the stored 16-bit
 *  operands, within the output's rounding plus float accumulation. Layouts: op(A) = A^T and
 *  op(B) = B^T reach the strided-sum kernels of the 16-bit types (split into row chunks at
 *  k = 700 / 704; element loads where a transposed operand's rows are not 16-byte multiples,
 *  k = 700 and n = 150, 16-byte loads and 256-column tiles where they are, k = 704 and n = 152),
 *  and C at an offset of one element with ldc = m + 1 (odd) takes the C0 sums' and backup's head
 *  / tail columns, whose padding and the element before C must stay. With `fault`, one output
 *  element made a NaN before the check: the repair reads the backup of C0 (beta = 0.5) at
 *  that offset and leading dimension, and the result must still match. */
template <class H>
void check_16bit(abft_op ta, abft_op tb, int64_t m, int64_t n, int64_t k, int64_t c_off, int64_t ldc,
                 bool fault = false) {
  constexpr bool bf16 = std::is_same_v<H, __nv_bfloat16>;
  SCOPED_TRACE(std::string(bf16 ? "bf16 " : "f16 ") + (ta == ABFT_TRANS ? "T" : "N") + (tb == ABFT_TRANS ? "T" : "N") +
               " m" + std::to_string(m) + " n" + std::to_string(n) + " k" + std::to_string(k) + " C+" +
               std::to_string(c_off) + " ldc " + std::to_string(ldc) + (fault ? " with a fault" : ""));
  const int64_t lda = ta == ABFT_TRANS ? k : m, ldb = tb == ABFT_TRANS ? n : k;
  std::mt19937_64 g(9);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<H> A(size_t(m * k)), B(size_t(k * n)), C0(size_t(c_off + ldc * n));
  std::vector<double> a(A.size()), b(B.size()), c0(C0.size());
  auto conv = [&](float x) { if constexpr (std::is_same_v<H, __half>) return __float2half(x); else return __float2bfloat16(x); };
  auto back = [&](H x) { if constexpr (std::is_same_v<H, __half>) return double(__half2float(x)); else return double(__bfloat162float(x)); };
  for (size_t i = 0; i < A.size(); ++i) A[i] = conv(u(g)), a[i] = back(A[i]);
  for (size_t i = 0; i < B.size(); ++i) B[i] = conv(u(g)), b[i] = back(B[i]);
  for (size_t i = 0; i < C0.size(); ++i) C0[i] = conv(u(g)), c0[i] = back(C0[i]);
  auto opa = [&](int64_t i, int64_t p) { return a[size_t(ta == ABFT_TRANS ? p + i * lda : i + p * lda)]; };
  auto opb = [&](int64_t p, int64_t j) { return b[size_t(tb == ABFT_TRANS ? j + p * ldb : p + j * ldb)]; };
  abft_handle_t h = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  abft_injector_t inj = nullptr;
  if (fault) {  // C(5, 7) a NaN before the check (from finite data: a fault, whatever the bound)
    ASSERT_EQ(abft_injector_create(17, &inj), ABFT_STATUS_SUCCESS);
    abft_fault f{};
    f.site = ABFT_SITE_OUTPUT, f.model = ABFT_FAULT_NAN, f.row = 5, f.col = 7;
    ASSERT_EQ(abft_injector_add(inj, &f), ABFT_STATUS_SUCCESS);
    abft_handle_set_injector(h, inj);
  }
  DeviceBuffer<H> dA(A), dB(B), dC(C0);
  const abft_status st = bf16 ? abft_cuda_bf16gemm(h, nullptr, ABFT_POLICY_CORRECT, ABFT_COL_MAJOR, ta, tb, m, n, k,
                                                   1.0f, dA.p, lda, dB.p, ldb, 0.5f, dC.p + c_off, ldc)
                              : abft_cuda_hgemm(h, nullptr, ABFT_POLICY_CORRECT, ABFT_COL_MAJOR, ta, tb, m, n, k, 1.0f,
                                                dA.p, lda, dB.p, ldb, 0.5f, dC.p + c_off, ldc);
  ASSERT_EQ(st, ABFT_STATUS_SUCCESS);
  abft_report r{};
  ASSERT_EQ(abft_cuda_sync(h, nullptr, &r), ABFT_STATUS_SUCCESS);
  if (fault) {
    EXPECT_GE(r.corrected, 1u);
    EXPECT_EQ(r.uncorrectable, 0u);
    abft_handle_set_injector(h, nullptr);
    abft_injector_destroy(inj);
  } else {
    EXPECT_EQ(r.detected, 0u);
  }
  EXPECT_EQ(r.checks, uint64_t(n));
  const std::vector<H> C = dC.get(C0.size());
  const double u_out = bf16 ? std::ldexp(1.0, -8) : std::ldexp(1.0, -11);
  for (int64_t i = 0; i < c_off; ++i) EXPECT_EQ(back(C[size_t(i)]), c0[size_t(i)]) << "before C, " << i;
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i) {
      double s = 0, mag = 0;
      for (int64_t p = 0; p < k; ++p) s += opa(i, p) * opb(p, j), mag += std::fabs(opa(i, p) * opb(p, j));
      const size_t at = size_t(c_off + i + j * ldc);
      const double want = s + 0.5 * c0[at];
      ASSERT_LE(std::fabs(back(C[at]) - want), (u_out + 1e-5) * (mag + 0.5 * std::fabs(c0[at])) + 1e-6)
          << "C(" << i << ", " << j << ")";
    }
    for (int64_t i = m; i < ldc; ++i)  // the padding rows of column j
      ASSERT_EQ(back(C[size_t(c_off + i + j * ldc)]), c0[size_t(c_off + i + j * ldc)]) << "padding (" << i << ", " << j << ")";
  }
  abft_cuda_release(h);
  abft_handle_destroy(h);
}

TEST(CudaGemm, HalfAndBfloat16Storage) {
  REQUIRE_DEVICE();
  check_16bit<__half>(ABFT_NO_TRANS, ABFT_NO_TRANS, 96, 80, 128, 0, 96);
  check_16bit<__nv_bfloat16>(ABFT_NO_TRANS, ABFT_NO_TRANS, 96, 80, 128, 0, 96);
}

TEST(CudaGemm, HalfAndBfloat16TransposedAtAnOddOffset) {
  REQUIRE_DEVICE();
  struct Shape {
    int64_t n, k;
  };
  auto every_case = [](auto storage) {
    using H = decltype(storage);
    for (auto [ta, tb] : {std::pair{ABFT_TRANS, ABFT_TRANS}, std::pair{ABFT_TRANS, ABFT_NO_TRANS},
                          std::pair{ABFT_NO_TRANS, ABFT_TRANS}})
      for (const Shape sh : {Shape{150, 700}, Shape{152, 704}})  // element loads, 16-byte loads
        for (bool fault : {false, true}) check_16bit<H>(ta, tb, 200, sh.n, sh.k, 1, 201, fault);
  };
  every_case(__half{});
  every_case(__nv_bfloat16{});
}

TEST(CudaGemm, CublasSignaturesMatchCublas) {
  REQUIRE_DEVICE();
  cublasHandle_t cb = nullptr;
  ASSERT_EQ(cublasCreate(&cb), CUBLAS_STATUS_SUCCESS);
  Problem<float> P(70, 50, 90, ABFT_COL_MAJOR, ABFT_TRANS, ABFT_NO_TRANS, 5);
  DeviceBuffer<float> A(P.A), B(P.B), C1(P.C0), C2(P.C0);
  const float alpha = 1.0f, beta = 0.5f;
  ASSERT_EQ(abft_cublasSgemm(cb, CUBLAS_OP_T, CUBLAS_OP_N, 70, 50, 90, &alpha, A.p, int(P.lda), B.p, int(P.ldb),
                             &beta, C1.p, int(P.ldc)),
            CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cublasSgemm(cb, CUBLAS_OP_T, CUBLAS_OP_N, 70, 50, 90, &alpha, A.p, int(P.lda), B.p, int(P.ldb), &beta,
                        C2.p, int(P.ldc)),
            CUBLAS_STATUS_SUCCESS);
  cudaDeviceSynchronize();
  const std::vector<float> x = C1.get(P.C0.size()), y = C2.get(P.C0.size());
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(x[i], y[i], 1e-4f * (1.0f + std::fabs(y[i])));
  abft_report r{};
  ASSERT_EQ(abft_cuda_sync(abft_cublas_handle(), nullptr, &r), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(r.checks, 50u);
  EXPECT_EQ(r.detected, 0u);
  // A type the engine does not protect is refused, not run.
  int dummy = 0;
  EXPECT_EQ(abft_cublasGemmEx(cb, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &alpha, &dummy, CUDA_R_8I, 1, &dummy,
                              CUDA_R_8I, 1, &beta, &dummy, CUDA_R_32I, 1, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_NOT_SUPPORTED);
  cublasDestroy(cb);
}

// The preload's torch.mm in bfloat16 (scripts/preload/workload.py, a (64 x 96) @ (96 x 80) of
// standard normal data) as PyTorch hands it to cuBLAS: the column-major C^T = B^T A^T,
// cublasGemmEx(N, N, m 80, n 64, k 96, lda 80, ldb 96, ldc 80, CUDA_R_16BF, COMPUTE_32F), with
// ABFT_PRELOAD_INJECT=bitflip,bit=14,site=output (one top-exponent flip per call, a different
// element each call). Every flip changes its element by at least ~2 (an element >= 2 becomes
// ~0, a smaller one huge): each must be detected and repaired to the clean product. Under the
// former bound (u_out sum |A||B| for the output rounding, ~19 here) most flips of elements
// >= 2 passed, and the "corrected" product was 40 % off the clean one.
TEST(CudaGemm, Bfloat16OutputExponentFlipsThroughCublasGemmExAreRepaired) {
  REQUIRE_DEVICE();
  const int m = 80, n = 64, k = 96, lda = 80, ldb = 96, ldc = 80;
  std::mt19937_64 g(1234);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<__nv_bfloat16> A(size_t(lda) * k), B(size_t(ldb) * n), Z(size_t(ldc) * n, __float2bfloat16(0.f));
  for (auto& x : A) x = __float2bfloat16(nd(g));
  for (auto& x : B) x = __float2bfloat16(nd(g));
  auto val = [](__nv_bfloat16 x) { return double(__bfloat162float(x)); };
  // The double reference and sum |A||B| of every element.
  std::vector<double> want(Z.size()), mag(Z.size());
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double s = 0, a = 0;
      for (int p = 0; p < k; ++p) {
        const double t = val(A[size_t(i + p * lda)]) * val(B[size_t(p + j * ldb)]);
        s += t, a += std::fabs(t);
      }
      want[size_t(i + j * ldc)] = s, mag[size_t(i + j * ldc)] = a;
    }
  cublasHandle_t cb = nullptr;
  ASSERT_EQ(cublasCreate(&cb), CUBLAS_STATUS_SUCCESS);
  DeviceBuffer<__nv_bfloat16> dA(A), dB(B), dC(Z);
  const float alpha = 1.0f, beta = 0.0f;
  // The clean product (cuBLAS itself), for the comparison the preload check makes.
  ASSERT_EQ(cublasGemmEx(cb, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA.p, CUDA_R_16BF, lda, dB.p, CUDA_R_16BF,
                         ldb, &beta, dC.p, CUDA_R_16BF, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_SUCCESS);
  const std::vector<__nv_bfloat16> clean = dC.get(Z.size());
  abft_handle_t h = abft_cublas_handle();
  abft_report r0{};
  abft_cuda_sync(h, nullptr, &r0);  // earlier tests' counts
  abft_injector_t inj = nullptr;
  ASSERT_EQ(abft_injector_create(6, &inj), ABFT_STATUS_SUCCESS);
  abft_fault f{};
  f.site = ABFT_SITE_OUTPUT, f.model = ABFT_FAULT_BITFLIP, f.bit = 14, f.row = f.col = f.kpos = -1;
  ASSERT_EQ(abft_injector_add(inj, &f), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_injector_set_rate(inj, 1.0), ABFT_STATUS_SUCCESS);
  abft_handle_set_injector(h, inj);
  int missed = 0, far_from_clean = 0;
  const int calls = 64;
  for (int call = 0; call < calls; ++call) {
    cudaMemcpy(dC.p, Z.data(), Z.size() * sizeof(Z[0]), cudaMemcpyHostToDevice);
    ASSERT_EQ(abft_cublasGemmEx(cb, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA.p, CUDA_R_16BF, lda, dB.p,
                                CUDA_R_16BF, ldb, &beta, dC.p, CUDA_R_16BF, ldc, CUBLAS_COMPUTE_32F,
                                CUBLAS_GEMM_DEFAULT),
              CUBLAS_STATUS_SUCCESS);
    abft_report r{};
    const abft_status st = abft_cuda_sync(h, nullptr, &r);
    abft_fault landed{};
    int count = 0;
    abft_injector_last(inj, &landed, 1, &count);
    ASSERT_EQ(count, 1);
    ASSERT_EQ(landed.applied, 1);
    const double change = std::fabs(landed.corrupted - landed.original);
    const size_t at = size_t(landed.row + landed.col * ldc);
    const std::vector<__nv_bfloat16> C = dC.get(Z.size());
    // A flip of an element just above 2 (a change ~2) may pass: the column's output rounding
    // allows ~1.7 to 2.1 (tests/checksum/library_check_test.cpp counts 9 of 4706).
    const bool may_pass = std::isfinite(change) && change <= 2.5;
    if (r.detected == 0) {
      EXPECT_TRUE(may_pass) << "call " << call << ": C(" << landed.row << ", " << landed.col << ") "
                            << landed.original << " -> " << landed.corrupted << " not detected";
      ++missed;
    } else {
      EXPECT_EQ(st, ABFT_STATUS_SUCCESS);
      EXPECT_EQ(r.corrected, r.detected);
      EXPECT_EQ(r.uncorrectable, 0u);
    }
    for (size_t e = 0; e < C.size(); ++e) {
      const double got = val(C[e]);
      const double tol = (std::ldexp(1.0, -8) + 1e-5) * mag[e] + 1e-6;  // one output rounding, float sums
      if (r.detected == 0 && e == at) {
        EXPECT_LE(std::fabs(got - want[e]), 2.5 + tol) << "call " << call;
        continue;
      }
      ASSERT_TRUE(std::fabs(got - want[e]) <= tol)
          << "call " << call << " element (" << e % ldc << ", " << e / ldc << ") " << got << " want " << want[e]
          << " clean cuBLAS " << val(clean[e]) << "; fault at (" << landed.row << ", " << landed.col << ") "
          << landed.original << " -> " << landed.corrupted << ", detected " << r.detected;
      // A repaired column is recomputed in double: within a bfloat16 unit of cuBLAS's.
      if (std::fabs(got - val(clean[e])) > std::ldexp(1.01, -7) * std::fabs(val(clean[e])) + 1e-5 * mag[e])
        ++far_from_clean;
    }
  }
  EXPECT_LE(missed, 2);
  EXPECT_EQ(far_from_clean, 0);
  abft_handle_set_injector(h, nullptr);
  abft_injector_destroy(inj);
  cublasDestroy(cb);
}

// Under DETECT a NaN at a binary16 output is reported: its column sum is non-finite where the
// bound's magnitude says an overflow is possible (skipped), and the probe recomputes it.
TEST(CudaGemm, HalfNaNOutputIsDetectedUnderDetect) {
  REQUIRE_DEVICE();
  const int64_t m = 256, n = 64, k = 1024;
  std::mt19937_64 g(13);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<__half> A(size_t(m * k)), B(size_t(k * n)), C(size_t(m * n), __float2half(0.f));
  for (auto& x : A) x = __float2half(u(g));
  for (auto& x : B) x = __float2half(u(g));
  abft_handle_t h = nullptr;
  abft_injector_t inj = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_injector_create(3, &inj), ABFT_STATUS_SUCCESS);
  abft_fault f{};
  f.site = ABFT_SITE_OUTPUT, f.model = ABFT_FAULT_NAN, f.row = 9, f.col = 5;
  ASSERT_EQ(abft_injector_add(inj, &f), ABFT_STATUS_SUCCESS);
  abft_handle_set_injector(h, inj);
  DeviceBuffer<__half> dA(A), dB(B), dC(C);
  ASSERT_EQ(abft_cuda_hgemm(h, nullptr, ABFT_POLICY_DETECT, ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, m, n, k, 1.0f,
                            dA.p, m, dB.p, k, 0.0f, dC.p, m),
            ABFT_STATUS_SUCCESS);
  abft_report r{};
  EXPECT_EQ(abft_cuda_sync(h, nullptr, &r), ABFT_STATUS_FAULT_DETECTED);
  EXPECT_GE(r.detected, 1u);
  abft_handle_set_injector(h, nullptr);
  abft_injector_destroy(inj);
  abft_cuda_release(h);
  abft_handle_destroy(h);
}

// A caller's cuBLAS handle in CUBLAS_TENSOR_OP_MATH (float inputs rounded to binary16 by cuBLAS)
// runs in the default mode instead: values beyond binary16's range stay exact, nothing is flagged.
TEST(CudaGemm, CublasTensorOpMathDoesNotRoundFloatInputsToHalf) {
  REQUIRE_DEVICE();
  cublasHandle_t cb = nullptr;
  ASSERT_EQ(cublasCreate(&cb), CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cublasSetMathMode(cb, CUBLAS_TENSOR_OP_MATH), CUBLAS_STATUS_SUCCESS);
  const int m = 64, n = 64, k = 64;
  std::vector<float> A(size_t(m * k), 1e5f), B(size_t(k * n), 3.0f), C(size_t(m * n), 0.0f);
  DeviceBuffer<float> dA(A), dB(B), dC(C);
  const float one = 1.0f, zero = 0.0f;
  ASSERT_EQ(abft_cublasSgemm(cb, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, dA.p, m, dB.p, k, &zero, dC.p, m),
            CUBLAS_STATUS_SUCCESS);
  cudaDeviceSynchronize();
  for (float x : dC.get(C.size())) EXPECT_FLOAT_EQ(x, 1e5f * 3.0f * float(k));
  abft_report r{};
  ASSERT_EQ(abft_cuda_sync(abft_cublas_handle(), nullptr, &r), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(r.detected, 0u);
  cublasDestroy(cb);
}

// One handle used on two streams, calls interleaved, beta != 0 (the C0 copy and the workspace
// are reused): every result is right and nothing is flagged.
TEST(CudaGemm, OneHandleOnTwoStreams) {
  REQUIRE_DEVICE();
  abft_handle_t h = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  cudaStream_t s[2];
  for (auto& x : s) ASSERT_EQ(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking), cudaSuccess);
  std::vector<Problem<float>> P;
  for (int i = 0; i < 6; ++i) P.emplace_back(300 + 7 * i, 200 + 5 * i, 400, ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, 50 + i);
  std::vector<std::unique_ptr<DeviceBuffer<float>>> bufs;
  for (int i = 0; i < 6; ++i) {
    auto& p = P[size_t(i)];
    bufs.push_back(std::make_unique<DeviceBuffer<float>>(p.A));
    bufs.push_back(std::make_unique<DeviceBuffer<float>>(p.B));
    bufs.push_back(std::make_unique<DeviceBuffer<float>>(p.C0));
    ASSERT_EQ(abft_cuda_sgemm(h, s[i % 2], ABFT_POLICY_CORRECT, ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, p.m, p.n,
                              p.k, p.alpha, bufs[size_t(3 * i)]->p, p.lda, bufs[size_t(3 * i + 1)]->p, p.ldb, p.beta,
                              bufs[size_t(3 * i + 2)]->p, p.ldc),
              ABFT_STATUS_SUCCESS);
  }
  abft_report r0{}, r1{};
  ASSERT_EQ(abft_cuda_sync(h, s[0], &r0), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_cuda_sync(h, s[1], &r1), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(r0.detected + r1.detected, 0u);
  for (int i = 0; i < 6; ++i) {
    auto& p = P[size_t(i)];
    EXPECT_LE(p.error(bufs[size_t(3 * i + 2)]->get(p.C0.size())), 1e-6 * double(p.k + 8)) << "call " << i;
  }
  for (auto& x : s) cudaStreamDestroy(x);
  abft_cuda_release(h);
  abft_handle_destroy(h);
}

}  // namespace
