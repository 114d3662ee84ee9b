/** \file cuda_emu_test.cu
 *  \brief The CUDA emulator against what CUDA specifies (tests/emu/cuda_emu.hpp): warp
 *  shuffles, votes and matches, block barriers with their reductions, shared memory static and
 *  dynamic, atomics, grid and block coordinates, WMMA products, the tensor-core PTX of
 *  warp_mma.cuh (mma.sync m16n8k16 in f16 and bf16, ldmatrix plain and transposed, cp.async
 *  landing only when its group is waited for), and the
 *  launches hardware would not complete or leaves undefined (a barrier some threads never reach,
 *  an mma half the warp skips), which must fail rather than pass. Plain CUDA: the same file
 *  compiles with nvcc.
 */
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <mma.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

#include "warp_mma.cuh"

namespace {

template <class T>
struct Dev {
  T* p = nullptr;
  size_t n;
  explicit Dev(size_t n_, T fill = T()) : n(n_) {
    cudaMalloc(&p, n * sizeof(T));
    std::vector<T> h(n, fill);
    cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  }
  ~Dev() { cudaFree(p); }
  std::vector<T> get() const {
    std::vector<T> h(n);
    cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost);
    return h;
  }
};

__global__ void warp_ops_kernel(int* out) {
  const int lane = int(threadIdx.x % 32), t = int(threadIdx.x);
  int s = lane;
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  out[t * 8 + 0] = s;                                            // 0 + ... + 31
  out[t * 8 + 1] = __shfl_sync(0xffffffffu, lane * 10, 1, 4);    // lane 1 of its group of 4
  out[t * 8 + 2] = __shfl_down_sync(0xffffffffu, lane, 3);       // lane + 3, or itself past 31
  out[t * 8 + 3] = __shfl_up_sync(0xffffffffu, lane, 1, 8);      // lane - 1 within groups of 8
  out[t * 8 + 4] = int(__ballot_sync(0xffffffffu, lane % 3 == 0));
  out[t * 8 + 5] = __any_sync(0xffffffffu, lane == 31) + 2 * __all_sync(0xffffffffu, lane < 31);
  out[t * 8 + 6] = int(__match_any_sync(0xffffffffu, lane / 8));
  out[t * 8 + 7] = __syncthreads_count(t % 5 == 0) * 10 + __syncthreads_or(t == 63) + 2 * __syncthreads_and(t < 64);
}

TEST(CudaEmulator, WarpShufflesVotesAndBarrierReductions) {
  Dev<int> out(64 * 8, -1);
  warp_ops_kernel<<<1, 64>>>(out.p);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const std::vector<int> h = out.get();
  unsigned ballot = 0;
  for (int l = 0; l < 32; l += 3) ballot |= 1u << l;
  for (int t = 0; t < 64; ++t) {
    const int lane = t % 32;
    EXPECT_EQ(h[size_t(t * 8 + 0)], 496) << t;
    EXPECT_EQ(h[size_t(t * 8 + 1)], ((lane & ~3) + 1) * 10) << t;
    EXPECT_EQ(h[size_t(t * 8 + 2)], lane + 3 < 32 ? lane + 3 : lane) << t;
    EXPECT_EQ(h[size_t(t * 8 + 3)], lane % 8 ? lane - 1 : lane) << t;
    EXPECT_EQ(unsigned(h[size_t(t * 8 + 4)]), ballot) << t;
    EXPECT_EQ(h[size_t(t * 8 + 5)], 1) << t;  // any: one lane is 31; all: not every lane < 31
    EXPECT_EQ(unsigned(h[size_t(t * 8 + 6)]), 0xffu << (8 * (lane / 8))) << t;
    EXPECT_EQ(h[size_t(t * 8 + 7)], 13 * 10 + 1 + 2) << t;  // 13 multiples of 5 below 64; or; and
  }
}

