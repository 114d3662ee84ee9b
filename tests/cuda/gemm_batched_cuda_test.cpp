/** \file gemm_batched_cuda_test.cpp
 *  \brief Strided batches of protected GEMMs (abft_cuda_*gemm_strided_batched, and the cuBLAS
 *  signatures' strided-batched entry points, which run the batch as one protected call); and the
 *  engine's door for the preload's cuBLASLt calls, a product of the caller's with a bias
 *  (abft::cuda::GemmExtras: cuBLASLt's bias epilogue).
 *
 *  Argument checks run everywhere. The rest needs a device (or the CUDA emulator, tests/emu) and
 *  skips without one: every layout and transpose pair against a double reference per item, with
 *  odd item strides, a negative one, an operand every item shares (stride 0) and the bytes
 *  between items left as they were; the checks counted per column of every item; faults at the
 *  output and in each operand copy, in an item after the first, repaired; binary16 and bfloat16
 *  storage; the cuBLAS entry points against the engine's own batched call.
 */
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "abft/abft.h"
#include "abft/abft_cublas.h"
#include "abft/abft_cuda.h"
#include "cuda_test_util.hpp"
#include "gemm_cublas_api.hpp"  // (cuda/: the cuBLAS-signature door with the caller's product)
#include "gemm_protected.hpp"  // (cuda/: the engine's internal door, GemmExtras)

namespace {

using abft_test::DeviceBuffer;

double wide(float x) { return x; }
double wide(double x) { return x; }
double wide(__half x) { return double(__half2float(x)); }
double wide(__nv_bfloat16 x) { return double(__bfloat162float(x)); }
template <class T>
T narrow(double x) {
  if constexpr (std::is_same<T, __half>::value) return __float2half_rn(float(x));
  else if constexpr (std::is_same<T, __nv_bfloat16>::value) return __float2bfloat16_rn(float(x));
  else return T(x);
}

/** A strided batch with tight leading dimensions, `pad` elements between items (stride =
 *  item size + pad; pad < 0 for A: stride 0, one A every item shares; b_backwards: B's items
 *  laid out last to first, a negative stride), its sentinels between C's items, and a double
 *  reference per item. */
template <class T>
struct Batch {
  int64_t count, m, n, k, lda, ldb, ldc, sa, sb, sc;
  int64_t a_size, b_size, c_size;  // one item's stored elements
  abft_layout lay;
  abft_op ta, tb;
  double alpha = 1.0, beta = 0.5;
  std::vector<T> A, B, C0;
  int64_t b_first = 0;  // where item 0's B starts in the B array
  Batch(int64_t cnt, int64_t m_, int64_t n_, int64_t k_, abft_layout l, abft_op a, abft_op b, int64_t pad_a,
        int64_t pad_b, int64_t pad_c, bool b_backwards, uint64_t seed)
      : count(cnt), m(m_), n(n_), k(k_), lay(l), ta(a), tb(b) {
    const bool rm = l == ABFT_ROW_MAJOR;
    const int64_t ar = a == ABFT_NO_TRANS ? m : k, ac = a == ABFT_NO_TRANS ? k : m;
    const int64_t br = b == ABFT_NO_TRANS ? k : n, bc = b == ABFT_NO_TRANS ? n : k;
    lda = rm ? ac : ar;
    ldb = rm ? bc : br;
    ldc = rm ? n : m;
    a_size = ar * ac, b_size = br * bc, c_size = m * n;
    sa = pad_a < 0 ? 0 : a_size + pad_a;
    sb = (b_size + pad_b) * (b_backwards ? -1 : 1);
    sc = c_size + pad_c;
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    A.resize(size_t(sa == 0 ? a_size : (count - 1) * sa + a_size));
    B.resize(size_t((count - 1) * (b_size + pad_b) + b_size));
    C0.resize(size_t((count - 1) * sc + c_size));
    for (T& x : A) x = narrow<T>(u(g));
    for (T& x : B) x = narrow<T>(u(g));
    for (T& x : C0) x = narrow<T>(u(g));  // (the pads between items too: sentinels)
    b_first = b_backwards ? (count - 1) * (b_size + pad_b) : 0;
  }
  double at(const T* M, int64_t ld, int64_t r, int64_t c) const {
    return wide(lay == ABFT_ROW_MAJOR ? M[r * ld + c] : M[r + c * ld]);
  }
  const T* a_item(int64_t y) const { return A.data() + y * sa; }
  const T* b_item(int64_t y) const { return B.data() + b_first + y * sb; }
  double opA(int64_t y, int64_t i, int64_t p) const {
    return ta == ABFT_NO_TRANS ? at(a_item(y), lda, i, p) : at(a_item(y), lda, p, i);
  }
  double opB(int64_t y, int64_t p, int64_t j) const {
    return tb == ABFT_NO_TRANS ? at(b_item(y), ldb, p, j) : at(b_item(y), ldb, j, p);
  }
  /** Largest |C - reference| / (|alpha| |A||B| + |beta C0|) over every item's elements. */
  double error(const std::vector<T>& C) const {
    double worst = 0;
    for (int64_t y = 0; y < count; ++y)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double s = 0, mag = 0;
          for (int64_t p = 0; p < k; ++p) s += opA(y, i, p) * opB(y, p, j), mag += std::fabs(opA(y, i, p) * opB(y, p, j));
          const double c0 = at(C0.data() + y * sc, ldc, i, j);
          const double want = alpha * s + beta * c0;
          const double got = at(C.data() + y * sc, ldc, i, j);
          worst = std::max(worst, std::fabs(got - want) / (std::fabs(alpha) * mag + std::fabs(beta * c0) + 1e-300));
        }
    return worst;
  }
  /** Whether every element between C's items is as it was. */
  bool pads_intact(const std::vector<T>& C) const {
    for (int64_t y = 0; y + 1 < count; ++y)
      for (int64_t e = y * sc + c_size; e < (y + 1) * sc; ++e)
        if (wide(C[size_t(e)]) != wide(C0[size_t(e)])) return false;
    return true;
  }
};

