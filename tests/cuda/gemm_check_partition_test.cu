/** \file gemm_check_partition_test.cu
 *  \brief The GPU GEMM check's partition of its reads, run on the host (no GPU needed): the
 *  per-thread functions of cuda/gemm_check.cuh that the kernels call — line_partial (a
 *  contiguous line: a column of A, C0 or C), column_reference_partial (a column of op(B)
 *  against the encoded pairs, in the fused check and in the overlapped reference kernel),
 *  strided_partial with strided_grid and strided_finish (a strided line: the columns of A^T or
 *  B^T; a split tile's partial sums added by its last block), line_partial's copy (C0's
 *  backup, copy_layout) — called for every thread (and block) of a launch, their shares added
 *  up as the kernels' reductions add them. On integer-valued data every order of the double sums is exact, so each sum must
 *  equal the exact one bit for bit: an element read twice or missed (a head, a tail, a pair,
 *  a column group, a chunk boundary) shows, and padding filled with NaN shows an element read
 *  from outside its matrix. Every element type, alignment, leading dimension and length that
 *  selects another branch.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gemm_check.cuh"

namespace {

using abft::cuda::column_reference_partial;
using abft::cuda::line_partial;
using abft::cuda::strided_grid;
using abft::cuda::strided_partial;
using abft::cuda::StridedGrid;
using abft::cuda::StridedShape;
using abft::cuda::to_double;

template <class T>
T from_int(int x) {
  return T(float(x));
}

/** `count` elements of T at a 64-byte aligned address, every one NaN until written. */
template <class T>
struct Buffer {
  explicit Buffer(size_t count) : n(count) {
    const size_t bytes = ((count * sizeof(T) + 63) / 64 + 1) * 64;
    p.reset(static_cast<T*>(std::aligned_alloc(64, bytes)));
    for (size_t i = 0; i < count; ++i) p[i] = T(NAN);
  }
  T* get() const { return p.get(); }
  struct Free {
    void operator()(T* q) const { std::free(q); }
  };
  std::unique_ptr<T[], Free> p;
  size_t n;
};

template <class T>
std::string type_name() {
  if (std::is_same<T, float>::value) return "float";
  if (std::is_same<T, double>::value) return "double";
  if (std::is_same<T, __half>::value) return "half";
  return "bfloat16";
}

/** Small integers: exact in every element type, and their sums exact in double. */
int draw(std::mt19937& rng) { return int(rng() % 15) - 7; }

template <class T>
void check_line_partial() {
  std::mt19937 rng(11);
  constexpr int kV = 16 / int(sizeof(T));
  for (int offset = 0; offset < kV + 1; ++offset)
    for (int64_t len : {0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 63, 64, 65, 127, 129, 500, 1031}) {
      Buffer<T> buf(size_t(offset + len + 2 * kV));
      T* p = buf.get() + offset;
      double exact = 0.0;
      for (int64_t i = 0; i < len; ++i) {
        const int x = draw(rng);
        p[i] = from_int<T>(x);
        exact += abft::checksum::library_row_weight(i) * x;  // (each element at its row's weight)
      }
      for (int nt : {1, 3, 32, 96, 256}) {
        double sum = 0.0;
        int64_t count = 0;
        for (int t = 0; t < nt; ++t) {
          auto add = [&](double x) {
            sum += x;
            ++count;
          };
          line_partial(p, len, t, nt, add);
        }
        ASSERT_EQ(count, len) << type_name<T>() << " offset " << offset << " len " << len << " nt " << nt;
        ASSERT_EQ(sum, exact) << type_name<T>() << " offset " << offset << " len " << len << " nt " << nt;
      }
    }
}

/** C0's backup as the C0 sums' kernel stores it: an m x n column-major C (ldc) starting
 *  `offset` elements after an aligned address, each column read by line_partial with its
 *  column of the copy (copy_layout) as the destination. Every element must arrive, every
 *  16-byte unit of a column must be stored at a 16-byte aligned address of the copy (the GPU
 *  faults on a misaligned one), and nothing past the copy's last element may be written. */
