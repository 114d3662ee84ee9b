/** \file triangle_storage.hpp
 *  \brief Column access to the stored triangle of a symmetric, Hermitian or triangular
 *  matrix in full (lda), band (k, lda) or packed storage, column-major.
 *
 *  Every triangle-shaped Level-2 core (?symv/?hemv, ?trmv, ?trsv, ?syr/?her, ?syr2/?her2
 *  and their band and packed twins) walks the matrix one column at a time, and in all
 *  three storages the stored off-diagonal part of column j is one contiguous run of rows:
 *  [lo, j) for an upper triangle, (j, hi) for a lower one. col(j) says where that run and
 *  the diagonal element are, so each algorithm is written once for all three storages.
 */
#pragma once
#include <algorithm>
#include <cstddef>

#include "blas/common/blas_types.hpp"

namespace abft::blas::l2 {

/** Column j of a stored triangle: rows [lo, hi) live at A[off .. off + hi - lo), the
 *  diagonal element at A[diag]. */
struct Column {
  std::ptrdiff_t off;
  blas_int lo, hi;
  std::ptrdiff_t diag;
  blas_int len() const { return hi - lo; }
};

/** Full storage with leading dimension lda. */
struct FullTri {
  bool upper;
  blas_int n, lda;
  Column col(blas_int j) const {
    const std::ptrdiff_t c = std::ptrdiff_t(j) * lda;
    if (upper) return {c, 0, j, c + j};
    return {c + j + 1, j + 1, n, c + j};
  }
};

/** Band storage with k off-diagonals: the diagonal in row k (upper) or 0 (lower) of the
 *  lda-by-n band array. */
struct BandTri {
  bool upper;
  blas_int n, k, lda;
  Column col(blas_int j) const {
    const std::ptrdiff_t c = std::ptrdiff_t(j) * lda;
    if (upper) {
      const blas_int lo = std::max<blas_int>(0, j - k);
      return {c + k + lo - j, lo, j, c + k};
    }
    return {c + 1, j + 1, std::min<blas_int>(n, j + k + 1), c};
  }
};

/** Packed storage: the columns of the triangle one after another. */
struct PackedTri {
  bool upper;
  blas_int n;
  Column col(blas_int j) const {
    const std::ptrdiff_t jj = j;
    if (upper) {
      const std::ptrdiff_t c = jj * (jj + 1) / 2;
      return {c, 0, j, c + j};
    }
    const std::ptrdiff_t c = jj * (2 * std::ptrdiff_t(n) - jj + 1) / 2;
    return {c + 1, j + 1, n, c};
  }
};

}  // namespace abft::blas::l2
