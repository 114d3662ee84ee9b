/** \file gemm_check.cuh
 *  \brief Device kernels of the GPU GEMM's checksums (issue 9, first part): encoding of op(A)
 *  and of C0, the column references and magnitudes, the observed sums (and the stored
 *  elements' binades, the output rounding's share of the bound) and the verdicts, with
 *  device-side counters (no host synchronization on the fault-free path). Each kernel is a
 *  parallel loop around the shared ABFT_HD functions of abft/checksum/gemm_library_check.hpp,
 *  which tests/checksum/library_check_test.cpp runs on the host on emulated library products.
 *  Matrices are column-major with leading dimensions (the cuBLAS convention); op(A) is m x k,
 *  op(B) k x n, C m x n. Element types: float, double, __half, __nv_bfloat16 (read as double).
 *
 *  The checks read op(A), op(B), C0 and C once each, O(mk + kn + mn) bytes against the
 *  product's 2mnk flops: they cost little only at memory speed, so every read is a full,
 *  coalesced transaction with several loads in flight per thread:
 *    - a contiguous line (a column of a non-transposed operand, of C0, of C) is read in 16-byte
 *      loads from its first 16-byte boundary, with a scalar head and tail (line_partial);
 *    - a strided line (a column of op(X) = X^T: a row of the stored X) is read as tiles of the
 *      stored matrix, threads along its contiguous dimension; a tile's partial sums are reduced
 *      in shared memory, and when a tile is split into chunks of rows the last chunk's block
 *      adds the chunks' shares in chunk order (strided_sums_kernel: no zeroed array, no
 *      atomic sums, the same bits on every run);
 *    - C0's backup is stored by the kernel that sums C0, from the same loads (line_partial);
 *    - a column's reference reads op(B)'s column against the encoded pairs (v_p, w_p), 16
 *      bytes per p (8 times a bfloat16 element of B): up to four columns share each pair, and
 *      a thread reads two consecutive elements per column so that the pairs' loads are
 *      contiguous across the warp (column_check_kernel, which also sums the column of C and
 *      decides, and repairs, in the same launch);
 *    - a block takes a line (a group of columns), sized for about 4096 warps per launch.
 *  The partition changes the order of the double additions, never their terms: each sum is
 *  still one of m (or k) terms, and the bound allows any order of them (gamma_len(u_d),
 *  docs/ABFT.md §11).
 *  Included by the translation unit that launches them (gemm_protected.cu): a __global__
 *  template must be instantiated where it is launched. Status: compiled for sm_90 + PTX in
 *  every CUDA build; run on an H200 (2026-11-30: tests pass, docs/RELIABILITY.md §12) before the
 *  split finish, the C0 backup stored from the sums' loads and the overlap experiment, which
 *  have not yet run on a GPU (host emulation: tests/cuda/gemm_check_partition_test.cu).
 */
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "abft/checksum/gemm_library_check.hpp"
#include "device_state.hpp"

namespace abft::cuda {

namespace ck = abft::checksum;

ABFT_HD double to_double(float x) { return double(x); }
ABFT_HD double to_double(double x) { return x; }
ABFT_HD double to_double(__half x) { return double(__half2float(x)); }
ABFT_HD double to_double(__nv_bfloat16 x) { return double(__bfloat162float(x)); }

/** One 16-byte load (a line's body) and one load of two consecutive elements (a column of
 *  op(B) against the encoded pairs). */
template <class T>
struct alignas(16) Vec16 {
  T e[16 / sizeof(T)];
};
template <class T>
struct alignas(2 * sizeof(T)) Vec2 {
  T e[2];
};

/** Elements of the line at p before its first kAlign-byte boundary, at most len (all of it
 *  when p is not even aligned to its element: then no wide load is attempted). */
template <int kAlign, class T>
ABFT_HD int64_t head_elements(const T* p, int64_t len) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  if (a % sizeof(T) != 0) return len;
  const int64_t mis = int64_t(a % kAlign);
  const int64_t h = mis == 0 ? 0 : (kAlign - mis) / int64_t(sizeof(T));
  return h < len ? h : len;
}

/** Sum over the block of N doubles per thread (blockDim.x a multiple of 32, at most 1024); the
 *  totals are valid in every thread. The order of the double sums is the reduction tree's: the
 *  bound's gamma_len(u_d) holds for any order (docs/ABFT.md §11). */
template <int N>
__device__ __forceinline__ void block_sum_all(double (&v)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i)
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v[i] += __shfl_xor_sync(0xffffffffu, v[i], o);
  if (blockDim.x == 32) return;  // one warp: every lane holds the totals
  __shared__ double part[32][N];
  const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
  if (lane == 0)
#pragma unroll
    for (int i = 0; i < N; ++i) part[wid][i] = v[i];
  __syncthreads();
#pragma unroll
  for (int i = 0; i < N; ++i) {
    double s = 0.0;
    for (int w = 0; w < nw; ++w) s += part[w][i];
    v[i] = s;
  }
  __syncthreads();  // `part` is reused by the block's next line
}

/** This thread's share of the contiguous line p[0, len): add(r_i x_i) for each of its elements
 *  (r_i = library_row_weight(i): every line it reads is a column of a product's rows — of A, C0,
 *  the bias or C — whose sums are weighted, gemm_library_check.hpp),
 *  threads t < nt striding through the line's 16-byte units (four loads in flight each) after
 *  a scalar head up to the first 16-byte boundary, then a scalar tail. With `dst`, each
 *  element read is also stored at dst[i] (the backup of C0 as its sums are formed: one read
 *  of C0 instead of two); dst must be at p's address modulo 16 (copy_layout), so that
 *  its 16-byte units are stored whole. */
