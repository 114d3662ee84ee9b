/** \file level1_f77.cpp
 *  \brief Fortran-77 BLAS Level 1 entries (srotg_ ... izamax_, scabs1_, and the reference's
 *  *sub_ subroutine helpers), gfortran convention, over the core in level1.hpp.
 *
 *  gfortran conventions (LP64): lower-case names with a trailing underscore, every argument
 *  by address, INTEGER is int. REAL / DOUBLE PRECISION functions return float / double in
 *  xmm0. COMPLEX functions (cdotu_, cdotc_, zdotu_, zdotc_) return their value in registers
 *  as C's float _Complex / double _Complex do (xmm0, resp. xmm0:xmm1); std::complex has
 *  that representation (GCC implements it over _Complex), so it is returned directly.
 *  Level 1 has no invalid arguments, so there is no checking layer: each entry is the core.
 */
#include <type_traits>

#include "blas/level1/level1.hpp"

namespace {
using abft::blas::blas_int;
using abft::blas::cdouble;
using abft::blas::cfloat;
namespace l1 = abft::blas::level1;

static_assert(sizeof(cfloat) == 8 && std::is_trivially_copyable_v<cfloat>,
              "COMPLEX must be two REALs returned in registers");
static_assert(sizeof(cdouble) == 16 && std::is_trivially_copyable_v<cdouble>,
              "COMPLEX*16 must be two DOUBLEs returned in registers");
}  // namespace

