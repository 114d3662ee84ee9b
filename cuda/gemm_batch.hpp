/** \file gemm_batch.hpp
 *  \brief A strided batch of GEMMs as the engine takes it (gemm_protected.hpp) and when its
 *  outputs are disjoint — shared by the engine, which refuses a batch whose outputs may overlap,
 *  and the preload's translation (interpose/translate.cpp), which passes such a call through.
 *  Plain C++, no CUDA header.
 */
#pragma once
#include <cstdint>

namespace abft::cuda {

/** A strided batch: `count` products, item i's operands at A + i sa, B + i sb, C + i sc
 *  (elements; any sign for A and B, C's items apart). count 1: one product, strides unused. */
struct GemmBatch {
  int64_t count = 1, sa = 0, sb = 0, sc = 0;
};

/** Whether `count` column-major m x n outputs (ldc), `sc` elements apart, are disjoint: one
 *  item's span ends before the next begins (|sc| >= (n - 1) ldc + m), or the items are row blocks
 *  of one taller matrix (|sc| >= m and (count - 1) |sc| + m <= ldc). Other layouts may overlap:
 *  refused (cuBLAS leaves overlapping outputs undefined). */
inline bool outputs_disjoint(int64_t count, int64_t sc, int64_t m, int64_t n, int64_t ldc) {
  if (count <= 1 || m <= 0 || n <= 0) return true;
  if (sc == INT64_MIN) return true;  // (|sc| beyond any span)
  const int64_t a = sc < 0 ? -sc : sc;
  if (a >= (n - 1) * ldc + m) return true;
  return a >= m && (count - 1) <= (ldc - m) / a;  // (count - 1) |sc| + m <= ldc, without overflow
}

}  // namespace abft::cuda