__global__ void smem_kernel(const int* in, int* out, unsigned long long* total) {
  __shared__ int fixed[128];
  extern __shared__ unsigned char dyn[];
  int* rev = reinterpret_cast<int*>(dyn);
  const int t = int(threadIdx.x), n = int(blockDim.x), b = int(blockIdx.x + gridDim.x * blockIdx.y);
  fixed[t] = in[b * n + t];
  rev[n - 1 - t] = fixed[t] * 2;
  __syncthreads();
  out[b * n + t] = rev[t] + fixed[(t + 1) % n];
  atomicAdd(total, 1ull);
}

TEST(CudaEmulator, SharedMemoryAtomicsAndTheGrid) {
  const int n = 128, blocks = 6;
  std::vector<int> h(size_t(n * blocks));
  for (size_t i = 0; i < h.size(); ++i) h[i] = int(i * 7 % 1000);
  Dev<int> in(h.size()), out(h.size(), -1);
  Dev<unsigned long long> total(1, 0);
  cudaMemcpy(in.p, h.data(), h.size() * sizeof(int), cudaMemcpyHostToDevice);
  smem_kernel<<<dim3(3, 2), n, n * sizeof(int)>>>(in.p, out.p, total.p);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const std::vector<int> o = out.get();
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < n; ++t)
      ASSERT_EQ(o[size_t(b * n + t)], 2 * h[size_t(b * n + n - 1 - t)] + h[size_t(b * n + (t + 1) % n)]) << b << " " << t;
  EXPECT_EQ(total.get()[0], static_cast<unsigned long long>(n * blocks));
}

__global__ void wmma_kernel(const __half* a, const __half* b, float* c) {
  namespace wmma = nvcuda::wmma;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 1.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

TEST(CudaEmulator, WmmaProductOfOneTile) {
  std::vector<__half> a(256), b(256);
  for (int i = 0; i < 256; ++i) a[size_t(i)] = __float2half(float(i % 7) - 3.0f), b[size_t(i)] = __float2half(float(i % 5) * 0.5f);
  Dev<__half> da(256), db(256);
  Dev<float> dc(256, 0.0f);
  cudaMemcpy(da.p, a.data(), 512, cudaMemcpyHostToDevice);
  cudaMemcpy(db.p, b.data(), 512, cudaMemcpyHostToDevice);
  wmma_kernel<<<1, 32>>>(da.p, db.p, dc.p);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const std::vector<float> c = dc.get();
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      float s = 1.0f;  // small integers and halves: exact in any order
      for (int k = 0; k < 16; ++k) s += __half2float(a[size_t(i * 16 + k)]) * __half2float(b[size_t(j * 16 + k)]);
      EXPECT_EQ(c[size_t(i * 16 + j)], s) << i << " " << j;
    }
}

__global__ void divergent_barrier_kernel(int* out) {
  if (threadIdx.x < 64) {
    __syncthreads();  // the other half of the block has returned: hardware hangs or worse
    out[threadIdx.x] = 1;
  }
}

TEST(CudaEmulator, ABarrierNotEveryThreadReachesFailsTheLaunch) {
  Dev<int> out(128, 0);
  divergent_barrier_kernel<<<1, 128>>>(out.p);
  EXPECT_NE(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);  // reported once
}

__global__ void mismatched_collectives_kernel(int* out) {
  // Half the warp shuffles while the other half votes: two different collectives at once.
  const int lane = int(threadIdx.x % 32);
  if (lane < 16) out[lane] = __shfl_xor_sync(0xffffffffu, lane, 1);
  else out[lane] = __ballot_sync(0xffffffffu, 1);
}

TEST(CudaEmulator, LanesAtDifferentCollectivesFailTheLaunch) {
  Dev<int> out(32, 0);
  mismatched_collectives_kernel<<<1, 32>>>(out.p);
  EXPECT_NE(cudaGetLastError(), cudaSuccess);
}

/* ------------------------------------------------------------ warp_mma.cuh: mma.sync, ldmatrix */

constexpr int kLd = 24;  // the tiles' row stride in shared memory, in elements (48 bytes)

inline float to_float(__half x) { return __half2float(x); }
inline float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
template <class T>
__host__ __device__ T from_float(float x);
template <>
__host__ __device__ __half from_float<__half>(float x) {
  return __float2half(x);
}
template <>
__host__ __device__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) {
  return __float2bfloat16(x);
}

