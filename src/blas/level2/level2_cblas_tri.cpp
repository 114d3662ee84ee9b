/** \file level2_cblas_tri.cpp
 *  \brief CBLAS triangular products and solves: cblas_?trmv, ?tbmv, ?tpmv, ?trsv, ?tbsv,
 *  ?tpsv, row- and column-major (mapping in level2_cblas.hpp).
 *
 *  Checks in the reference CBLAS's order: layout (1), Uplo (2), TransA (3), Diag (4), then
 *  the Fortran-style entry on the column-major form (its INFO + 1).
 */
#include "abft/cblas.h"
#include "blas/level2/level2_cblas.hpp"

namespace abft::blas::cblas2 {
namespace {

/** The CBLAS enum checks of the triangular routines; false after reporting one. */
template <class T>
bool tri_args(const Call& c, int uplo, int trans, int diag, Arg<Uplo>& ul, Arg<Op>& op,
              Arg<Diag>& dg) {
  ul = uplo_of(uplo, c.row());
  if (!ul) return c.fail(2), false;
  op = op_of<T>(trans, c.row());
  if (!op) return c.fail(3), false;
  dg = diag_of(diag);
  if (!dg) return c.fail(4), false;
  return true;
}

/** `run(ul, op, dg)` is the Fortran-style entry of one triangular routine. */
template <class T, class Run>
void tri(const char* name, int layout, int uplo, int trans, int diag, Run run) {
  const Call c(name, layout);
  if (!c) return;
  Arg<Uplo> ul;
  Arg<Op> op;
  Arg<Diag> dg;
  if (!tri_args<T>(c, uplo, trans, diag, ul, op, dg)) return;
  c.finish(run(ul, op, dg));
}

}  // namespace
}  // namespace abft::blas::cblas2

using abft::blas::cdouble;
using abft::blas::cfloat;
namespace cb = abft::blas::cblas2;
namespace ab = abft::blas;

/** The six triangular routines of one type: P prefix, T element type, PT the pointer
 *  type in the CBLAS prototype (the element type, or void for complex). */
#define ABFT_CBLAS_TRIANGULAR(P, T, PT)                                                     \
  void cblas_##P##trmv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,                    \
                       const CBLAS_TRANSPOSE TransA, const CBLAS_DIAG Diag, const int N,    \
                       const PT* A, const int lda, PT* X, const int incX) {                 \
    cb::tri<T>("cblas_" #P "trmv", layout, Uplo, TransA, Diag, [&](auto ul, auto op, auto dg) { \
      return ab::xtrmv(ul, op, dg, N, cb::in<T>(A), lda, cb::out<T>(X), incX);              \
    });                                                                                     \
  }                                                                                         \
  void cblas_##P##tbmv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,                    \
                       const CBLAS_TRANSPOSE TransA, const CBLAS_DIAG Diag, const int N,    \
                       const int K, const PT* A, const int lda, PT* X, const int incX) {    \
    cb::tri<T>("cblas_" #P "tbmv", layout, Uplo, TransA, Diag, [&](auto ul, auto op, auto dg) { \
      return ab::xtbmv(ul, op, dg, N, K, cb::in<T>(A), lda, cb::out<T>(X), incX);           \
    });                                                                                     \
  }                                                                                         \
  void cblas_##P##tpmv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,                    \
                       const CBLAS_TRANSPOSE TransA, const CBLAS_DIAG Diag, const int N,    \
                       const PT* Ap, PT* X, const int incX) {                               \
    cb::tri<T>("cblas_" #P "tpmv", layout, Uplo, TransA, Diag, [&](auto ul, auto op, auto dg) { \
      return ab::xtpmv(ul, op, dg, N, cb::in<T>(Ap), cb::out<T>(X), incX);                  \
    });                                                                                     \
  }                                                                                         \
  void cblas_##P##trsv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,                    \
                       const CBLAS_TRANSPOSE TransA, const CBLAS_DIAG Diag, const int N,    \
                       const PT* A, const int lda, PT* X, const int incX) {                 \
    cb::tri<T>("cblas_" #P "trsv", layout, Uplo, TransA, Diag, [&](auto ul, auto op, auto dg) { \
      return ab::xtrsv(ul, op, dg, N, cb::in<T>(A), lda, cb::out<T>(X), incX);              \
    });                                                                                     \
  }                                                                                         \
  void cblas_##P##tbsv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,                    \
                       const CBLAS_TRANSPOSE TransA, const CBLAS_DIAG Diag, const int N,    \
                       const int K, const PT* A, const int lda, PT* X, const int incX) {    \
    cb::tri<T>("cblas_" #P "tbsv", layout, Uplo, TransA, Diag, [&](auto ul, auto op, auto dg) { \
      return ab::xtbsv(ul, op, dg, N, K, cb::in<T>(A), lda, cb::out<T>(X), incX);           \
    });                                                                                     \
  }                                                                                         \
  void cblas_##P##tpsv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,                    \
                       const CBLAS_TRANSPOSE TransA, const CBLAS_DIAG Diag, const int N,    \
                       const PT* Ap, PT* X, const int incX) {                               \
    cb::tri<T>("cblas_" #P "tpsv", layout, Uplo, TransA, Diag, [&](auto ul, auto op, auto dg) { \
      return ab::xtpsv(ul, op, dg, N, cb::in<T>(Ap), cb::out<T>(X), incX);                  \
    });                                                                                     \
  }

extern "C" {
ABFT_CBLAS_TRIANGULAR(s, float, float)
ABFT_CBLAS_TRIANGULAR(d, double, double)
ABFT_CBLAS_TRIANGULAR(c, cfloat, void)
ABFT_CBLAS_TRIANGULAR(z, cdouble, void)
}  // extern "C"