template <class T>
void check_line_copy() {
  std::mt19937 rng(13);
  constexpr int kV = 16 / int(sizeof(T));
  for (int offset = 0; offset < kV; ++offset)
    for (int64_t m : {1, 2, 7, 8, 9, 33, 100})
      for (int64_t extra : {int64_t(0), int64_t(1), int64_t(3), int64_t(kV), int64_t(kV) + 5}) {
        const int64_t ldc = m + extra, n = 5;
        Buffer<T> src(size_t(offset + ldc * n + kV));
        T* C = src.get() + offset;
        for (int64_t j = 0; j < n; ++j)
          for (int64_t i = 0; i < m; ++i) C[i + j * ldc] = from_int<T>(draw(rng));
        const abft::cuda::CopyLayout cl = abft::cuda::copy_layout(C, int64_t(sizeof(T)), m, ldc);
        const std::string where = type_name<T>() + " offset " + std::to_string(offset) + " m " + std::to_string(m) +
                                  " ldc " + std::to_string(ldc);
        ASSERT_GE(cl.ld, m) << where;
        ASSERT_LT(cl.ld, m + kV) << where;
        ASSERT_LT(cl.offset, kV) << where;
        const int64_t need = cl.offset + (n - 1) * cl.ld + m;
        Buffer<T> dst(size_t(need + 2 * kV));  // NaN beyond `need`: must stay so
        T* copy = dst.get() + cl.offset;
        for (int64_t j = 0; j < n; ++j) {
          const T* p = C + j * ldc;
          T* d = copy + j * cl.ld;
          ASSERT_EQ(reinterpret_cast<uintptr_t>(p) % 16, reinterpret_cast<uintptr_t>(d) % 16) << where << " column " << j;
          for (int t = 0; t < 64; ++t) {
            auto add = [](double) {};
            line_partial(p, m, t, 64, add, d);
          }
        }
        for (int64_t j = 0; j < n; ++j)
          for (int64_t i = 0; i < m; ++i)
            ASSERT_EQ(to_double(copy[i + j * cl.ld]), to_double(C[i + j * ldc])) << where << " (" << i << ", " << j << ")";
        for (int64_t x = need; x < need + 2 * kV; ++x)
          ASSERT_TRUE(std::isnan(to_double(dst.get()[x]))) << where << ": written past the copy at " << x;
      }
}

TEST(CudaGemmCheckPartition, LineCopyStoresEveryElementAligned) {
  check_line_copy<float>();
  check_line_copy<double>();
  check_line_copy<__half>();
  check_line_copy<__nv_bfloat16>();
}

TEST(CudaGemmCheckPartition, LinePartialReadsEveryElementOnce) {
  check_line_partial<float>();
  check_line_partial<double>();
  check_line_partial<__half>();
  check_line_partial<__nv_bfloat16>();
}

/** The column group j0 .. j0 + nc - 1 of a k x n column-major B (ldb, starting `offset`
 *  elements after an aligned address), as the fused check and the reference kernel read it. */
template <class T, int kCols>
void check_column_reference(int64_t k, int64_t ldb, int offset, std::mt19937& rng) {
  const int64_t n = 2 * kCols + 1;
  Buffer<T> buf(size_t(offset + ldb * n + 8));
  T* B = buf.get() + offset;
  std::vector<double2> vw(static_cast<size_t>(k));
  for (auto& pr : vw) pr = double2{double(draw(rng)), double(draw(rng) + 7)};
  for (int64_t j = 0; j < n; ++j)
    for (int64_t p = 0; p < k; ++p) B[p + j * ldb] = from_int<T>(draw(rng));
  for (int64_t j0 = 0; j0 < n; j0 += kCols) {
    const int nc = int(n - j0 < kCols ? n - j0 : kCols);
    for (int nt : {32, 64, 192, 256}) {
      double got[2 * kCols] = {};
      for (int t = 0; t < nt; ++t) {
        double v[4 * kCols] = {};  // the fused check's register array
        column_reference_partial<T, kCols>(B, ldb, k, vw.data(), j0, nc, t, nt, v);
        for (int i = 0; i < 2 * kCols; ++i) got[i] += v[i];
        for (int i = 2 * kCols; i < 4 * kCols; ++i) ASSERT_EQ(v[i], 0.0) << "the observed sums' slots are not its";
      }
      for (int c = 0; c < kCols; ++c) {
        double r = 0.0, x = 0.0;
        if (c < nc)
          for (int64_t p = 0; p < k; ++p) {
            const double b = to_double(B[p + (j0 + c) * ldb]);
            r += vw[size_t(p)].x * b;
            x += vw[size_t(p)].y * std::fabs(b);
          }
        const std::string where = type_name<T>() + " kCols " + std::to_string(kCols) + " k " + std::to_string(k) +
                                  " ldb " + std::to_string(ldb) + " offset " + std::to_string(offset) + " j0 " +
                                  std::to_string(j0) + " nc " + std::to_string(nc) + " nt " + std::to_string(nt) +
                                  " column " + std::to_string(c);
        ASSERT_EQ(got[c], r) << where;
        ASSERT_EQ(got[kCols + c], x) << where;
      }
    }
  }
}

