/** \file gemm_complex_test.cpp
 *  \brief abft_cgemm / abft_zgemm: every layout, op pair, scalar class and a multi-chunk
 *  shape against a long-double reference; argument errors; injected faults corrected;
 *  statistics recorded once per call.
 */
#include <gtest/gtest.h>

#include <complex>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "abft/abft.h"
#include "abft/checksum/bounds.hpp"

namespace {

template <class R> using cplx = std::complex<R>;
using LD = long double;

template <class R>
abft_status cgemm(abft_handle_t h, abft_layout l, abft_op ta, abft_op tb, int64_t m, int64_t n,
                  int64_t k, cplx<R> alpha, const cplx<R>* A, int64_t lda, const cplx<R>* B,
                  int64_t ldb, cplx<R> beta, cplx<R>* C, int64_t ldc, abft_report* rep) {
  if constexpr (sizeof(R) == 4)
    return abft_cgemm(h, ABFT_POLICY_DEFAULT, l, ta, tb, m, n, k, &alpha, A, lda, B, ldb, &beta,
                      C, ldc, rep);
  else
    return abft_zgemm(h, ABFT_POLICY_DEFAULT, l, ta, tb, m, n, k, &alpha, A, lda, B, ldb, &beta,
                      C, ldc, rep);
}

/** One problem in the caller's layout, with padded leading dimensions. */
template <class R>
struct Problem {
  abft_layout layout;
  abft_op ta, tb;
  int64_t m, n, k, lda, ldb, ldc;
  std::vector<cplx<R>> A, B, C;
  Problem(abft_layout l, abft_op a, abft_op b, int64_t m_, int64_t n_, int64_t k_, uint32_t seed)
      : layout(l), ta(a), tb(b), m(m_), n(n_), k(k_) {
    const bool col = l == ABFT_COL_MAJOR;
    const int64_t ar = (ta == ABFT_NO_TRANS) ? m : k, ac = (ta == ABFT_NO_TRANS) ? k : m;
    const int64_t br = (tb == ABFT_NO_TRANS) ? k : n, bc = (tb == ABFT_NO_TRANS) ? n : k;
    lda = (col ? ar : ac) + 3;
    ldb = (col ? br : bc) + 2;
    ldc = (col ? m : n) + 1;
    std::mt19937 g(seed);
    std::uniform_real_distribution<R> u(-1, 1);
    auto fill = [&](std::vector<cplx<R>>& v, size_t count) {
      v.resize(count);
      for (auto& x : v) x = cplx<R>(u(g), u(g));
    };
    fill(A, size_t(lda * (col ? ac : ar)) + 1);
    fill(B, size_t(ldb * (col ? bc : br)) + 1);
    fill(C, size_t(ldc * (col ? n : m)) + 1);
  }
  // Element (r, c) of a stored matrix in this layout.
  template <class V>
  static V& at(std::vector<V>& v, bool col, int64_t ld, int64_t r, int64_t c) {
    return v[size_t(col ? r + c * ld : r * ld + c)];
  }
  cplx<LD> op_a(int64_t i, int64_t p) {
    const bool col = layout == ABFT_COL_MAJOR;
    const cplx<R> v = ta == ABFT_NO_TRANS ? at(A, col, lda, i, p) : at(A, col, lda, p, i);
    return ta == ABFT_CONJ_TRANS ? cplx<LD>(v.real(), -v.imag()) : cplx<LD>(v.real(), v.imag());
  }
  cplx<LD> op_b(int64_t p, int64_t j) {
    const bool col = layout == ABFT_COL_MAJOR;
    const cplx<R> v = tb == ABFT_NO_TRANS ? at(B, col, ldb, p, j) : at(B, col, ldb, j, p);
    return tb == ABFT_CONJ_TRANS ? cplx<LD>(v.real(), -v.imag()) : cplx<LD>(v.real(), v.imag());
  }
  /** Expected C and the componentwise error allowance. */
  void reference(cplx<R> alpha, cplx<R> beta, std::vector<cplx<LD>>& want, std::vector<LD>& tol) {
    const bool col = layout == ABFT_COL_MAJOR;
    want.assign(size_t(m * n), {});
    tol.assign(size_t(m * n), 0);
    const LD u = abft::checksum::unit_roundoff<R>();
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        cplx<LD> s = 0;
        LD mag = 0;
        for (int64_t p = 0; p < k; ++p) {
          const cplx<LD> t = op_a(i, p) * op_b(p, j);
          s += t;
          mag += std::abs(op_a(i, p)) * std::abs(op_b(p, j));
        }
        const cplx<R> c0 = at(C, col, ldc, i, j);
        const cplx<LD> a(alpha.real(), alpha.imag()), b(beta.real(), beta.imag());
        cplx<LD> r = a * s;
        LD bound = std::abs(a) * mag;
        if (beta != cplx<R>(0)) {
          r += b * cplx<LD>(c0.real(), c0.imag());
          bound += std::abs(b) * std::abs(cplx<LD>(c0.real(), c0.imag()));
        }
        want[size_t(i * n + j)] = r;
        tol[size_t(i * n + j)] = 4 * (2 * k + 8) * u * bound + 1e-30L;
      }
  }
  void expect_matches(const std::vector<cplx<LD>>& want, const std::vector<LD>& tol,
                      const std::string& what) {
    const bool col = layout == ABFT_COL_MAJOR;
    int bad = 0;
    for (int64_t i = 0; i < m && bad < 5; ++i)
      for (int64_t j = 0; j < n && bad < 5; ++j) {
        const cplx<R> got = at(C, col, ldc, i, j);
        const LD err = std::abs(cplx<LD>(got.real(), got.imag()) - want[size_t(i * n + j)]);
        if (!(err <= tol[size_t(i * n + j)])) {
          ADD_FAILURE() << what << ": C(" << i << "," << j << ") = " << got << " err " << (double)err
                        << " > " << (double)tol[size_t(i * n + j)];
          ++bad;
        }
      }
  }
};

