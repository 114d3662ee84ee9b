/** \file level2_cblas_mv.cpp
 *  \brief CBLAS matrix-vector products: cblas_?gemv, ?gbmv, ?symv/?hemv, ?sbmv/?hbmv,
 *  ?spmv/?hpmv, row- and column-major (mapping in level2_cblas.hpp).
 */
#include "abft/cblas.h"
#include <utility>

#include "blas/level2/level2_cblas.hpp"

namespace abft::blas::cblas2 {
namespace {

template <class T>
void gemv(const char* name, int layout, int trans, blas_int m, blas_int n, T alpha,
          const T* A, blas_int lda, const T* x, blas_int incx, T beta, T* y, blas_int incy) {
  const Call c(name, layout);
  if (!c) return;
  const Arg<Op> op = op_of<T>(trans, c.row());
  if (!op) return c.fail(2);
  if (c.row()) std::swap(m, n);
  c.finish(xgemv(op, m, n, alpha, A, lda, x, incx, beta, y, incy));
}

template <class T>
void gbmv(const char* name, int layout, int trans, blas_int m, blas_int n, blas_int kl,
          blas_int ku, T alpha, const T* A, blas_int lda, const T* x, blas_int incx, T beta,
          T* y, blas_int incy) {
  const Call c(name, layout);
  if (!c) return;
  const Arg<Op> op = op_of<T>(trans, c.row());
  if (!op) return c.fail(2);
  if (c.row()) {
    std::swap(m, n);
    std::swap(kl, ku);
  }
  c.finish(xgbmv(op, m, n, kl, ku, alpha, A, lda, x, incx, beta, y, incy));
}

// Symmetric / Hermitian: a row-major H is the column-major view of H^T = conj(H) with the
// other triangle stored; conj_a makes the core multiply by conj of what it reads.

template <class T>
void hemv(const char* name, int layout, int uplo, blas_int n, T alpha, const T* A,
          blas_int lda, const T* x, blas_int incx, T beta, T* y, blas_int incy) {
  const Call c(name, layout);
  if (!c) return;
  const Arg<Uplo> ul = uplo_of(uplo, c.row());
  if (!ul) return c.fail(2);
  c.finish(xhemv(ul, n, alpha, A, lda, x, incx, beta, y, incy, c.row()));
}

template <class T>
void hbmv(const char* name, int layout, int uplo, blas_int n, blas_int k, T alpha,
          const T* A, blas_int lda, const T* x, blas_int incx, T beta, T* y, blas_int incy) {
  const Call c(name, layout);
  if (!c) return;
  const Arg<Uplo> ul = uplo_of(uplo, c.row());
  if (!ul) return c.fail(2);
  c.finish(xhbmv(ul, n, k, alpha, A, lda, x, incx, beta, y, incy, c.row()));
}

template <class T>
void hpmv(const char* name, int layout, int uplo, blas_int n, T alpha, const T* AP,
          const T* x, blas_int incx, T beta, T* y, blas_int incy) {
  const Call c(name, layout);
  if (!c) return;
  const Arg<Uplo> ul = uplo_of(uplo, c.row());
  if (!ul) return c.fail(2);
  c.finish(xhpmv(ul, n, alpha, AP, x, incx, beta, y, incy, c.row()));
}

}  // namespace
}  // namespace abft::blas::cblas2

using abft::blas::cdouble;
using abft::blas::cfloat;
namespace cb = abft::blas::cblas2;
using cb::in;
using cb::out;

