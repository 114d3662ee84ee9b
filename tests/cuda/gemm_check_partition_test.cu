/** \file gemm_check_partition_test.cu
 *  \brief The GPU GEMM check's partition of its reads, run on the host (no GPU needed): the
 *  per-thread functions of cuda/gemm_check.cuh that the kernels call — line_partial (a
 *  contiguous line: a column of A, C0 or C), column_reference_partial (a column of op(B)
 *  against the encoded pairs, in the fused check and in the overlapped reference kernel),
 *  strided_partial with strided_grid (a strided line: the columns of A^T or B^T) — called for
 *  every thread (and block) of a launch, their shares added up as the kernels' reductions add
 *  them. On integer-valued data every order of the double sums is exact, so each sum must
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
        exact += x;
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
 *  every thread, the block's shares added per column as its shared-memory reduction and
 *  atomicAdd do. */
template <class T, bool kVec, bool kWeighted>
void emulate_strided(const T* M, int64_t ld, int64_t L, int64_t R, const StridedGrid& g, const double2* vw,
                     std::vector<double>& out_s, std::vector<double>& out_a) {
  using Shape = StridedShape<T, kVec>;
  for (int64_t chunk = 0; chunk < g.chunks; ++chunk)
    for (int64_t tile = 0; tile < g.tiles; ++tile)
      for (int ty = 0; ty < Shape::kRows; ++ty)
        for (int lane = 0; lane < 32; ++lane) {
          double s[Shape::kV] = {}, a[Shape::kV] = {};
          strided_partial<T, kVec, kWeighted>(M, ld, L, R, tile, chunk, g.rows, lane, ty, vw, s, a);
          for (int e = 0; e < Shape::kV; ++e) {
            const int64_t c = tile * Shape::kTile + int64_t(lane) * Shape::kV + e;
            if (c < L) out_s[size_t(c)] += s[e], out_a[size_t(c)] += a[e];
            else ASSERT_TRUE(s[e] == 0.0 && a[e] == 0.0) << "a share for a column past the tile's end";
          }
        }
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
  std::vector<double> s(size_t(L), 0.0), a(size_t(L), 0.0);
  if (g.vec) emulate_strided<T, true, kWeighted>(M, ld, L, R, g, vw.data(), s, a);
  else emulate_strided<T, false, kWeighted>(M, ld, L, R, g, vw.data(), s, a);
  for (int64_t c = 0; c < L; ++c) {
    double es = 0.0, ea = 0.0;
    for (int64_t r = 0; r < R; ++r) {
      const double x = to_double(M[c + r * ld]);
      es += (kWeighted ? vw[size_t(r)].x : 1.0) * x;
      ea += (kWeighted ? vw[size_t(r)].y : 1.0) * std::fabs(x);
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
  check_strided_all<float>();
  check_strided_all<double>();
  check_strided_all<__nv_bfloat16>();
}

}  // namespace