template <class T, class Add>
ABFT_HD void line_partial(const T* p, int64_t len, int t, int nt, Add& add, T* dst = nullptr) {
  constexpr int kV = 16 / sizeof(T), kU = 4;
  const int64_t h = head_elements<16>(p, len);
  const int64_t nv = (len - h) / kV;
  for (int64_t i = t; i < h; i += nt) {
    add(ck::library_row_weight(i) * to_double(p[i]));
    if (dst) dst[i] = p[i];
  }
  for (int64_t i = h + nv * kV + t; i < len; i += nt) {
    add(ck::library_row_weight(i) * to_double(p[i]));
    if (dst) dst[i] = p[i];
  }
  const Vec16<T>* q = reinterpret_cast<const Vec16<T>*>(p + h);
  Vec16<T>* d = dst ? reinterpret_cast<Vec16<T>*>(dst + h) : nullptr;
  for (int64_t b = t; b < nv; b += int64_t(kU) * nt) {
    Vec16<T> x[kU];
ABFT_UNROLL
    for (int u = 0; u < kU; ++u)
      if (b + int64_t(u) * nt < nv) x[u] = q[b + int64_t(u) * nt];
    if (dst)
ABFT_UNROLL
      for (int u = 0; u < kU; ++u)
        if (b + int64_t(u) * nt < nv) d[b + int64_t(u) * nt] = x[u];
ABFT_UNROLL
    for (int u = 0; u < kU; ++u)
      if (b + int64_t(u) * nt < nv)
ABFT_UNROLL
        for (int e = 0; e < kV; ++e)
          add(ck::library_row_weight(h + (b + int64_t(u) * nt) * kV + e) * to_double(x[u].e[e]));
  }
}

/** The layout of a packed copy of the m x n column-major matrix C (ldc) that line_partial can
 *  store in 16-byte units: its leading dimension (m, or the next value congruent to ldc modulo
 *  a 16-byte unit's elements, so that every copied column sits at its source's address modulo
 *  16) and the element offset from a 16-byte aligned base at which the copy starts (C's own
 *  offset modulo 16; 0 when C is not even aligned to its element, as line_partial then reads
 *  it element by element). The copy takes offset + (n - 1) ld + m elements from the base. */
struct CopyLayout {
  int64_t ld = 0, offset = 0;
};
inline CopyLayout copy_layout(const void* C, int64_t elem, int64_t m, int64_t ldc) {
  const int64_t kV = 16 / elem;
  CopyLayout L;
  L.ld = m + ((ldc - m) % kV);
  const uintptr_t a = reinterpret_cast<uintptr_t>(C);
  L.offset = a % uintptr_t(elem) != 0 ? 0 : int64_t(a % 16) / elem;
  return L;
}

/** Threads per block for the block-per-line kernels: about 4096 warps per launch in all (the
 *  reads in flight that memory speed needs), from one warp to eight per block. */
inline int line_block_threads(int64_t blocks) {
  const int64_t w = blocks > 0 ? (4096 + blocks - 1) / blocks : 1;
  return 32 * int(w < 1 ? 1 : w > 8 ? 8 : w);
}
inline int grid_of(int64_t blocks) { return int(blocks < (int64_t(1) << 30) ? blocks : (int64_t(1) << 30)); }

/** Contiguous lines: line l is p[l ld, l ld + len); its sums go to sum[l os] and abs_sum[l os];
 *  with `copy`, line l is also copied to copy[l cld, l cld + len) (copy_layout). A strided
 *  batch repeats the set `items` times: item y's lines start at p + y item_p, its sums at
 *  sum + y item_sum (and abs_sum), its copies at copy + y item_copy. */
template <class T>
struct LineSet {
  const T* p = nullptr;
  int64_t ld = 0, len = 0, lines = 0;
  double* sum = nullptr;
  double* abs_sum = nullptr;
  int64_t os = 1;
  T* copy = nullptr;
  int64_t cld = 0;
  int64_t items = 1, item_p = 0, item_sum = 0, item_copy = 0;
  ABFT_HD int64_t total() const { return lines * items; }
};

/** Line l of two sets (s0's lines first, item by item), field by field (a reference to either
 *  set would copy both to the stack): its batch item y, its index li in its set, and whether it
 *  is s0's. */
struct LineIndex {
  bool first;
  int64_t y, li;
};
template <class T>
__device__ __forceinline__ LineIndex line_index(const LineSet<T>& s0, const LineSet<T>& s1, int64_t l) {
  const int64_t n0 = s0.lines * s0.items;
  const bool first = l < n0;
  const int64_t x = first ? l : l - n0;
  const int64_t y = first ? x / s0.lines : x / s1.lines;  // the batch item
  return {first, y, first ? x - y * s0.lines : x - y * s1.lines};
}
/** Where line i starts, and where its copy goes (or null). */
template <class T>
__device__ __forceinline__ const T* line_start(const LineSet<T>& s0, const LineSet<T>& s1, LineIndex i) {
  return i.first ? s0.p + i.y * s0.item_p + i.li * s0.ld : s1.p + i.y * s1.item_p + i.li * s1.ld;
}
template <class T>
__device__ __forceinline__ T* line_copy(const LineSet<T>& s0, const LineSet<T>& s1, LineIndex i) {
  return i.first ? (s0.copy ? s0.copy + i.y * s0.item_copy + i.li * s0.cld : nullptr)
                 : (s1.copy ? s1.copy + i.y * s1.item_copy + i.li * s1.cld : nullptr);
}
/** Line i's two sums stored where its set keeps them (after the reduction: the addresses are
 *  formed only then, not held across the line's loads). */
