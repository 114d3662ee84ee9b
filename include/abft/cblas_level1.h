/** \file cblas_level1.h
 *  \brief CBLAS Level-1 prototypes (included by abft/cblas.h, inside its extern "C").
 *
 *  As the reference CBLAS: complex scalars and vectors are `void*` to interleaved (re, im)
 *  pairs; complex dot products are returned through their last argument; i?amax return the
 *  0-based index of the first largest |x_i| (|re| + |im| for complex), 0 when N < 1 or
 *  incX <= 0.
 */
#pragma once

double cblas_dcabs1(const void* z);
float cblas_scabs1(const void* c);

float cblas_sdsdot(const int N, const float alpha, const float* X, const int incX,
                   const float* Y, const int incY);
double cblas_dsdot(const int N, const float* X, const int incX, const float* Y, const int incY);
float cblas_sdot(const int N, const float* X, const int incX, const float* Y, const int incY);
double cblas_ddot(const int N, const double* X, const int incX, const double* Y,
                  const int incY);

void cblas_cdotu_sub(const int N, const void* X, const int incX, const void* Y, const int incY,
                     void* dotu);
void cblas_cdotc_sub(const int N, const void* X, const int incX, const void* Y, const int incY,
                     void* dotc);
void cblas_zdotu_sub(const int N, const void* X, const int incX, const void* Y, const int incY,
                     void* dotu);
void cblas_zdotc_sub(const int N, const void* X, const int incX, const void* Y, const int incY,
                     void* dotc);

float cblas_snrm2(const int N, const float* X, const int incX);
float cblas_sasum(const int N, const float* X, const int incX);
double cblas_dnrm2(const int N, const double* X, const int incX);
double cblas_dasum(const int N, const double* X, const int incX);
float cblas_scnrm2(const int N, const void* X, const int incX);
float cblas_scasum(const int N, const void* X, const int incX);
double cblas_dznrm2(const int N, const void* X, const int incX);
double cblas_dzasum(const int N, const void* X, const int incX);

CBLAS_INDEX cblas_isamax(const int N, const float* X, const int incX);
CBLAS_INDEX cblas_idamax(const int N, const double* X, const int incX);
CBLAS_INDEX cblas_icamax(const int N, const void* X, const int incX);
CBLAS_INDEX cblas_izamax(const int N, const void* X, const int incX);

void cblas_sswap(const int N, float* X, const int incX, float* Y, const int incY);
void cblas_scopy(const int N, const float* X, const int incX, float* Y, const int incY);
void cblas_saxpy(const int N, const float alpha, const float* X, const int incX, float* Y,
                 const int incY);
void cblas_dswap(const int N, double* X, const int incX, double* Y, const int incY);
void cblas_dcopy(const int N, const double* X, const int incX, double* Y, const int incY);
void cblas_daxpy(const int N, const double alpha, const double* X, const int incX, double* Y,
                 const int incY);
void cblas_cswap(const int N, void* X, const int incX, void* Y, const int incY);
void cblas_ccopy(const int N, const void* X, const int incX, void* Y, const int incY);
void cblas_caxpy(const int N, const void* alpha, const void* X, const int incX, void* Y,
                 const int incY);
void cblas_zswap(const int N, void* X, const int incX, void* Y, const int incY);
void cblas_zcopy(const int N, const void* X, const int incX, void* Y, const int incY);
void cblas_zaxpy(const int N, const void* alpha, const void* X, const int incX, void* Y,
                 const int incY);

void cblas_srotg(float* a, float* b, float* c, float* s);
void cblas_srotmg(float* d1, float* d2, float* b1, const float b2, float* P);
void cblas_srot(const int N, float* X, const int incX, float* Y, const int incY, const float c,
                const float s);
void cblas_srotm(const int N, float* X, const int incX, float* Y, const int incY,
                 const float* P);
void cblas_drotg(double* a, double* b, double* c, double* s);
void cblas_drotmg(double* d1, double* d2, double* b1, const double b2, double* P);
void cblas_drot(const int N, double* X, const int incX, double* Y, const int incY,
                const double c, const double s);
void cblas_drotm(const int N, double* X, const int incX, double* Y, const int incY,
                 const double* P);
/** Complex Givens rotation: a <- r; b is read only; c real, s complex. */
void cblas_crotg(void* a, const void* b, float* c, void* s);
void cblas_zrotg(void* a, const void* b, double* c, void* s);
void cblas_csrot(const int N, void* X, const int incX, void* Y, const int incY, const float c,
                 const float s);
void cblas_zdrot(const int N, void* X, const int incX, void* Y, const int incY, const double c,
                 const double s);

void cblas_sscal(const int N, const float alpha, float* X, const int incX);
void cblas_dscal(const int N, const double alpha, double* X, const int incX);
void cblas_cscal(const int N, const void* alpha, void* X, const int incX);
void cblas_zscal(const int N, const void* alpha, void* X, const int incX);
void cblas_csscal(const int N, const float alpha, void* X, const int incX);
void cblas_zdscal(const int N, const double alpha, void* X, const int incX);
