/** \file gemm_api.cpp
 *  \brief C entry points abft_sgemm / abft_dgemm: one argument check per routine, mapping of the
 *  caller's layout onto the engine's row-major problem, policy/injection/statistics plumbing.
 */
#include <vector>

#include "core/internal.hpp"
#include "cpu/gemm/gemm_driver.hpp"
#include "cpu/gemm/gemm_entry.hpp"
#include "cpu/gemm/gemm_kernels.hpp"

namespace abft::cpu::gemm {
namespace {

bool valid_op(abft_op o) { return o == ABFT_NO_TRANS || o == ABFT_TRANS || o == ABFT_CONJ_TRANS; }
int64_t max1(int64_t x) { return x > 1 ? x : 1; }

}  // namespace

/** BLAS/CBLAS argument rules. Order: enums, sizes, leading dimensions, pointers. */
template <class T>
abft_status check_args(abft_policy policy, abft_layout layout, abft_op ta, abft_op tb, int64_t m,
                       int64_t n, int64_t k, T alpha, const T* A, int64_t lda, const T* B,
                       int64_t ldb, T beta, const T* C, int64_t ldc) {
  if (layout != ABFT_ROW_MAJOR && layout != ABFT_COL_MAJOR) return ABFT_STATUS_INVALID_VALUE;
  if (!valid_op(ta) || !valid_op(tb)) return ABFT_STATUS_INVALID_VALUE;
  if (policy < ABFT_POLICY_DEFAULT || policy > ABFT_POLICY_CORRECT) return ABFT_STATUS_INVALID_VALUE;
  if (m < 0 || n < 0 || k < 0) return ABFT_STATUS_INVALID_SIZE;
  const bool nta = ta == ABFT_NO_TRANS, ntb = tb == ABFT_NO_TRANS;
  const bool col = layout == ABFT_COL_MAJOR;
  // Rows of each operand as stored (the extent the leading dimension spans).
  const int64_t a_ld_min = col ? max1(nta ? m : k) : max1(nta ? k : m);
  const int64_t b_ld_min = col ? max1(ntb ? k : n) : max1(ntb ? n : k);
  const int64_t c_ld_min = col ? max1(m) : max1(n);
  if (lda < a_ld_min || ldb < b_ld_min || ldc < c_ld_min) return ABFT_STATUS_INVALID_LD;
  const bool reads_ab = alpha != T(0) && k > 0 && m > 0 && n > 0;
  if (m > 0 && n > 0 && !C) return ABFT_STATUS_NULL_POINTER;
  if (reads_ab && (!A || !B)) return ABFT_STATUS_NULL_POINTER;
  (void)beta;
  return ABFT_STATUS_SUCCESS;
}
template abft_status check_args<float>(abft_policy, abft_layout, abft_op, abft_op, int64_t,
                                       int64_t, int64_t, float, const float*, int64_t,
                                       const float*, int64_t, float, const float*, int64_t);

namespace {

/** Map the caller's problem onto C_int (row-major) = A_int * B_int. */
template <class T>
void normalise(Problem<T>& P, abft_layout layout, abft_op ta, abft_op tb, int64_t m, int64_t n,
               int64_t k, const T* A, int64_t lda, const T* B, int64_t ldb, T* C, int64_t ldc) {
  const bool nta = ta == ABFT_NO_TRANS, ntb = tb == ABFT_NO_TRANS;
  P.K = k;
  P.C = C;
  P.ldc = ldc;
  if (layout == ABFT_ROW_MAJOR) {
    P.M = m;
    P.N = n;
    P.A = A;
    P.rsa = nta ? lda : 1;
    P.csa = nta ? 1 : lda;
    P.B = B;
    P.rsb = ntb ? ldb : 1;
    P.csb = ntb ? 1 : ldb;
  } else {  // C^T = op(B)^T op(A)^T, and C^T is row-major with stride ldc
    P.M = n;
    P.N = m;
    P.A = B;
    P.rsa = ntb ? ldb : 1;
    P.csa = ntb ? 1 : ldb;
    P.B = A;
    P.rsb = nta ? lda : 1;
    P.csb = nta ? 1 : lda;
  }
}

/** Caller coordinates -> internal ones (a column-major call swaps roles). */
void map_faults(std::vector<abft_fault>& faults, bool col_major,
                std::vector<InternalFault>& out) {
  for (abft_fault& f : faults) {
    InternalFault g;
    g.f = &f;
    switch (f.site) {
      case ABFT_SITE_OUTPUT:
      case ABFT_SITE_ACCUMULATOR:
        g.site = f.site == ABFT_SITE_OUTPUT ? InternalFault::Out : InternalFault::Acc;
        g.i = col_major ? f.col : f.row;
        g.j = col_major ? f.row : f.col;
        g.p = f.kpos;
        break;
      case ABFT_SITE_PACKED_A:  // op(A)(row, kpos)
        if (col_major) { g.site = InternalFault::PackB; g.p = f.kpos; g.j = f.row; }
        else { g.site = InternalFault::PackA; g.i = f.row; g.p = f.kpos; }
        break;
      case ABFT_SITE_PACKED_B:  // op(B)(kpos, col)
        if (col_major) { g.site = InternalFault::PackA; g.i = f.col; g.p = f.kpos; }
        else { g.site = InternalFault::PackB; g.p = f.kpos; g.j = f.col; }
        break;
      default: continue;
    }
    out.push_back(g);
  }
}

}  // namespace

template <class T>
abft_status gemm_entry(abft_kernel kid, abft_handle_t h, abft_policy policy, abft_layout layout,
                       abft_op ta, abft_op tb, int64_t m, int64_t n, int64_t k, T alpha,
                       const T* A, int64_t lda, const T* B, int64_t ldb, T beta, T* C,
                       int64_t ldc, abft_report* report, bool record,
                       const ComplexB<T>* xb) {
  const abft_status st =
      check_args<T>(policy, layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  if (st != ABFT_STATUS_SUCCESS) return st;
  try {
    Problem<T> P;
    normalise<T>(P, layout, ta, tb, m, n, k, A, lda, B, ldb, C, ldc);
    if (xb) P.xb = *xb;
    P.alpha = alpha;
    P.beta = beta;
    P.policy = core::resolve_policy(h, policy);
    P.threads = core::resolve_threads(h);
    abft_call_info call{kid, m, n, k, 0, 1};
    core::InjectionPlan plan = core::plan_injection(h, call);
    if (!plan.empty()) map_faults(plan.faults, layout == ABFT_COL_MAJOR, P.faults);
    abft_report rep{};
    const abft_status rs = run_gemm<T>(P, active_kernels<T>(), rep);
    core::finish_injection(plan);
    if (record) core::record_call(h, kid, rep);
    if (report) *report = rep;
    return rs;
  } catch (const std::bad_alloc&) {
    return ABFT_STATUS_ALLOC_FAILED;
  } catch (...) {
    return ABFT_STATUS_INTERNAL_ERROR;
  }
}

template abft_status gemm_entry<float>(abft_kernel, abft_handle_t, abft_policy, abft_layout,
                                       abft_op, abft_op, int64_t, int64_t, int64_t, float,
                                       const float*, int64_t, const float*, int64_t, float,
                                       float*, int64_t, abft_report*, bool,
                                       const ComplexB<float>*);
template abft_status gemm_entry<double>(abft_kernel, abft_handle_t, abft_policy, abft_layout,
                                        abft_op, abft_op, int64_t, int64_t, int64_t, double,
                                        const double*, int64_t, const double*, int64_t, double,
                                        double*, int64_t, abft_report*, bool,
                                        const ComplexB<double>*);

}  // namespace abft::cpu::gemm

extern "C" abft_status abft_sgemm(abft_handle_t h, abft_policy policy, abft_layout layout,
                                  abft_op transa, abft_op transb, int64_t m, int64_t n, int64_t k,
                                  float alpha, const float* A, int64_t lda, const float* B,
                                  int64_t ldb, float beta, float* C, int64_t ldc,
                                  abft_report* report) {
  return abft::cpu::gemm::gemm_entry<float>(ABFT_KERNEL_SGEMM, h, policy, layout, transa, transb,
                                            m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, report);
}

extern "C" abft_status abft_dgemm(abft_handle_t h, abft_policy policy, abft_layout layout,
                                  abft_op transa, abft_op transb, int64_t m, int64_t n, int64_t k,
                                  double alpha, const double* A, int64_t lda, const double* B,
                                  int64_t ldb, double beta, double* C, int64_t ldc,
                                  abft_report* report) {
  return abft::cpu::gemm::gemm_entry<double>(ABFT_KERNEL_DGEMM, h, policy, layout, transa, transb,
                                             m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, report);
}
