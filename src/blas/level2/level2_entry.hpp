/** \file level2_entry.hpp
 *  \brief The Fortran-style Level-2 entries: the one argument check of each routine, then
 *  its core. Both the Fortran-77 symbols (level2_f77.cpp) and CBLAS (level2_cblas_*.cpp)
 *  come through here.
 *
 *  Each x<routine> returns the reference BLAS's INFO: 0 after running the core, else the
 *  position of the first invalid argument in the Fortran argument list, found in the
 *  reference's order of checks, having touched nothing. The caller reports it (the Fortran
 *  symbol as-is through xerbla_, CBLAS as info + 1 through cblas_xerbla).
 *
 *  CHARACTER options arrive parsed: an empty optional stands for a character the routine
 *  does not accept. Op::R (conj(A), no transpose) and the conj flags never come from a
 *  Fortran caller; the CBLAS layer uses them to run a row-major call on the column-major
 *  view of the same memory. Routines named after the complex member (xhemv, xher, ...)
 *  are the symmetric ones for real T (?SYMV, ?SYR, ...). Instantiated for float, double,
 *  cfloat and cdouble (xger: all four; GERU is xger with GerConj::None).
 */
#pragma once
#include <optional>

#include "blas/common/blas_types.hpp"
#include "blas/level2/rank_core.hpp"

namespace abft::blas {

/** A parsed CHARACTER argument; empty when the character is not a valid option. */
template <class E>
using Arg = std::optional<E>;

inline Arg<Op> op_arg(char c) {
  Op o;
  return parse_op(c, o) ? Arg<Op>(o) : std::nullopt;
}
inline Arg<Uplo> uplo_arg(char c) {
  Uplo u;
  return parse_uplo(c, u) ? Arg<Uplo>(u) : std::nullopt;
}
inline Arg<Diag> diag_arg(char c) {
  Diag d;
  return parse_diag(c, d) ? Arg<Diag>(d) : std::nullopt;
}

// --- matrix-vector products (level2_entry_mv.cpp) -------------------------------------
template <class T>
blas_int xgemv(Arg<Op> trans, blas_int m, blas_int n, T alpha, const T* A, blas_int lda,
               const T* x, blas_int incx, T beta, T* y, blas_int incy);
template <class T>
blas_int xgbmv(Arg<Op> trans, blas_int m, blas_int n, blas_int kl, blas_int ku, T alpha,
               const T* A, blas_int lda, const T* x, blas_int incx, T beta, T* y,
               blas_int incy);
/** ?HEMV (?SYMV for real T); conj_a: y <- alpha*conj(H)*x + beta*y. */
template <class T>
blas_int xhemv(Arg<Uplo> uplo, blas_int n, T alpha, const T* A, blas_int lda, const T* x,
               blas_int incx, T beta, T* y, blas_int incy, bool conj_a = false);
template <class T>
blas_int xhbmv(Arg<Uplo> uplo, blas_int n, blas_int k, T alpha, const T* A, blas_int lda,
               const T* x, blas_int incx, T beta, T* y, blas_int incy, bool conj_a = false);
template <class T>
blas_int xhpmv(Arg<Uplo> uplo, blas_int n, T alpha, const T* AP, const T* x, blas_int incx,
               T beta, T* y, blas_int incy, bool conj_a = false);

// --- triangular products and solves (level2_entry_tri.cpp) ----------------------------
template <class T>
blas_int xtrmv(Arg<Uplo> uplo, Arg<Op> trans, Arg<Diag> diag, blas_int n, const T* A,
               blas_int lda, T* x, blas_int incx);
template <class T>
blas_int xtbmv(Arg<Uplo> uplo, Arg<Op> trans, Arg<Diag> diag, blas_int n, blas_int k,
               const T* A, blas_int lda, T* x, blas_int incx);
template <class T>
blas_int xtpmv(Arg<Uplo> uplo, Arg<Op> trans, Arg<Diag> diag, blas_int n, const T* AP, T* x,
               blas_int incx);
template <class T>
blas_int xtrsv(Arg<Uplo> uplo, Arg<Op> trans, Arg<Diag> diag, blas_int n, const T* A,
               blas_int lda, T* x, blas_int incx);
template <class T>
blas_int xtbsv(Arg<Uplo> uplo, Arg<Op> trans, Arg<Diag> diag, blas_int n, blas_int k,
               const T* A, blas_int lda, T* x, blas_int incx);
template <class T>
blas_int xtpsv(Arg<Uplo> uplo, Arg<Op> trans, Arg<Diag> diag, blas_int n, const T* AP, T* x,
               blas_int incx);

// --- rank updates (level2_entry_rank.cpp) ---------------------------------------------
/** ?GER, ?GERU (which = None), ?GERC (which = Y). */
template <class T>
blas_int xger(blas_int m, blas_int n, T alpha, const T* x, blas_int incx, const T* y,
              blas_int incy, T* A, blas_int lda, l2::GerConj which);
/** ?HER (?SYR for real T); conj: the update is alpha*conj(x)*x^T. */
template <class T>
blas_int xher(Arg<Uplo> uplo, blas_int n, real_t<T> alpha, const T* x, blas_int incx, T* A,
              blas_int lda, bool conj = false);
template <class T>
blas_int xhpr(Arg<Uplo> uplo, blas_int n, real_t<T> alpha, const T* x, blas_int incx, T* AP,
              bool conj = false);
/** ?HER2 (?SYR2 for real T); conj: both vectors enter conjugated. */
template <class T>
blas_int xher2(Arg<Uplo> uplo, blas_int n, T alpha, const T* x, blas_int incx, const T* y,
               blas_int incy, T* A, blas_int lda, bool conj = false);
template <class T>
blas_int xhpr2(Arg<Uplo> uplo, blas_int n, T alpha, const T* x, blas_int incx, const T* y,
               blas_int incy, T* AP, bool conj = false);

}  // namespace abft::blas