template <class R>
void run_case(abft_layout l, abft_op ta, abft_op tb, int64_t m, int64_t n, int64_t k,
              cplx<R> alpha, cplx<R> beta, uint32_t seed) {
  Problem<R> P(l, ta, tb, m, n, k, seed);
  std::vector<cplx<LD>> want;
  std::vector<LD> tol;
  P.reference(alpha, beta, want, tol);
  abft_report rep{};
  const abft_status st = cgemm<R>(nullptr, l, ta, tb, m, n, k, alpha, P.A.data(), P.lda,
                                  P.B.data(), P.ldb, beta, P.C.data(), P.ldc, &rep);
  ASSERT_EQ(st, ABFT_STATUS_SUCCESS) << abft_status_string(st);
  EXPECT_EQ(rep.detected, 0u);
  P.expect_matches(want, tol, std::string(l == ABFT_ROW_MAJOR ? "row " : "col ") +
                                  char('0' + (ta - ABFT_NO_TRANS)) + char('0' + (tb - ABFT_NO_TRANS)));
}

template <class R> class ComplexGemm : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ComplexGemm, Types);

TYPED_TEST(ComplexGemm, EveryLayoutAndOpPair) {
  using R = TypeParam;
  const abft_op ops[] = {ABFT_NO_TRANS, ABFT_TRANS, ABFT_CONJ_TRANS};
  for (abft_layout l : {ABFT_ROW_MAJOR, ABFT_COL_MAJOR})
    for (abft_op ta : ops)
      for (abft_op tb : ops)
        run_case<R>(l, ta, tb, 13, 9, 21, cplx<R>(0.75, -0.5), cplx<R>(0.5, 0.25), 7);
}

