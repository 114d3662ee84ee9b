/** \file warp_mma.cuh
 *  \brief The warp-level tensor-core primitives of the fast attention kernel
 *  (attention_forward_mma.cu): `mma.sync.m16n8k16` with float accumulation for binary16 and
 *  bfloat16, `ldmatrix` (x4, x4.trans, x2.trans) and `cp.async` 16-byte copies, as inline PTX for
 *  sm_80 and later. The CUDA emulator (tests/emu) supplies the same functions for its host build
 *  (ABFT_CUDA_EMULATED), computing each warp's collective from every lane's registers with the
 *  fragment layouts below, so the kernel's register bookkeeping is checked in every CI build.
 *
 *  Fragment layouts (PTX ISA, "Matrix fragments for mma.m16n8k16" and "ldmatrix"), for lane
 *  l of the warp, g = l / 4 (the group) and t = l % 4 (the thread in the group); a 32-bit
 *  register holds two 16-bit elements, the lower-numbered column (or row) in its low half:
 *    A (16 x 16, row major), 4 registers: a0 = (g, 2t..2t+1), a1 = (g+8, 2t..2t+1),
 *      a2 = (g, 2t+8..2t+9), a3 = (g+8, 2t+8..2t+9)            [row, columns]
 *    B (16 x 8, "col"), 2 registers: b0 = (2t..2t+1, g), b1 = (2t+8..2t+9, g)   [rows k, column n]
 *    C, D (16 x 8, float), 4 registers: c0, c1 = (g, 2t), (g, 2t+1); c2, c3 = (g+8, 2t), (g+8, 2t+1)
 *  ldmatrix .x4 loads four 8 x 8 matrices of 16-bit elements; lane l gives the address of row
 *  l % 8 of matrix l / 8 (16 contiguous bytes, 16-byte aligned, shared memory) and receives in
 *  register m the elements (g, 2t..2t+1) of matrix m; with .trans, (2t..2t+1, g) of it, i.e.
 *  row g of the transposed matrix. .x2: two matrices, addresses from lanes 0..15.
 *
 *  So, for the attention (row-major tiles in shared memory, row stride a multiple of 16 bytes):
 *  A of Q[16 rows][16 cols] by ldmatrix.x4 with lane l at row l % 16, column 8 (l / 16); B of
 *  K^T from K[keys][dims] (two n-tiles of 8 keys at once) by ldmatrix.x4 at key (l / 16) 8 + l % 8,
 *  column 8 ((l / 8) % 2); B of V from V[keys][dims] (two n-tiles of 8 columns) by
 *  ldmatrix.x4.trans at key 8 ((l / 8) % 2) + l % 8, column 8 (l / 16); and the probabilities of
 *  two score n-tiles (the C fragments of keys 16k..16k+7 and 16k+8..16k+15) are, packed in
 *  pairs, exactly the A fragment of the P V product for keys 16k..16k+15.
 */
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#ifdef ABFT_CUDA_EMULATED
namespace abft_emu {
/** The emulator's warp collectives behind the functions below (tests/emu/cuda_emu_runtime.cpp). */
void warp_mma_16816(bool bf16, float* d, const uint32_t* a, const uint32_t* b, const float* c);
void warp_ldmatrix(int matrices, bool trans, uint32_t* r, const void* row);
/** cp.async as the hardware may order it: the destination is poisoned at the issue and written
 *  when a wait_group releases the copy's group (never by a barrier). */
void cp_async(void* dst, const void* src, bool full);
void cp_async_commit();
void cp_async_wait(int pending);
}  // namespace abft_emu
#endif

