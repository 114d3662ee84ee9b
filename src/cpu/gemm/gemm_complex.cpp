/** \file gemm_complex.cpp
 *  \brief Complex GEMM on the protected real engine.
 *
 *  A complex product is a real product of twice the depth: with C column-major, C^T is
 *  row-major, and each row j of C^T read as 2m reals (re, im interleaved) satisfies
 *
 *      C'(j, 2i..2i+1) = sum_p [Pr Pi](j,p) * [ Qr  Qi ]
 *                                             [ -Qi Qr ](p,i)
 *
 *  with P = op(B)^T (n x k) and Q = alpha * op(A)^T (k x m). So C' (n x 2m real, leading
 *  dimension 2*ldc) = P' (n x 2k real) * Q' (2k x 2m real): one real GEMM whose row and
 *  column checksums, bounds, correction, injection and statistics are the real engine's.
 *  The flop count equals the complex product's (8mnk). P' is read in place when op(B) = B.
 *  With a real alpha (BLAS callers nearly always pass 1) Q' is never formed: the engine
 *  packs its B panels straight from op(A) (ComplexB in gemm_problem.hpp: copies and
 *  negations only) and scales by alpha itself, in one run. A complex alpha is folded into a
 *  materialised Q', built in column chunks so the workspace stays bounded. A complex beta
 *  scales C first (O(mn)); a real beta (the usual 0 or 1) goes to the engine as is.
 *  docs/ABFT.md ("Complex GEMM") gives the derivation.
 */
#include <omp.h>

#include <algorithm>
#include <memory>
#include <new>

#include "core/internal.hpp"
#include "core/report.hpp"
#include "cpu/gemm/gemm_entry.hpp"