template <class T>
abft_status batched(abft_handle_t h, abft_policy pol, const Batch<T>& P, const T* A, const T* B, T* C) {
  const T* b0 = B + P.b_first;
  if constexpr (std::is_same<T, float>::value)
    return abft_cuda_sgemm_strided_batched(h, nullptr, pol, P.lay, P.ta, P.tb, P.m, P.n, P.k, float(P.alpha), A, P.lda,
                                           P.sa, b0, P.ldb, P.sb, float(P.beta), C, P.ldc, P.sc, P.count);
  else if constexpr (std::is_same<T, double>::value)
    return abft_cuda_dgemm_strided_batched(h, nullptr, pol, P.lay, P.ta, P.tb, P.m, P.n, P.k, P.alpha, A, P.lda, P.sa,
                                           b0, P.ldb, P.sb, P.beta, C, P.ldc, P.sc, P.count);
  else if constexpr (std::is_same<T, __half>::value)
    return abft_cuda_hgemm_strided_batched(h, nullptr, pol, P.lay, P.ta, P.tb, P.m, P.n, P.k, float(P.alpha), A, P.lda,
                                           P.sa, b0, P.ldb, P.sb, float(P.beta), C, P.ldc, P.sc, P.count);
  else
    return abft_cuda_bf16gemm_strided_batched(h, nullptr, pol, P.lay, P.ta, P.tb, P.m, P.n, P.k, float(P.alpha), A,
                                              P.lda, P.sa, b0, P.ldb, P.sb, float(P.beta), C, P.ldc, P.sc, P.count);
}

template <class T>
double tolerance(int64_t k) {
  const double u = std::is_same<T, double>::value ? 1e-14 : std::is_same<T, float>::value ? 1e-6 : 8e-3;
  return u * double(k + 8);
}

