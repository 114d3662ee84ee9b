/** \file cuda_emu_test.cu
 *  \brief The CUDA emulator against what CUDA specifies (tests/emu/cuda_emu.hpp): warp
 *  shuffles, votes and matches, block barriers with their reductions, shared memory static and
 *  dynamic, atomics, grid and block coordinates, WMMA products, and the launches hardware would
 *  not complete (a barrier some threads never reach), which must fail rather than pass. Plain
 *  CUDA: the same file compiles with nvcc.
 */
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <mma.h>

#include <cstdint>
#include <vector>

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

}  // namespace