/** The attention's recipe (warp_mma.cuh) for each warp w and its tiles Q_w, K_w, V_w
 *  ([16][16] each, K and V as [keys][dims]) in shared memory, rows kLd apart: A of Q by
 *  ldmatrix.x4, B of K^T for two n-tiles of 8 keys by one ldmatrix.x4, S = C_w + Q K^T by two
 *  mma.sync; then P = S rounded to T, its two accumulator n-tiles packed as the A fragment, B of
 *  V for two n-tiles of 8 dims by one ldmatrix.x4.trans, O = P V by two more. out_w: S, then O
 *  (row-major, stored by the accumulator layout). */
template <class T>
__global__ void mma_tile_kernel(const T* q, const T* k, const T* v, const float* c, float* out) {
  extern __shared__ __align__(16) unsigned char mma_smem[];
  namespace m = abft::cuda::mma;
  const int lane = int(threadIdx.x % 32), w = int(threadIdx.x / 32);
  T* sq = reinterpret_cast<T*>(mma_smem) + w * 48 * kLd;
  T* sk = sq + 16 * kLd;
  T* sv = sk + 16 * kLd;
  for (int i = lane; i < 256; i += 32) {
    sq[(i / 16) * kLd + i % 16] = q[w * 256 + i];
    sk[(i / 16) * kLd + i % 16] = k[w * 256 + i];
    sv[(i / 16) * kLd + i % 16] = v[w * 256 + i];
  }
  __syncthreads();
  uint32_t a[4], b[4];
  m::ldmatrix_x4<false>(a, sq + (lane % 16) * kLd + 8 * (lane / 16));
  m::ldmatrix_x4<false>(b, sk + ((lane / 16) * 8 + lane % 8) * kLd + 8 * ((lane / 8) % 2));
  const int g = lane / 4, t = lane % 4;
  const float* cw = c + w * 256;
  float* sw = out + w * 512;
  float* ow = sw + 256;
  float s[2][4];
  for (int nt = 0; nt < 2; ++nt) {
    const int j = nt * 8 + 2 * t;
    float acc[4] = {cw[g * 16 + j], cw[g * 16 + j + 1], cw[(g + 8) * 16 + j], cw[(g + 8) * 16 + j + 1]};
    const uint32_t bn[2] = {b[2 * nt], b[2 * nt + 1]};
    m::mma_16816<T>(acc, a, bn, acc);
    sw[g * 16 + j] = acc[0], sw[g * 16 + j + 1] = acc[1];
    sw[(g + 8) * 16 + j] = acc[2], sw[(g + 8) * 16 + j + 1] = acc[3];
    for (int e = 0; e < 4; ++e) s[nt][e] = acc[e];
  }
  const uint32_t p[4] = {m::pack2(from_float<T>(s[0][0]), from_float<T>(s[0][1])),
                         m::pack2(from_float<T>(s[0][2]), from_float<T>(s[0][3])),
                         m::pack2(from_float<T>(s[1][0]), from_float<T>(s[1][1])),
                         m::pack2(from_float<T>(s[1][2]), from_float<T>(s[1][3]))};
  m::ldmatrix_x4<true>(b, sv + (8 * ((lane / 8) % 2) + lane % 8) * kLd + 8 * (lane / 16));
  for (int nt = 0; nt < 2; ++nt) {
    const int j = nt * 8 + 2 * t;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    const uint32_t bn[2] = {b[2 * nt], b[2 * nt + 1]};
    m::mma_16816<T>(acc, p, bn, acc);
    ow[g * 16 + j] = acc[0], ow[g * 16 + j + 1] = acc[1];
    ow[(g + 8) * 16 + j] = acc[2], ow[(g + 8) * 16 + j + 1] = acc[3];
  }
}

/** Two warps' tiles of random 16-bit values (binary16: some subnormal) through mma_tile_kernel,
 *  against S = C + Q K^T and O = round(S) V on the host, each element accumulated by fma in
 *  order of k from C (from 0 for O): the emulator's order, so its results must match to the bit
 *  (hardware's order and rounding are its own: close to them there). */