extern "C" {

void cblas_sgemv(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE TransA, const int M,
                 const int N, const float alpha, const float* A, const int lda,
                 const float* X, const int incX, const float beta, float* Y, const int incY) {
  cb::gemv("cblas_sgemv", layout, TransA, M, N, alpha, A, lda, X, incX, beta, Y, incY);
}
void cblas_dgemv(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE TransA, const int M,
                 const int N, const double alpha, const double* A, const int lda,
                 const double* X, const int incX, const double beta, double* Y,
                 const int incY) {
  cb::gemv("cblas_dgemv", layout, TransA, M, N, alpha, A, lda, X, incX, beta, Y, incY);
}
void cblas_cgemv(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE TransA, const int M,
                 const int N, const void* alpha, const void* A, const int lda,
                 const void* X, const int incX, const void* beta, void* Y, const int incY) {
  cb::gemv("cblas_cgemv", layout, TransA, M, N, *in<cfloat>(alpha), in<cfloat>(A), lda,
           in<cfloat>(X), incX, *in<cfloat>(beta), out<cfloat>(Y), incY);
}
void cblas_zgemv(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE TransA, const int M,
                 const int N, const void* alpha, const void* A, const int lda,
                 const void* X, const int incX, const void* beta, void* Y, const int incY) {
  cb::gemv("cblas_zgemv", layout, TransA, M, N, *in<cdouble>(alpha), in<cdouble>(A), lda,
           in<cdouble>(X), incX, *in<cdouble>(beta), out<cdouble>(Y), incY);
}

void cblas_sgbmv(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE TransA, const int M,
                 const int N, const int KL, const int KU, const float alpha, const float* A,
                 const int lda, const float* X, const int incX, const float beta, float* Y,
                 const int incY) {
  cb::gbmv("cblas_sgbmv", layout, TransA, M, N, KL, KU, alpha, A, lda, X, incX, beta, Y,
           incY);
}
void cblas_dgbmv(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE TransA, const int M,
                 const int N, const int KL, const int KU, const double alpha,
                 const double* A, const int lda, const double* X, const int incX,
                 const double beta, double* Y, const int incY) {
  cb::gbmv("cblas_dgbmv", layout, TransA, M, N, KL, KU, alpha, A, lda, X, incX, beta, Y,
           incY);
}
void cblas_cgbmv(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE TransA, const int M,
                 const int N, const int KL, const int KU, const void* alpha, const void* A,
                 const int lda, const void* X, const int incX, const void* beta, void* Y,
                 const int incY) {
  cb::gbmv("cblas_cgbmv", layout, TransA, M, N, KL, KU, *in<cfloat>(alpha), in<cfloat>(A),
           lda, in<cfloat>(X), incX, *in<cfloat>(beta), out<cfloat>(Y), incY);
}
void cblas_zgbmv(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE TransA, const int M,
                 const int N, const int KL, const int KU, const void* alpha, const void* A,
                 const int lda, const void* X, const int incX, const void* beta, void* Y,
                 const int incY) {
  cb::gbmv("cblas_zgbmv", layout, TransA, M, N, KL, KU, *in<cdouble>(alpha),
           in<cdouble>(A), lda, in<cdouble>(X), incX, *in<cdouble>(beta), out<cdouble>(Y),
           incY);
}

void cblas_ssymv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                 const float alpha, const float* A, const int lda, const float* X,
                 const int incX, const float beta, float* Y, const int incY) {
  cb::hemv("cblas_ssymv", layout, Uplo, N, alpha, A, lda, X, incX, beta, Y, incY);
}
void cblas_dsymv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                 const double alpha, const double* A, const int lda, const double* X,
                 const int incX, const double beta, double* Y, const int incY) {
  cb::hemv("cblas_dsymv", layout, Uplo, N, alpha, A, lda, X, incX, beta, Y, incY);
}
void cblas_chemv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                 const void* alpha, const void* A, const int lda, const void* X,
                 const int incX, const void* beta, void* Y, const int incY) {
  cb::hemv("cblas_chemv", layout, Uplo, N, *in<cfloat>(alpha), in<cfloat>(A), lda,
           in<cfloat>(X), incX, *in<cfloat>(beta), out<cfloat>(Y), incY);
}
void cblas_zhemv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                 const void* alpha, const void* A, const int lda, const void* X,
                 const int incX, const void* beta, void* Y, const int incY) {
  cb::hemv("cblas_zhemv", layout, Uplo, N, *in<cdouble>(alpha), in<cdouble>(A), lda,
           in<cdouble>(X), incX, *in<cdouble>(beta), out<cdouble>(Y), incY);
}

void cblas_ssbmv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N, const int K,
                 const float alpha, const float* A, const int lda, const float* X,
                 const int incX, const float beta, float* Y, const int incY) {
  cb::hbmv("cblas_ssbmv", layout, Uplo, N, K, alpha, A, lda, X, incX, beta, Y, incY);
}
void cblas_dsbmv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N, const int K,
                 const double alpha, const double* A, const int lda, const double* X,
                 const int incX, const double beta, double* Y, const int incY) {
  cb::hbmv("cblas_dsbmv", layout, Uplo, N, K, alpha, A, lda, X, incX, beta, Y, incY);
}
void cblas_chbmv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N, const int K,
                 const void* alpha, const void* A, const int lda, const void* X,
                 const int incX, const void* beta, void* Y, const int incY) {
  cb::hbmv("cblas_chbmv", layout, Uplo, N, K, *in<cfloat>(alpha), in<cfloat>(A), lda,
           in<cfloat>(X), incX, *in<cfloat>(beta), out<cfloat>(Y), incY);
}
void cblas_zhbmv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N, const int K,
                 const void* alpha, const void* A, const int lda, const void* X,
                 const int incX, const void* beta, void* Y, const int incY) {
  cb::hbmv("cblas_zhbmv", layout, Uplo, N, K, *in<cdouble>(alpha), in<cdouble>(A), lda,
           in<cdouble>(X), incX, *in<cdouble>(beta), out<cdouble>(Y), incY);
}

void cblas_sspmv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                 const float alpha, const float* Ap, const float* X, const int incX,
                 const float beta, float* Y, const int incY) {
  cb::hpmv("cblas_sspmv", layout, Uplo, N, alpha, Ap, X, incX, beta, Y, incY);
}
void cblas_dspmv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                 const double alpha, const double* Ap, const double* X, const int incX,
                 const double beta, double* Y, const int incY) {
  cb::hpmv("cblas_dspmv", layout, Uplo, N, alpha, Ap, X, incX, beta, Y, incY);
}
void cblas_chpmv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                 const void* alpha, const void* Ap, const void* X, const int incX,
                 const void* beta, void* Y, const int incY) {
  cb::hpmv("cblas_chpmv", layout, Uplo, N, *in<cfloat>(alpha), in<cfloat>(Ap),
           in<cfloat>(X), incX, *in<cfloat>(beta), out<cfloat>(Y), incY);
}
void cblas_zhpmv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                 const void* alpha, const void* Ap, const void* X, const int incX,
                 const void* beta, void* Y, const int incY) {
  cb::hpmv("cblas_zhpmv", layout, Uplo, N, *in<cdouble>(alpha), in<cdouble>(Ap),
           in<cdouble>(X), incX, *in<cdouble>(beta), out<cdouble>(Y), incY);
}

}  // extern "C"
