/** \file xerbla.cpp
 *  \brief xerbla_, xerbla_array_, lsame_, cblas_xerbla and the reporting helpers.
 */
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "blas/common/blas_error.hpp"

extern "C" {

int RowMajorStrg = 0;
int CBLAS_CallFromC = 0;

/** Reference message; returns instead of STOP (the library never ends the process). */
void xerbla_(const char* srname, const abft::blas::blas_int* info, abft::blas::flen len) {
  int n = int(len);
  while (n > 0 && srname[n - 1] == ' ') --n;
  std::fprintf(stderr, " ** On entry to %.*s parameter number %2d had an illegal value\n", n,
               srname, info ? *info : 0);
}

/** LAPACK's variant taking the name as an array of characters. */
void xerbla_array_(const char* srname_array, const abft::blas::blas_int* srname_len,
                   const abft::blas::blas_int* info, abft::blas::flen /*len*/) {
  char name[33] = {0};
  int n = srname_len ? *srname_len : 0;
  if (n < 0) n = 0;
  if (n > 32) n = 32;
  if (srname_array) std::memcpy(name, srname_array, size_t(n));
  xerbla_(name, info, abft::blas::flen(n));
}

/** Case-insensitive comparison of the first character (the reference LSAME). */
int lsame_(const char* ca, const char* cb, abft::blas::flen, abft::blas::flen) {
  return abft::blas::upper(*ca) == abft::blas::upper(*cb);
}

}  // extern "C"

namespace {

/** A row-major CBLAS call runs the column-major routine with some arguments exchanged
 *  (m/n, kl/ku, A/B, x/y), so the position its check finds is that of the partner; the
 *  reference cblas_xerbla maps it back to the caller's list with this table (and the
 *  x?cblat test programs' own cblas_xerbla expects to do the same). */
int row_major_position(int info, const char* rout) {
  auto has = [rout](const char* s) { return std::strstr(rout, s) != nullptr; };
  auto swap = [&info](int a, int b) { info = info == a ? b : info == b ? a : info; };
  if (has("gemm")) {
    swap(4, 5);
    swap(9, 11);
  } else if (has("symm") || has("hemm")) {
    swap(4, 5);
  } else if (has("trmm") || has("trsm")) {
    swap(6, 7);
  } else if (has("gemv")) {
    swap(3, 4);
  } else if (has("gbmv")) {
    swap(3, 4);
    swap(5, 6);
  } else if (has("ger")) {
    swap(2, 3);
    swap(6, 8);
  } else if ((has("her2") || has("hpr2")) && !has("her2k")) {
    swap(6, 8);
  }
  return info;
}

}  // namespace

extern "C" {

void cblas_xerbla(int info, const char* rout, const char* form, ...) {
  if (RowMajorStrg && rout) info = row_major_position(info, rout);
  if (info) std::fprintf(stderr, "Parameter %d to routine %s was incorrect\n", info, rout);
  if (form && *form) {
    va_list ap;
    va_start(ap, form);
    std::vfprintf(stderr, form, ap);
    va_end(ap);
  }
}

}  // extern "C"

namespace abft::blas {

void report_f77(const char* name, blas_int info) {
  char padded[8] = "      ";
  const size_t n = std::strlen(name);
  std::memcpy(padded, name, n < 6 ? n : 6);
  xerbla_(padded, &info, n > 6 ? flen(n) : flen(6));
}

void report_cblas(const char* name, blas_int info) { cblas_xerbla(info, name, ""); }

}  // namespace abft::blas
