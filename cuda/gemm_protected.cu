/** \file gemm_protected.cu
 *  \brief Protected GEMM on device pointers (issue 9, first part): the product is cuBLAS's,
 *  the checksums are ours (gemm_check.cuh over abft/checksum/gemm_library_check.hpp), the
 *  repair recomputes failed columns in double on the device, and the outcome is counted on the
 *  device: the fault-free path never synchronizes with the host. abft_cuda_sync() waits for
 *  the stream and folds the device counters into the handle's statistics.
 *
 *  One call, column-major (a row-major call is the transposed column-major one):
 *    1. beta != 0: column sums of C0 and a backup of C0 (for the repair and the DETECT probe),
 *       stored by the kernel that sums it as it reads it;
 *    2. v, w = column sums of op(A), |op(A)| (encode; with the C0 sums, one launch);
 *    3. cuBLAS gemm (with a corrupted copy of an operand when a fault is injected there);
 *    4. faults injected at the output, before verification (injection only);
 *    5. ref_j, X_j per column; obs_j and the verdict per column; device counters;
 *    6. CORRECT: every failed column recomputed in double from the caller's A, B (and the
 *       saved C0), then re-verified; a column that still fails counts as uncorrectable. A column
 *       skipped for a non-finite sum is decided by recomputing its non-finite elements, under
 *       DETECT too (counted, nothing written).
 *  Steps 5 and 6 are one launch (column_check_kernel: the thread that decides a column repairs
 *  it), so a fault-free call with untransposed operands is three launches: encode, gemm, check.
 *  A transposed operand's sums are a tiled kernel of their own (its lines are strided in
 *  memory; a tile's last block adds its chunks' shares, so nothing is zeroed first).
 *  Calls on one handle are enqueued one at a time and use its workspace in stream order
 *  (device_state.hpp: a call on another stream waits for the previous call's end).
 *
 *  Status: compiled for sm_90 + PTX in every CUDA build and exercised by tests/cuda (which
 *  skip without a device); run on an H200 (2026-11-30: tests pass, docs/RELIABILITY.md §12)
 *  before the split finish of the strided sums, the C0 backup stored by the C0 sums' kernel
 *  and the overlap experiment (ABFT_CUDA_GEMM_OVERLAP), not yet run on a GPU.
 */
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstring>
#include <mutex>
#include <new>
#include <type_traits>
#include <vector>

#include "abft/abft_cuda.h"
#include "abft/checksum/fault_models.hpp"
#include "abft/checksum/gemm_library_check.hpp"
#include "core/internal.hpp"
#include "device_faults.cuh"
#include "device_state.hpp"
#include "gemm_check.cuh"
#include "gemm_protected.hpp"

namespace abft::cuda {

namespace ck = abft::checksum;

namespace {

/** What each storage type needs: the scalar type of alpha and beta (float for the 16-bit
 *  types, whose products accumulate in float), the number formats, conversions, kernels'
 *  kernel id for the statistics and injection. */
template <class T> struct Traits;
template <> struct Traits<float> {
  using Scalar = float;
  static constexpr ck::NumFormat kFormat = ck::NumFormat::F32;
  static constexpr abft_kernel kKernel = ABFT_KERNEL_SGEMM;
};
template <> struct Traits<double> {
  using Scalar = double;
  static constexpr ck::NumFormat kFormat = ck::NumFormat::F64;
  static constexpr abft_kernel kKernel = ABFT_KERNEL_DGEMM;
};
template <> struct Traits<__half> {
  using Scalar = float;
  static constexpr ck::NumFormat kFormat = ck::NumFormat::F16;
  static constexpr abft_kernel kKernel = ABFT_KERNEL_SGEMM;  // float accumulation
};
template <> struct Traits<__nv_bfloat16> {
  using Scalar = float;
  static constexpr ck::NumFormat kFormat = ck::NumFormat::BF16;
  static constexpr abft_kernel kKernel = ABFT_KERNEL_SGEMM;
};

template <class T> __device__ T from_double(double x) { return T(x); }
template <> __device__ __half from_double<__half>(double x) { return __double2half(x); }
template <> __device__ __nv_bfloat16 from_double<__nv_bfloat16>(double x) { return __double2bfloat16(x); }

template <class T>
__device__ double op_at(const T* p, int64_t ld, bool trans, int64_t r, int64_t c) {
  return to_double(trans ? p[c + r * ld] : p[r + c * ld]);
}

/** A column whose verdict is Failed: recomputed in double from the caller's operands (and
 *  the saved C0), then re-verified against the same reference; under DETECT, or for a column
 *  Skipped for a non-finite sum, the probe below. Called by the thread that decided column j in
 *  column_check_kernel (gemm_check.cuh), after it wrote ref[j], X[j] and verdict[j], and only
 *  for a column that is not Ok: the rare path, one thread per column. */
template <class T>
struct ColumnRepair {
  const T* A;
  int64_t lda;
  bool ta;
  const T* B;
  int64_t ldb;
  bool tb;
  const T* C0;
  int64_t ldc0;
  T* C;
  int64_t ldc, m, k;
  double alpha, beta;
  const double* ref;
  const double* X;
  double coef, coef_out, abs;
  ck::NumFormat output;
  const int* verdict;
  RepairCounters* rc;
  DeviceCounters* dc;
  bool correct;
  // A strided batch: item y's A, B, C0 copy and C this many elements further, its ref, X and
  // verdict n further.
  int64_t item_a, item_b, item_c0, item_c, n;
  const T* bias;  // added to every column (GemmExtras), or null