template <class T>
__device__ __forceinline__ void line_store(const LineSet<T>& s0, const LineSet<T>& s1, LineIndex i, const double* v) {
  const int64_t o = i.y * (i.first ? s0.item_sum : s1.item_sum) + i.li * (i.first ? s0.os : s1.os);
  (i.first ? s0.sum : s1.sum)[o] = v[0];
  (i.first ? s0.abs_sum : s1.abs_sum)[o] = v[1];
}

/** sum_i x_i and sum_i |x_i| of every line of two sets, a block per line: the encoding of
 *  op(A) (v_p, w_p over a column of op(A), A not transposed) and the column sums of C0 with
 *  its backup (before the product overwrites C) in one launch. */
template <class T>
__global__ void __launch_bounds__(256) line_sums_kernel(LineSet<T> s0, LineSet<T> s1) {
  const int64_t total = s0.total() + s1.total();
  for (int64_t l = blockIdx.x; l < total; l += gridDim.x) {
    const LineIndex i = line_index(s0, s1, l);
    double v[2] = {0.0, 0.0};
    auto add = [&v](double x) {
      v[0] += x;
      v[1] += fabs(x);
    };
    line_partial(line_start(s0, s1, i), i.first ? s0.len : s1.len, threadIdx.x, blockDim.x, add,
                 line_copy(s0, s1, i));
    block_sum_all(v);
    if (threadIdx.x == 0) line_store(s0, s1, i, v);
  }
}

/** Lines per block when line sets ride on another launch's 256-thread blocks: groups of tpl
 *  threads, a power of two from 32 to 256 (line_block_threads rounded down), a line each. */
inline int line_group_threads(int64_t lines) {
  const int t = line_block_threads(lines);
  return t >= 256 ? 256 : t >= 128 ? 128 : t >= 64 ? 64 : 32;
}
/** Blocks of 256 threads that take the lines of two sets in groups of tpl threads. */
inline int64_t line_group_blocks(int64_t lines, int tpl) {
  const int64_t per = 256 / tpl, b = (lines + per - 1) / per;
  return b < (int64_t(1) << 20) ? b : (int64_t(1) << 20);
}

/** line_sums_kernel's work on block `blk` of `nblk` 256-thread blocks, a line per group of tpl
 *  threads (line_group_threads): the same partition of each line among tpl threads, and the
 *  same reduction tree, as a block of tpl threads. Every thread of the block calls it. */
template <class T>
__device__ void line_sums_groups(const LineSet<T>& s0, const LineSet<T>& s1, int64_t blk, int64_t nblk, int tpl) {
  const int64_t total = s0.total() + s1.total();
  const int per = 256 / tpl, g = int(threadIdx.x) / tpl, t = int(threadIdx.x) % tpl;
  const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, wpg = tpl / 32;
  __shared__ double part[8][2];
  for (int64_t base = blk * per; base < total; base += nblk * per) {
    const int64_t l = base + g;
    double v[2] = {0.0, 0.0};
    const LineIndex i = line_index(s0, s1, l < total ? l : 0);
    if (l < total) {
      auto add = [&v](double z) {
        v[0] += z;
        v[1] += fabs(z);
      };
      line_partial(line_start(s0, s1, i), i.first ? s0.len : s1.len, t, tpl, add, line_copy(s0, s1, i));
    }
    // The group's sums: within each warp, then (tpl > 32) over the group's warps in order.
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int o = 16; o > 0; o >>= 1) v[i] += __shfl_xor_sync(0xffffffffu, v[i], o);
    if (wpg > 1) {
      if (lane == 0) part[wid][0] = v[0], part[wid][1] = v[1];
      __syncthreads();
      v[0] = v[1] = 0.0;
      for (int w = g * wpg; w < (g + 1) * wpg; ++w) v[0] += part[w][0], v[1] += part[w][1];
      __syncthreads();  // `part` is reused by the next round
    }
    if (t == 0 && l < total) line_store(s0, s1, i, v);
  }
}

/** The shape of strided_sums_kernel's blocks: 256 threads, 32 lanes along a tile of kTile
 *  columns (kV consecutive columns per lane: one 16-byte load when kVec) and kRows = 8 rows at
 *  a time, kU loads in flight per thread. */
template <class T, bool kVec>
struct StridedShape {
  static constexpr int kV = kVec ? 16 / int(sizeof(T)) : 1, kTile = 32 * kV, kRows = 8, kU = 4;
};

/** One thread's share (lane < 32, ty < kRows) of block (tile, chunk) of strided_sums_kernel:
 *  for its columns c = tile kTile + lane kV + e < L, s[e] += sum_r a_r M(c, r) and a[e] +=
 *  sum_r b_r |M(c, r)| over the chunk's rows r = chunk rows_per_block + ty + kRows i < R,
 *  with (a_r, b_r) = vw[r] (kWeighted) or the row weights (r_r, r_r), library_row_weight. */
