/** \file level2_cblas.hpp
 *  \brief What every CBLAS Level-2 entry shares: the layout check, the CBLAS enums read
 *  in column-major terms, and error reporting.
 *
 *  A row-major matrix is the column-major view of its transpose, so a row-major call runs
 *  as the column-major routine on the same memory with m and n (kl and ku) swapped, Upper
 *  and Lower exchanged, N and T exchanged, and ConjTrans turned into conj(A) without
 *  transpose (Op::R; plain N for real data). Hermitian matrices and updates need the
 *  conjugate of the transposed view, which the cores take as flags; no vector is copied.
 *  This is what the reference CBLAS computes (it copies conjugated vectors instead), and
 *  its argument checks run in the same order on the same mapped arguments, so the
 *  positions it reports (info + 1 for those the Fortran-style check finds) match the
 *  reference exactly; cblas_xerbla translates them back for row-major calls, as the
 *  reference's does.
 */
#pragma once
#include "blas/common/blas_error.hpp"
#include "blas/level2/level2_entry.hpp"

namespace abft::blas::cblas2 {

/** CBLAS enum values (abft/cblas.h). */
enum : int {
  kRowMajor = 101, kColMajor = 102,
  kNoTrans = 111, kTrans = 112, kConjTrans = 113,
  kUpper = 121, kLower = 122,
  kNonUnit = 131, kUnit = 132
};

/** One CBLAS call: checks the layout (reporting argument 1 when it is invalid) and holds
 *  the reference-CBLAS globals (CblasScope) for the whole call. */
class Call {
 public:
  Call(const char* name, int layout)
      : name_(name), row_(layout == kRowMajor), ok_(row_ || layout == kColMajor), scope_(row_) {
    if (!ok_) report_cblas(name_, 1);
  }
  explicit operator bool() const { return ok_; }
  bool row() const { return row_; }
  /** Report a CBLAS-level error (a CBLAS enum argument at position info). */
  void fail(blas_int info) const { report_cblas(name_, info); }
  /** Report the Fortran-style entry's INFO, shifted past the layout argument. */
  void finish(blas_int info) const {
    if (info) report_cblas(name_, info + 1);
  }

 private:
  const char* name_;
  bool row_, ok_;
  CblasScope scope_;
};

/** TransA in column-major terms (see the file comment). */
template <class T>
inline Arg<Op> op_of(int trans, bool row) {
  switch (trans) {
    case kNoTrans: return row ? Op::T : Op::N;
    case kTrans: return row ? Op::N : Op::T;
    case kConjTrans: return row ? (is_complex_v<T> ? Op::R : Op::N) : Op::C;
    default: return std::nullopt;
  }
}
/** Uplo in column-major terms: a row-major triangle is the other one of the transpose. */
inline Arg<Uplo> uplo_of(int uplo, bool row) {
  switch (uplo) {
    case kUpper: return row ? Uplo::L : Uplo::U;
    case kLower: return row ? Uplo::U : Uplo::L;
    default: return std::nullopt;
  }
}
inline Arg<Diag> diag_of(int diag) {
  switch (diag) {
    case kNonUnit: return Diag::N;
    case kUnit: return Diag::U;
    default: return std::nullopt;
  }
}

/** Complex arguments arrive as void pointers to interleaved (re, im) pairs. */
template <class T>
inline const T* in(const void* p) { return static_cast<const T*>(p); }
template <class T>
inline T* out(void* p) { return static_cast<T*>(p); }

}  // namespace abft::blas::cblas2