namespace abft::cuda::mma {

/** d = a b + c on the warp's tensor cores, T = __half or __nv_bfloat16. All 32 lanes call it. */
template <class T>
__device__ __forceinline__ void mma_16816(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2],
                                          const float (&c)[4]) {
  static_assert(std::is_same<T, __half>::value || std::is_same<T, __nv_bfloat16>::value, "16-bit storage");
#ifdef ABFT_CUDA_EMULATED
  abft_emu::warp_mma_16816(std::is_same<T, __nv_bfloat16>::value, d, a, b, c);
#else
  if constexpr (std::is_same<T, __nv_bfloat16>::value) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%10,%11,%12,%13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
          "f"(c[3]));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%10,%11,%12,%13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
          "f"(c[3]));
  }
#endif
}

#ifndef ABFT_CUDA_EMULATED
/** The shared-state-space address of a generic pointer into shared memory. */
__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
#endif

/** ldmatrix.x4 (trans false) or .x4.trans: `row` is this lane's row address (see above). */
template <bool kTrans>
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void* row) {
#ifdef ABFT_CUDA_EMULATED
  abft_emu::warp_ldmatrix(4, kTrans, r, row);
#else
  if constexpr (kTrans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr(row)));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr(row)));
#endif
}

/** ldmatrix.x2.trans: addresses from lanes 0..15 (the others' are ignored). */
__device__ __forceinline__ void ldmatrix_x2_trans(uint32_t (&r)[2], const void* row) {
#ifdef ABFT_CUDA_EMULATED
  abft_emu::warp_ldmatrix(2, true, r, row);
#else
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(smem_addr(row)));
#endif
}

/** Copy 16 bytes from global to shared memory asynchronously (cp.async.cg), or, when `full` is
 *  false, write 16 zero bytes (the source is not read). Both addresses 16-byte aligned. */
__device__ __forceinline__ void cp_async_16(void* dst, const void* src, bool full) {
#ifdef ABFT_CUDA_EMULATED
  abft_emu::cp_async(dst, src, full);
#else
  const int n = full ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(dst)), "l"(src), "r"(n)
               : "memory");
#endif
}

/** Close the group of this thread's cp.async copies issued since the last commit. */
__device__ __forceinline__ void cp_async_commit() {
#ifdef ABFT_CUDA_EMULATED
  abft_emu::cp_async_commit();
#else
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

/** Wait until at most N of this thread's committed groups are still in flight (a barrier is
 *  still needed before other threads read the copies). */
template <int N>
__device__ __forceinline__ void cp_async_wait() {
#ifdef ABFT_CUDA_EMULATED
  abft_emu::cp_async_wait(N);
#else
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

/** Two 16-bit values in one register, `lo` in the low half (the fragments' order). */
template <class T>
__device__ __forceinline__ uint32_t pack2(T lo, T hi) {
  uint16_t a, b;
  memcpy(&a, &lo, 2);
  memcpy(&b, &hi, 2);
  return uint32_t(a) | (uint32_t(b) << 16);
}

/** Two floats rounded to nearest in T and packed as pack2 does, by one paired conversion. */
template <class T>
__device__ __forceinline__ uint32_t pack2_rn(float lo, float hi) {
  uint32_t r;
  if constexpr (std::is_same<T, __nv_bfloat16>::value) {
    const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    memcpy(&r, &v, 4);
  } else {
    const __half2 v = __floats2half2_rn(lo, hi);
    memcpy(&r, &v, 4);
  }
  return r;
}

/** The float values of the two 16-bit halves of a fragment register (exact). */
template <class T>
__device__ __forceinline__ float lo_f(uint32_t r) {
  if constexpr (std::is_same<T, __nv_bfloat16>::value) return __uint_as_float(r << 16);
  else {
    const uint16_t b = uint16_t(r & 0xffffu);
    __half h;
    memcpy(&h, &b, 2);
    return __half2float(h);
  }
}
template <class T>
__device__ __forceinline__ float hi_f(uint32_t r) {
  if constexpr (std::is_same<T, __nv_bfloat16>::value) return __uint_as_float(r & 0xffff0000u);
  else {
    const uint16_t b = uint16_t(r >> 16);
    __half h;
    memcpy(&h, &b, 2);
    return __half2float(h);
  }
}

}  // namespace abft::cuda::mma