template <class T, bool kVec, bool kWeighted>
ABFT_HD void strided_partial(const T* M, int64_t ld, int64_t L, int64_t R, int64_t tile, int64_t chunk,
                             int64_t rows_per_block, int lane, int ty, const double2* vw,
                             double (&s)[StridedShape<T, kVec>::kV], double (&a)[StridedShape<T, kVec>::kV]) {
  using Shape = StridedShape<T, kVec>;
  constexpr int kV = Shape::kV, kRows = Shape::kRows, kU = Shape::kU;
  using Load = typename std::conditional<kVec, Vec16<T>, Vec2<T>>::type;  // (only e[0] used when !kVec)
  const int64_t c0 = tile * Shape::kTile + int64_t(lane) * kV;
  const int64_t r0 = chunk * rows_per_block, r1 = R < r0 + rows_per_block ? R : r0 + rows_per_block;
  const bool full = c0 + kV <= L;
  for (int64_t r = r0 + ty; r < r1; r += int64_t(kRows) * kU) {
    Load x[kU];
ABFT_UNROLL
    for (int u = 0; u < kU; ++u) {
      const int64_t rr = r + int64_t(u) * kRows;
      if (rr >= r1) continue;
      if (kVec && full) {
        x[u] = *reinterpret_cast<const Load*>(M + c0 + rr * ld);
      } else {
ABFT_UNROLL
        for (int e = 0; e < kV; ++e) x[u].e[e] = c0 + e < L ? M[c0 + e + rr * ld] : M[rr * ld];
      }
    }
ABFT_UNROLL
    for (int u = 0; u < kU; ++u) {
      const int64_t rr = r + int64_t(u) * kRows;
      if (rr >= r1) continue;
      // Unweighted by vw: the encoding of op(A) = A^T, whose lines run along its rows rr — the
      // column sums' row weights (gemm_library_check.hpp).
      double wa = ck::library_row_weight(rr), wb = wa;
      if (kWeighted) {
        const double2 pr = vw[rr];  // one address across the warp: a broadcast
        wa = pr.x, wb = pr.y;
      }
ABFT_UNROLL
      for (int e = 0; e < kV; ++e) {
        if (c0 + e >= L) continue;
        const double b = to_double(x[u].e[e]);
        s[e] += wa * b;
        a[e] += wb * fabs(b);
      }
    }
  }
}

/** Where chunk `chunk`'s partial sum `which` (0: sum, 1: magnitude) of column c is kept in a
 *  split grid's scratch (P columns per chunk and sum). */
ABFT_HD int64_t strided_part_at(int64_t chunk, int which, int64_t P, int64_t c) { return (chunk * 2 + which) * P + c; }

/** The finish of a tile of strided_sums_kernel split into `chunks` blocks along R, run by the
 *  last of them to end: thread o of nt adds, for its columns c of the tile (c < L), the chunks'
 *  partial sums (strided_part_at) in chunk order q = 0 .. chunks - 1 and stores them
 *  in out_s[c os] (which 0) and out_a[c os] (which 1). A fixed order: the sums have the same
 *  bits on every run, and nothing needs zeroing before the launch (the atomic adds into a
 *  zeroed array that this replaces needed a memset a call). */
template <int kTile>
ABFT_HD void strided_finish(const double* part, int64_t P, int64_t chunks, int64_t tile, int64_t L, int o, int nt,
                            double* out_s, double* out_a, int64_t os) {
  for (int x = o; x < 2 * kTile; x += nt) {
    const int which = x / kTile;
    const int64_t c = tile * kTile + x % kTile;
    if (c >= L) continue;
    double t = 0.0;
    for (int64_t q = 0; q < chunks; ++q) {
#ifdef __CUDA_ARCH__
      t += __ldcg(part + strided_part_at(q, which, P, c));  // other blocks' stores: from L2, not L1
#else
      t += part[strided_part_at(q, which, P, c)];
#endif
    }
    (which ? out_a : out_s)[c * os] = t;
  }
}

/** Sums along the strided dimension of a stored column-major matrix M (ld): for every c < L
 *  (its contiguous dimension), out_s[c os] = sum_r a_r M(c, r) and out_a[c os] = sum_r b_r
 *  |M(c, r)| over r < R, with (a_r, b_r) = vw[r] (kWeighted: the reference of the columns of
 *  op(B) = B^T) or the row weights (r_r, r_r) (the encoding of the columns of op(A) = A^T). A block takes a tile of
 *  32 kV columns and a chunk of rows: its eight warps read rows of the tile (coalesced; 16-byte
 *  loads when kVec; strided_partial) and the shared memory sums their partial sums. With one
 *  chunk a tile, the block stores its tile's sums; with several (part, done non-null), each
 *  stores its partial sums in part (P = tiles 32 kV per chunk and sum), counts itself in
 *  done[tile], and the last block of the tile adds them up (strided_finish) and sets
 *  done[tile] back to 0 (the counters are zero at rest: zeroed when the state is made). */
/** A strided batch's distance from one item to the next: M's elements, vw's pairs, out_s's and
 *  out_a's doubles, part's doubles (the item's tiles' counters are `tiles` apart in done). */
struct StridedItems {
  int64_t m = 0, vw = 0, out = 0, part = 0;
};

// (kBatched: a strided batch, item = block / per_item; false: one matrix, none of the items'
// arithmetic, so a single product's kernel keeps its registers.)
/** Line sets riding on a strided_sums launch: its first `blocks` blocks take their lines
 *  (line_sums_groups, groups of tpl threads), the rest the strided sums. */