template <class T>
void check_mma_tiles() {
  constexpr int kWarps = 2;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  std::vector<T> q(kWarps * 256), k(kWarps * 256), v(kWarps * 256);
  std::vector<float> c(kWarps * 256);
  for (size_t i = 0; i < q.size(); ++i) {
    q[i] = from_float<T>(u(rng));
    k[i] = from_float<T>(u(rng));
    v[i] = from_float<T>(u(rng));
    c[i] = u(rng);
  }
  if (std::is_same<T, __half>::value)  // binary16 subnormals widen exactly too
    for (int i = 0; i < 16; ++i) q[size_t(i * 17)] = from_float<T>(float(i + 1) * 5.9604644775390625e-08f);
  Dev<T> dq(q.size()), dk(k.size()), dv(v.size());
  Dev<float> dc(c.size()), dout(2 * c.size(), -1.0f);
  cudaMemcpy(dq.p, q.data(), q.size() * sizeof(T), cudaMemcpyHostToDevice);
  cudaMemcpy(dk.p, k.data(), k.size() * sizeof(T), cudaMemcpyHostToDevice);
  cudaMemcpy(dv.p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice);
  cudaMemcpy(dc.p, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice);
  mma_tile_kernel<T><<<1, 32 * kWarps, kWarps * 48 * kLd * sizeof(T)>>>(dq.p, dk.p, dv.p, dc.p, dout.p);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const std::vector<float> out = dout.get();
  auto expect = [](float got, float want, const char* what, int w, int i, int j) {
#ifdef ABFT_CUDA_EMULATED
    EXPECT_EQ(got, want) << what << " " << w << " " << i << " " << j;
#else
    EXPECT_NEAR(got, want, 1e-4f * (1.0f + std::fabs(want))) << what << " " << w << " " << i << " " << j;
#endif
  };
  for (int w = 0; w < kWarps; ++w) {
    const size_t o = size_t(w * 256);
    std::vector<float> p(256);  // S rounded to T, as the kernel packs it
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 16; ++j) {
        float s = c[o + size_t(i * 16 + j)];
        for (int kk = 0; kk < 16; ++kk)
          s = std::fma(to_float(q[o + size_t(i * 16 + kk)]), to_float(k[o + size_t(j * 16 + kk)]), s);
        expect(out[2 * o + size_t(i * 16 + j)], s, "S", w, i, j);
        p[size_t(i * 16 + j)] = to_float(from_float<T>(out[2 * o + size_t(i * 16 + j)]));
      }
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 16; ++j) {
        float s = 0.0f;
        for (int kk = 0; kk < 16; ++kk) s = std::fma(p[size_t(i * 16 + kk)], to_float(v[o + size_t(kk * 16 + j)]), s);
        expect(out[2 * o + 256 + size_t(i * 16 + j)], s, "O", w, i, j);
      }
  }
}

TEST(CudaEmulator, MmaM16n8k16Bf16FromLdmatrixTiles) { check_mma_tiles<__nv_bfloat16>(); }
TEST(CudaEmulator, MmaM16n8k16F16FromLdmatrixTiles) { check_mma_tiles<__half>(); }

/** ldmatrix .x4.trans, .x4 and .x2.trans from the rows the lanes name (elements `off[l]` and
 *  `off2[l]` of a table in shared memory): out[l][0..3], [4..7], [8..9]. */
__global__ void ldmatrix_kernel(const uint16_t* table, int n, const int* off, const int* off2, uint32_t* out) {
  extern __shared__ __align__(16) unsigned char ld_smem[];
  namespace m = abft::cuda::mma;
  uint16_t* s = reinterpret_cast<uint16_t*>(ld_smem);
  const int lane = int(threadIdx.x);
  for (int i = lane; i < n; i += 32) s[i] = table[i];
  __syncthreads();
  uint32_t t4[4], n4[4], t2[2];
  m::ldmatrix_x4<true>(t4, s + off[lane]);
  m::ldmatrix_x4<false>(n4, s + off[lane]);
  m::ldmatrix_x2_trans(t2, s + off2[lane]);
  for (int r = 0; r < 4; ++r) out[lane * 10 + r] = t4[r], out[lane * 10 + 4 + r] = n4[r];
  out[lane * 10 + 8] = t2[0], out[lane * 10 + 9] = t2[1];
}

