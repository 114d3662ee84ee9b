/** \file blas_error.hpp
 *  \brief Argument-error reporting with reference-BLAS semantics.
 *
 *  A routine that finds an invalid argument reports it and returns without touching any
 *  output. Fortran-style entries call `xerbla_(NAME, &info)` with the routine's 6-character,
 *  blank-padded upper-case name ("DGEMM "); CBLAS entries call
 *  `cblas_xerbla(info, "cblas_dgemm", "")` where info is the CBLAS argument position (the
 *  Fortran position + 1 for errors found by the shared Fortran-style check, because CBLAS
 *  adds the layout argument in front). Both handlers are ordinary exported symbols, so a
 *  user-supplied xerbla_ / cblas_xerbla in the program overrides ours (ELF interposition).
 *  Ours print the reference message and return: the library never exits the process.
 */
#pragma once
#include "blas/common/blas_types.hpp"

extern "C" {
void xerbla_(const char* srname, const abft::blas::blas_int* info, abft::blas::flen len);
void cblas_xerbla(int info, const char* rout, const char* form, ...);
/** Reference-CBLAS compatibility globals (some test drivers read them). */
extern int RowMajorStrg;
extern int CBLAS_CallFromC;
}

namespace abft::blas {

/** Report through xerbla_ (Fortran entries). name: e.g. "DGEMM" (padded to 6 here). */
void report_f77(const char* name, blas_int info);
/** Report through cblas_xerbla (CBLAS entries). name: e.g. "cblas_dgemm". */
void report_cblas(const char* name, blas_int info);

/** Sets RowMajorStrg / CBLAS_CallFromC for the duration of one CBLAS call, as the
 *  reference CBLAS does, and clears them on every return path. */
struct CblasScope {
  explicit CblasScope(bool row_major) {
    CBLAS_CallFromC = 1;
    RowMajorStrg = row_major ? 1 : 0;
  }
  ~CblasScope() {
    CBLAS_CallFromC = 0;
    RowMajorStrg = 0;
  }
};

}  // namespace abft::blas