// Real alpha takes the other path (the engine packs B straight from op(A), no Q' buffer).
TYPED_TEST(ComplexGemm, EveryLayoutAndOpPairRealAlpha) {
  using R = TypeParam;
  const abft_op ops[] = {ABFT_NO_TRANS, ABFT_TRANS, ABFT_CONJ_TRANS};
  for (abft_layout l : {ABFT_ROW_MAJOR, ABFT_COL_MAJOR})
    for (abft_op ta : ops)
      for (abft_op tb : ops) {
        run_case<R>(l, ta, tb, 13, 9, 21, cplx<R>(-1.25), cplx<R>(0.5, 0.25), 8);
        run_case<R>(l, ta, tb, 37, 41, 300, cplx<R>(1), cplx<R>(0), 9);  // several k blocks
      }
}

TYPED_TEST(ComplexGemm, ScalarClasses) {
  using R = TypeParam;
  const cplx<R> scalars[] = {cplx<R>(0), cplx<R>(1), cplx<R>(-2, 0), cplx<R>(0, 1), cplx<R>(0.3, -1.7)};
  for (cplx<R> a : scalars)
    for (cplx<R> b : scalars)
      run_case<R>(ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_CONJ_TRANS, 6, 11, 5, a, b, 3);
}

TYPED_TEST(ComplexGemm, EdgeSizesAndSeveralChunks) {
  using R = TypeParam;
  for (int64_t s : {1, 2, 17})
    run_case<R>(ABFT_COL_MAJOR, ABFT_TRANS, ABFT_NO_TRANS, s, s + 1, s + 2, cplx<R>(1, 1), cplx<R>(0), 11);
  // k = 2048 makes the Q' workspace hold 512 columns: m = 600 takes two chunks.
  run_case<R>(ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, 600, 5, 2048, cplx<R>(0.5, 0.5), cplx<R>(1), 5);
}

TYPED_TEST(ComplexGemm, BetaZeroNeverReadsC) {
  using R = TypeParam;
  Problem<R> P(ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, 4, 4, 3, 1);
  for (auto& c : P.C) c = cplx<R>(std::numeric_limits<R>::quiet_NaN(), 0);
  std::vector<cplx<LD>> want;
  std::vector<LD> tol;
  P.reference(cplx<R>(1), cplx<R>(0), want, tol);
  ASSERT_EQ(cgemm<R>(nullptr, P.layout, P.ta, P.tb, 4, 4, 3, cplx<R>(1), P.A.data(), P.lda,
                     P.B.data(), P.ldb, cplx<R>(0), P.C.data(), P.ldc, nullptr),
            ABFT_STATUS_SUCCESS);
  P.expect_matches(want, tol, "beta=0 over NaN");
}