template <class T>
struct RidingLines {
  LineSet<T> s0, s1;
  int64_t blocks = 0;
  int tpl = 32;
};

template <class T, bool kVec, bool kWeighted, bool kBatched>
__global__ void __launch_bounds__(256) strided_sums_kernel(const T* M, int64_t ld, int64_t L, int64_t R,
                                                           int64_t tiles, int64_t chunks, int64_t rows_per_block,
                                                           const double2* vw, double* out_s, double* out_a,
                                                           int64_t os, double* part, unsigned* done,
                                                           StridedItems items, RidingLines<T> lines) {
  // Lines ride on the encoding of op(A) = A^T alone (the unweighted instances): the weighted
  // ones, B^T's reference, keep their registers without the lines' code.
  if constexpr (!kWeighted) {
    if (int64_t(blockIdx.x) < lines.blocks) {  // (block-uniform)
      line_sums_groups(lines.s0, lines.s1, int64_t(blockIdx.x), lines.blocks, lines.tpl);
      return;
    }
  }
  const int64_t bid = int64_t(blockIdx.x) - (kWeighted ? 0 : lines.blocks);
  using Shape = StridedShape<T, kVec>;
  constexpr int kV = Shape::kV, kTile = Shape::kTile, kRows = Shape::kRows;
  const int lane = threadIdx.x & 31, ty = threadIdx.x >> 5;
  const int64_t per_item = tiles * chunks;
  const int64_t y = kBatched ? bid / per_item : 0;
  const int64_t b = kBatched ? bid % per_item : bid;
  const int64_t tile = b % tiles, chunk = b / tiles, P = tiles * kTile;
  if (kBatched) {
    M += y * items.m;
    if (kWeighted) vw += y * items.vw;
    out_s += y * items.out;
    out_a += y * items.out;
    if (part) part += y * items.part, done += y * tiles;
  }
  double s[kV], a[kV];
#pragma unroll
  for (int e = 0; e < kV; ++e) s[e] = a[e] = 0.0;
  strided_partial<T, kVec, kWeighted>(M, ld, L, R, tile, chunk, rows_per_block, lane, ty, vw, s, a);
  __shared__ double red[2][kRows][kTile];
  __shared__ bool last;
#pragma unroll
  for (int e = 0; e < kV; ++e) {
    red[0][ty][lane * kV + e] = s[e];
    red[1][ty][lane * kV + e] = a[e];
  }
  __syncthreads();
  const bool split = part != nullptr;  // (launch_strided_sums: null with one chunk a tile)
  for (int o = threadIdx.x; o < 2 * kTile; o += blockDim.x) {
    const int which = o / kTile, cc = o % kTile;
    double t = 0.0;
#pragma unroll
    for (int y = 0; y < kRows; ++y) t += red[which][y][cc];
    const int64_t c = tile * kTile + cc;
    if (c >= L) continue;
    if (split) part[strided_part_at(chunk, which, P, c)] = t;
    else (which ? out_a : out_s)[c * os] = t;
  }
  if (!split) return;
  __threadfence();  // this block's partial sums visible device-wide before it is counted
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(done + tile, 1u) == unsigned(chunks - 1);
  __syncthreads();
  if (!last) return;
  __threadfence();  // the other chunks' partial sums, counted before, are read after
  strided_finish<kTile>(part, P, chunks, tile, L, threadIdx.x, blockDim.x, out_s, out_a, os);
  if (threadIdx.x == 0) done[tile] = 0u;  // at rest for the next launch (stream order)
}

/** strided_sums_kernel's grid over M (L x R as stored, ld, elements of `elem` bytes): 16-byte
 *  loads when M and ld allow them; tiles of the contiguous dimension times chunks of about
 *  512 blocks or more, at most ceil(R / 128) chunks (so about 128 rows a chunk or more: R = 129
 *  gives two of 65). Several chunks only when there are fewer than kStridedMaxSplitTiles tiles
 *  (the tile counters' count). A tile's last block adds its chunks one after another (up to 512
 *  for a single tile over a very long R: a tail of some microseconds, not measured yet). */
constexpr int64_t kStridedMaxSplitTiles = kGemmTileCounters;  // (device_state.hpp: the counters)
struct StridedGrid {
  bool vec = false;
  int64_t tile = 0;                         ///< columns per tile (32 kV)
  int64_t tiles = 0, chunks = 0, rows = 0;  ///< rows: per chunk (the last may have fewer)
  /// Doubles of partial sums the launch needs (0 with one chunk a tile).
  int64_t scratch() const { return chunks > 1 ? 2 * chunks * tiles * tile : 0; }
};
/** (A strided batch of `items` matrices, `item` elements apart: every item's tiles share the
 *  launch, the ~512 blocks and the tile counters; scratch() is one item's.) */
inline StridedGrid strided_grid(const void* M, int64_t ld, int64_t elem, int64_t L, int64_t R, int64_t items = 1,
                                int64_t item = 0) {
  StridedGrid g;
  g.vec = reinterpret_cast<uintptr_t>(M) % 16 == 0 && (ld * elem) % 16 == 0 && (items == 1 || (item * elem) % 16 == 0);
  g.tile = g.vec ? 32 * (16 / elem) : 32;
  g.tiles = (L + g.tile - 1) / g.tile;
  const int64_t max_chunks = (R + 127) / 128;
  const int64_t all = g.tiles * items;
  const int64_t want = all < kStridedMaxSplitTiles ? (512 + all - 1) / all : 1;
  int64_t chunks = want < max_chunks ? want : max_chunks;
  if (chunks < 1) chunks = 1;
  g.rows = (R + chunks - 1) / chunks;
  g.chunks = g.rows > 0 ? (R + g.rows - 1) / g.rows : 1;
  return g;
}

