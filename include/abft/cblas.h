/** \file cblas.h
 *  \brief The CBLAS interface of abft's BLAS shim (libabft_blas / libblas.so.3 / libcblas.so.3).
 *
 *  Standard CBLAS names, enum values and argument orders, so code written against any CBLAS
 *  compiles against it. Level-3 routines run protected (see README, "Drop-in BLAS").
 *  Integers are 32-bit (LP64). Complex arguments are pointers to interleaved (re, im) pairs.
 */
#ifndef ABFT_CBLAS_H
#define ABFT_CBLAS_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum CBLAS_LAYOUT { CblasRowMajor = 101, CblasColMajor = 102 } CBLAS_LAYOUT;
typedef enum CBLAS_TRANSPOSE { CblasNoTrans = 111, CblasTrans = 112, CblasConjTrans = 113 } CBLAS_TRANSPOSE;
typedef enum CBLAS_UPLO { CblasUpper = 121, CblasLower = 122 } CBLAS_UPLO;
typedef enum CBLAS_DIAG { CblasNonUnit = 131, CblasUnit = 132 } CBLAS_DIAG;
typedef enum CBLAS_SIDE { CblasLeft = 141, CblasRight = 142 } CBLAS_SIDE;
typedef CBLAS_LAYOUT CBLAS_ORDER; /* older name */
typedef int CBLAS_INDEX_INT;
#define CBLAS_INDEX size_t

/** Argument-error handler: info is the 1-based argument position. Ours prints and returns;
 *  a program may define its own (it overrides the library's). */
void cblas_xerbla(int info, const char* rout, const char* form, ...);

#include "abft/cblas_level1.h"
#include "abft/cblas_level2.h"
#include "abft/cblas_level3.h"

#ifdef __cplusplus
}
#endif
#endif /* ABFT_CBLAS_H */