namespace abft::cpu::gemm {
namespace {

template <class R> using cplx = std::complex<R>;

/** Workspace budget of one Q' chunk, in reals (2k x 2mb). */
constexpr int64_t kChunkReals = int64_t(1) << 22;

/** A per-thread buffer kept between calls: a fresh 16-32 MB allocation per call would cost
 *  its page faults and a zero fill every time (a few percent of a 1024^3 product). Grows,
 *  never shrinks; released at thread exit. */
template <class R>
R* workspace(int slot, size_t count) {
  struct Buf {
    std::unique_ptr<R[]> p;
    size_t cap = 0;
  };
  thread_local Buf bufs[2];
  Buf& b = bufs[slot];
  if (b.cap < count) {
    b.p.reset();
    b.p.reset(new R[count]);  // default-initialised: no zero fill
    b.cap = count;
  }
  return b.p.get();
}

/** op(X)(r, c) of a column-major complex matrix. */
template <class R>
inline cplx<R> op_at(const cplx<R>* X, int64_t ld, abft_op o, int64_t r, int64_t c) {
  if (o == ABFT_NO_TRANS) return X[r + c * ld];
  const cplx<R> v = X[c + r * ld];
  return o == ABFT_CONJ_TRANS ? std::conj(v) : v;
}

/** Q' rows 2p, 2p+1 over columns [i0, i0+mb): Q = alpha * op(A)^T, Q(p,i) = alpha*op(A)(i,p). */
template <class R>
void build_q(R* Q, int64_t ldq, const cplx<R>* A, int64_t lda, abft_op ta, cplx<R> alpha,
             int64_t k, int64_t i0, int64_t mb, int threads) {
#pragma omp parallel for num_threads(threads) schedule(static) if (k * mb > 65536)
  for (int64_t p = 0; p < k; ++p) {
    R* q0 = Q + (2 * p) * ldq;
    R* q1 = q0 + ldq;
    for (int64_t i = 0; i < mb; ++i) {
      const cplx<R> v = alpha * op_at(A, lda, ta, i0 + i, p);
      q0[2 * i] = v.real();
      q0[2 * i + 1] = v.imag();
      q1[2 * i] = -v.imag();
      q1[2 * i + 1] = v.real();
    }
  }
}

/** P' = op(B)^T as n x 2k reals when op(B) is not B itself. */
template <class R>
void build_p(R* P, const cplx<R>* B, int64_t ldb, abft_op tb, int64_t n, int64_t k, int threads) {
#pragma omp parallel for num_threads(threads) schedule(static) if (n * k > 65536)
  for (int64_t j = 0; j < n; ++j) {
    cplx<R>* row = reinterpret_cast<cplx<R>*>(P + 2 * k * j);
    for (int64_t p = 0; p < k; ++p) row[p] = op_at(B, ldb, tb, p, j);
  }
}

/** C <- beta*C on the m x n column-major block (beta == 0 writes zeros without reading). */
template <class R>
void scale_c(cplx<R>* C, int64_t ldc, int64_t m, int64_t n, cplx<R> beta) {
  for (int64_t j = 0; j < n; ++j) {
    cplx<R>* c = C + j * ldc;
    if (beta == cplx<R>(0)) std::fill(c, c + m, cplx<R>(0));
    else for (int64_t i = 0; i < m; ++i) c[i] *= beta;
  }
}

/** Column-major complex GEMM, arguments valid, m, n > 0. */
template <class R>
abft_status run_colmajor(abft_kernel kid, abft_handle_t h, abft_policy policy, abft_op ta,
                         abft_op tb, int64_t m, int64_t n, int64_t k, cplx<R> alpha,
                         const cplx<R>* A, int64_t lda, const cplx<R>* B, int64_t ldb,
                         cplx<R> beta, cplx<R>* C, int64_t ldc, abft_report& total) {
  if (alpha == cplx<R>(0) || k == 0) {  // BLAS: C <- beta*C, A and B never read
    if (beta != cplx<R>(1)) scale_c(C, ldc, m, n, beta);
    return ABFT_STATUS_SUCCESS;
  }
  R beta_r = beta.real();
  if (beta.imag() != R(0)) {  // complex beta: scale first, accumulate onto it
    scale_c(C, ldc, m, n, beta);
    beta_r = R(1);
  }
  const int threads = core::resolve_threads(h);
  const R* Pp = reinterpret_cast<const R*>(B);
  int64_t ldp = 2 * ldb;
  if (tb != ABFT_NO_TRANS) {
    R* pbuf = workspace<R>(0, size_t(2 * n * k));
    build_p(pbuf, B, ldb, tb, n, k, threads);
    Pp = pbuf;
    ldp = 2 * k;
  }
  R* Cr = reinterpret_cast<R*>(C);
  if (alpha.imag() == R(0)) {
    // Real alpha (the usual case): Q' is never formed; the engine packs its B panels
    // straight from op(A) (ComplexB) and takes alpha as is. One run, whatever m.
    ComplexB<R> xb;
    xb.x = reinterpret_cast<const R*>(A);
    xb.ldx = lda;
    xb.trans = ta != ABFT_NO_TRANS;
    xb.conj = ta == ABFT_CONJ_TRANS;
    const abft_status st =
        gemm_entry<R>(kid, h, policy, ABFT_ROW_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, n, 2 * m,
                      2 * k, alpha.real(), Pp, ldp, xb.x, 2 * m, beta_r, Cr, 2 * ldc, &total,
                      /*record=*/false, &xb);
    return st;
  }
  const int64_t mb = std::clamp<int64_t>(kChunkReals / (4 * k), 16, m);
  R* qbuf = workspace<R>(1, size_t(2 * k * 2 * mb));
  abft_status worst = ABFT_STATUS_SUCCESS;
  for (int64_t i0 = 0; i0 < m; i0 += mb) {
    const int64_t w = std::min(mb, m - i0);
    build_q(qbuf, 2 * w, A, lda, ta, alpha, k, i0, w, threads);
    abft_report rep{};
    const abft_status st =
        gemm_entry<R>(kid, h, policy, ABFT_ROW_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, n, 2 * w,
                      2 * k, R(1), Pp, ldp, qbuf, 2 * w, beta_r, Cr + 2 * i0, 2 * ldc, &rep,
                      /*record=*/false);
    core::add_report(total, rep);
    worst = core::worse_status(worst, st);
    if (st < 0) break;
  }
  return worst;
}

}  // namespace

template <class R>
abft_status complex_gemm_entry(abft_kernel kid, abft_handle_t h, abft_policy policy,
                               abft_layout layout, abft_op ta, abft_op tb, int64_t m, int64_t n,
                               int64_t k, std::complex<R> alpha, const std::complex<R>* A,
                               int64_t lda, const std::complex<R>* B, int64_t ldb,
                               std::complex<R> beta, std::complex<R>* C, int64_t ldc,
                               abft_report* report) {
  const float reads = alpha != cplx<R>(0) ? 1.f : 0.f;
  const abft_status chk = check_args<float>(
      policy, layout, ta, tb, m, n, k, reads, reinterpret_cast<const float*>(A), lda,
      reinterpret_cast<const float*>(B), ldb, 0.f, reinterpret_cast<const float*>(C), ldc);
  if (chk != ABFT_STATUS_SUCCESS) return chk;
  abft_report total{};
  abft_status st = ABFT_STATUS_SUCCESS;
  if (m > 0 && n > 0) {
    try {
      if (layout == ABFT_COL_MAJOR)
        st = run_colmajor<R>(kid, h, policy, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C,
                             ldc, total);
      else  // row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T
        st = run_colmajor<R>(kid, h, policy, tb, ta, n, m, k, alpha, B, ldb, A, lda, beta, C,
                             ldc, total);
    } catch (const std::bad_alloc&) {
      st = ABFT_STATUS_ALLOC_FAILED;
    } catch (...) {
      st = ABFT_STATUS_INTERNAL_ERROR;
    }
  }
  if (st >= 0) core::record_call(h, kid, total);
  if (report) *report = total;
  return st;
}

template abft_status complex_gemm_entry<float>(abft_kernel, abft_handle_t, abft_policy,
                                               abft_layout, abft_op, abft_op, int64_t, int64_t,
                                               int64_t, std::complex<float>,
                                               const std::complex<float>*, int64_t,
                                               const std::complex<float>*, int64_t,
                                               std::complex<float>, std::complex<float>*,
                                               int64_t, abft_report*);
template abft_status complex_gemm_entry<double>(abft_kernel, abft_handle_t, abft_policy,
                                                abft_layout, abft_op, abft_op, int64_t, int64_t,
                                                int64_t, std::complex<double>,
                                                const std::complex<double>*, int64_t,
                                                const std::complex<double>*, int64_t,
                                                std::complex<double>, std::complex<double>*,
                                                int64_t, abft_report*);

}  // namespace abft::cpu::gemm