template <class T>
void check_column_references() {
  std::mt19937 rng(23);
  for (int64_t k : {0, 1, 2, 3, 4, 5, 31, 64, 65, 255, 256, 257, 1000, 1001})
    for (int offset : {0, 1, 2, 3}) {
      // Four columns per block need one parity of address across them (ldb even).
      for (int64_t extra : {0, 2, 6}) check_column_reference<T, 4>(k, (k > 1 ? (k + 1) / 2 * 2 : 2) + extra, offset, rng);
      for (int64_t extra : {0, 1, 3}) check_column_reference<T, 1>(k, (k > 0 ? k : 1) + extra, offset, rng);
    }
}

TEST(CudaGemmCheckPartition, ColumnReferenceSumsEveryProductOnce) {
  check_column_references<float>();
  check_column_references<double>();
  check_column_references<__half>();
  check_column_references<__nv_bfloat16>();
}

/** strided_sums_kernel over an L x R stored M (ld), emulated: every block of strided_grid,
 *  every thread, the block's shared-memory reduction; then, with one chunk a tile, the block's
 *  stores, and with several, its partial sums' stores into `part` (g.scratch() doubles) and
 *  the tile's finish (strided_finish, its 256 threads) once all its chunks are stored, as the
 *  last block to count itself runs it. Every output must be stored exactly once. */
template <class T, bool kVec, bool kWeighted>
void emulate_strided(const T* M, int64_t ld, int64_t L, int64_t R, const StridedGrid& g, const double2* vw,
                     std::vector<double>& out_s, std::vector<double>& out_a) {
  using Shape = StridedShape<T, kVec>;
  constexpr int kTile = Shape::kTile;
  ASSERT_EQ(g.tile, int64_t(kTile));
  const bool split = g.chunks > 1;
  if (split) ASSERT_LE(g.tiles, abft::cuda::kStridedMaxSplitTiles) << "more tiles than counters";
  const int64_t P = g.tiles * kTile;
  std::vector<double> part(size_t(g.scratch()), NAN);
  std::vector<int> stores(size_t(2 * L), 0);
  std::vector<double> fin_s(size_t(L), NAN), fin_a(size_t(L), NAN);
  for (int64_t chunk = 0; chunk < g.chunks; ++chunk)
    for (int64_t tile = 0; tile < g.tiles; ++tile) {
      double red[2][Shape::kRows][kTile] = {};
      for (int ty = 0; ty < Shape::kRows; ++ty)
        for (int lane = 0; lane < 32; ++lane) {
          double s[Shape::kV] = {}, a[Shape::kV] = {};
          strided_partial<T, kVec, kWeighted>(M, ld, L, R, tile, chunk, g.rows, lane, ty, vw, s, a);
          for (int e = 0; e < Shape::kV; ++e) {
            const int64_t c = tile * kTile + int64_t(lane) * Shape::kV + e;
            if (c >= L) ASSERT_TRUE(s[e] == 0.0 && a[e] == 0.0) << "a share for a column past the tile's end";
            red[0][ty][lane * Shape::kV + e] = s[e];
            red[1][ty][lane * Shape::kV + e] = a[e];
          }
        }
      for (int o = 0; o < 2 * kTile; ++o) {
        const int which = o / kTile, cc = o % kTile;
        double t = 0.0;
        for (int y = 0; y < Shape::kRows; ++y) t += red[which][y][cc];
        const int64_t c = tile * kTile + cc;
        if (c >= L) continue;
        if (split) {
          const size_t at = size_t(abft::cuda::strided_part_at(chunk, which, P, c));
          ASSERT_LT(at, part.size()) << "a partial sum past the scratch";
          part[at] = t;
        } else {
          (which ? out_a : out_s)[size_t(c)] = t;
          ++stores[size_t(2 * c + which)];
        }
      }
      if (split && chunk == g.chunks - 1) {
        // Each thread's stores into NaN arrays, moved out (and counted) column by column of the
        // tile; a store outside the tile stays behind and shows in the scan after the threads.
        const int64_t c0 = tile * kTile, c1 = L < c0 + kTile ? L : c0 + kTile;
        for (int o = 0; o < 256; ++o) {
          abft::cuda::strided_finish<kTile>(part.data(), P, g.chunks, tile, L, o, 256, fin_s.data(), fin_a.data(), 1);
          for (int64_t c = c0; c < c1; ++c) {
            double& x = fin_s[size_t(c)];
            double& y = fin_a[size_t(c)];
            if (!std::isnan(x)) out_s[size_t(c)] = x, ++stores[size_t(2 * c)], x = NAN;
            if (!std::isnan(y)) out_a[size_t(c)] = y, ++stores[size_t(2 * c + 1)], y = NAN;
          }
        }
        for (int64_t c = 0; c < L; ++c)
          ASSERT_TRUE(std::isnan(fin_s[size_t(c)]) && std::isnan(fin_a[size_t(c)]))
              << "tile " << tile << "'s finish stored column " << c;
      }
    }
  for (int64_t c = 0; c < 2 * L; ++c) ASSERT_EQ(stores[size_t(c)], 1) << "output " << c / 2 << " sum " << c % 2;
}