TYPED_TEST(ComplexGemm, BadArgumentsWriteNothing) {
  using R = TypeParam;
  Problem<R> P(ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, 4, 4, 4, 1);
  const auto before = P.C;
  const cplx<R> one(1);
  EXPECT_EQ(cgemm<R>(nullptr, P.layout, P.ta, P.tb, -1, 4, 4, one, P.A.data(), P.lda, P.B.data(),
                     P.ldb, one, P.C.data(), P.ldc, nullptr), ABFT_STATUS_INVALID_SIZE);
  EXPECT_EQ(cgemm<R>(nullptr, P.layout, P.ta, P.tb, 4, 4, 4, one, P.A.data(), 2, P.B.data(),
                     P.ldb, one, P.C.data(), P.ldc, nullptr), ABFT_STATUS_INVALID_LD);
  EXPECT_EQ(cgemm<R>(nullptr, P.layout, abft_op(7), P.tb, 4, 4, 4, one, P.A.data(), P.lda,
                     P.B.data(), P.ldb, one, P.C.data(), P.ldc, nullptr), ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(cgemm<R>(nullptr, P.layout, P.ta, P.tb, 4, 4, 4, one, nullptr, P.lda, P.B.data(),
                     P.ldb, one, P.C.data(), P.ldc, nullptr), ABFT_STATUS_NULL_POINTER);
  const abft_status s = sizeof(R) == 4
      ? abft_cgemm(nullptr, ABFT_POLICY_DEFAULT, P.layout, P.ta, P.tb, 4, 4, 4, nullptr, P.A.data(), P.lda, P.B.data(), P.ldb, &one, P.C.data(), P.ldc, nullptr)
      : abft_zgemm(nullptr, ABFT_POLICY_DEFAULT, P.layout, P.ta, P.tb, 4, 4, 4, nullptr, P.A.data(), P.lda, P.B.data(), P.ldb, &one, P.C.data(), P.ldc, nullptr);
  EXPECT_EQ(s, ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(P.C, before);
}

/** A handle whose injector holds one bit flip of the top exponent bit (far above any bound) at
 *  site, random coordinates from seed; released with the object. */
struct OneFault {
  abft_handle_t h = nullptr;
  abft_injector_t inj = nullptr;
  template <class R>
  void arm(abft_site site, uint32_t seed) {
    ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
    ASSERT_EQ(abft_injector_create(seed, &inj), ABFT_STATUS_SUCCESS);
    abft_fault f{};
    f.site = site;
    f.model = ABFT_FAULT_BITFLIP;
    f.bit = sizeof(R) == 4 ? 30 : 62;
    f.row = f.col = f.kpos = -1;
    ASSERT_EQ(abft_injector_add(inj, &f), ABFT_STATUS_SUCCESS);
    ASSERT_EQ(abft_handle_set_injector(h, inj), ABFT_STATUS_SUCCESS);
  }
  ~OneFault() {
    if (h) abft_handle_destroy(h);
    if (inj) abft_injector_destroy(inj);
  }
};

/** Every site, both alpha paths (complex alpha: Q' formed; real alpha: packed from op(A)),
 *  faults far above the bound: each call is repaired to reference accuracy. */
TYPED_TEST(ComplexGemm, FaultsAtEverySiteRepairedOnBothPaths) {
  using R = TypeParam;
  for (abft_site site : {ABFT_SITE_OUTPUT, ABFT_SITE_ACCUMULATOR, ABFT_SITE_PACKED_A, ABFT_SITE_PACKED_B})
    for (cplx<R> alpha : {cplx<R>(0.5, 2), cplx<R>(-0.75)})
      for (abft_op ta : {ABFT_NO_TRANS, ABFT_CONJ_TRANS}) {
        OneFault one;
        ASSERT_NO_FATAL_FAILURE(one.arm<R>(site, 7 + site));
        abft_handle_t h = one.h;
        abft_injector_t inj = one.inj;
        Problem<R> P(ABFT_COL_MAJOR, ta, ABFT_NO_TRANS, 45, 38, 150, 3);
        std::vector<cplx<LD>> want;
        std::vector<LD> tol;
        P.reference(alpha, cplx<R>(1), want, tol);
        abft_report rep{};
        ASSERT_EQ(cgemm<R>(h, P.layout, P.ta, P.tb, P.m, P.n, P.k, alpha, P.A.data(), P.lda,
                           P.B.data(), P.ldb, cplx<R>(1), P.C.data(), P.ldc, &rep),
                  ABFT_STATUS_SUCCESS);
        abft_fault last[4];
        int nlast = 0;
        ASSERT_EQ(abft_injector_last(inj, last, 4, &nlast), ABFT_STATUS_SUCCESS);
        ASSERT_EQ(nlast, 1);
        EXPECT_EQ(last[0].applied, 1) << "site " << site;
        EXPECT_GE(rep.detected, 1u) << "site " << site << " alpha " << alpha;
        P.expect_matches(want, tol, "site " + std::to_string(site));
      }
}

/** An accumulator fault runs its tile element by element through the fault (the kernel's FMA
 *  chains, on whatever the packed B stands for: the full expansion or a half sliver), so only
 *  the faulted element differs from a clean run: it alone is corrected, nothing is recomputed,
 *  and C equals the clean call's bit for bit. Real alpha and op(A) = A take the half-sliver
 *  path where the kernel set has it; a wrong odd row in the element-wise tile fails here (the
 *  repair would otherwise hide it). */
TYPED_TEST(ComplexGemm, AccumulatorFaultLeavesItsNeighboursBitExact) {
  using R = TypeParam;
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    Problem<R> P(ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, 45, 38, 150, seed);
    const cplx<R> alpha(-0.75), beta(0.5);
    std::vector<cplx<R>> clean = P.C;
    ASSERT_EQ(cgemm<R>(nullptr, P.layout, P.ta, P.tb, P.m, P.n, P.k, alpha, P.A.data(), P.lda,
                       P.B.data(), P.ldb, beta, clean.data(), P.ldc, nullptr),
              ABFT_STATUS_SUCCESS);
    OneFault one;
    ASSERT_NO_FATAL_FAILURE(one.arm<R>(ABFT_SITE_ACCUMULATOR, 100 + seed));
    abft_report rep{};
    ASSERT_EQ(cgemm<R>(one.h, P.layout, P.ta, P.tb, P.m, P.n, P.k, alpha, P.A.data(), P.lda,
                       P.B.data(), P.ldb, beta, P.C.data(), P.ldc, &rep),
              ABFT_STATUS_SUCCESS);
    EXPECT_EQ(rep.corrected, 1u) << "seed " << seed;
    EXPECT_EQ(rep.recomputed, 0u) << "seed " << seed;
    EXPECT_EQ(0, std::memcmp(clean.data(), P.C.data(), clean.size() * sizeof(cplx<R>)))
        << "seed " << seed << ": C differs from the clean call";
  }
}

TYPED_TEST(ComplexGemm, InjectedFaultsAreCorrectedAndCountedOnce) {
  using R = TypeParam;
  const abft_kernel kid = sizeof(R) == 4 ? ABFT_KERNEL_CGEMM : ABFT_KERNEL_ZGEMM;
  abft_handle_t h;
  abft_injector_t inj;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_injector_create(42, &inj), ABFT_STATUS_SUCCESS);
  for (abft_site site : {ABFT_SITE_OUTPUT, ABFT_SITE_ACCUMULATOR}) {
    abft_fault f{};
    f.site = site;
    f.model = ABFT_FAULT_BITFLIP;
    f.bit = sizeof(R) == 4 ? 30 : 62;  // top exponent bit: far above any bound
    f.row = f.col = f.kpos = -1;
    ASSERT_EQ(abft_injector_add(inj, &f), ABFT_STATUS_SUCCESS);
  }
  ASSERT_EQ(abft_handle_set_injector(h, inj), ABFT_STATUS_SUCCESS);
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    Problem<R> P(seed % 2 ? ABFT_COL_MAJOR : ABFT_ROW_MAJOR, ABFT_CONJ_TRANS, ABFT_NO_TRANS, 40, 33, 70, seed);
    std::vector<cplx<LD>> want;
    std::vector<LD> tol;
    const cplx<R> alpha(0.5, 2), beta(1, -1);
    P.reference(alpha, beta, want, tol);
    abft_report rep{};
    ASSERT_EQ(cgemm<R>(h, P.layout, P.ta, P.tb, P.m, P.n, P.k, alpha, P.A.data(), P.lda,
                       P.B.data(), P.ldb, beta, P.C.data(), P.ldc, &rep),
              ABFT_STATUS_SUCCESS);
    EXPECT_GE(rep.detected, 1u);
    EXPECT_GE(rep.corrected + rep.recomputed, 1u);
    P.expect_matches(want, tol, "after correction");
  }
  abft_counters c{};
  ASSERT_EQ(abft_stats_get(h, kid, &c), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(c.calls, 4u);
  EXPECT_GE(c.corrected + c.recomputed, 4u);
  abft_handle_destroy(h);
  abft_injector_destroy(inj);
}

}  // namespace