extern "C" abft_status abft_cgemm(abft_handle_t h, abft_policy policy, abft_layout layout,
                                  abft_op transa, abft_op transb, int64_t m, int64_t n, int64_t k,
                                  const void* alpha, const void* A, int64_t lda, const void* B,
                                  int64_t ldb, const void* beta, void* C, int64_t ldc,
                                  abft_report* report) {
  using c = std::complex<float>;
  if (!alpha || !beta) return ABFT_STATUS_NULL_POINTER;
  return abft::cpu::gemm::complex_gemm_entry<float>(
      ABFT_KERNEL_CGEMM, h, policy, layout, transa, transb, m, n, k,
      *static_cast<const c*>(alpha), static_cast<const c*>(A), lda, static_cast<const c*>(B),
      ldb, *static_cast<const c*>(beta), static_cast<c*>(C), ldc, report);
}

extern "C" abft_status abft_zgemm(abft_handle_t h, abft_policy policy, abft_layout layout,
                                  abft_op transa, abft_op transb, int64_t m, int64_t n, int64_t k,
                                  const void* alpha, const void* A, int64_t lda, const void* B,
                                  int64_t ldb, const void* beta, void* C, int64_t ldc,
                                  abft_report* report) {
  using c = std::complex<double>;
  if (!alpha || !beta) return ABFT_STATUS_NULL_POINTER;
  return abft::cpu::gemm::complex_gemm_entry<double>(
      ABFT_KERNEL_ZGEMM, h, policy, layout, transa, transb, m, n, k,
      *static_cast<const c*>(alpha), static_cast<const c*>(A), lda, static_cast<const c*>(B),
      ldb, *static_cast<const c*>(beta), static_cast<c*>(C), ldc, report);
}