TEST(CudaGemmBatchedArgs, BadArgumentsAreRejectedBeforeTheDevice) {
  abft_handle_t h = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  float x = 0;
  auto call = [&](abft_handle_t hh, int64_t ldc, int64_t sc, int64_t count) {
    return abft_cuda_sgemm_strided_batched(hh, nullptr, ABFT_POLICY_CORRECT, ABFT_COL_MAJOR, ABFT_NO_TRANS,
                                           ABFT_NO_TRANS, 4, 4, 4, 1.f, &x, 4, 16, &x, 4, 16, 0.f, &x, ldc, sc, count);
  };
  EXPECT_EQ(call(nullptr, 4, 16, 2), ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(call(h, 4, 16, -1), ABFT_STATUS_INVALID_SIZE);
  EXPECT_EQ(call(h, 3, 16, 2), ABFT_STATUS_INVALID_LD);
  // Items of C that overlap: one C is (4 - 1) 4 + 4 = 16 elements.
  EXPECT_EQ(call(h, 4, 15, 2), ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(call(h, 4, -15, 2), ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(call(h, 4, 0, 3), ABFT_STATUS_INVALID_VALUE);
  // No item, or empty items: nothing to do, nothing touched (the pointers are never read).
  EXPECT_EQ(abft_cuda_dgemm_strided_batched(h, nullptr, ABFT_POLICY_CORRECT, ABFT_COL_MAJOR, ABFT_NO_TRANS,
                                            ABFT_NO_TRANS, 4, 4, 4, 1.0, nullptr, 4, 16, nullptr, 4, 16, 0.0, nullptr,
                                            4, 16, 0),
            ABFT_STATUS_SUCCESS);
  EXPECT_EQ(abft_cuda_dgemm_strided_batched(h, nullptr, ABFT_POLICY_CORRECT, ABFT_COL_MAJOR, ABFT_NO_TRANS,
                                            ABFT_NO_TRANS, 0, 4, 4, 1.0, nullptr, 1, 16, nullptr, 4, 16, 0.0, nullptr,
                                            1, 0, 5),
            ABFT_STATUS_SUCCESS);
  EXPECT_EQ(abft_cuda_release(h), ABFT_STATUS_SUCCESS);
  abft_handle_destroy(h);
}

/** Clean batches of `count` items for one layout and transpose pair: the results of every item,
 *  no detection, the checks of every item's columns, the pads between C's items untouched. */
template <class T>
void check_clean(abft_layout lay, abft_op ta, abft_op tb) {
  abft_handle_t h = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  struct Case {
    int64_t count, m, n, k, pad_a, pad_b, pad_c;
    bool b_backwards;
  };
  // (200 x 150 x 700 with 3 items: a transposed operand's strided sums split into chunks of rows
  // per item, each item's tiles added up by their last block; pad_a -1: one A for all items.)
  for (const Case& c : {Case{3, 37, 45, 29, 3, 5, 7, false}, Case{4, 1, 1, 1, 0, 1, 0, true},
                        Case{2, 200, 150, 700, 0, 0, 1, false}, Case{5, 33, 17, 65, -1, 2, 3, true}}) {
    Batch<T> P(c.count, c.m, c.n, c.k, lay, ta, tb, c.pad_a, c.pad_b, c.pad_c, c.b_backwards, 7);
    for (abft_policy pol : {ABFT_POLICY_OFF, ABFT_POLICY_DETECT, ABFT_POLICY_CORRECT}) {
      DeviceBuffer<T> A(P.A), B(P.B), C(P.C0);
      ASSERT_EQ(batched<T>(h, pol, P, A.p, B.p, C.p), ABFT_STATUS_SUCCESS);
      abft_report r{};
      ASSERT_EQ(abft_cuda_sync(h, nullptr, &r), ABFT_STATUS_SUCCESS);
      EXPECT_EQ(r.detected, 0u) << c.m << "x" << c.n << "x" << c.k;
      if (pol != ABFT_POLICY_OFF) EXPECT_EQ(r.checks, uint64_t(c.count * (lay == ABFT_ROW_MAJOR ? c.m : c.n)));
      const std::vector<T> got = C.get(P.C0.size());
      EXPECT_LE(P.error(got), tolerance<T>(c.k)) << c.m << "x" << c.n << "x" << c.k << " policy " << pol;
      EXPECT_TRUE(P.pads_intact(got));
    }
  }
  abft_cuda_release(h);
  abft_handle_destroy(h);
}

TEST(CudaGemmBatched, MatchesReferenceEveryLayoutAndTranspose) {
  REQUIRE_DEVICE();
  for (abft_layout lay : {ABFT_ROW_MAJOR, ABFT_COL_MAJOR})
    for (abft_op ta : {ABFT_NO_TRANS, ABFT_TRANS})
      for (abft_op tb : {ABFT_NO_TRANS, ABFT_TRANS}) {
        check_clean<float>(lay, ta, tb);
        check_clean<double>(lay, ta, tb);
      }
}

TEST(CudaGemmBatched, HalfAndBfloat16Storage) {
  REQUIRE_DEVICE();
  for (abft_op ta : {ABFT_NO_TRANS, ABFT_TRANS}) {
    check_clean<__half>(ABFT_COL_MAJOR, ta, ABFT_TRANS);
    check_clean<__nv_bfloat16>(ABFT_ROW_MAJOR, ta, ABFT_NO_TRANS);
  }
}

/** One fault in item `item` (> 0) of a 3-item batch: landed, detected, repaired, every item right. */
template <class T>
void check_fault(abft_site site, abft_fault_model model, int bit, abft_layout lay, abft_op ta, abft_op tb,
                 int64_t item) {
  abft_handle_t h = nullptr;
  abft_injector_t inj = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_injector_create(11, &inj), ABFT_STATUS_SUCCESS);
  Batch<T> P(3, 40, 36, 70, lay, ta, tb, 2, 3, 5, site == ABFT_SITE_PACKED_B, 3);
  abft_fault f{};
  f.site = site, f.model = model, f.bit = bit, f.row = 5, f.col = 7, f.kpos = 3;
  if (site == ABFT_SITE_PACKED_B) f.col += item * P.n;  // the items stack along op(B)'s columns
  else f.row += item * P.m;                             // and along the output's and op(A)'s rows
  ASSERT_EQ(abft_injector_add(inj, &f), ABFT_STATUS_SUCCESS);
  DeviceBuffer<T> A(P.A), B(P.B), C(P.C0);
  abft_handle_set_injector(h, inj);
  ASSERT_EQ(batched<T>(h, ABFT_POLICY_CORRECT, P, A.p, B.p, C.p), ABFT_STATUS_SUCCESS);
  abft_report r{};
  EXPECT_EQ(abft_cuda_sync(h, nullptr, &r), ABFT_STATUS_SUCCESS);
  abft_fault landed{};
  int count = 0;
  abft_injector_last(inj, &landed, 1, &count);
  ASSERT_EQ(count, 1);
  EXPECT_EQ(landed.applied, 1);
  // It landed in item `item`: the value it replaced is that item's element.
  if (site == ABFT_SITE_PACKED_A) {
    EXPECT_EQ(landed.original, P.opA(item, 5, 3));
  } else if (site == ABFT_SITE_PACKED_B) {
    EXPECT_EQ(landed.original, P.opB(item, 3, 7));
  } else {
    double want = P.beta * P.at(P.C0.data() + item * P.sc, P.ldc, 5, 7), mag = std::fabs(want);
    for (int64_t p = 0; p < P.k; ++p)
      want += P.alpha * P.opA(item, 5, p) * P.opB(item, p, 7), mag += std::fabs(P.opA(item, 5, p) * P.opB(item, p, 7));
    EXPECT_NEAR(landed.original, want, tolerance<T>(P.k) * mag) << "item " << item;
  }
  EXPECT_GE(r.detected, 1u) << "site " << site << " model " << model << " item " << item;
  EXPECT_GE(r.corrected, 1u);
  EXPECT_EQ(r.uncorrectable, 0u);
  const std::vector<T> got = C.get(P.C0.size());
  EXPECT_LE(P.error(got), tolerance<T>(P.k)) << "site " << site << " item " << item;
  EXPECT_TRUE(P.pads_intact(got));
  abft_handle_set_injector(h, nullptr);
  abft_injector_destroy(inj);
  abft_cuda_release(h);
  abft_handle_destroy(h);
}

TEST(CudaGemmBatched, InjectedFaultsInLaterItemsAreRepaired) {
  REQUIRE_DEVICE();
  for (abft_layout lay : {ABFT_ROW_MAJOR, ABFT_COL_MAJOR}) {
    check_fault<float>(ABFT_SITE_OUTPUT, ABFT_FAULT_NAN, 0, lay, ABFT_NO_TRANS, ABFT_TRANS, 2);
    check_fault<float>(ABFT_SITE_OUTPUT, ABFT_FAULT_BITFLIP, 30, lay, ABFT_TRANS, ABFT_NO_TRANS, 1);
    check_fault<double>(ABFT_SITE_OUTPUT, ABFT_FAULT_BITFLIP, 62, lay, ABFT_NO_TRANS, ABFT_NO_TRANS, 2);
    check_fault<float>(ABFT_SITE_PACKED_A, ABFT_FAULT_POS_INF, 0, lay, ABFT_NO_TRANS, ABFT_TRANS, 1);
    check_fault<double>(ABFT_SITE_PACKED_B, ABFT_FAULT_BITFLIP, 61, lay, ABFT_TRANS, ABFT_TRANS, 2);
    check_fault<__nv_bfloat16>(ABFT_SITE_OUTPUT, ABFT_FAULT_BITFLIP, 14, lay, ABFT_NO_TRANS, ABFT_TRANS, 2);
  }
}

/** The cuBLAS signatures' strided-batched entry points (one protected call for the batch) give
 *  the engine's batched results, bit for bit, and count every item's columns. */
TEST(CudaGemmBatched, CublasStridedBatchedSignaturesMatchTheEngine) {
  REQUIRE_DEVICE();
  cublasHandle_t cb = nullptr;
  ASSERT_EQ(cublasCreate(&cb), CUBLAS_STATUS_SUCCESS);
  Batch<float> P(3, 24, 20, 31, ABFT_COL_MAJOR, ABFT_TRANS, ABFT_NO_TRANS, 1, 2, 3, false, 5);
  DeviceBuffer<float> A(P.A), B(P.B), C1(P.C0), C2(P.C0);
  abft_handle_t h = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(batched<float>(h, ABFT_POLICY_CORRECT, P, A.p, B.p, C1.p), ABFT_STATUS_SUCCESS);
  abft_report before{};
  abft_cuda_sync(abft_cublas_handle(), nullptr, &before);
  const float al = float(P.alpha), be = float(P.beta);
  ASSERT_EQ(abft_cublasSgemmStridedBatched(cb, CUBLAS_OP_T, CUBLAS_OP_N, int(P.m), int(P.n), int(P.k), &al, A.p,
                                           int(P.lda), P.sa, B.p, int(P.ldb), P.sb, &be, C2.p, int(P.ldc), P.sc,
                                           int(P.count)),
            CUBLAS_STATUS_SUCCESS);
  abft_report r{};
  ASSERT_EQ(abft_cuda_sync(abft_cublas_handle(), nullptr, &r), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(r.checks, uint64_t(P.count * P.n));
  EXPECT_EQ(r.detected, 0u);
  const std::vector<float> a = C1.get(P.C0.size()), b = C2.get(P.C0.size());
  EXPECT_EQ(a, b);
  // The Ex form, bfloat16, against the engine's bfloat16 batch.
  Batch<__nv_bfloat16> Q(2, 16, 12, 40, ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_TRANS, 0, 4, 8, false, 9);
  DeviceBuffer<__nv_bfloat16> QA(Q.A), QB(Q.B), Q1(Q.C0), Q2(Q.C0);
  ASSERT_EQ(batched<__nv_bfloat16>(h, ABFT_POLICY_CORRECT, Q, QA.p, QB.p, Q1.p), ABFT_STATUS_SUCCESS);
  const float qa = float(Q.alpha), qb = float(Q.beta);
  ASSERT_EQ(abft_cublasGemmStridedBatchedEx(cb, CUBLAS_OP_N, CUBLAS_OP_T, int(Q.m), int(Q.n), int(Q.k), &qa, QA.p,
                                            CUDA_R_16BF, int(Q.lda), Q.sa, QB.p, CUDA_R_16BF, int(Q.ldb), Q.sb, &qb,
                                            Q2.p, CUDA_R_16BF, int(Q.ldc), Q.sc, int(Q.count), CUBLAS_COMPUTE_32F,
                                            CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_SUCCESS);
  const std::vector<__nv_bfloat16> qa1 = Q1.get(Q.C0.size()), qa2 = Q2.get(Q.C0.size());
  for (size_t i = 0; i < qa1.size(); ++i) ASSERT_EQ(wide(qa1[i]), wide(qa2[i])) << i;
  EXPECT_LE(Q.error(qa2), tolerance<__nv_bfloat16>(Q.k));
  // Overlapping outputs are refused, nothing run.
  EXPECT_EQ(abft_cublasSgemmStridedBatched(cb, CUBLAS_OP_T, CUBLAS_OP_N, int(P.m), int(P.n), int(P.k), &al, A.p,
                                           int(P.lda), P.sa, B.p, int(P.ldb), P.sb, &be, C2.p, int(P.ldc), 1, 2),
            CUBLAS_STATUS_INVALID_VALUE);
  abft_cuda_release(h);
  abft_handle_destroy(h);
  cublasDestroy(cb);
}

/** The caller's product with a bias (GemmExtras, cuBLASLt's bias epilogue as the preload hands it
 *  over): here the bias is copied into every column of C and cuBLAS adds the product with beta
 *  = 1, one rounding, as the epilogue does; or (callers_product false) the engine does the same
 *  itself. Clean: no detection, the reference plus the bias;
 *  a fault at the output or in an operand copy (which the caller's product reads): repaired to
 *  the reference plus the bias; argument errors. */
template <class T>
void check_extras(abft_site site, int64_t n = 36, bool callers_product = true) {
  const int64_t m = 40, k = 70;
  Batch<T> P(1, m, n, k, ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_TRANS, 0, 0, 0, false, 12);
  P.beta = 0.0;
  std::vector<T> hbias(static_cast<size_t>(m));
  for (int64_t i = 0; i < m; ++i) hbias[size_t(i)] = narrow<T>(0.25 * double(i % 7) - 0.75);
  DeviceBuffer<T> A(P.A), B(P.B), C(P.C0), bias(hbias);
  cublasHandle_t cb = nullptr;
  ASSERT_EQ(cublasCreate(&cb), CUBLAS_STATUS_SUCCESS);
  const cudaDataType_t type = std::is_same<T, float>::value ? CUDA_R_32F : CUDA_R_16BF;
  int products = 0;
  abft::cuda::GemmExtras ex;
  ex.bias = bias.p;
  if (callers_product) ex.product = [&](const void* a, const void* b) {
    ++products;
    for (int64_t j = 0; j < n; ++j)
      if (cudaMemcpy(C.p + j * P.ldc, bias.p, size_t(m) * sizeof(T), cudaMemcpyDeviceToDevice) != cudaSuccess)
        return false;
    const float one = 1.0f, alpha = float(P.alpha);
    return cublasGemmEx(cb, CUBLAS_OP_N, CUBLAS_OP_T, int(m), int(n), int(k), &alpha, a, type, int(P.lda), b, type,
                        int(P.ldb), &one, C.p, type, int(P.ldc), CUBLAS_COMPUTE_32F,
                        CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS;
  };
  abft_handle_t h = nullptr;
  abft_injector_t inj = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_injector_create(5, &inj), ABFT_STATUS_SUCCESS);
  if (site != ABFT_SITE_COUNT_) {
    abft_fault f{};
    f.site = site, f.model = ABFT_FAULT_BITFLIP, f.bit = std::is_same<T, float>::value ? 30 : 14;
    f.row = 5, f.col = n > 7 ? 7 : 0, f.kpos = 3;
    ASSERT_EQ(abft_injector_add(inj, &f), ABFT_STATUS_SUCCESS);
    abft_handle_set_injector(h, inj);
  }
  const float al = float(P.alpha), be = 0.0f;
  const double ad = P.alpha, bd = 0.0;
  const void* alpha = std::is_same<T, double>::value ? static_cast<const void*>(&ad) : &al;
  const void* beta = std::is_same<T, double>::value ? static_cast<const void*>(&bd) : &be;
  ASSERT_EQ(abft::cuda::protected_gemm(h, nullptr, -1, type, ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_TRANS, m, n, k, alpha,
                                       A.p, P.lda, B.p, P.ldb, beta, C.p, P.ldc, abft::cuda::GemmBatch{}, &ex),
            ABFT_STATUS_SUCCESS);
  abft_report r{};
  ASSERT_EQ(abft_cuda_sync(h, nullptr, &r), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(products, callers_product ? 1 : 0);
  EXPECT_EQ(r.checks, uint64_t(n));
  if (site == ABFT_SITE_COUNT_) {
    EXPECT_EQ(r.detected, 0u);
  } else {
    EXPECT_GE(r.detected, 1u) << "site " << site;
    EXPECT_GE(r.corrected, 1u);
    EXPECT_EQ(r.uncorrectable, 0u);
  }
  // C against alpha op(A) op(B) + bias: the reference's C0 term stands for the bias (beta 1).
  Batch<T> R = P;
  R.beta = 1.0;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) R.C0[size_t(i + j * m)] = hbias[size_t(i)];
  EXPECT_LE(R.error(C.get(P.C0.size())), tolerance<T>(k)) << "site " << site;
  // The engine adds a bias to its own product only with beta = 0; a row-major call has no such
  // door.
  abft::cuda::GemmExtras bias_only;
  bias_only.bias = bias.p;
  const float be_half = 0.5f;
  const double bd_half = 0.5;
  const void* beta_half = std::is_same<T, double>::value ? static_cast<const void*>(&bd_half) : &be_half;
  EXPECT_EQ(abft::cuda::protected_gemm(h, nullptr, -1, type, ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_TRANS, m, n, k, alpha,
                                       A.p, P.lda, B.p, P.ldb, beta_half, C.p, P.ldc, abft::cuda::GemmBatch{},
                                       &bias_only),
            ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(abft::cuda::protected_gemm(h, nullptr, -1, type, ABFT_ROW_MAJOR, ABFT_NO_TRANS, ABFT_TRANS, m, n, k, alpha,
                                       A.p, P.lda, B.p, P.ldb, beta, C.p, P.ldc, abft::cuda::GemmBatch{}, &ex),
            ABFT_STATUS_INVALID_VALUE);
  abft_handle_set_injector(h, nullptr);
  abft_injector_destroy(inj);
  abft_cuda_release(h);
  abft_handle_destroy(h);
  cublasDestroy(cb);
}

TEST(CudaGemmExtras, CallersProductWithABiasIsCheckedAndRepaired) {
  REQUIRE_DEVICE();
  for (abft_site site : {ABFT_SITE_COUNT_, ABFT_SITE_OUTPUT, ABFT_SITE_PACKED_A, ABFT_SITE_PACKED_B}) {
    check_extras<float>(site);
    check_extras<__nv_bfloat16>(site);
  }
  // One column (a decoding step's nn.Linear): the injection's scratch values must not reach the
  // bias sums (they once shared the workspace's doubles after X when n = 1).
  check_extras<float>(ABFT_SITE_OUTPUT, 1);
  check_extras<__nv_bfloat16>(ABFT_SITE_OUTPUT, 1);
  // The engine adds the bias to its own product (no caller's product; beta = 0).
  for (abft_site site : {ABFT_SITE_COUNT_, ABFT_SITE_OUTPUT, ABFT_SITE_PACKED_A}) {
    check_extras<float>(site, 36, false);
    check_extras<__nv_bfloat16>(site, 36, false);
  }
}

/** The cuBLAS-signature door with the program's own product (the preload's cuBLAS entry points):
 *  taken where it rounds as the bound assumes — float under the default math mode, 16-bit data
 *  only when the handle forbids reduced-precision reductions — and then the protected result is
 *  the program's own bit for bit; otherwise the engine's product, still right. A fault in an
 *  operand copy reaches the program's product and is repaired. */
TEST(CudaGemmExtras, CublasDoorTakesTheCallersProductWhereItRoundsOnce) {
  REQUIRE_DEVICE();
  using abft::cuda::caller_product_rounds_as_bound;
  EXPECT_TRUE(caller_product_rounds_as_bound(CUDA_R_32F, CUBLAS_DEFAULT_MATH));
  EXPECT_TRUE(caller_product_rounds_as_bound(CUDA_R_32F, CUBLAS_TF32_TENSOR_OP_MATH));
  EXPECT_FALSE(caller_product_rounds_as_bound(CUDA_R_32F, CUBLAS_TENSOR_OP_MATH));
  for (int a : {int(CUBLAS_GEMM_DEFAULT_TENSOR_OP), int(CUBLAS_GEMM_ALGO7_TENSOR_OP), int(CUBLAS_GEMM_ALGO15_TENSOR_OP)})
    EXPECT_FALSE(caller_product_rounds_as_bound(CUDA_R_32F, CUBLAS_DEFAULT_MATH, a)) << a;
  EXPECT_TRUE(caller_product_rounds_as_bound(CUDA_R_32F, CUBLAS_DEFAULT_MATH, CUBLAS_GEMM_ALGO7));
  EXPECT_TRUE(caller_product_rounds_as_bound(
      CUDA_R_16BF, CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION, CUBLAS_GEMM_DEFAULT_TENSOR_OP));
  EXPECT_FALSE(caller_product_rounds_as_bound(CUDA_R_16BF, CUBLAS_DEFAULT_MATH));
  EXPECT_TRUE(caller_product_rounds_as_bound(CUDA_R_16BF,
                                             CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION));
  cublasHandle_t cb = nullptr;
  ASSERT_EQ(cublasCreate(&cb), CUBLAS_STATUS_SUCCESS);
  auto run = [&](auto tag, int math, bool expect_own, abft_site site,
                 cublasGemmAlgo_t algo = CUBLAS_GEMM_DEFAULT) {
    using T = decltype(tag);
    const cudaDataType_t type = std::is_same<T, float>::value ? CUDA_R_32F : CUDA_R_16BF;
    Batch<T> P(2, 24, 20, 33, ABFT_COL_MAJOR, ABFT_TRANS, ABFT_NO_TRANS, 1, 2, 3, false, 21);
    DeviceBuffer<T> A(P.A), B(P.B), C(P.C0), Cref(P.C0);
    ASSERT_EQ(cublasSetMathMode(cb, cublasMath_t(math)), CUBLAS_STATUS_SUCCESS);
    const float al = float(P.alpha), be = float(P.beta);
    int products = 0;
    const abft::cuda::CallerProduct product = [&](const void* a, const void* b) {
      ++products;
      return cublasGemmStridedBatchedEx(cb, CUBLAS_OP_T, CUBLAS_OP_N, int(P.m), int(P.n), int(P.k), &al, a, type,
                                        int(P.lda), P.sa, b, type, int(P.ldb), P.sb, &be, C.p, type, int(P.ldc), P.sc,
                                        int(P.count), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS;
    };
    abft_handle_t h = abft_cublas_handle();
    abft_injector_t inj = nullptr;
    ASSERT_EQ(abft_injector_create(3, &inj), ABFT_STATUS_SUCCESS);
    if (site != ABFT_SITE_COUNT_) {
      abft_fault f{};
      f.site = site, f.model = ABFT_FAULT_BITFLIP, f.bit = std::is_same<T, float>::value ? 30 : 14;
      f.row = P.m + 4, f.col = 6, f.kpos = 2;  // item 1
      ASSERT_EQ(abft_injector_add(inj, &f), ABFT_STATUS_SUCCESS);
      abft_handle_set_injector(h, inj);
    }
    abft_report before{};
    abft_cuda_sync(h, nullptr, &before);
    ASSERT_EQ(abft::cuda::cublas_gemm_ex(cb, CUBLAS_OP_T, CUBLAS_OP_N, int(P.m), int(P.n), int(P.k), &al, A.p, type,
                                         int(P.lda), P.sa, B.p, type, int(P.ldb), P.sb, &be, C.p, type, int(P.ldc),
                                         P.sc, int(P.count), CUBLAS_COMPUTE_32F, algo, &product),
              CUBLAS_STATUS_SUCCESS);
    abft_report r{};
    ASSERT_EQ(abft_cuda_sync(h, nullptr, &r), ABFT_STATUS_SUCCESS);
    abft_handle_set_injector(h, nullptr);
    abft_injector_destroy(inj);
    EXPECT_EQ(products, expect_own ? 1 : 0) << "math " << math;
    EXPECT_EQ(r.checks, uint64_t(P.count * P.n));
    if (site == ABFT_SITE_COUNT_) {
      EXPECT_EQ(r.detected, 0u);
    } else {
      EXPECT_GE(r.detected, 1u);
      EXPECT_GE(r.corrected, 1u);
      EXPECT_EQ(r.uncorrectable, 0u);
    }
    const std::vector<T> got = C.get(P.C0.size());
    EXPECT_LE(P.error(got), tolerance<T>(P.k));
    if (expect_own && site == ABFT_SITE_COUNT_) {  // the program's own product, bit for bit
      ASSERT_EQ(cublasGemmStridedBatchedEx(cb, CUBLAS_OP_T, CUBLAS_OP_N, int(P.m), int(P.n), int(P.k), &al, A.p, type,
                                           int(P.lda), P.sa, B.p, type, int(P.ldb), P.sb, &be, Cref.p, type,
                                           int(P.ldc), P.sc, int(P.count), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                CUBLAS_STATUS_SUCCESS);
      const std::vector<T> want = Cref.get(P.C0.size());
      EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(T)), 0);
    }
  };
  const int disallow = CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
  for (abft_site site : {ABFT_SITE_COUNT_, ABFT_SITE_OUTPUT, ABFT_SITE_PACKED_A}) {
    run(float{}, CUBLAS_DEFAULT_MATH, true, site);
    run(float{}, CUBLAS_TENSOR_OP_MATH, false, site);  // a mode the bound does not know
    run(float{}, CUBLAS_DEFAULT_MATH, false, site, CUBLAS_GEMM_DEFAULT_TENSOR_OP);  // may round float to 16 bits
    run(__nv_bfloat16{}, CUBLAS_DEFAULT_MATH, false, site);  // split-k partials may be rounded to 16 bits
    run(__nv_bfloat16{}, disallow, true, site);
  }
  cublasDestroy(cb);
}

/** Which strided outputs are disjoint (abft::cuda::outputs_disjoint, shared with the preload):
 *  whole spans apart, or row blocks of one taller matrix; anything else may overlap. And a batch
 *  of row blocks runs and checks every item. */
// An encoding made once (gemm_encode) and given back (GemmExtras::encoded, sgemm_encoded): the
// calls give the result and verdicts they give forming it themselves, for both layouts and
// every transpose pair, beta 0 and not; a fault at the output and one in the encoded operand's
// copy the product reads (a weight corrupted in memory after it was encoded) are detected and
// repaired; the wrong arguments are refused.
TEST(CudaGemmExtras, AGivenEncodingChecksAsTheCallsOwn) {
  REQUIRE_DEVICE();
  abft_handle_t h = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  for (abft_layout lay : {ABFT_ROW_MAJOR, ABFT_COL_MAJOR})
    for (int t = 0; t < 4; ++t)
      for (double beta : {0.0, 0.5}) {
        const abft_op ta = t & 1 ? ABFT_TRANS : ABFT_NO_TRANS, tb = t & 2 ? ABFT_TRANS : ABFT_NO_TRANS;
        Batch<float> P(1, 45, 38, 300, lay, ta, tb, 0, 0, 0, false, 31 + t);  // (k = 300: A^T's tiles split)
        P.beta = beta;
        const std::string what = std::string(lay == ABFT_ROW_MAJOR ? "row" : "col") + "-major " +
                                 (ta == ABFT_TRANS ? "T" : "N") + (tb == ABFT_TRANS ? "T" : "N") + " beta " +
                                 std::to_string(beta);
        DeviceBuffer<float> A(P.A), B(P.B), enc(std::vector<float>(4 * size_t(P.k), 0.0f));
        double* e = reinterpret_cast<double*>(enc.p);
        ASSERT_EQ(abft::cuda::gemm_encode(h, nullptr, CUDA_R_32F, lay, ta, tb, P.m, P.n, P.k, A.p, P.lda, B.p, P.ldb, e),
                  ABFT_STATUS_SUCCESS)
            << what;
        for (bool fault : {false, true})
          for (abft_site site : {ABFT_SITE_OUTPUT, lay == ABFT_COL_MAJOR ? ABFT_SITE_PACKED_A : ABFT_SITE_PACKED_B}) {
            if (!fault && site != ABFT_SITE_OUTPUT) continue;
            DeviceBuffer<float> C(P.C0);
            abft_injector_t inj = nullptr;
            if (fault) {
              abft_fault f{};
              f.site = site, f.model = ABFT_FAULT_BITFLIP, f.bit = 30, f.row = 7, f.col = 5, f.kpos = 11;
              ASSERT_EQ(abft_injector_create(17, &inj), ABFT_STATUS_SUCCESS);
              ASSERT_EQ(abft_injector_add(inj, &f), ABFT_STATUS_SUCCESS);
              abft_handle_set_injector(h, inj);
            }
            ASSERT_EQ(abft::cuda::sgemm_encoded(h, nullptr, ABFT_POLICY_CORRECT, lay, ta, tb, P.m, P.n, P.k, 1.0f, A.p,
                                                P.lda, B.p, P.ldb, float(P.beta), C.p, P.ldc, e),
                      ABFT_STATUS_SUCCESS)
                << what;
            abft_handle_set_injector(h, nullptr);
            abft_report r{};
            EXPECT_EQ(abft_cuda_sync(h, nullptr, &r), ABFT_STATUS_SUCCESS) << what;
            EXPECT_EQ(r.checks, uint64_t(lay == ABFT_ROW_MAJOR ? P.m : P.n)) << what;
            // (A fault in the encoded operand spoils one row of the product: every column.)
            EXPECT_EQ(r.detected, !fault ? 0u : site == ABFT_SITE_OUTPUT ? 1u : r.checks) << what << " site " << site;
            EXPECT_EQ(r.corrected, r.detected) << what;
            EXPECT_LE(P.error(C.get(P.C0.size())), 1e-6 * double(P.k + 8)) << what << " fault " << fault;
            if (inj) abft_injector_destroy(inj);
          }
      }
  // Refused: a strided batch with a given encoding; a null output; a bad layout.
  DeviceBuffer<float> X(std::vector<float>(64 * 64, 1.0f)), Y(std::vector<float>(64 * 64, 0.0f));
  double* e = reinterpret_cast<double*>(Y.p);
  {  // The given encoding is what the check reads: a wrong one (zeros) fails every column.
    DeviceBuffer<float> Z(std::vector<float>(64 * 64, 0.0f)), C(std::vector<float>(8 * 8, 0.0f));
    ASSERT_EQ(abft::cuda::sgemm_encoded(h, nullptr, ABFT_POLICY_DETECT, ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, 8,
                                        8, 8, 1.0f, X.p, 8, X.p, 8, 0.0f, C.p, 8, reinterpret_cast<double*>(Z.p)),
              ABFT_STATUS_SUCCESS);
    abft_report r{};
    abft_cuda_sync(h, nullptr, &r);
    EXPECT_EQ(r.detected, 8u);
  }
  abft::cuda::GemmExtras ex;
  ex.encoded = e;
  const float one = 1.0f, zero = 0.0f;
  EXPECT_EQ(abft::cuda::protected_gemm(h, nullptr, -1, CUDA_R_32F, ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, 8, 8,
                                       8, &one, X.p, 8, X.p, 8, &zero, Y.p + 1024, 8, abft::cuda::GemmBatch{2, 64, 64, 64},
                                       &ex),
            ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(abft::cuda::gemm_encode(h, nullptr, CUDA_R_32F, ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, 8, 8, 8, X.p,
                                    8, X.p, 8, nullptr),
            ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(abft::cuda::gemm_encode(h, nullptr, CUDA_R_32F, abft_layout(9), ABFT_NO_TRANS, ABFT_NO_TRANS, 8, 8, 8, X.p,
                                    8, X.p, 8, e),
            ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(abft::cuda::gemm_encode(h, nullptr, CUDA_R_32F, ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, 8, 8, 8, X.p,
                                    4, X.p, 8, e),
            ABFT_STATUS_INVALID_LD);
  abft_cuda_release(h);
  abft_handle_destroy(h);
}

TEST(CudaGemmBatchedArgs, OutputsMustBeDisjoint) {
  using abft::cuda::outputs_disjoint;
  EXPECT_TRUE(outputs_disjoint(3, 16, 4, 4, 4));    // one 4 x 4 after another
  EXPECT_TRUE(outputs_disjoint(3, -16, 4, 4, 4));
  EXPECT_FALSE(outputs_disjoint(3, 15, 4, 4, 4));
  EXPECT_TRUE(outputs_disjoint(3, 4, 4, 5, 12));    // rows 0-3, 4-7, 8-11 of a 12-row matrix
  EXPECT_TRUE(outputs_disjoint(3, 5, 4, 5, 14));    // with a gap row between
  EXPECT_FALSE(outputs_disjoint(3, 4, 4, 5, 11));   // the third block runs into the next column
  EXPECT_FALSE(outputs_disjoint(2, 3, 4, 5, 12));   // blocks overlap
  EXPECT_FALSE(outputs_disjoint(2, 0, 4, 5, 12));
  EXPECT_TRUE(outputs_disjoint(1, 0, 4, 5, 4));     // one item
  EXPECT_TRUE(outputs_disjoint(2, INT64_MIN, 4, 5, 4));
}

TEST(CudaGemmBatched, RowBlocksOfOneOutputMatchTheReference) {
  REQUIRE_DEVICE();
  // Three 10 x 7 products into rows 0-9, 12-21, 24-33 of one 34 x 7 column-major C (ldc 34).
  const int64_t count = 3, m = 10, n = 7, k = 19, ldc = 34, sc = 12;
  std::mt19937_64 g(8);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<float> A(size_t(count * m * k)), B(size_t(count * k * n)), C0(size_t(ldc * n));
  for (float& x : A) x = float(u(g));
  for (float& x : B) x = float(u(g));
  for (float& x : C0) x = float(u(g));
  DeviceBuffer<float> dA(A), dB(B), dC(C0);
  abft_handle_t h = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_cuda_sgemm_strided_batched(h, nullptr, ABFT_POLICY_CORRECT, ABFT_COL_MAJOR, ABFT_NO_TRANS,
                                            ABFT_NO_TRANS, m, n, k, 1.0f, dA.p, m, m * k, dB.p, k, k * n, 0.5f, dC.p,
                                            ldc, sc, count),
            ABFT_STATUS_SUCCESS);
  abft_report r{};
  ASSERT_EQ(abft_cuda_sync(h, nullptr, &r), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(r.checks, uint64_t(count * n));
  EXPECT_EQ(r.detected, 0u);
  const std::vector<float> C = dC.get(C0.size());
  for (int64_t i = 0; i < ldc; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const int64_t y = i / sc, ii = i % sc;
      double want = C0[size_t(i + j * ldc)], mag = 0;  // rows between the blocks: untouched
      if (ii < m && y < count) {
        double s = 0;
        for (int64_t p = 0; p < k; ++p) {
          const double t = double(A[size_t(y * m * k + ii + p * m)]) * B[size_t(y * k * n + p + j * k)];
          s += t, mag += std::fabs(t);
        }
        want = s + 0.5 * want, mag += std::fabs(0.5 * C0[size_t(i + j * ldc)]);
      }
      EXPECT_NEAR(C[size_t(i + j * ldc)], want, 1e-6 * (mag + 1e-30) * double(k + 8)) << i << "," << j;
    }
  abft_cuda_release(h);
  abft_handle_destroy(h);
}

}  // namespace