template <class T, bool kWeighted>
void check_strided(int64_t L, int64_t R, int64_t ld, int offset, std::mt19937& rng) {
  Buffer<T> buf(size_t(offset + ld * R + 16));
  T* M = buf.get() + offset;
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < L; ++c) M[c + r * ld] = from_int<T>(draw(rng));
  std::vector<double2> vw(static_cast<size_t>(R));
  for (auto& pr : vw) pr = double2{double(draw(rng)), double(draw(rng) + 7)};
  const StridedGrid g = strided_grid(M, ld, int64_t(sizeof(T)), L, R);
  const std::string where = type_name<T>() + (kWeighted ? " weighted" : " plain") + " L " + std::to_string(L) +
                            " R " + std::to_string(R) + " ld " + std::to_string(ld) + " offset " +
                            std::to_string(offset);
  // The grid: every row in one chunk, no empty chunk, a launch cuda can take.
  ASSERT_GE(g.chunks * g.rows, R) << where;
  ASSERT_LT((g.chunks - 1) * g.rows, R) << where;
  ASSERT_LT(g.tiles * g.chunks, int64_t(1) << 31) << where;
  const bool can_vec = reinterpret_cast<uintptr_t>(M) % 16 == 0 && (ld * int64_t(sizeof(T))) % 16 == 0;
  ASSERT_EQ(g.vec, can_vec) << where;
  std::vector<double> s(size_t(L), NAN), a(size_t(L), NAN);
  if (g.vec) emulate_strided<T, true, kWeighted>(M, ld, L, R, g, vw.data(), s, a);
  else emulate_strided<T, false, kWeighted>(M, ld, L, R, g, vw.data(), s, a);
  for (int64_t c = 0; c < L; ++c) {
    double es = 0.0, ea = 0.0;
    for (int64_t r = 0; r < R; ++r) {
      const double x = to_double(M[c + r * ld]);
      // (Unweighted by vw: the column sums' row weights, gemm_library_check.hpp.)
      const double rw = abft::checksum::library_row_weight(r);
      es += (kWeighted ? vw[size_t(r)].x : rw) * x;
      ea += (kWeighted ? vw[size_t(r)].y : rw) * std::fabs(x);
    }
    ASSERT_EQ(s[size_t(c)], es) << where << " column " << c;
    ASSERT_EQ(a[size_t(c)], ea) << where << " column " << c;
  }
}

template <class T>
void check_strided_all() {
  std::mt19937 rng(37);
  constexpr int kV = 16 / int(sizeof(T));
  for (int64_t L : {1, 5, 31, 32, 33, 100, 257})
    for (int64_t R : {1, 7, 127, 128, 129, 1000, 4097})
      for (int64_t pad : {0, 1, kV}) {
        const int64_t ld = (L + kV - 1) / kV * kV + pad;  // pad 0 (and kV): 16-byte rows
        for (int offset : {0, 1}) {
          check_strided<T, false>(L, R, ld, offset, rng);
          check_strided<T, true>(L, R, ld, offset, rng);
        }
      }
}

TEST(CudaGemmCheckPartition, StridedSumsCoverEveryRowOnce) {
  {  // many tiles: one chunk a tile unless 16-byte tiles bring them under the counters' count
    std::mt19937 rng(41);
    check_strided<float, false>(16400, 300, 16400, 0, rng);  // 129 tiles of 128: split
    check_strided<float, true>(16400, 300, 16401, 0, rng);   // 513 tiles of 32: one chunk each
  }
  check_strided_all<float>();
  check_strided_all<double>();
  check_strided_all<__half>();
  check_strided_all<__nv_bfloat16>();
}

}  // namespace