/** Launches strided_sums_kernel (256 threads: 32 along the tile, 8 rows) on strided_grid's
 *  blocks; part (sg.scratch() doubles) and done (kStridedMaxSplitTiles counters, zero at rest)
 *  serve a split grid. */
/** The blocks of a strided_sums launch over `items` matrices (false when over 2^31 - 1). */
inline bool strided_blocks_fit(const StridedGrid& sg, int64_t items) {
  return sg.tiles * sg.chunks <= (int64_t(1) << 31) / (items > 0 ? items : 1) - 1;
}

/** A strided batch's strides for launch_strided_sums: M's elements from one item to the next,
 *  vw's pairs, the outputs' doubles. */
struct StridedBatch {
  int64_t items = 1, m = 0, vw = 0, out = 0;
};

/** (l0, l1: line sets to sum in the same launch — independent of M's sums, as C0's and a
 *  bias's are of A^T's — on blocks of their own before the strided ones: one launch instead of
 *  two.) */
template <class T, bool kWeighted>
bool launch_strided_sums(const T* M, int64_t ld, int64_t L, int64_t R, const double2* vw, double* out_s,
                         double* out_a, int64_t os, double* part, unsigned* done, cudaStream_t stream,
                         const StridedBatch& bt = StridedBatch{}, const LineSet<T>& l0 = LineSet<T>{},
                         const LineSet<T>& l1 = LineSet<T>{}) {
  const StridedGrid sg = strided_grid(M, ld, int64_t(sizeof(T)), L, R, bt.items, bt.m);
  if (!strided_blocks_fit(sg, bt.items)) return false;  // (the caller checks it first)
  RidingLines<T> rl{l0, l1, 0, 32};
  const int64_t nl = l0.total() + l1.total();
  if (nl > 0 && kWeighted) return false;  // (lines ride on the unweighted sums only)
  if (nl > 0) rl.tpl = line_group_threads(nl), rl.blocks = line_group_blocks(nl, rl.tpl);
  if (sg.tiles * sg.chunks * bt.items + rl.blocks > (int64_t(1) << 31) - 1) return false;
  const int grid = int(sg.tiles * sg.chunks * bt.items + rl.blocks);
  if (sg.chunks <= 1) part = nullptr, done = nullptr;
  else if (!part || !done || sg.tiles * bt.items > kStridedMaxSplitTiles) return false;  // (the caller sizes them)
  const StridedItems it{bt.m, bt.vw, bt.out, sg.scratch()};
  auto launch = [&](auto vec, auto batched) {
    strided_sums_kernel<T, decltype(vec)::value, kWeighted, decltype(batched)::value>
        <<<grid, 256, 0, stream>>>(M, ld, L, R, sg.tiles, sg.chunks, sg.rows, vw, out_s, out_a, os, part, done, it,
                                   rl);
  };
  using Yes = std::true_type;
  using No = std::false_type;
  if (bt.items > 1) sg.vec ? launch(Yes{}, Yes{}) : launch(No{}, Yes{});
  else sg.vec ? launch(Yes{}, No{}) : launch(No{}, No{});
  return true;
}

/** What the column check reads and writes. */
template <class T>
struct CheckArgs {
  const T* B = nullptr;  ///< op(B) = B (column-major, ldb): its columns are read here
  int64_t ldb = 0;
  const double2* vw = nullptr;  ///< the encoded pairs (v_p, w_p), p < k
  const double* rr = nullptr;   ///< the reference's two dot products per column, formed before
  const double* rx = nullptr;   ///< (op(B) = B^T: strided_sums_kernel; an overlapped encoding:
                                ///< column_reference_kernel), else null: the check reads B
  const T* C = nullptr;
  int64_t ldc = 0, m = 0, n = 0, k = 0;
  double alpha = 0.0, beta = 0.0;
  const double* c0s = nullptr;  ///< sums of C0 and |C0| per column (read when beta != 0)
  const double* c0a = nullptr;
  double coef = 0.0, coef_out = 0.0, abs = 0.0;
  ck::NumFormat output = ck::NumFormat::F32;
  double* ref = nullptr;  ///< out: ref_j, X_j and the verdict per column (the repair reads them)
  double* X = nullptr;
  int* verdict = nullptr;
  DeviceCounters* counters = nullptr;
  /// A strided batch: `items` products, item y's B at B + y item_b and C at C + y item_c; its
  /// pairs at vw + y k and its per-column values (rr, rx, c0s, c0a, ref, X, verdict) n further.
  int64_t items = 1, item_b = 0, item_c = 0;
  /// A bias added to every column (GemmExtras): the sums of it and of its magnitudes, one pair
  /// for every item and column; null without one.
  const double* bias_sums = nullptr;
};

/** This thread's share (t of nt) of the reference's dot products of columns j0 .. j0 + nc - 1
 *  of op(B) = B (column-major, ldb; kCols > 1 needs them at one parity of their element
 *  address): v[c] += sum_p v_p B_pj and v[kCols + c] += sum_p w_p |B_pj| over its p, with
 *  (v_p, w_p) = vw[p]. Shared by the fused column check and, when the check runs after an
 *  overlapped encoding, the reference kernel of the side stream. */