  /** Column j of batch item y. */
  __device__ void operator()(int64_t y, int64_t j) const {
    const T* A = this->A + y * item_a;
    const T* B = this->B + y * item_b;
    const T* C0 = this->C0 ? this->C0 + y * item_c0 : nullptr;
    T* C = this->C + y * item_c;
    const double* ref = this->ref + y * n;
    const double* X = this->X + y * n;
    const int* verdict = this->verdict + y * n;
    auto value = [&](int64_t i) {
      double s = 0.0;
      for (int64_t p = 0; p < k; ++p) s += op_at(A, lda, ta, i, p) * op_at(B, ldb, tb, p, j);
      double e = alpha * s;
      if (beta != 0.0) e += beta * to_double(C0[i + j * ldc0]);
      if (bias) e += to_double(bias[i]);
      return from_double<T>(e);
    };
    if (verdict[j] == int(ck::LineVerdict::Skipped)) {
      // A non-finite sum where an element may have overflowed legitimately (finite data):
      // recompute the non-finite elements; one that is finite now was a fault.
      if (!isfinite(ref[j]) || !isfinite(X[j])) return;  // non-finite input data: nothing to decide
      bool fault = false;
      for (int64_t i = 0; i < m; ++i) {
        if (isfinite(to_double(C[i + j * ldc]))) continue;
        const T r = value(i);
        if (!isfinite(to_double(r))) continue;
        fault = true;
        if (!correct) break;  // DETECT: count it, write nothing
        C[i + j * ldc] = r;
      }
      if (!fault) return;
      atomicAdd(&dc->failed, 1ull);
      if (!correct) return;
      double obs = 0.0, W = 0.0;
      ck::library_line_observed(
          m, [&](int64_t i) { return ck::library_row_weight(i) * to_double(C[i + j * ldc]); }, &obs, &W);
      const ck::LineVerdict again = ck::library_line_verdict(obs, W, ref[j], X[j], coef, coef_out, abs, output);
      atomicAdd(again == ck::LineVerdict::Failed ? &rc->uncorrectable : &rc->corrected, 1ull);
      return;
    }
    if (!correct || verdict[j] != int(ck::LineVerdict::Failed)) return;
    double obs = 0.0, W = 0.0;
    for (int64_t i = 0; i < m; ++i) {
      const T stored = value(i);
      C[i + j * ldc] = stored;
      const double x = ck::library_row_weight(i) * to_double(stored);  // (the checks' row weights)
      obs += x;
      W += ck::binade_floor(x);
    }
    const ck::LineVerdict again = ck::library_line_verdict(obs, W, ref[j], X[j], coef, coef_out, abs, output);
    atomicAdd(again == ck::LineVerdict::Failed ? &rc->uncorrectable : &rc->corrected, 1ull);
  }
};

/** C(i, j) = bias[i] in every item (items `item` elements apart): the bias of the engine's own
 *  product with a bias (GemmExtras without a product), which then adds alpha op(A) op(B) with
 *  beta = 1 — one rounding, as cuBLASLt's bias epilogue. */
template <class T>
__global__ void bias_fill_kernel(T* C, int64_t ldc, int64_t m, int64_t n, int64_t items, int64_t item,
                                 const T* bias) {
  const int64_t total = m * n * items;
  for (int64_t x = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; x < total; x += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = x % m, j = (x / m) % n, y = x / (m * n);
    C[y * item + i + j * ldc] = bias[i];
  }
}

/** One fault at C(row, col) (column-major), value before and after into out[0..1]. */
template <class T>
__global__ void output_fault_kernel(T* C, int64_t ldc, int64_t row, int64_t col, abft_fault_model model, int bit,
                                    double value, double* out) {
  T& x = C[row + col * ldc];
  out[0] = to_double(x);
  x = apply_fault_any<T>(x, model, bit, value);
  out[1] = to_double(x);
}

cublasOperation_t to_cublas(abft_op op) { return op == ABFT_NO_TRANS ? CUBLAS_OP_N : CUBLAS_OP_T; }

cublasStatus_t blas_gemm(cublasHandle_t b, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                         const float* alpha, const float* A, int lda, const float* B, int ldb, const float* beta,
                         float* C, int ldc) {
  return cublasSgemm(b, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
cublasStatus_t blas_gemm(cublasHandle_t b, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                         const double* alpha, const double* A, int lda, const double* B, int ldb,
                         const double* beta, double* C, int ldc) {
  return cublasDgemm(b, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

cublasStatus_t blas_gemm_ex(cublasHandle_t b, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                            const float* alpha, const void* A, int lda, const void* B, int ldb, const float* beta,
                            void* C, int ldc, cudaDataType_t type) {
  return cublasGemmEx(b, ta, tb, m, n, k, alpha, A, type, lda, B, type, ldb, beta, C, type, ldc, CUBLAS_COMPUTE_32F,
                      CUBLAS_GEMM_DEFAULT);
}
cublasStatus_t blas_gemm(cublasHandle_t b, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                         const float* alpha, const __half* A, int lda, const __half* B, int ldb, const float* beta,
                         __half* C, int ldc) {
  return blas_gemm_ex(b, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, CUDA_R_16F);
}
cublasStatus_t blas_gemm(cublasHandle_t b, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                         const float* alpha, const __nv_bfloat16* A, int lda, const __nv_bfloat16* B, int ldb,
                         const float* beta, __nv_bfloat16* C, int ldc) {
  return blas_gemm_ex(b, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, CUDA_R_16BF);
}

// Strided batches (count > 1): cuBLAS's strided-batched products.
cublasStatus_t blas_gemm_batched(cublasHandle_t b, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                                 const float* alpha, const float* A, int lda, long long sa, const float* B, int ldb,
                                 long long sb, const float* beta, float* C, int ldc, long long sc, int count) {
  return cublasSgemmStridedBatched(b, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, count);
}
cublasStatus_t blas_gemm_batched(cublasHandle_t b, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                                 const double* alpha, const double* A, int lda, long long sa, const double* B,
                                 int ldb, long long sb, const double* beta, double* C, int ldc, long long sc,
                                 int count) {
  return cublasDgemmStridedBatched(b, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, count);
}
template <class T16>
cublasStatus_t blas_gemm_batched(cublasHandle_t b, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                                 const float* alpha, const T16* A, int lda, long long sa, const T16* B, int ldb,
                                 long long sb, const float* beta, T16* C, int ldc, long long sc, int count) {
  const cudaDataType_t type = std::is_same<T16, __half>::value ? CUDA_R_16F : CUDA_R_16BF;
  return cublasGemmStridedBatchedEx(b, ta, tb, m, n, k, alpha, A, type, lda, sa, B, type, ldb, sb, beta, C, type, ldc,
                                    sc, count, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

/** The product of one call: a single product, or a strided batch in one cuBLAS call. */
template <class T, class S>
cublasStatus_t product(cublasHandle_t b, abft_op ta, abft_op tb, int64_t m, int64_t n, int64_t k, const S* alpha,
                       const T* A, int64_t lda, const T* B, int64_t ldb, const S* beta, T* C, int64_t ldc,
                       const GemmBatch& bt) {
  if (bt.count == 1)
    return blas_gemm(b, to_cublas(ta), to_cublas(tb), int(m), int(n), int(k), alpha, A, int(lda), B, int(ldb), beta,
                     C, int(ldc));
  return blas_gemm_batched(b, to_cublas(ta), to_cublas(tb), int(m), int(n), int(k), alpha, A, int(lda), bt.sa, B,
                           int(ldb), bt.sb, beta, C, int(ldc), bt.sc, int(bt.count));
}

/** Elements from `lo` (<= 0) to `hi` of a strided batch of `count` column-major matrices (rows x
 *  cols, ld), `stride` apart: every element any item holds lies in [base + lo, base + hi). */
struct Span {
  int64_t lo, hi;
};
inline Span batch_span(int64_t count, int64_t stride, int64_t rows, int64_t cols, int64_t ld) {
  const int64_t last = (count - 1) * stride;
  const int64_t one = rows > 0 && cols > 0 ? (cols - 1) * ld + rows : 0;
  return {last < 0 ? last : 0, (last > 0 ? last : 0) + one};
}

/** A layout and transposes a protected GEMM takes (CONJ_TRANS = TRANS for real types). */
bool known_layout_and_ops(abft_layout layout, abft_op transa, abft_op transb) {
  if (layout != ABFT_ROW_MAJOR && layout != ABFT_COL_MAJOR) return false;
  for (abft_op op : {transa, transb})
    if (op != ABFT_NO_TRANS && op != ABFT_TRANS && op != ABFT_CONJ_TRANS) return false;
  return true;
}

/** The column-major call the engine runs for a row-major one: C = op(A) op(B) row-major is
 *  C^T = op(B)^T op(A)^T column-major (the operands, their leading dimensions and transposes
 *  swapped, m and n exchanged). */
template <class T>
void to_column_major(int64_t& m, int64_t& n, const T*& A, const T*& B, int64_t& lda, int64_t& ldb, abft_op& transa,
                     abft_op& transb) {
  std::swap(m, n);
  std::swap(A, B);
  std::swap(lda, ldb);
  std::swap(transa, transb);
}

template <class T>
abft_status run(abft_handle_t h, void* stream_ptr, abft_policy policy, abft_layout layout, abft_op transa,
                abft_op transb, int64_t m, int64_t n, int64_t k, typename Traits<T>::Scalar alpha, const T* A,
                int64_t lda, const T* B, int64_t ldb, typename Traits<T>::Scalar beta, T* C, int64_t ldc,
                int math_mode = -1, GemmBatch bt = GemmBatch{}, const GemmExtras* ex = nullptr) {
  using S = typename Traits<T>::Scalar;
  if (!known_layout_and_ops(layout, transa, transb)) return ABFT_STATUS_INVALID_VALUE;
  if (policy < ABFT_POLICY_DEFAULT || policy > ABFT_POLICY_CORRECT) return ABFT_STATUS_INVALID_VALUE;
  if (m < 0 || n < 0 || k < 0 || bt.count < 0) return ABFT_STATUS_INVALID_SIZE;
  // The caller's product and bias: column-major calls; a bias without the caller's product is
  // the engine's to add (bias_fill_kernel, then the product with beta = 1), for beta = 0 only.
  // A given encoding: single products.
  if (ex && (ex->product || ex->bias) &&
      (layout != ABFT_COL_MAJOR || (ex->bias && !ex->product && beta != typename Traits<T>::Scalar(0))))
    return ABFT_STATUS_INVALID_VALUE;
  const double* given = ex ? ex->encoded : nullptr;
  if (given && bt.count != 1) return ABFT_STATUS_INVALID_VALUE;
  const T* bias = ex ? static_cast<const T*>(ex->bias) : nullptr;
  if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX || lda > INT32_MAX || ldb > INT32_MAX || ldc > INT32_MAX ||
      bt.count > INT32_MAX)
    return ABFT_STATUS_NOT_SUPPORTED;  // cuBLAS's 32-bit interface
  if (bt.count == 1) bt.sa = bt.sb = bt.sc = 0;  // (one product: the strides are not used)
  const int64_t caller_m = m, caller_n = n;
  const bool row_major = layout == ABFT_ROW_MAJOR;
  if (row_major) {
    to_column_major(m, n, A, B, lda, ldb, transa, transb);
    std::swap(bt.sa, bt.sb);
  }
  const bool ta = transa != ABFT_NO_TRANS, tb = transb != ABFT_NO_TRANS;
  const int64_t arows = ta ? k : m, brows = tb ? n : k;
  if (lda < (arows > 1 ? arows : 1) || ldb < (brows > 1 ? brows : 1) || ldc < (m > 1 ? m : 1))
    return ABFT_STATUS_INVALID_LD;
  // A strided batch's outputs must not overlap (each item's C is written and repaired alone).
  if (!outputs_disjoint(bt.count, bt.sc, m, n, ldc)) return ABFT_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0 || bt.count == 0) return ABFT_STATUS_SUCCESS;
  if (!C || (k > 0 && alpha != S(0) && (!A || !B))) return ABFT_STATUS_NULL_POINTER;

  State* st = nullptr;
  const abft_status ss = state_of(h, &st);
  if (ss != ABFT_STATUS_SUCCESS) return ss;
  if (!blas_of(st)) return ABFT_STATUS_NOT_SUPPORTED;
  cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
  // One call at a time on this state (its cuBLAS handle's stream and math mode, its workspace),
  // ordered after the previous call when that one ran on another stream (device_state.hpp).
  std::lock_guard<std::mutex> lock(st->mu);
  begin_call(st, stream);
  cublasSetStream(st->blas, stream);
  // The caller's cuBLAS math mode (the cuBLAS-signature entry points) or the handle's. Only the
  // modes the bound knows pass: default, pedantic and TF32; CUBLAS_TENSOR_OP_MATH (float inputs
  // rounded to binary16) and the emulation modes fall back to the default. The flag bits stay,
  // and 16-bit outputs never reduce split-k partial sums in the output type (the bound allows
  // one output rounding).
  bool tf32 = st->tf32;
  int mode = st->tf32 ? int(CUBLAS_TF32_TENSOR_OP_MATH) : int(CUBLAS_DEFAULT_MATH);
  if (math_mode >= 0) {
    const int base = math_mode & 0xF;
    const bool known = base == CUBLAS_DEFAULT_MATH || base == CUBLAS_PEDANTIC_MATH || base == CUBLAS_TF32_TENSOR_OP_MATH;
    mode = (math_mode & ~0xF) | (known ? base : int(CUBLAS_DEFAULT_MATH));
    tf32 = known && base == CUBLAS_TF32_TENSOR_OP_MATH;
  }
  if (sizeof(T) == 2) mode |= int(CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);
  cublasSetMathMode(st->blas, cublasMath_t(mode));
  const abft_policy pol = core::resolve_policy(h, policy);
  const abft_kernel kid = Traits<T>::kKernel;

  // OFF, and the products with nothing to check (k = 0 or alpha = 0: C = beta C0, A and B unread).
  // The product: the caller's (GemmExtras), or cuBLAS's.
  auto multiply = [&](const T* a_use, const T* b_use) {
    if (ex && ex->product) return ex->product(a_use, b_use) ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_EXECUTION_FAILED;
    if (bias) {  // the engine's product with a bias (beta = 0): C = bias 1^T, then C += alpha op(A) op(B)
      const int64_t total = m * n * bt.count;
      const int blocks = int(total / 256 + 1 < 4096 ? total / 256 + 1 : 4096);
      bias_fill_kernel<T><<<blocks, 256, 0, stream>>>(C, ldc, m, n, bt.count, bt.sc, bias);
      const S one = S(1);
      return product(st->blas, transa, transb, m, n, k, &alpha, a_use, lda, b_use, ldb, &one, C, ldc, bt);
    }
    return product(st->blas, transa, transb, m, n, k, &alpha, a_use, lda, b_use, ldb, &beta, C, ldc, bt);
  };
  if (pol == ABFT_POLICY_OFF || k == 0 || alpha == S(0)) {
    const cublasStatus_t bs = multiply(A, B);
    end_call(st, stream);
    core::record_call(h, kid, abft_report{});
    return bs == CUBLAS_STATUS_SUCCESS ? ABFT_STATUS_SUCCESS : ABFT_STATUS_INTERNAL_ERROR;
  }

  // Workspace: vw (k pairs v_p, w_p: one 16-byte load for both); rr, rx (n: the reference's dot
  // products when op(B) = B^T or formed early); c0s, c0a, ref, X (n); the strided sums' partial
  // sums (split grids, gemm_check.cuh); verdict (n ints); the C0 backup (beta != 0, laid out as
  // copy_layout says, so that its sums' kernel stores it in 16-byte units as it reads C0).
  // (DETECT keeps it too: its probe of skipped columns recomputes elements, beta C0 included.)
  // A strided batch (count > 1) repeats all of it per item: item y's pairs 2k doubles further,
  // its per-column values n further, its partial sums `scratch` further, its C0 copy
  // item_c0 elements further (congruent to sc modulo a 16-byte unit, so that each item's copy
  // sits at its source's address modulo 16, as copy_layout places the first).
  const int64_t items = bt.count;
  const bool keep_c0 = beta != S(0);
  const int64_t elem = int64_t(sizeof(T));
  const StridedGrid grid_a = strided_grid(A, lda, elem, k, m, items, bt.sa);
  const StridedGrid grid_b = strided_grid(B, ldb, elem, n, k, items, bt.sb);
  if ((ta && !strided_blocks_fit(grid_a, items)) || (tb && !strided_blocks_fit(grid_b, items)))
    return ABFT_STATUS_NOT_SUPPORTED;  // (a launch of more than 2^31 - 1 blocks)
  const int64_t scratch_a = ta ? grid_a.scratch() : 0;
  const int64_t scratch_b = tb ? grid_b.scratch() : 0;
  const int64_t scratch = scratch_a > scratch_b ? scratch_a : scratch_b;
  const CopyLayout cl = copy_layout(C, elem, m, ldc);
  const int64_t c0_one = cl.offset + (n - 1) * cl.ld + m, kV = 16 / elem;
  const int64_t item_c0 = c0_one + (((bt.sc - c0_one) % kV) + kV) % kV;
  const size_t nd = size_t((2 * k + 6 * n + scratch) * items) + 2;  // (+ the bias sums)
  const size_t c0_elems = keep_c0 ? size_t(item_c0 * (items - 1) + c0_one) : 0;
  const size_t bytes = nd * sizeof(double) + size_t(n * items) * sizeof(int) + c0_elems * sizeof(T) + 64;
  if (!grow_device_buffer(&st->work, &st->work_bytes, bytes)) return ABFT_STATUS_ALLOC_FAILED;
  // The bias sums first (the injection's scratch values, written into ref and X, must not reach
  // them), then the pairs: cudaMalloc is 256-byte aligned, so the pairs are 16.
  double* bias_sums = static_cast<double*>(st->work);
  double* vw = bias_sums + 2;
  const int64_t nn = n * items;
  double *rr = vw + 2 * k * items, *rx = rr + nn, *c0s = rx + nn, *c0a = c0s + nn, *ref = c0a + nn, *X = ref + nn;
  double* part = X + nn;
  int* verdict = reinterpret_cast<int*>(part + scratch * items);
  char* c0base = reinterpret_cast<char*>(verdict + nn);
  c0base += 32 - reinterpret_cast<uintptr_t>(c0base) % 32;
  T* c0copy = reinterpret_cast<T*>(c0base) + cl.offset;
  const double2* pairs = reinterpret_cast<const double2*>(given ? given : vw);
  const double a = double(alpha), b = double(beta);

  // 1-2. Encoding of op(A), the C0 sums and the C0 backup (one launch, which reads C0 once). A
  // transposed operand's sums come from tiles of its stored matrix (strided_sums_kernel: vw
  // for op(A) = A^T, rr and rx for op(B) = B^T at step 5); nothing needs zeroing first.
  // With State::overlap the encoding and the reference's dot products with op(B) run on the
  // side stream while the product runs (the C0 sums and backup, which must precede the
  // product, stay on the call's stream); the check waits for them (join) and reads C alone.
  // An experiment, off by default: scripts/gpu-check.sh times both.
  // The side stream starts after the previous user of the workspace (fork, recorded on the
  // call's stream); if the fork cannot be recorded or waited on, the call runs unoverlapped
  // (the error cleared: the launch check below must not take it for the call's own).
  bool overlap = st->overlap && side_of(st);
  if (overlap && (cudaEventRecord(st->fork, stream) != cudaSuccess ||
                  cudaStreamWaitEvent(st->side, st->fork, 0) != cudaSuccess)) {
    cudaGetLastError();
    overlap = false;
  }
  const cudaStream_t enc = overlap ? st->side : stream;
  auto rejoin = [&] {
    if (overlap) cudaStreamWaitEvent(stream, st->join, 0);
  };
  const LineSet<T> enc_a{A, lda, m, k, vw, vw + 1, 2, nullptr, 0, items, bt.sa, 2 * k, 0};
  const LineSet<T> c0set{C, ldc, m, n, c0s, c0a, 1, c0copy, cl.ld, items, bt.sc, n, item_c0};
  auto line_sums = [](const LineSet<T>& s0, const LineSet<T>& s1, cudaStream_t s) {
    const int64_t lines = s0.total() + s1.total();
    if (lines > 0) line_sums_kernel<T><<<grid_of(lines), line_block_threads(lines), 0, s>>>(s0, s1);
  };
  bool launched = true;
  const LineSet<T> bias_set = bias ? LineSet<T>{bias, m, m, 1, bias_sums, bias_sums + 1, 1} : LineSet<T>{};
  const StridedBatch sb_a{items, bt.sa, 0, 2 * k}, sb_b{items, bt.sb, k, n};
  if (overlap) {
    if (keep_c0) line_sums(c0set, LineSet<T>{}, stream);
    if (!ta && !given) line_sums(enc_a, LineSet<T>{}, enc);
    if (ta && !given)
      launched &= launch_strided_sums<T, false>(A, lda, k, m, nullptr, vw, vw + 1, 2, part, st->tile_done, enc, sb_a);
    if (bias) line_sums(bias_set, LineSet<T>{}, stream);
  } else if (given) {
    // op(A)'s encoding is the caller's: only C0's and the bias's sums, if any, in one launch.
    line_sums(keep_c0 ? c0set : LineSet<T>{}, bias_set, stream);
  } else if (ta) {
    // A^T's sums in tiles, with C0's sums and backup and the bias's sums on blocks of the same
    // launch (neither depends on the other): forward products of nn.Linear (A^T, with C0 or a
    // bias) encode in one launch.
    launched &= launch_strided_sums<T, false>(A, lda, k, m, nullptr, vw, vw + 1, 2, part, st->tile_done, stream, sb_a,
                                              keep_c0 ? c0set : LineSet<T>{}, bias_set);
  } else {
    line_sums(enc_a, keep_c0 ? c0set : LineSet<T>{}, stream);
    if (bias) line_sums(bias_set, LineSet<T>{}, stream);
  }
  if (overlap) {
    // Step 5's reference, early: the check after the product then reads C alone.
    if (tb) launched &= launch_strided_sums<T, true>(B, ldb, n, k, pairs, rr, rx, 1, part, st->tile_done, enc, sb_b);
    else launch_column_reference(B, ldb, k, n, pairs, rr, rx, enc, items, bt.sb);
    cudaEventRecord(st->join, enc);
  }
  // (A failed backup stops the call before C is written: the repair must never read a C0 it
  // does not have.)
  if (!launched || cudaPeekAtLastError() != cudaSuccess) {
    cudaGetLastError();
    rejoin();
    end_call(st, stream);
    return ABFT_STATUS_INTERNAL_ERROR;
  }

  // Injection (only with a planner on the handle): operand faults go into a private copy the
  // product reads, output faults into C before verification. Accumulator faults have no
  // place in a library's product: they do not land.
  // Faults are in the caller's coordinates (C(row,col), op(A)(row,kpos), op(B)(kpos,col));
  // a row-major call runs transposed, where the caller's op(A) is the internal op(B)^T.
  // A strided batch's items stack along the rows of the output and of op(A), and along the
  // columns of op(B) (abft_call_info.batch; core::site_extent).
  abft_call_info call{kid, caller_m, caller_n, k, 0, items};
  core::InjectionPlan plan = core::plan_injection(h, call);
  struct Internal {
    bool on_a;     // operand site: internal op(A) (else op(B))
    int64_t y;     // the batch item
    int64_t r, c;  // internal op(X)(r, c), or C(r, c)
  };
  auto internal = [&](const abft_fault& f) {
    Internal x{};
    int64_t row = f.row, col = f.col;
    if (f.site == ABFT_SITE_PACKED_B) x.y = col / caller_n, col %= caller_n;
    else x.y = row / caller_m, row %= caller_m;
    if (f.site == ABFT_SITE_OUTPUT) {
      x.r = row_major ? col : row;
      x.c = row_major ? row : col;
    } else if (f.site == ABFT_SITE_PACKED_A) {  // caller op(A)(row, kpos)
      x.on_a = !row_major;
      x.r = row_major ? f.kpos : row;
      x.c = row_major ? row : f.kpos;
    } else {  // caller op(B)(kpos, col)
      x.on_a = row_major;
      x.r = row_major ? col : f.kpos;
      x.c = row_major ? f.kpos : col;
    }
    return x;
  };
  const T* Ause = A;
  const T* Buse = B;
  T* opcopy = nullptr;
  for (abft_fault& f : plan.faults) {
    if (f.site != ABFT_SITE_PACKED_A && f.site != ABFT_SITE_PACKED_B) continue;
    const Internal x = internal(f);
    const bool isA = x.on_a;
    const bool tr = isA ? ta : tb;
    const int64_t cols = isA ? (ta ? m : k) : (tb ? k : n);  // stored columns
    const int64_t ld = isA ? lda : ldb, stride = isA ? bt.sa : bt.sb;
    // Only `srows` values of each stored column are the caller's: the copy holds the span from
    // the first item's (or, with a negative stride, the last item's) first element to the end
    // of the furthest item's last column, no further.
    const int64_t srows = isA ? (ta ? k : m) : (tb ? n : k);
    const Span sp = batch_span(items, stride, srows, cols, ld);
    if (cudaMalloc(&opcopy, size_t(sp.hi - sp.lo) * sizeof(T)) != cudaSuccess) {
      cudaGetLastError();
      core::finish_injection(plan);
      rejoin();
      end_call(st, stream);
      return ABFT_STATUS_ALLOC_FAILED;
    }
    const T* src = isA ? A : B;
    cudaMemcpyAsync(opcopy, src + sp.lo, size_t(sp.hi - sp.lo) * sizeof(T), cudaMemcpyDeviceToDevice, stream);
    T* base = opcopy - sp.lo;  // where the caller's first item's first element is in the copy
    // op(X)(r, c) of item y in the stored column-major matrices.
    const int64_t sr = tr ? x.c : x.r, sc = tr ? x.r : x.c;
    double* dv = ref;  // scratch for the values before / after (ref is written later)
    output_fault_kernel<T><<<1, 1, 0, stream>>>(base + x.y * stride, ld, sr, sc, f.model, f.bit, f.value, dv);
    double vals[2] = {0, 0};
    cudaMemcpyAsync(vals, dv, sizeof vals, cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);  // injection only: the fault-free path never gets here
    f.original = vals[0], f.corrupted = vals[1], f.applied = 1;
    (isA ? Ause : Buse) = base;
    break;  // one operand copy per call
  }

  // 3. The product.
  const cublasStatus_t bs = multiply(Ause, Buse);
  if (opcopy) {
    cudaStreamSynchronize(stream);
    cudaFree(opcopy);
  }
  if (bs != CUBLAS_STATUS_SUCCESS) {
    core::finish_injection(plan);
    rejoin();
    end_call(st, stream);
    return ABFT_STATUS_INTERNAL_ERROR;
  }
  // 4. Output faults.
  for (abft_fault& f : plan.faults) {
    if (f.site != ABFT_SITE_OUTPUT) continue;
    const Internal x = internal(f);
    double* dv = X;  // scratch, written by the check kernel afterwards
    output_fault_kernel<T><<<1, 1, 0, stream>>>(C + x.y * bt.sc, ldc, x.r, x.c, f.model, f.bit, f.value, dv);
    double vals[2] = {0, 0};
    cudaMemcpyAsync(vals, dv, sizeof vals, cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
    f.original = vals[0], f.corrupted = vals[1], f.applied = 1;
  }
  core::finish_injection(plan);

  // 5. Verification.
  const ck::LibraryGemmPrecision prec =
      ck::library_precision(Traits<T>::kFormat, tf32);
  // (A bias is one more addend of every element and of the reference: its rounding in double
  // counted as one more term of the line.)
  const double coef = ck::library_line_coefficient(prec, bias ? m + 1 : m, k);
  const double coef_out = ck::library_line_output_coefficient(prec, m);
  const double abs = ck::library_line_abs_term(prec, m, k, a < 0 ? -a : a, b < 0 ? -b : b);
  // op(B) = B^T: the reference's dot products over tiles of the stored B (the caller's, as the
  // encoding: a fault injected into the product's copy must not reach the reference).
  if (tb && !overlap &&
      !launch_strided_sums<T, true>(B, ldb, n, k, pairs, rr, rx, 1, part, st->tile_done, stream, sb_b)) {
    rejoin();
    end_call(st, stream);
    return ABFT_STATUS_INTERNAL_ERROR;
  }
  rejoin();  // (overlap: the encoding done before the check reads it)
  // 5-6. One launch: per column the reference, the observed sums, the verdict and the counters;
  // then, for a column that is not Ok, the repair (CORRECT) or, under DETECT, the probe of a
  // column skipped for a non-finite sum (a non-finite element that recomputes finite is a
  // fault, also when nothing is repaired).
  CheckArgs<T> ca;
  ca.B = B, ca.ldb = ldb, ca.vw = pairs;
  if (tb || overlap) ca.rr = rr, ca.rx = rx;
  ca.C = C, ca.ldc = ldc, ca.m = m, ca.n = n, ca.k = k, ca.alpha = a, ca.beta = b, ca.c0s = c0s, ca.c0a = c0a;
  ca.coef = coef, ca.coef_out = coef_out, ca.abs = abs, ca.output = prec.output;
  ca.ref = ref, ca.X = X, ca.verdict = verdict, ca.counters = st->counters + kid;
  ca.items = items, ca.item_b = bt.sb, ca.item_c = bt.sc;
  ca.bias_sums = bias ? bias_sums : nullptr;
  const ColumnRepair<T> repair{A, lda, ta, B, ldb, tb, keep_c0 ? c0copy : nullptr, cl.ld, C, ldc, m, k, a, b, ref, X,
                               coef, coef_out, abs, prec.output, verdict, st->repair + kid, st->counters + kid,
                               pol == ABFT_POLICY_CORRECT, bt.sa, bt.sb, item_c0, bt.sc, n, bias};
  launch_column_check(ca, repair, stream);
  end_call(st, stream);
  core::record_call(h, kid, abft_report{});  // the call; its counts arrive at abft_cuda_sync
  const cudaError_t le = cudaGetLastError();
  return le == cudaSuccess ? ABFT_STATUS_SUCCESS : ABFT_STATUS_INTERNAL_ERROR;
}

}  // namespace

abft_status protected_gemm(abft_handle_t h, void* stream, int math_mode, cudaDataType_t type, abft_layout layout,
                           abft_op transa, abft_op transb, int64_t m, int64_t n, int64_t k, const void* alpha,
                           const void* A, int64_t lda, const void* B, int64_t ldb, const void* beta, void* C,
                           int64_t ldc, const GemmBatch& batch, const GemmExtras* extras) {
  if (!h || !alpha || !beta) return ABFT_STATUS_NULL_POINTER;
  const bool dbl = type == CUDA_R_64F;
  const float af = dbl ? 0.f : *static_cast<const float*>(alpha), bf = dbl ? 0.f : *static_cast<const float*>(beta);
  switch (type) {
    case CUDA_R_32F:
      return run<float>(h, stream, ABFT_POLICY_DEFAULT, layout, transa, transb, m, n, k, af,
                        static_cast<const float*>(A), lda, static_cast<const float*>(B), ldb, bf,
                        static_cast<float*>(C), ldc, math_mode, batch, extras);
    case CUDA_R_64F:
      return run<double>(h, stream, ABFT_POLICY_DEFAULT, layout, transa, transb, m, n, k,
                         *static_cast<const double*>(alpha), static_cast<const double*>(A), lda,
                         static_cast<const double*>(B), ldb, *static_cast<const double*>(beta),
                         static_cast<double*>(C), ldc, math_mode, batch, extras);
    case CUDA_R_16F:
      return run<__half>(h, stream, ABFT_POLICY_DEFAULT, layout, transa, transb, m, n, k, af,
                         static_cast<const __half*>(A), lda, static_cast<const __half*>(B), ldb, bf,
                         static_cast<__half*>(C), ldc, math_mode, batch, extras);
    case CUDA_R_16BF:
      return run<__nv_bfloat16>(h, stream, ABFT_POLICY_DEFAULT, layout, transa, transb, m, n, k, af,
                                static_cast<const __nv_bfloat16*>(A), lda, static_cast<const __nv_bfloat16*>(B),
                                ldb, bf, static_cast<__nv_bfloat16*>(C), ldc, math_mode, batch, extras);
    default: return ABFT_STATUS_NOT_SUPPORTED;
  }
}

namespace {

/** gemm_encode for storage type T: the pairs run<T> forms (the line sums of op(A)'s columns, or
 *  A^T's strided sums) for a single product, on the engine's column-major view. */
template <class T>
abft_status encode(abft_handle_t h, void* stream_ptr, abft_layout layout, abft_op transa, abft_op transb, int64_t m,
                   int64_t n, int64_t k, const T* A, int64_t lda, const T* B, int64_t ldb, double* out) {
  if (!h) return ABFT_STATUS_NULL_POINTER;
  if (!known_layout_and_ops(layout, transa, transb)) return ABFT_STATUS_INVALID_VALUE;
  if (m < 0 || n < 0 || k < 0) return ABFT_STATUS_INVALID_SIZE;
  if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX || lda > INT32_MAX || ldb > INT32_MAX)
    return ABFT_STATUS_NOT_SUPPORTED;
  if (layout == ABFT_ROW_MAJOR) to_column_major(m, n, A, B, lda, ldb, transa, transb);  // (as run<T>)
  const bool ta = transa != ABFT_NO_TRANS;
  const int64_t arows = ta ? k : m;
  if (lda < (arows > 1 ? arows : 1)) return ABFT_STATUS_INVALID_LD;
  if (m == 0 || k == 0) return ABFT_STATUS_SUCCESS;
  if (!A || !out) return ABFT_STATUS_NULL_POINTER;
  State* st = nullptr;
  const abft_status ss = state_of(h, &st);
  if (ss != ABFT_STATUS_SUCCESS) return ss;
  cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
  const StridedGrid grid_a = strided_grid(A, lda, int64_t(sizeof(T)), k, m);
  if (ta && !strided_blocks_fit(grid_a, 1)) return ABFT_STATUS_NOT_SUPPORTED;
  std::lock_guard<std::mutex> lock(st->mu);
  begin_call(st, stream);
  bool launched = true;
  if (ta) {
    // The split tiles' partial sums in the state's workspace (ordered after its last user).
    if (!grow_device_buffer(&st->work, &st->work_bytes, size_t(grid_a.scratch() + 1) * sizeof(double))) {
      end_call(st, stream);
      return ABFT_STATUS_ALLOC_FAILED;
    }
    launched = launch_strided_sums<T, false>(A, lda, k, m, nullptr, out, out + 1, 2, static_cast<double*>(st->work),
                                             st->tile_done, stream);
  } else {
    const LineSet<T> enc_a{A, lda, m, k, out, out + 1, 2};
    line_sums_kernel<T><<<grid_of(k), line_block_threads(k), 0, stream>>>(enc_a, LineSet<T>{});
  }
  end_call(st, stream);
  if (!launched || cudaGetLastError() != cudaSuccess) return ABFT_STATUS_INTERNAL_ERROR;
  return ABFT_STATUS_SUCCESS;
}

}  // namespace

abft_status gemm_encode(abft_handle_t h, void* stream, cudaDataType_t type, abft_layout layout, abft_op transa,
                        abft_op transb, int64_t m, int64_t n, int64_t k, const void* A, int64_t lda, const void* B,
                        int64_t ldb, double* out) {
  switch (type) {
    case CUDA_R_32F:
      return encode<float>(h, stream, layout, transa, transb, m, n, k, static_cast<const float*>(A), lda,
                           static_cast<const float*>(B), ldb, out);
    case CUDA_R_64F:
      return encode<double>(h, stream, layout, transa, transb, m, n, k, static_cast<const double*>(A), lda,
                            static_cast<const double*>(B), ldb, out);
    case CUDA_R_16F:
      return encode<__half>(h, stream, layout, transa, transb, m, n, k, static_cast<const __half*>(A), lda,
                            static_cast<const __half*>(B), ldb, out);
    case CUDA_R_16BF:
      return encode<__nv_bfloat16>(h, stream, layout, transa, transb, m, n, k,
                                   static_cast<const __nv_bfloat16*>(A), lda,
                                   static_cast<const __nv_bfloat16*>(B), ldb, out);
    default: return ABFT_STATUS_NOT_SUPPORTED;
  }
}

abft_status sgemm_encoded(abft_handle_t h, void* stream, abft_policy policy, abft_layout layout, abft_op transa,
                          abft_op transb, int64_t m, int64_t n, int64_t k, float alpha, const float* A, int64_t lda,
                          const float* B, int64_t ldb, float beta, float* C, int64_t ldc, const double* encoded) {
  if (!h) return ABFT_STATUS_NULL_POINTER;
  GemmExtras ex;
  ex.encoded = encoded;
  return run<float>(h, stream, policy, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, -1,
                    GemmBatch{}, encoded ? &ex : nullptr);
}

}  // namespace abft::cuda

extern "C" abft_status abft_cuda_sgemm(abft_handle_t h, void* stream, abft_policy policy, abft_layout layout,
                                       abft_op transa, abft_op transb, int64_t m, int64_t n, int64_t k,
                                       float alpha, const float* A, int64_t lda, const float* B, int64_t ldb,
                                       float beta, float* C, int64_t ldc) {
  if (!h) return ABFT_STATUS_NULL_POINTER;
  return abft::cuda::run<float>(h, stream, policy, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta,
                                C, ldc);
}

extern "C" abft_status abft_cuda_dgemm(abft_handle_t h, void* stream, abft_policy policy, abft_layout layout,
                                       abft_op transa, abft_op transb, int64_t m, int64_t n, int64_t k,
                                       double alpha, const double* A, int64_t lda, const double* B, int64_t ldb,
                                       double beta, double* C, int64_t ldc) {
  if (!h) return ABFT_STATUS_NULL_POINTER;
  return abft::cuda::run<double>(h, stream, policy, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta,
                                 C, ldc);
}

extern "C" abft_status abft_cuda_hgemm(abft_handle_t h, void* stream, abft_policy policy, abft_layout layout,
                                       abft_op transa, abft_op transb, int64_t m, int64_t n, int64_t k,
                                       float alpha, const void* A, int64_t lda, const void* B, int64_t ldb,
                                       float beta, void* C, int64_t ldc) {
  if (!h) return ABFT_STATUS_NULL_POINTER;
  return abft::cuda::run<__half>(h, stream, policy, layout, transa, transb, m, n, k, alpha,
                                 static_cast<const __half*>(A), lda, static_cast<const __half*>(B), ldb, beta,
                                 static_cast<__half*>(C), ldc);
}

extern "C" abft_status abft_cuda_bf16gemm(abft_handle_t h, void* stream, abft_policy policy, abft_layout layout,
                                          abft_op transa, abft_op transb, int64_t m, int64_t n, int64_t k,
                                          float alpha, const void* A, int64_t lda, const void* B, int64_t ldb,
                                          float beta, void* C, int64_t ldc) {
  if (!h) return ABFT_STATUS_NULL_POINTER;
  return abft::cuda::run<__nv_bfloat16>(h, stream, policy, layout, transa, transb, m, n, k, alpha,
                                        static_cast<const __nv_bfloat16*>(A), lda,
                                        static_cast<const __nv_bfloat16*>(B), ldb, beta,
                                        static_cast<__nv_bfloat16*>(C), ldc);
}

// Strided batches: item i of `count` reads A + i strideA and B + i strideB, writes C + i strideC.
extern "C" abft_status abft_cuda_sgemm_strided_batched(abft_handle_t h, void* stream, abft_policy policy,
                                                       abft_layout layout, abft_op transa, abft_op transb, int64_t m,
                                                       int64_t n, int64_t k, float alpha, const float* A, int64_t lda,
                                                       int64_t strideA, const float* B, int64_t ldb, int64_t strideB,
                                                       float beta, float* C, int64_t ldc, int64_t strideC,
                                                       int64_t count) {
  if (!h) return ABFT_STATUS_NULL_POINTER;
  return abft::cuda::run<float>(h, stream, policy, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C,
                                ldc, -1, abft::cuda::GemmBatch{count, strideA, strideB, strideC});
}

extern "C" abft_status abft_cuda_dgemm_strided_batched(abft_handle_t h, void* stream, abft_policy policy,
                                                       abft_layout layout, abft_op transa, abft_op transb, int64_t m,
                                                       int64_t n, int64_t k, double alpha, const double* A,
                                                       int64_t lda, int64_t strideA, const double* B, int64_t ldb,
                                                       int64_t strideB, double beta, double* C, int64_t ldc,
                                                       int64_t strideC, int64_t count) {
  if (!h) return ABFT_STATUS_NULL_POINTER;
  return abft::cuda::run<double>(h, stream, policy, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C,
                                 ldc, -1, abft::cuda::GemmBatch{count, strideA, strideB, strideC});
}

extern "C" abft_status abft_cuda_hgemm_strided_batched(abft_handle_t h, void* stream, abft_policy policy,
                                                       abft_layout layout, abft_op transa, abft_op transb, int64_t m,
                                                       int64_t n, int64_t k, float alpha, const void* A, int64_t lda,
                                                       int64_t strideA, const void* B, int64_t ldb, int64_t strideB,
                                                       float beta, void* C, int64_t ldc, int64_t strideC,
                                                       int64_t count) {
  if (!h) return ABFT_STATUS_NULL_POINTER;
  return abft::cuda::run<__half>(h, stream, policy, layout, transa, transb, m, n, k, alpha,
                                 static_cast<const __half*>(A), lda, static_cast<const __half*>(B), ldb, beta,
                                 static_cast<__half*>(C), ldc, -1, abft::cuda::GemmBatch{count, strideA, strideB, strideC});
}

extern "C" abft_status abft_cuda_bf16gemm_strided_batched(abft_handle_t h, void* stream, abft_policy policy,
                                                          abft_layout layout, abft_op transa, abft_op transb,
                                                          int64_t m, int64_t n, int64_t k, float alpha, const void* A,
                                                          int64_t lda, int64_t strideA, const void* B, int64_t ldb,
                                                          int64_t strideB, float beta, void* C, int64_t ldc,
                                                          int64_t strideC, int64_t count) {
  if (!h) return ABFT_STATUS_NULL_POINTER;
  return abft::cuda::run<__nv_bfloat16>(h, stream, policy, layout, transa, transb, m, n, k, alpha,
                                        static_cast<const __nv_bfloat16*>(A), lda,
                                        static_cast<const __nv_bfloat16*>(B), ldb, beta,
                                        static_cast<__nv_bfloat16*>(C), ldc, -1,
                                        abft::cuda::GemmBatch{count, strideA, strideB, strideC});
}
