/** \file level3_entry.cpp
 *  \brief Argument checks of the Level-3 routines, in the reference BLAS's order, and the
 *  dispatch to the core.
 */
#include "blas/level3/level3_entry.hpp"

#include <cctype>
#include <cstring>
#include <string>

#include "blas/common/blas_error.hpp"
#include "blas/level3/level3.hpp"

namespace abft::blas::fortran {
namespace {

bool is_herm(Routine r) {
  return r == Routine::CHEMM || r == Routine::ZHEMM || r == Routine::CHERK ||
         r == Routine::ZHERK || r == Routine::CHER2K || r == Routine::ZHER2K;
}

/** TRANS of the rank-k updates: N, T, C for real types; N, T for complex symmetric;
 *  N, C for Hermitian. */
template <class T>
bool parse_rank_trans(char c, bool herm, Op& op) {
  if (!parse_op(c, op)) return false;
  if constexpr (is_complex_v<T>) {
    if (herm) return op != Op::T;
    return op != Op::C;
  }
  return true;
}

}  // namespace

void report(const Caller& who, blas_int info) {
  const char* name = routine_name(who.routine);
  if (who.cblas) {
    const std::string full = std::string("cblas_") + name;
    report_cblas(full.c_str(), info + 1);
  } else {
    char upper_name[8] = {0};
    for (std::size_t i = 0; i < 7 && name[i]; ++i) upper_name[i] = char(std::toupper(name[i]));
    report_f77(upper_name, info);
  }
}

template <class T>
void gemm(const Caller& who, char transa, char transb, blas_int m, blas_int n, blas_int k,
          T alpha, const T* A, blas_int lda, const T* B, blas_int ldb, T beta, T* C,
          blas_int ldc) {
  Op ta = Op::N, tb = Op::N;
  const bool ok_a = parse_op(transa, ta), ok_b = parse_op(transb, tb);
  const blas_int nrowa = ta == Op::N ? m : k, nrowb = tb == Op::N ? k : n;
  blas_int info = 0;
  if (!ok_a) info = 1;
  else if (!ok_b) info = 2;
  else if (m < 0) info = 3;
  else if (n < 0) info = 4;
  else if (k < 0) info = 5;
  else if (lda < max1(nrowa)) info = 8;
  else if (ldb < max1(nrowb)) info = 10;
  else if (ldc < max1(m)) info = 13;
  if (info) return report(who, info);
  l3::gemm<T>(who.routine, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

template <class T>
void symm(const Caller& who, char side, char uplo, blas_int m, blas_int n, T alpha, const T* A,
          blas_int lda, const T* B, blas_int ldb, T beta, T* C, blas_int ldc) {
  Side sd = Side::L;
  Uplo ul = Uplo::U;
  const bool ok_s = parse_side(side, sd), ok_u = parse_uplo(uplo, ul);
  const blas_int nrowa = sd == Side::L ? m : n;
  blas_int info = 0;
  if (!ok_s) info = 1;
  else if (!ok_u) info = 2;
  else if (m < 0) info = 3;
  else if (n < 0) info = 4;
  else if (lda < max1(nrowa)) info = 7;
  else if (ldb < max1(m)) info = 9;
  else if (ldc < max1(m)) info = 12;
  if (info) return report(who, info);
  l3::symm<T>(who.routine, is_herm(who.routine), sd, ul, m, n, alpha, A, lda, B, ldb, beta, C, ldc);
}

/** The checks ?SYRK/?HERK and ?SYR2K/?HER2K share, in the reference's order (uplo, trans,
 *  n, k, lda): 0 or the failing position. Sets ul, tr and the rows of A as stored. */
template <class T>
blas_int rank_k_checks(bool herm, char uplo, char trans, blas_int n, blas_int k, blas_int lda,
                       Uplo& ul, Op& tr, blas_int& nrowa) {
  const bool ok_u = parse_uplo(uplo, ul), ok_t = parse_rank_trans<T>(trans, herm, tr);
  nrowa = tr == Op::N ? n : k;
  if (!ok_u) return 1;
  if (!ok_t) return 2;
  if (n < 0) return 3;
  if (k < 0) return 4;
  if (lda < max1(nrowa)) return 7;
  return 0;
}

template <class T>
void syrk(const Caller& who, char uplo, char trans, blas_int n, blas_int k, T alpha,
          const T* A, blas_int lda, T beta, T* C, blas_int ldc) {
  const bool herm = is_herm(who.routine);
  Uplo ul = Uplo::U;
  Op tr = Op::N;
  blas_int nrowa = 0;
  blas_int info = rank_k_checks<T>(herm, uplo, trans, n, k, lda, ul, tr, nrowa);
  if (!info && ldc < max1(n)) info = 10;
  if (info) return report(who, info);
  l3::syrk<T>(who.routine, herm, ul, tr, n, k, alpha, A, lda, beta, C, ldc);
}

template <class T>
void syr2k(const Caller& who, char uplo, char trans, blas_int n, blas_int k, T alpha,
           const T* A, blas_int lda, const T* B, blas_int ldb, T beta, T* C, blas_int ldc) {
  const bool herm = is_herm(who.routine);
  Uplo ul = Uplo::U;
  Op tr = Op::N;
  blas_int nrowa = 0;
  blas_int info = rank_k_checks<T>(herm, uplo, trans, n, k, lda, ul, tr, nrowa);
  if (!info && ldb < max1(nrowa)) info = 9;
  else if (!info && ldc < max1(n)) info = 12;
  if (info) return report(who, info);
  l3::syr2k<T>(who.routine, herm, ul, tr, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

namespace {

/** The shared check of TRMM and TRSM (identical in the reference). */
blas_int check_tri(char side, char uplo, char transa, char diag, blas_int m, blas_int n,
                   blas_int lda, blas_int ldb, Side& sd, Uplo& ul, Op& ta, Diag& dg) {
  const bool ok_s = parse_side(side, sd), ok_u = parse_uplo(uplo, ul);
  const bool ok_t = parse_op(transa, ta), ok_d = parse_diag(diag, dg);
  const blas_int nrowa = sd == Side::L ? m : n;
  if (!ok_s) return 1;
  if (!ok_u) return 2;
  if (!ok_t) return 3;
  if (!ok_d) return 4;
  if (m < 0) return 5;
  if (n < 0) return 6;
  if (lda < max1(nrowa)) return 9;
  if (ldb < max1(m)) return 11;
  return 0;
}

}  // namespace

/** TRMM and TRSM share their arguments and their check (check_tri). */
template <class T, class Core>
void tri_entry(const Caller& who, char side, char uplo, char transa, char diag, blas_int m,
               blas_int n, T alpha, const T* A, blas_int lda, T* B, blas_int ldb, Core core) {
  Side sd = Side::L;
  Uplo ul = Uplo::U;
  Op ta = Op::N;
  Diag dg = Diag::N;
  if (const blas_int info = check_tri(side, uplo, transa, diag, m, n, lda, ldb, sd, ul, ta, dg))
    return report(who, info);
  core(who.routine, sd, ul, ta, dg, m, n, alpha, A, lda, B, ldb);
}

template <class T>
void trmm(const Caller& who, char side, char uplo, char transa, char diag, blas_int m,
          blas_int n, T alpha, const T* A, blas_int lda, T* B, blas_int ldb) {
  tri_entry<T>(who, side, uplo, transa, diag, m, n, alpha, A, lda, B, ldb, &l3::trmm<T>);
}

template <class T>
void trsm(const Caller& who, char side, char uplo, char transa, char diag, blas_int m,
          blas_int n, T alpha, const T* A, blas_int lda, T* B, blas_int ldb) {
  tri_entry<T>(who, side, uplo, transa, diag, m, n, alpha, A, lda, B, ldb, &l3::trsm<T>);
}

#define ABFT_L3_ENTRIES(T)                                                                      \
  template void gemm<T>(const Caller&, char, char, blas_int, blas_int, blas_int, T, const T*,   \
                        blas_int, const T*, blas_int, T, T*, blas_int);                          \
  template void symm<T>(const Caller&, char, char, blas_int, blas_int, T, const T*, blas_int,   \
                        const T*, blas_int, T, T*, blas_int);                                    \
  template void syrk<T>(const Caller&, char, char, blas_int, blas_int, T, const T*, blas_int, T, \
                        T*, blas_int);                                                           \
  template void syr2k<T>(const Caller&, char, char, blas_int, blas_int, T, const T*, blas_int,  \
                         const T*, blas_int, T, T*, blas_int);                                   \
  template void trmm<T>(const Caller&, char, char, char, char, blas_int, blas_int, T, const T*, \
                        blas_int, T*, blas_int);                                                 \
  template void trsm<T>(const Caller&, char, char, char, char, blas_int, blas_int, T, const T*, \
                        blas_int, T*, blas_int);
ABFT_L3_ENTRIES(float)
ABFT_L3_ENTRIES(double)
ABFT_L3_ENTRIES(cfloat)
ABFT_L3_ENTRIES(cdouble)
#undef ABFT_L3_ENTRIES

}  // namespace abft::blas::fortran