template <class T, int kCols, int N>
ABFT_HD void column_reference_partial(const T* B, int64_t ldb, int64_t k, const double2* vw, int64_t j0, int nc,
                                      int t, int nt, double (&v)[N]) {
  static_assert(N >= 2 * kCols, "v holds the two dot products of every column");
  constexpr int kU = kCols > 1 ? 2 : 4;  // loads of B in flight per column (registers: 8 per column group)
  // Two elements per thread and column (p = h + 2q, h + 2q + 1), so that the 16-byte pairs
  // of consecutive threads are contiguous; the elements before the first 2-element boundary
  // and after the last (one at most each) go to thread 0.
  const T* b0 = B + j0 * ldb;
  const int64_t h = head_elements<2 * sizeof(T)>(b0, k);
  const int64_t np = (k - h) / 2;
  if (t == 0) {
    for (int64_t p = 0; p < k; ++p) {
      if (p == h) p = h + 2 * np;  // skip the pairs
      if (p >= k) break;
      const double2 pr = vw[p];
ABFT_UNROLL
      for (int c = 0; c < kCols; ++c) {
        if (c >= nc) continue;
        const double b = to_double(b0[p + c * ldb]);
        v[c] += pr.x * b;
        v[kCols + c] += pr.y * fabs(b);
      }
    }
  }
  const Vec2<T>* col[kCols];
ABFT_UNROLL
  for (int c = 0; c < kCols; ++c) col[c] = reinterpret_cast<const Vec2<T>*>(b0 + (c < nc ? c : 0) * ldb + h);
  for (int64_t q = t; q < np; q += int64_t(kU) * nt) {
    double2 pr[kU][2];
    Vec2<T> x[kU][kCols];
ABFT_UNROLL
    for (int u = 0; u < kU; ++u) {
      const int64_t qq = q + int64_t(u) * nt;
      if (qq >= np) continue;
      pr[u][0] = vw[h + 2 * qq];
      pr[u][1] = vw[h + 2 * qq + 1];
ABFT_UNROLL
      for (int c = 0; c < kCols; ++c)
        if (c < nc) x[u][c] = col[c][qq];
    }
ABFT_UNROLL
    for (int u = 0; u < kU; ++u) {
      if (q + int64_t(u) * nt >= np) continue;
ABFT_UNROLL
      for (int c = 0; c < kCols; ++c) {
        if (c >= nc) continue;
ABFT_UNROLL
        for (int e = 0; e < 2; ++e) {
          const double b = to_double(x[u][c].e[e]);
          v[c] += pr[u][e].x * b;
          v[kCols + c] += pr[u][e].y * fabs(b);
        }
      }
    }
  }
}

/** The check of kCols consecutive columns of C per block (kCols > 1 needs every column of B at
 *  the same parity of its element address, i.e. ldb even, when the block reads B): the
 *  reference's dot products sum_p v_p op(B)_pj and sum_p w_p |op(B)_pj| (or rr, rx), the
 *  observed sums obs_j = sum_i r_i C_ij and W_j = sum_i binade_floor(r_i C_ij) (row weights
 *  r_i, line_partial), then in thread c the
 *  shared combination (library_line_reference over the one-term line of the reduced dot
 *  products) and verdict of column j0 + c, its counters, and repair(j) when it is not Ok (the
 *  repair reads ref, X and verdict of its column, written just before by the same thread). */
template <class T, int kCols, class Repair, bool kBatched>
__global__ void __launch_bounds__(256) column_check_kernel(CheckArgs<T> g, Repair repair) {
  const int t = threadIdx.x, nt = blockDim.x;
  const int64_t groups = (g.n + kCols - 1) / kCols;
  unsigned long long checked = 0;
  for (int64_t gi = blockIdx.x; gi < groups * (kBatched ? g.items : 1); gi += gridDim.x) {
    // The batch item and the column group (one product, !kBatched: item 0, the offsets gone).
    const int64_t y = kBatched ? gi / groups : 0, grp = kBatched ? gi - y * groups : gi;
    const int64_t j0 = grp * kCols;
    const int nc = g.n - j0 < kCols ? int(g.n - j0) : kCols;
    double v[4 * kCols];  // r[c], x[c], obs[c], W[c]
#pragma unroll
    for (int i = 0; i < 4 * kCols; ++i) v[i] = 0.0;
    if (!g.rr) column_reference_partial<T, kCols>(g.B + y * g.item_b, g.ldb, g.k, g.vw + y * g.k, j0, nc, t, nt, v);
#pragma unroll
    for (int c = 0; c < kCols; ++c) {
      if (c >= nc) continue;
      double s = 0.0, w = 0.0;
      auto add = [&s, &w](double x) {
        s += x;
        w += ck::binade_floor(x);
      };
      line_partial(g.C + y * g.item_c + (j0 + c) * g.ldc, g.m, t, nt, add);
      v[2 * kCols + c] = s;
      v[3 * kCols + c] = w;
    }
    block_sum_all(v);
    if (t < nc) {
      double r = 0.0, x = 0.0, obs = 0.0, W = 0.0;
#pragma unroll
      for (int c = 0; c < kCols; ++c)
        if (c == t) r = v[c], x = v[kCols + c], obs = v[2 * kCols + c], W = v[3 * kCols + c];
      const int64_t j = y * g.n + j0 + t;  // the column's place in the per-column arrays
      if (g.rr) r = g.rr[j], x = g.rx[j];
      // The reduced dot products as a one-term line: ref = alpha r + beta c0s, X = |alpha| x + |beta| c0a.
      const double one = 1.0;
      const double rx[1] = {r};
      const double xx[1] = {x};
      double ref = 0.0, X = 0.0;
      ck::library_line_reference(1, rx, xx, [one](int64_t) { return one; }, g.alpha, g.beta,
                                 g.beta != 0.0 ? g.c0s[j] : 0.0, g.beta != 0.0 ? g.c0a[j] : 0.0, &ref, &X);
      if (g.bias_sums) ref += g.bias_sums[0], X += g.bias_sums[1];  // + bias 1^T: its sum in every column
      const ck::LineVerdict vd = ck::library_line_verdict(obs, W, ref, X, g.coef, g.coef_out, g.abs, g.output);
      g.ref[j] = ref;
      g.X[j] = X;
      g.verdict[j] = int(vd);
      if (vd == ck::LineVerdict::Failed) atomicAdd(&g.counters->failed, 1ull);
      if (vd == ck::LineVerdict::Skipped) atomicAdd(&g.counters->skipped, 1ull);
      if (vd != ck::LineVerdict::Ok) repair(y, j0 + t);
    }
    checked += (unsigned long long)nc;
  }
  if (t == 0 && checked) atomicAdd(&g.counters->checks, checked);  // one add per block, not per column
}

