/** \file gemm_problem.hpp
 *  \brief The internal GEMM problem (row-major C, strided A and B) and the per-call state shared by
 *  the driver (gemm_driver.cpp) and the repair path (gemm_repair.cpp).
 */
#pragma once
#include <cstdint>
#include <vector>

#include "abft/abft.h"

namespace abft::cpu::gemm {

template <class T>
struct KernelSet;

/** A fault in internal coordinates (see gemm_api.cpp for the mapping). */
struct InternalFault {
  enum Site { Out, Acc, PackA, PackB } site;
  int64_t i = 0, j = 0, p = 0;  ///< C_int(i,j); A_int(i,p); B_int(p,j); Acc: after p terms
  abft_fault* f = nullptr;      ///< the caller-visible record to fill in
};

/** C_int = alpha * A_int * B_int + beta * C_int, all row-major views:
 *  A_int(i,p) = A[i*rsa + p*csa], B_int(p,j) = B[p*rsb + j*csb], C_int(i,j) = C[i*ldc + j]. */
template <class T>
struct Problem {
  int64_t M = 0, N = 0, K = 0;
  const T* A = nullptr;
  int64_t rsa = 0, csa = 0;
  const T* B = nullptr;
  int64_t rsb = 0, csb = 0;
  T* C = nullptr;
  int64_t ldc = 0;
  T alpha = T(1), beta = T(0);
  abft_policy policy = ABFT_POLICY_CORRECT;
  int threads = 1;
  std::vector<InternalFault> faults;

  T a(int64_t i, int64_t p) const { return A[i * rsa + p * csa]; }
  T b(int64_t p, int64_t j) const { return B[p * rsb + j * csb]; }
};

/** Per-jc-panel checksum state of one row block (mb rows, nb columns): six
 *  per-column arrays. */
struct BlockSums {
  double* ref;    ///< alpha * (e^T A_blk) B, accumulated over k-chunks
  double* X;      ///< bound on (e^T |A_blk|) |B|, without |alpha|: it also bounds
                  ///< every unscaled partial sum formed in T (overflow test)
  double* obs;    ///< column sums of the stored C (last chunk's epilogue)
  double* c0sum;  ///< column sums of C0 (beta != 0)
  double* c0abs;  ///< column sums of |C0|
  double* U;      ///< (mb + 2) sum_p |b_pj| + sum_p sum_i |a_ip|: scale of what
                  ///< flush-to-zero of subnormals can lose
};
constexpr int64_t kSumArrays = 6;

/** Everything the verification/repair of one block needs. */
template <class T>
struct PanelView {
  const Problem<T>* P;
  const KernelSet<T>* ks;
  int64_t jc, nb;      ///< panel columns [jc, jc+nb)
  int64_t kc;          ///< k-chunk length actually used (enters the bound)
  const T* backup;     ///< C0 of this panel (M x nb, row stride ldbk), or null when beta == 0
  int64_t ldbk;
  bool beta_nonzero;
};

/** Verify one row block [i0, i0+mb) of a finished panel; repair per policy.
 *  forced_rows: rows whose packed A changed (fingerprint); forced_cols:
 *  panel-relative columns whose packed B changed. Accumulates into rep.
 *  Returns false when a fault remains (uncorrectable, or detect-only). */
template <class T>
bool verify_block(const PanelView<T>& pv, int64_t i0, int64_t mb, const BlockSums& s,
                  const std::vector<int64_t>& forced_rows, const std::vector<int64_t>& forced_cols,
                  abft_report& rep);

}  // namespace abft::cpu::gemm
