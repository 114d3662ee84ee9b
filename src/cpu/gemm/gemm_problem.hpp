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

/** Fill the caller-visible record of a fault that landed: the value before and after (times
 *  `scale`: an accumulator fault is reported as its effect on the output, alpha * acc). */
template <class T>
void record_fault(const InternalFault& f, T before, T after, T scale = T(1)) {
  f.f->original = static_cast<double>(scale * before);
  f.f->corrupted = static_cast<double>(scale * after);
  f.f->applied = 1;
}

/** B_int given implicitly as the real expansion of a complex matrix (the complex GEMM,
 *  docs/ABFT.md §7): with Q(p, i) = op(X)(i, p) for X column-major complex (interleaved
 *  re, im; leading dimension ldx in complex elements),
 *    B_int(2p, 2i) = Re Q,  B_int(2p, 2i+1) = Im Q,  B_int(2p+1, 2i) = -Im Q,  B_int(2p+1, 2i+1) = Re Q.
 *  Every value is a copy or a negation of an element of X: exact, so the packing (ISA code)
 *  and the repair path (at(), generic code) see the same bits. */
template <class T>
struct ComplexB {
  const T* x = nullptr;  ///< null: B_int is the strided view of Problem::B
  int64_t ldx = 0;
  bool trans = false;    ///< op(X) = X^T or X^H: Q(p, i) = X(p, i); else X(i, p)
  bool conj = false;     ///< op(X) = X^H
  /// Packed as half slivers (set by the driver where the kernel set has the half tiles): a
  /// packed panel holds only the expansion's even rows 2p (Q's row p), and the tiles form the
  /// odd row 2p + 1 from it in registers. The values and the arithmetic are the same.
  bool half = false;

  /** Re and Im of Q(p, i). */
  void q(int64_t p, int64_t i, T& re, T& im) const {
    const T* z = x + 2 * (trans ? p + i * ldx : i + p * ldx);
    re = z[0];
    im = conj ? -z[1] : z[1];
  }
  T at(int64_t p, int64_t j) const {
    T re, im;
    q(p >> 1, j >> 1, re, im);
    if ((p & 1) == 0) return (j & 1) ? im : re;
    return (j & 1) ? re : -im;
  }
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
  ComplexB<T> xb;  ///< when xb.x is set, B_int is this expansion and B is unused
  T* C = nullptr;
  int64_t ldc = 0;
  T alpha = T(1), beta = T(0);
  abft_policy policy = ABFT_POLICY_CORRECT;
  int threads = 1;
  std::vector<InternalFault> faults;

  T a(int64_t i, int64_t p) const { return A[i * rsa + p * csa]; }
  T b(int64_t p, int64_t j) const { return xb.x ? xb.at(p, j) : B[p * rsb + j * csb]; }
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