/** Launches column_check_kernel: four columns per block when every block reads B at the same
 *  alignment (op(B) = B^T, or ldb even), else one. */
template <class T, class Repair>
void launch_column_check(const CheckArgs<T>& g, Repair repair, cudaStream_t stream) {
  auto launch = [&](auto cols, auto batched) {
    constexpr int kCols = decltype(cols)::value;
    const int64_t groups = (g.n + kCols - 1) / kCols * g.items;
    column_check_kernel<T, kCols, Repair, decltype(batched)::value>
        <<<grid_of(groups), line_block_threads(groups), 0, stream>>>(g, repair);
  };
  using Four = std::integral_constant<int, 4>;
  using One = std::integral_constant<int, 1>;
  const bool four = g.rr || g.ldb % 2 == 0;  // (each item's columns among themselves: item_b may be odd)
  if (g.items > 1) four ? launch(Four{}, std::true_type{}) : launch(One{}, std::true_type{});
  else four ? launch(Four{}, std::false_type{}) : launch(One{}, std::false_type{});
}

/** The reference alone, for kCols consecutive columns of op(B) = B per block: rr[j] =
 *  sum_p v_p B_pj and rx[j] = sum_p w_p |B_pj| (the same partition and order as the fused
 *  check's, column_reference_partial). Run on the side stream after an overlapped encoding,
 *  while the product runs, so that the check after the product reads C alone (g.rr). */
template <class T, int kCols, bool kBatched>
__global__ void __launch_bounds__(256) column_reference_kernel(const T* B, int64_t ldb, int64_t k, int64_t n,
                                                               const double2* vw, double* rr, double* rx,
                                                               int64_t items, int64_t item_b) {
  const int t = threadIdx.x, nt = blockDim.x;
  const int64_t groups = (n + kCols - 1) / kCols;
  for (int64_t gi = blockIdx.x; gi < groups * (kBatched ? items : 1); gi += gridDim.x) {
    const int64_t y = kBatched ? gi / groups : 0, grp = kBatched ? gi - y * groups : gi;  // batch item, column group
    const int64_t j0 = grp * kCols;
    const int nc = n - j0 < kCols ? int(n - j0) : kCols;
    double v[2 * kCols];  // r[c], x[c]
#pragma unroll
    for (int i = 0; i < 2 * kCols; ++i) v[i] = 0.0;
    column_reference_partial<T, kCols>(B + y * item_b, ldb, k, vw + y * k, j0, nc, t, nt, v);
    block_sum_all(v);
    if (t < nc) {
      double r = 0.0, x = 0.0;
#pragma unroll
      for (int c = 0; c < kCols; ++c)
        if (c == t) r = v[c], x = v[kCols + c];
      rr[y * n + j0 + t] = r;
      rx[y * n + j0 + t] = x;
    }
  }
}

/** Launches column_reference_kernel with the fused check's grouping (four columns per block
 *  when ldb is even, else one). */
template <class T>
void launch_column_reference(const T* B, int64_t ldb, int64_t k, int64_t n, const double2* vw, double* rr,
                             double* rx, cudaStream_t stream, int64_t items = 1, int64_t item_b = 0) {
  auto launch = [&](auto cols, auto batched) {
    constexpr int kCols = decltype(cols)::value;
    const int64_t groups = (n + kCols - 1) / kCols * items;
    column_reference_kernel<T, kCols, decltype(batched)::value>
        <<<grid_of(groups), line_block_threads(groups), 0, stream>>>(B, ldb, k, n, vw, rr, rx, items, item_b);
  };
  using Four = std::integral_constant<int, 4>;
  using One = std::integral_constant<int, 1>;
  if (items > 1) ldb % 2 == 0 ? launch(Four{}, std::true_type{}) : launch(One{}, std::true_type{});
  else ldb % 2 == 0 ? launch(Four{}, std::false_type{}) : launch(One{}, std::false_type{});
}

}  // namespace abft::cuda