TEST(CudaEmulator, LdmatrixPlainAndTransposedGiveThePtxFragments) {
  const int rows = 48, n = rows * 16;  // rows of 16 elements: two 8-element halves each
  std::vector<uint16_t> table(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) table[size_t(i)] = uint16_t(0x1000 + 7 * i);
  std::vector<int> off(32), off2(32);
  for (int l = 0; l < 32; ++l) {
    off[size_t(l)] = ((l * 13 + 5) % rows) * 16 + 8 * (l % 2);  // scattered rows, either half
    off2[size_t(l)] = ((l * 7 + 3) % rows) * 16 + 8 * ((l / 3) % 2);
  }
  Dev<uint16_t> dt(table.size());
  Dev<int> doff(32), doff2(32);
  Dev<uint32_t> dout(32 * 10, 0u);
  cudaMemcpy(dt.p, table.data(), table.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(doff.p, off.data(), 32 * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(doff2.p, off2.data(), 32 * sizeof(int), cudaMemcpyHostToDevice);
  ldmatrix_kernel<<<1, 32, n * 2>>>(dt.p, n, doff.p, doff2.p, dout.p);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const std::vector<uint32_t> out = dout.get();
  // Element (i, j) of matrix m: column j of the row lane 8m + i names.
  auto at = [&](const std::vector<int>& o, int m, int i, int j) { return uint32_t(table[size_t(o[size_t(8 * m + i)] + j)]); };
  for (int l = 0; l < 32; ++l) {
    const int g = l / 4, t = l % 4;
    for (int m = 0; m < 4; ++m) {
      EXPECT_EQ(out[size_t(l * 10 + m)], at(off, m, 2 * t, g) | at(off, m, 2 * t + 1, g) << 16) << "x4.trans " << l << " " << m;
      EXPECT_EQ(out[size_t(l * 10 + 4 + m)], at(off, m, g, 2 * t) | at(off, m, g, 2 * t + 1) << 16) << "x4 " << l << " " << m;
    }
    for (int m = 0; m < 2; ++m)
      EXPECT_EQ(out[size_t(l * 10 + 8 + m)], at(off2, m, 2 * t, g) | at(off2, m, 2 * t + 1, g) << 16) << "x2.trans " << l << " " << m;
  }
}

/** Misuse of the tensor-core instructions, each a launch hardware would not complete or leaves
 *  undefined: 0, half the warp at an mma the other half skips; 1, half at an mma and half at an
 *  ldmatrix; 2, a row address not 16-byte aligned; 3, rows past the launch's dynamic shared
 *  memory. */
__global__ void mma_misuse_kernel(int how, float* out) {
  extern __shared__ __align__(16) unsigned char bad_smem[];
  namespace m = abft::cuda::mma;
  const int lane = int(threadIdx.x % 32);
  uint32_t a[4] = {0x3f803f80u, 0, 0, 0}, b[2] = {0x3f803f80u, 0}, r[4] = {};
  float d[4] = {};
  const unsigned char* row = bad_smem + 16 * (lane % 8);
  if (how == 0 && lane >= 16) return;
  if (how == 1 && lane >= 16) {
    m::ldmatrix_x4<false>(r, row);
  } else if (how == 2) {
    m::ldmatrix_x4<false>(r, row + (lane == 5 ? 4 : 0));
  } else if (how == 3) {
    m::ldmatrix_x4<true>(r, row + 64 * (lane / 8));
  } else {
    m::mma_16816<__nv_bfloat16>(d, a, b, d);
  }
  out[lane] = d[0] + float(r[0]);
}

TEST(CudaEmulator, TensorCoreInstructionsNotAllTheWarpMeetsFailTheLaunch) {
  Dev<float> out(32, 0.0f);
  for (int how = 0; how < 4; ++how) {
    mma_misuse_kernel<<<1, 32, 256>>>(how, out.p);  // how 3 reads bytes 0..319 of these 256
    EXPECT_EQ(cudaGetLastError(), cudaErrorLaunchFailure) << how;
  }
  mma_misuse_kernel<<<1, 32, 512>>>(3, out.p);  // the same rows inside the launch's 512 bytes
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

/** A two-stage cp.async pipeline of 64 threads, 16 bytes each per tile, every thread reading
 *  its neighbour's (t + 1) copy: out[t][0..3] tile 0, [4..7] tile 1. how 0, correct:
 *  wait_group 1, barrier, read tile 0; wait_group 0, barrier, read tile 1. The rest read too
 *  early: 1, a barrier and no wait; 2, wait_group 2 (both groups still in flight); 3, tile 1
 *  after wait_group 1; 4, each thread copies tile 2 over its own slot of tile 0 right after
 *  reading, with no barrier (the neighbour behind it still reads that slot). */
__global__ void cp_async_kernel(int how, const uint32_t* tiles, uint32_t* out) {
  __align__(16) __shared__ uint32_t buf[2][64 * 4];
  namespace m = abft::cuda::mma;
  const int t = int(threadIdx.x), nb = (t + 1) % 64;
  m::cp_async_16(&buf[0][4 * t], tiles + 4 * t, true);
  m::cp_async_commit();
  m::cp_async_16(&buf[1][4 * t], tiles + 256 + 4 * t, true);
  m::cp_async_commit();
  if (how == 0 || how == 3 || how == 4) m::cp_async_wait<1>();
  if (how == 2) m::cp_async_wait<2>();
  __syncthreads();
  for (int i = 0; i < 4; ++i) out[8 * t + i] = (how == 3 ? buf[1] : buf[0])[4 * nb + i];
  if (how == 4) {
    m::cp_async_16(&buf[0][4 * t], tiles + 512 + 4 * t, true);
    m::cp_async_commit();
  }
  m::cp_async_wait<0>();
  __syncthreads();
  for (int i = 0; i < 4; ++i) out[8 * t + 4 + i] = buf[1][4 * nb + i];
}

TEST(CudaEmulator, CpAsyncLandsOnlyWhenItsGroupIsWaitedFor) {
  std::vector<uint32_t> tiles(3 * 256);
  for (size_t i = 0; i < tiles.size(); ++i) tiles[i] = uint32_t(0x10000 + i);
  Dev<uint32_t> dt(tiles.size()), dout(64 * 8, 0u);
  cudaMemcpy(dt.p, tiles.data(), tiles.size() * 4, cudaMemcpyHostToDevice);
  for (int how = 0; how < 5; ++how) {
    cp_async_kernel<<<1, 64>>>(how, dt.p, dout.p);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess) << how;
    const std::vector<uint32_t> out = dout.get();
    int right = 0, in_flight = 0;
    for (int t = 0; t < 64; ++t)
      for (int i = 0; i < 8; ++i) {
        const int tile = i < 4 && how != 3 ? 0 : 1;
        const uint32_t want = tiles[size_t(tile * 256 + 4 * ((t + 1) % 64) + i % 4)];
        const uint32_t got = out[size_t(8 * t + i)];
        right += got == want;
        in_flight += got == 0xFFFFFFFFu;  // the emulator's bytes of a copy not yet landed
      }
    // how 1-3: reads of copies in flight; how 4: the last thread reads its neighbour's slot after
    // the copy over it landed (the hazard shows as the next tile's values).
    if (how == 0) EXPECT_EQ(right, 64 * 8);
    else EXPECT_LT(right, 64 * 8) << "how " << how << ": a read before its copy landed went unseen";
    if (how >= 1 && how <= 3) EXPECT_GT(in_flight, 0) << how;
  }
}

#if defined(ABFT_CUDA_EMULATED)
// The emulator's asynchrony (abft_emu::async_mode): queued work runs when something waits for
// it, newest stream first, so the hazards of a missing wait change results as on hardware.

__global__ void add_kernel(float* x, float v, int n) {
  const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) x[i] += v;
}

/** Asynchrony on for one test (what was queued before runs first, either way). */
struct AsyncOn {
  AsyncOn() { abft_emu::set_async_mode(true); }
  ~AsyncOn() { abft_emu::set_async_mode(false); }
};

TEST(CudaEmulatorAsync, PinnedMemoryIsReadAndWrittenWhenTheCopyRuns) {
  const AsyncOn on;
  Dev<float> d(4, 0.0f);
  float* pinned = nullptr;
  ASSERT_EQ(cudaMallocHost(&pinned, 4 * sizeof(float)), cudaSuccess);
  // Up from page-locked memory: the copy reads its source when it runs, after the host's reuse.
  for (int i = 0; i < 4; ++i) pinned[i] = 1.0f;
  cudaMemcpyAsync(d.p, pinned, 4 * sizeof(float), cudaMemcpyHostToDevice, nullptr);
  for (int i = 0; i < 4; ++i) pinned[i] = 2.0f;  // a staging buffer reused before its copy ran
  EXPECT_EQ(d.get()[0], 2.0f) << "the copy read its page-locked source at the call";
  // Down into page-locked memory: nothing there until a wait.
  for (int i = 0; i < 4; ++i) pinned[i] = -1.0f;
  add_kernel<<<1, 4>>>(d.p, 3.0f, 4);
  cudaMemcpyAsync(pinned, d.p, 4 * sizeof(float), cudaMemcpyDeviceToHost, nullptr);
  EXPECT_EQ(pinned[0], -1.0f) << "read before the wait: the copy has not run";
  cudaStreamSynchronize(nullptr);
  EXPECT_EQ(pinned[0], 5.0f);
  cudaFreeHost(pinned);
}

TEST(CudaEmulatorAsync, PageableSourcesAreTakenAtTheCall) {
  const AsyncOn on;
  Dev<float> d(4, 0.0f);
  std::vector<float> host(4, 1.0f);
  cudaMemcpyAsync(d.p, host.data(), 4 * sizeof(float), cudaMemcpyHostToDevice, nullptr);
  host.assign(4, 7.0f);  // CUDA staged the pageable source: the copy keeps the 1s
  EXPECT_EQ(d.get()[3], 1.0f);
}

TEST(CudaEmulatorAsync, StreamsRunInAnyOrderUnlessAnEventOrdersThem) {
  const AsyncOn on;
  cudaStream_t a, b;
  ASSERT_EQ(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking), cudaSuccess);
  cudaEvent_t e;
  cudaEventCreate(&e);
  Dev<float> x(1, 1.0f), y(1, 0.0f);
  // y = x on b after x += 1 on a: without the event, b's newer work runs first (y = 1).
  add_kernel<<<1, 1, 0, a>>>(x.p, 1.0f, 1);
  cudaMemcpyAsync(y.p, x.p, sizeof(float), cudaMemcpyDeviceToDevice, b);
  cudaDeviceSynchronize();
  EXPECT_EQ(y.get()[0], 1.0f) << "b's copy ran after a's add although nothing ordered them";
  // With the event, b waits for a.
  add_kernel<<<1, 1, 0, a>>>(x.p, 1.0f, 1);
  cudaEventRecord(e, a);
  cudaStreamWaitEvent(b, e, 0);
  cudaMemcpyAsync(y.p, x.p, sizeof(float), cudaMemcpyDeviceToDevice, b);
  cudaStreamSynchronize(b);
  EXPECT_EQ(y.get()[0], 3.0f);
  cudaEventDestroy(e);
  cudaStreamDestroy(a);
  cudaStreamDestroy(b);
}

TEST(CudaEmulatorAsync, TheDefaultStreamOrdersBlockingStreams) {
  const AsyncOn on;
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);  // blocking
  Dev<float> x(1, 1.0f), y(1, 0.0f);
  add_kernel<<<1, 1>>>(x.p, 1.0f, 1);  // the legacy default stream
  cudaMemcpyAsync(y.p, x.p, sizeof(float), cudaMemcpyDeviceToDevice, s);
  cudaStreamSynchronize(s);
  EXPECT_EQ(y.get()[0], 2.0f) << "a blocking stream's work ran before the default stream's before it";
  cudaStreamDestroy(s);
}
#endif

}  // namespace
