/** \file level2_cblas_rank.cpp
 *  \brief CBLAS rank-1 and rank-2 updates: cblas_?ger, ?geru, ?gerc, ?syr/?her, ?spr/?hpr,
 *  ?syr2/?her2, ?spr2/?hpr2, row- and column-major (mapping in level2_cblas.hpp).
 *
 *  Row-major: the column-major view is A^T, so x and y exchange roles in the general
 *  updates (A^T += alpha*y*x^T, conj(y) for GERC), and the Hermitian updates of
 *  A^T = conj(A) take conjugated vectors; HER2 also exchanges x and y, as the reference
 *  CBLAS does (which decides the reported positions of incx and incy).
 */
#include <utility>

#include "abft/cblas.h"
#include "blas/level2/level2_cblas.hpp"

namespace abft::blas::cblas2 {
namespace {

template <class T>
void ger(const char* name, int layout, blas_int m, blas_int n, T alpha, const T* x,
         blas_int incx, const T* y, blas_int incy, T* A, blas_int lda, bool conj_y) {
  const Call c(name, layout);
  if (!c) return;
  using l2::GerConj;
  if (c.row())
    c.finish(xger(n, m, alpha, y, incy, x, incx, A, lda, conj_y ? GerConj::X : GerConj::None));
  else
    c.finish(xger(m, n, alpha, x, incx, y, incy, A, lda, conj_y ? GerConj::Y : GerConj::None));
}

template <class T>
void her(const char* name, int layout, int uplo, blas_int n, real_t<T> alpha, const T* x,
         blas_int incx, T* A, blas_int lda) {
  const Call c(name, layout);
  if (!c) return;
  const Arg<Uplo> ul = uplo_of(uplo, c.row());
  if (!ul) return c.fail(2);
  c.finish(xher(ul, n, alpha, x, incx, A, lda, c.row()));
}

template <class T>
void hpr(const char* name, int layout, int uplo, blas_int n, real_t<T> alpha, const T* x,
         blas_int incx, T* AP) {
  const Call c(name, layout);
  if (!c) return;
  const Arg<Uplo> ul = uplo_of(uplo, c.row());
  if (!ul) return c.fail(2);
  c.finish(xhpr(ul, n, alpha, x, incx, AP, c.row()));
}

/** Row-major complex: (y, x) conjugated, the reference CBLAS's argument order. */
template <class T>
bool swap_vectors(const Call& c) {
  return is_complex_v<T> && c.row();
}

template <class T>
void her2(const char* name, int layout, int uplo, blas_int n, T alpha, const T* x,
          blas_int incx, const T* y, blas_int incy, T* A, blas_int lda) {
  const Call c(name, layout);
  if (!c) return;
  const Arg<Uplo> ul = uplo_of(uplo, c.row());
  if (!ul) return c.fail(2);
  if (swap_vectors<T>(c)) {
    std::swap(x, y);
    std::swap(incx, incy);
  }
  c.finish(xher2(ul, n, alpha, x, incx, y, incy, A, lda, c.row()));
}

template <class T>
void hpr2(const char* name, int layout, int uplo, blas_int n, T alpha, const T* x,
          blas_int incx, const T* y, blas_int incy, T* AP) {
  const Call c(name, layout);
  if (!c) return;
  const Arg<Uplo> ul = uplo_of(uplo, c.row());
  if (!ul) return c.fail(2);
  if (swap_vectors<T>(c)) {
    std::swap(x, y);
    std::swap(incx, incy);
  }
  c.finish(xhpr2(ul, n, alpha, x, incx, y, incy, AP, c.row()));
}

}  // namespace
}  // namespace abft::blas::cblas2

using abft::blas::cdouble;
using abft::blas::cfloat;
namespace cb = abft::blas::cblas2;
using cb::in;
using cb::out;