extern "C" {

// ---- rotation constructors -------------------------------------------------------------
void srotg_(float* a, float* b, float* c, float* s) { l1::rotg(*a, *b, *c, *s); }
void drotg_(double* a, double* b, double* c, double* s) { l1::rotg(*a, *b, *c, *s); }
void crotg_(cfloat* a, const cfloat* b, float* c, cfloat* s) { l1::rotg(*a, *b, *c, *s); }
void zrotg_(cdouble* a, const cdouble* b, double* c, cdouble* s) { l1::rotg(*a, *b, *c, *s); }

void srotmg_(float* d1, float* d2, float* x1, const float* y1, float* param) {
  l1::rotmg(*d1, *d2, *x1, *y1, param);
}
void drotmg_(double* d1, double* d2, double* x1, const double* y1, double* param) {
  l1::rotmg(*d1, *d2, *x1, *y1, param);
}

// ---- rotations -------------------------------------------------------------------------
void srot_(const blas_int* n, float* x, const blas_int* incx, float* y, const blas_int* incy,
           const float* c, const float* s) {
  l1::rot(*n, x, *incx, y, *incy, *c, *s);
}
void drot_(const blas_int* n, double* x, const blas_int* incx, double* y, const blas_int* incy,
           const double* c, const double* s) {
  l1::rot(*n, x, *incx, y, *incy, *c, *s);
}
void csrot_(const blas_int* n, cfloat* x, const blas_int* incx, cfloat* y, const blas_int* incy,
            const float* c, const float* s) {
  l1::rot(*n, x, *incx, y, *incy, *c, *s);
}
void zdrot_(const blas_int* n, cdouble* x, const blas_int* incx, cdouble* y,
            const blas_int* incy, const double* c, const double* s) {
  l1::rot(*n, x, *incx, y, *incy, *c, *s);
}
void srotm_(const blas_int* n, float* x, const blas_int* incx, float* y, const blas_int* incy,
            const float* param) {
  l1::rotm(*n, x, *incx, y, *incy, param);
}
void drotm_(const blas_int* n, double* x, const blas_int* incx, double* y,
            const blas_int* incy, const double* param) {
  l1::rotm(*n, x, *incx, y, *incy, param);
}

// ---- swap, copy, axpy, scal ------------------------------------------------------------
void sswap_(const blas_int* n, float* x, const blas_int* incx, float* y, const blas_int* incy) {
  l1::swap(*n, x, *incx, y, *incy);
}
void dswap_(const blas_int* n, double* x, const blas_int* incx, double* y,
            const blas_int* incy) {
  l1::swap(*n, x, *incx, y, *incy);
}
void cswap_(const blas_int* n, cfloat* x, const blas_int* incx, cfloat* y,
            const blas_int* incy) {
  l1::swap(*n, x, *incx, y, *incy);
}
void zswap_(const blas_int* n, cdouble* x, const blas_int* incx, cdouble* y,
            const blas_int* incy) {
  l1::swap(*n, x, *incx, y, *incy);
}

void scopy_(const blas_int* n, const float* x, const blas_int* incx, float* y,
            const blas_int* incy) {
  l1::copy(*n, x, *incx, y, *incy);
}
void dcopy_(const blas_int* n, const double* x, const blas_int* incx, double* y,
            const blas_int* incy) {
  l1::copy(*n, x, *incx, y, *incy);
}
void ccopy_(const blas_int* n, const cfloat* x, const blas_int* incx, cfloat* y,
            const blas_int* incy) {
  l1::copy(*n, x, *incx, y, *incy);
}
void zcopy_(const blas_int* n, const cdouble* x, const blas_int* incx, cdouble* y,
            const blas_int* incy) {
  l1::copy(*n, x, *incx, y, *incy);
}

void saxpy_(const blas_int* n, const float* a, const float* x, const blas_int* incx, float* y,
            const blas_int* incy) {
  l1::axpy(*n, *a, x, *incx, y, *incy);
}
void daxpy_(const blas_int* n, const double* a, const double* x, const blas_int* incx,
            double* y, const blas_int* incy) {
  l1::axpy(*n, *a, x, *incx, y, *incy);
}
void caxpy_(const blas_int* n, const cfloat* a, const cfloat* x, const blas_int* incx,
            cfloat* y, const blas_int* incy) {
  l1::axpy(*n, *a, x, *incx, y, *incy);
}
void zaxpy_(const blas_int* n, const cdouble* a, const cdouble* x, const blas_int* incx,
            cdouble* y, const blas_int* incy) {
  l1::axpy(*n, *a, x, *incx, y, *incy);
}

void sscal_(const blas_int* n, const float* a, float* x, const blas_int* incx) {
  l1::scal(*n, *a, x, *incx);
}
void dscal_(const blas_int* n, const double* a, double* x, const blas_int* incx) {
  l1::scal(*n, *a, x, *incx);
}
void cscal_(const blas_int* n, const cfloat* a, cfloat* x, const blas_int* incx) {
  l1::scal(*n, *a, x, *incx);
}
void zscal_(const blas_int* n, const cdouble* a, cdouble* x, const blas_int* incx) {
  l1::scal(*n, *a, x, *incx);
}
void csscal_(const blas_int* n, const float* a, cfloat* x, const blas_int* incx) {
  l1::scal(*n, *a, x, *incx);
}
void zdscal_(const blas_int* n, const double* a, cdouble* x, const blas_int* incx) {
  l1::scal(*n, *a, x, *incx);
}

// ---- dot products ----------------------------------------------------------------------
float sdot_(const blas_int* n, const float* x, const blas_int* incx, const float* y,
            const blas_int* incy) {
  return l1::dotu(*n, x, *incx, y, *incy);
}
double ddot_(const blas_int* n, const double* x, const blas_int* incx, const double* y,
             const blas_int* incy) {
  return l1::dotu(*n, x, *incx, y, *incy);
}
float sdsdot_(const blas_int* n, const float* sb, const float* x, const blas_int* incx,
              const float* y, const blas_int* incy) {
  return float(l1::dot_double(*n, double(*sb), x, *incx, y, *incy));
}
double dsdot_(const blas_int* n, const float* x, const blas_int* incx, const float* y,
              const blas_int* incy) {
  return l1::dot_double(*n, 0.0, x, *incx, y, *incy);
}
cfloat cdotu_(const blas_int* n, const cfloat* x, const blas_int* incx, const cfloat* y,
              const blas_int* incy) {
  return l1::dotu(*n, x, *incx, y, *incy);
}
cfloat cdotc_(const blas_int* n, const cfloat* x, const blas_int* incx, const cfloat* y,
              const blas_int* incy) {
  return l1::dotc(*n, x, *incx, y, *incy);
}
cdouble zdotu_(const blas_int* n, const cdouble* x, const blas_int* incx, const cdouble* y,
               const blas_int* incy) {
  return l1::dotu(*n, x, *incx, y, *incy);
}
cdouble zdotc_(const blas_int* n, const cdouble* x, const blas_int* incx, const cdouble* y,
               const blas_int* incy) {
  return l1::dotc(*n, x, *incx, y, *incy);
}

// ---- norms, sums, index of the maximum ---------------------------------------------------
float snrm2_(const blas_int* n, const float* x, const blas_int* incx) {
  return l1::nrm2(*n, x, *incx);
}
double dnrm2_(const blas_int* n, const double* x, const blas_int* incx) {
  return l1::nrm2(*n, x, *incx);
}
float scnrm2_(const blas_int* n, const cfloat* x, const blas_int* incx) {
  return l1::nrm2(*n, x, *incx);
}
double dznrm2_(const blas_int* n, const cdouble* x, const blas_int* incx) {
  return l1::nrm2(*n, x, *incx);
}

float sasum_(const blas_int* n, const float* x, const blas_int* incx) {
  return l1::asum(*n, x, *incx);
}
double dasum_(const blas_int* n, const double* x, const blas_int* incx) {
  return l1::asum(*n, x, *incx);
}
float scasum_(const blas_int* n, const cfloat* x, const blas_int* incx) {
  return l1::asum(*n, x, *incx);
}
double dzasum_(const blas_int* n, const cdouble* x, const blas_int* incx) {
  return l1::asum(*n, x, *incx);
}

blas_int isamax_(const blas_int* n, const float* x, const blas_int* incx) {
  return l1::iamax(*n, x, *incx);
}
blas_int idamax_(const blas_int* n, const double* x, const blas_int* incx) {
  return l1::iamax(*n, x, *incx);
}
blas_int icamax_(const blas_int* n, const cfloat* x, const blas_int* incx) {
  return l1::iamax(*n, x, *incx);
}
blas_int izamax_(const blas_int* n, const cdouble* x, const blas_int* incx) {
  return l1::iamax(*n, x, *incx);
}

float scabs1_(const cfloat* z) { return abft::blas::abs1(*z); }
double dcabs1_(const cdouble* z) { return abft::blas::abs1(*z); }

// ---- subroutine forms of the functions (reference CBLAS helpers): result in the last ----
void sdotsub_(const blas_int* n, const float* x, const blas_int* incx, const float* y,
              const blas_int* incy, float* dot) {
  *dot = sdot_(n, x, incx, y, incy);
}
void ddotsub_(const blas_int* n, const double* x, const blas_int* incx, const double* y,
              const blas_int* incy, double* dot) {
  *dot = ddot_(n, x, incx, y, incy);
}
void sdsdotsub_(const blas_int* n, const float* sb, const float* x, const blas_int* incx,
                const float* y, const blas_int* incy, float* dot) {
  *dot = sdsdot_(n, sb, x, incx, y, incy);
}
void dsdotsub_(const blas_int* n, const float* x, const blas_int* incx, const float* y,
               const blas_int* incy, double* dot) {
  *dot = dsdot_(n, x, incx, y, incy);
}
void cdotusub_(const blas_int* n, const cfloat* x, const blas_int* incx, const cfloat* y,
               const blas_int* incy, cfloat* dot) {
  *dot = cdotu_(n, x, incx, y, incy);
}
void cdotcsub_(const blas_int* n, const cfloat* x, const blas_int* incx, const cfloat* y,
               const blas_int* incy, cfloat* dot) {
  *dot = cdotc_(n, x, incx, y, incy);
}
void zdotusub_(const blas_int* n, const cdouble* x, const blas_int* incx, const cdouble* y,
               const blas_int* incy, cdouble* dot) {
  *dot = zdotu_(n, x, incx, y, incy);
}
void zdotcsub_(const blas_int* n, const cdouble* x, const blas_int* incx, const cdouble* y,
               const blas_int* incy, cdouble* dot) {
  *dot = zdotc_(n, x, incx, y, incy);
}
void snrm2sub_(const blas_int* n, const float* x, const blas_int* incx, float* r) {
  *r = snrm2_(n, x, incx);
}
void dnrm2sub_(const blas_int* n, const double* x, const blas_int* incx, double* r) {
  *r = dnrm2_(n, x, incx);
}
void scnrm2sub_(const blas_int* n, const cfloat* x, const blas_int* incx, float* r) {
  *r = scnrm2_(n, x, incx);
}
void dznrm2sub_(const blas_int* n, const cdouble* x, const blas_int* incx, double* r) {
  *r = dznrm2_(n, x, incx);
}
void sasumsub_(const blas_int* n, const float* x, const blas_int* incx, float* r) {
  *r = sasum_(n, x, incx);
}
void dasumsub_(const blas_int* n, const double* x, const blas_int* incx, double* r) {
  *r = dasum_(n, x, incx);
}
void scasumsub_(const blas_int* n, const cfloat* x, const blas_int* incx, float* r) {
  *r = scasum_(n, x, incx);
}
void dzasumsub_(const blas_int* n, const cdouble* x, const blas_int* incx, double* r) {
  *r = dzasum_(n, x, incx);
}
void isamaxsub_(const blas_int* n, const float* x, const blas_int* incx, blas_int* r) {
  *r = isamax_(n, x, incx);
}
void idamaxsub_(const blas_int* n, const double* x, const blas_int* incx, blas_int* r) {
  *r = idamax_(n, x, incx);
}
void icamaxsub_(const blas_int* n, const cfloat* x, const blas_int* incx, blas_int* r) {
  *r = icamax_(n, x, incx);
}
void izamaxsub_(const blas_int* n, const cdouble* x, const blas_int* incx, blas_int* r) {
  *r = izamax_(n, x, incx);
}
void scabs1sub_(const cfloat* z, float* r) { *r = scabs1_(z); }
void dcabs1sub_(const cdouble* z, double* r) { *r = dcabs1_(z); }

}  // extern "C"
