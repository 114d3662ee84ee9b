/** \file level1_cblas.cpp
 *  \brief CBLAS Level 1 entries (cblas_sdot ... cblas_dcabs1) over the core in level1.hpp.
 *
 *  Level 1 has neither a layout nor invalid arguments, so these entries map their C
 *  arguments (scalars by value, complex data as void*) straight onto the core, as the
 *  Fortran entries do. i?amax return the 0-based index (0 when the Fortran one gives 0).
 */
#include "abft/cblas.h"
#include "blas/level1/level1.hpp"

namespace {
using abft::blas::cdouble;
using abft::blas::cfloat;
namespace l1 = abft::blas::level1;

const cfloat* cf(const void* p) { return static_cast<const cfloat*>(p); }
cfloat* cf(void* p) { return static_cast<cfloat*>(p); }
const cdouble* cd(const void* p) { return static_cast<const cdouble*>(p); }
cdouble* cd(void* p) { return static_cast<cdouble*>(p); }

/** Fortran's 1-based result (0: none) as CBLAS's 0-based index. */
CBLAS_INDEX zero_based(abft::blas::blas_int k) { return k > 0 ? CBLAS_INDEX(k - 1) : 0; }
}  // namespace

extern "C" {

// ---- dot products ----------------------------------------------------------------------
float cblas_sdsdot(const int N, const float alpha, const float* X, const int incX,
                   const float* Y, const int incY) {
  return float(l1::dot_double(N, double(alpha), X, incX, Y, incY));
}
double cblas_dsdot(const int N, const float* X, const int incX, const float* Y, const int incY) {
  return l1::dot_double(N, 0.0, X, incX, Y, incY);
}
float cblas_sdot(const int N, const float* X, const int incX, const float* Y, const int incY) {
  return l1::dotu(N, X, incX, Y, incY);
}
double cblas_ddot(const int N, const double* X, const int incX, const double* Y,
                  const int incY) {
  return l1::dotu(N, X, incX, Y, incY);
}
void cblas_cdotu_sub(const int N, const void* X, const int incX, const void* Y, const int incY,
                     void* dotu) {
  *cf(dotu) = l1::dotu(N, cf(X), incX, cf(Y), incY);
}
void cblas_cdotc_sub(const int N, const void* X, const int incX, const void* Y, const int incY,
                     void* dotc) {
  *cf(dotc) = l1::dotc(N, cf(X), incX, cf(Y), incY);
}
void cblas_zdotu_sub(const int N, const void* X, const int incX, const void* Y, const int incY,
                     void* dotu) {
  *cd(dotu) = l1::dotu(N, cd(X), incX, cd(Y), incY);
}
void cblas_zdotc_sub(const int N, const void* X, const int incX, const void* Y, const int incY,
                     void* dotc) {
  *cd(dotc) = l1::dotc(N, cd(X), incX, cd(Y), incY);
}

// ---- norms, sums, index of the maximum, |re| + |im| ------------------------------------
float cblas_snrm2(const int N, const float* X, const int incX) { return l1::nrm2(N, X, incX); }
double cblas_dnrm2(const int N, const double* X, const int incX) {
  return l1::nrm2(N, X, incX);
}
float cblas_scnrm2(const int N, const void* X, const int incX) {
  return l1::nrm2(N, cf(X), incX);
}
double cblas_dznrm2(const int N, const void* X, const int incX) {
  return l1::nrm2(N, cd(X), incX);
}
float cblas_sasum(const int N, const float* X, const int incX) { return l1::asum(N, X, incX); }
double cblas_dasum(const int N, const double* X, const int incX) {
  return l1::asum(N, X, incX);
}
float cblas_scasum(const int N, const void* X, const int incX) {
  return l1::asum(N, cf(X), incX);
}
double cblas_dzasum(const int N, const void* X, const int incX) {
  return l1::asum(N, cd(X), incX);
}
CBLAS_INDEX cblas_isamax(const int N, const float* X, const int incX) {
  return zero_based(l1::iamax(N, X, incX));
}
CBLAS_INDEX cblas_idamax(const int N, const double* X, const int incX) {
  return zero_based(l1::iamax(N, X, incX));
}
CBLAS_INDEX cblas_icamax(const int N, const void* X, const int incX) {
  return zero_based(l1::iamax(N, cf(X), incX));
}
CBLAS_INDEX cblas_izamax(const int N, const void* X, const int incX) {
  return zero_based(l1::iamax(N, cd(X), incX));
}
float cblas_scabs1(const void* c) { return abft::blas::abs1(*cf(c)); }
double cblas_dcabs1(const void* z) { return abft::blas::abs1(*cd(z)); }

// ---- swap, copy, axpy ------------------------------------------------------------------
void cblas_sswap(const int N, float* X, const int incX, float* Y, const int incY) {
  l1::swap(N, X, incX, Y, incY);
}
void cblas_dswap(const int N, double* X, const int incX, double* Y, const int incY) {
  l1::swap(N, X, incX, Y, incY);
}
void cblas_cswap(const int N, void* X, const int incX, void* Y, const int incY) {
  l1::swap(N, cf(X), incX, cf(Y), incY);
}
void cblas_zswap(const int N, void* X, const int incX, void* Y, const int incY) {
  l1::swap(N, cd(X), incX, cd(Y), incY);
}
void cblas_scopy(const int N, const float* X, const int incX, float* Y, const int incY) {
  l1::copy(N, X, incX, Y, incY);
}
void cblas_dcopy(const int N, const double* X, const int incX, double* Y, const int incY) {
  l1::copy(N, X, incX, Y, incY);
}
void cblas_ccopy(const int N, const void* X, const int incX, void* Y, const int incY) {
  l1::copy(N, cf(X), incX, cf(Y), incY);
}
void cblas_zcopy(const int N, const void* X, const int incX, void* Y, const int incY) {
  l1::copy(N, cd(X), incX, cd(Y), incY);
}
void cblas_saxpy(const int N, const float alpha, const float* X, const int incX, float* Y,
                 const int incY) {
  l1::axpy(N, alpha, X, incX, Y, incY);
}
void cblas_daxpy(const int N, const double alpha, const double* X, const int incX, double* Y,
                 const int incY) {
  l1::axpy(N, alpha, X, incX, Y, incY);
}
void cblas_caxpy(const int N, const void* alpha, const void* X, const int incX, void* Y,
                 const int incY) {
  l1::axpy(N, *cf(alpha), cf(X), incX, cf(Y), incY);
}
void cblas_zaxpy(const int N, const void* alpha, const void* X, const int incX, void* Y,
                 const int incY) {
  l1::axpy(N, *cd(alpha), cd(X), incX, cd(Y), incY);
}

// ---- rotations -------------------------------------------------------------------------
void cblas_srotg(float* a, float* b, float* c, float* s) { l1::rotg(*a, *b, *c, *s); }
void cblas_drotg(double* a, double* b, double* c, double* s) { l1::rotg(*a, *b, *c, *s); }
void cblas_crotg(void* a, const void* b, float* c, void* s) {
  l1::rotg(*cf(a), *cf(b), *c, *cf(s));
}
void cblas_zrotg(void* a, const void* b, double* c, void* s) {
  l1::rotg(*cd(a), *cd(b), *c, *cd(s));
}
void cblas_srotmg(float* d1, float* d2, float* b1, const float b2, float* P) {
  l1::rotmg(*d1, *d2, *b1, b2, P);
}
void cblas_drotmg(double* d1, double* d2, double* b1, const double b2, double* P) {
  l1::rotmg(*d1, *d2, *b1, b2, P);
}
void cblas_srot(const int N, float* X, const int incX, float* Y, const int incY, const float c,
                const float s) {
  l1::rot(N, X, incX, Y, incY, c, s);
}
void cblas_drot(const int N, double* X, const int incX, double* Y, const int incY,
                const double c, const double s) {
  l1::rot(N, X, incX, Y, incY, c, s);
}
void cblas_csrot(const int N, void* X, const int incX, void* Y, const int incY, const float c,
                 const float s) {
  l1::rot(N, cf(X), incX, cf(Y), incY, c, s);
}
void cblas_zdrot(const int N, void* X, const int incX, void* Y, const int incY, const double c,
                 const double s) {
  l1::rot(N, cd(X), incX, cd(Y), incY, c, s);
}
void cblas_srotm(const int N, float* X, const int incX, float* Y, const int incY,
                 const float* P) {
  l1::rotm(N, X, incX, Y, incY, P);
}
void cblas_drotm(const int N, double* X, const int incX, double* Y, const int incY,
                 const double* P) {
  l1::rotm(N, X, incX, Y, incY, P);
}

// ---- scal ------------------------------------------------------------------------------
void cblas_sscal(const int N, const float alpha, float* X, const int incX) {
  l1::scal(N, alpha, X, incX);
}
void cblas_dscal(const int N, const double alpha, double* X, const int incX) {
  l1::scal(N, alpha, X, incX);
}
void cblas_cscal(const int N, const void* alpha, void* X, const int incX) {
  l1::scal(N, *cf(alpha), cf(X), incX);
}
void cblas_zscal(const int N, const void* alpha, void* X, const int incX) {
  l1::scal(N, *cd(alpha), cd(X), incX);
}
void cblas_csscal(const int N, const float alpha, void* X, const int incX) {
  l1::scal(N, alpha, cf(X), incX);
}
void cblas_zdscal(const int N, const double alpha, void* X, const int incX) {
  l1::scal(N, alpha, cd(X), incX);
}

}  // extern "C"