extern "C" {

void cblas_sger(const CBLAS_LAYOUT layout, const int M, const int N, const float alpha,
                const float* X, const int incX, const float* Y, const int incY, float* A,
                const int lda) {
  cb::ger("cblas_sger", layout, M, N, alpha, X, incX, Y, incY, A, lda, false);
}
void cblas_dger(const CBLAS_LAYOUT layout, const int M, const int N, const double alpha,
                const double* X, const int incX, const double* Y, const int incY, double* A,
                const int lda) {
  cb::ger("cblas_dger", layout, M, N, alpha, X, incX, Y, incY, A, lda, false);
}
void cblas_cgeru(const CBLAS_LAYOUT layout, const int M, const int N, const void* alpha,
                 const void* X, const int incX, const void* Y, const int incY, void* A,
                 const int lda) {
  cb::ger("cblas_cgeru", layout, M, N, *in<cfloat>(alpha), in<cfloat>(X), incX,
          in<cfloat>(Y), incY, out<cfloat>(A), lda, false);
}
void cblas_zgeru(const CBLAS_LAYOUT layout, const int M, const int N, const void* alpha,
                 const void* X, const int incX, const void* Y, const int incY, void* A,
                 const int lda) {
  cb::ger("cblas_zgeru", layout, M, N, *in<cdouble>(alpha), in<cdouble>(X), incX,
          in<cdouble>(Y), incY, out<cdouble>(A), lda, false);
}
void cblas_cgerc(const CBLAS_LAYOUT layout, const int M, const int N, const void* alpha,
                 const void* X, const int incX, const void* Y, const int incY, void* A,
                 const int lda) {
  cb::ger("cblas_cgerc", layout, M, N, *in<cfloat>(alpha), in<cfloat>(X), incX,
          in<cfloat>(Y), incY, out<cfloat>(A), lda, true);
}
void cblas_zgerc(const CBLAS_LAYOUT layout, const int M, const int N, const void* alpha,
                 const void* X, const int incX, const void* Y, const int incY, void* A,
                 const int lda) {
  cb::ger("cblas_zgerc", layout, M, N, *in<cdouble>(alpha), in<cdouble>(X), incX,
          in<cdouble>(Y), incY, out<cdouble>(A), lda, true);
}

void cblas_ssyr(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                const float alpha, const float* X, const int incX, float* A, const int lda) {
  cb::her("cblas_ssyr", layout, Uplo, N, alpha, X, incX, A, lda);
}
void cblas_dsyr(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                const double alpha, const double* X, const int incX, double* A,
                const int lda) {
  cb::her("cblas_dsyr", layout, Uplo, N, alpha, X, incX, A, lda);
}
void cblas_cher(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                const float alpha, const void* X, const int incX, void* A, const int lda) {
  cb::her("cblas_cher", layout, Uplo, N, alpha, in<cfloat>(X), incX, out<cfloat>(A), lda);
}
void cblas_zher(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                const double alpha, const void* X, const int incX, void* A, const int lda) {
  cb::her("cblas_zher", layout, Uplo, N, alpha, in<cdouble>(X), incX, out<cdouble>(A), lda);
}

void cblas_sspr(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                const float alpha, const float* X, const int incX, float* Ap) {
  cb::hpr("cblas_sspr", layout, Uplo, N, alpha, X, incX, Ap);
}
void cblas_dspr(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                const double alpha, const double* X, const int incX, double* Ap) {
  cb::hpr("cblas_dspr", layout, Uplo, N, alpha, X, incX, Ap);
}
void cblas_chpr(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                const float alpha, const void* X, const int incX, void* Ap) {
  cb::hpr("cblas_chpr", layout, Uplo, N, alpha, in<cfloat>(X), incX, out<cfloat>(Ap));
}
void cblas_zhpr(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                const double alpha, const void* X, const int incX, void* Ap) {
  cb::hpr("cblas_zhpr", layout, Uplo, N, alpha, in<cdouble>(X), incX, out<cdouble>(Ap));
}

void cblas_ssyr2(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                 const float alpha, const float* X, const int incX, const float* Y,
                 const int incY, float* A, const int lda) {
  cb::her2("cblas_ssyr2", layout, Uplo, N, alpha, X, incX, Y, incY, A, lda);
}
void cblas_dsyr2(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                 const double alpha, const double* X, const int incX, const double* Y,
                 const int incY, double* A, const int lda) {
  cb::her2("cblas_dsyr2", layout, Uplo, N, alpha, X, incX, Y, incY, A, lda);
}
void cblas_cher2(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                 const void* alpha, const void* X, const int incX, const void* Y,
                 const int incY, void* A, const int lda) {
  cb::her2("cblas_cher2", layout, Uplo, N, *in<cfloat>(alpha), in<cfloat>(X), incX,
           in<cfloat>(Y), incY, out<cfloat>(A), lda);
}
void cblas_zher2(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                 const void* alpha, const void* X, const int incX, const void* Y,
                 const int incY, void* A, const int lda) {
  cb::her2("cblas_zher2", layout, Uplo, N, *in<cdouble>(alpha), in<cdouble>(X), incX,
           in<cdouble>(Y), incY, out<cdouble>(A), lda);
}

void cblas_sspr2(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                 const float alpha, const float* X, const int incX, const float* Y,
                 const int incY, float* Ap) {
  cb::hpr2("cblas_sspr2", layout, Uplo, N, alpha, X, incX, Y, incY, Ap);
}
void cblas_dspr2(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                 const double alpha, const double* X, const int incX, const double* Y,
                 const int incY, double* Ap) {
  cb::hpr2("cblas_dspr2", layout, Uplo, N, alpha, X, incX, Y, incY, Ap);
}
void cblas_chpr2(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                 const void* alpha, const void* X, const int incX, const void* Y,
                 const int incY, void* Ap) {
  cb::hpr2("cblas_chpr2", layout, Uplo, N, *in<cfloat>(alpha), in<cfloat>(X), incX,
           in<cfloat>(Y), incY, out<cfloat>(Ap));
}
void cblas_zhpr2(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                 const void* alpha, const void* X, const int incX, const void* Y,
                 const int incY, void* Ap) {
  cb::hpr2("cblas_zhpr2", layout, Uplo, N, *in<cdouble>(alpha), in<cdouble>(X), incX,
           in<cdouble>(Y), incY, out<cdouble>(Ap));
}

}  // extern "C"
