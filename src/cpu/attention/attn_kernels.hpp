/** \file attn_kernels.hpp
 *  \brief Interface between the attention drivers and the per-ISA tile kernels: the strided
 *  tile product every attention GEMM runs on, the checksum reference kernel, and the
 *  softmax / dS element passes.
 *
 *  Orientation (docs/ABFT.md, "Attention"): score tiles are stored transposed, S^T with one
 *  row per key and the queries of a block along the vector lanes. The softmax reductions
 *  over keys are then vertical vector operations, the query-side checksums are the column
 *  sums the product kernel forms from registers, and the reference sums are small
 *  vector-matrix products against the same lane layout.
 */
#pragma once
#include <cstdint>

#include "abft/abft.h"

namespace abft::cpu::attention {

/** C (M x N) op= A (M x K) * B (K x N). A(i, p) = A[i*a_rs + p*a_ps]; B rows are
 *  contiguous with stride ldb; N is a multiple of the kernel's nr. */
struct ProdArgs {
  enum Mode { kStore = 0, kAdd = 1, kRescale = 2 };
  int64_t M = 0, N = 0, K = 0;
  const float* A = nullptr;
  int64_t a_rs = 0, a_ps = 0;
  const float* B = nullptr;
  int64_t ldb = 0;
  float* C = nullptr;
  int64_t ldc = 0;
  int mode = kStore;
  const float* corr = nullptr;  ///< kRescale: C(i, j) = corr[j] * C(i, j) + (AB)(i, j)
  double* colsum = nullptr;     ///< kStore, optional: colsum[j] += sum_i C(i, j) as stored
};

/** Per-query state of the forward's online softmax, one entry per lane of the block. */
struct SoftmaxState {
  float* m;       ///< running maximum
  float* m2;      ///< its duplicate, updated independently (checked before every use)
  float* l;       ///< normalizer, from the probabilities as computed
  float* corr;    ///< out: this tile's rescale factor exp(m_old - m_new)
};

/** Score-tile geometry for causal masking and mask addition. */
struct TileGeom {
  int64_t nk = 0;      ///< keys in the tile (rows of S^T)
  int64_t br = 0;      ///< lanes (queries) per row, a multiple of the vector width
  int64_t j0 = 0;      ///< global index of the tile's first key
  int64_t i0 = 0;      ///< global index of the block's first query
  int64_t off = 0;     ///< kv_len - q_len (bottom-right causal alignment)
  bool causal = false;
  const float* maskT = nullptr;  ///< nk x br additive mask tile (transposed), or null
};

/** One ISA's attention kernels. */
struct AttnKernels {
  abft_isa isa;
  int mr, nr;  ///< register tile of prod
  void (*prod)(const ProdArgs& a);
  /// ref[j] += sum_p v[p] B(p, j), X[j] += sum_p w[p] |B(p, j)| for j < N (N % nr == 0).
  void (*dotabs)(int64_t K, int64_t N, const float* v, const float* w, const float* B,
                 int64_t ldb, double* ref, double* X);
  /// Forward softmax of one S^T tile in place (S^T -> P^T). With `check`, also the
  /// duplicate max and the range test (returns false when a probability left [0, 1 + 8u]
  /// or the duplicate max disagreed).
  bool (*softmax_fwd)(float* st, const TileGeom& g, SoftmaxState& s, bool check);
  /// l2 = l2 * corr + column sums of the stored P^T (nk rows x br lanes), summed in the
  /// order softmax_fwd / probs_bwd sum them; corr == nullptr: l2 = the column sums.
  void (*resum)(const float* pt, int64_t nk, int64_t br, const float* corr, float* l2);
  /// Backward: S^T -> P^T = exp(S^T + mask - lse) in place, psum[i] = sum_j P(j, i).
  /// Returns false when a probability is negative or not finite (check only).
  bool (*probs_bwd)(float* st, const TileGeom& g, const float* lse, float* psum, bool check);
  /// Backward: dP^T -> dS^T = P^T o (dP^T - D) in place; per-query sums of dS and |dS|,
  /// per-key sums of dS and |dS| (check only). Returns false on a non-finite dS (check only).
  bool (*dscore)(const float* pt, float* dpt, int64_t nk, int64_t br, const float* D,
                 float* qsum, float* qabs, float* ksum, float* kabs, bool check);
  const char* desc;
};

const AttnKernels* attn_kernels_ref();
const AttnKernels* attn_kernels_avx2();
/** The kernels for the active ISA (abft_cpu_isa(); AVX-512 CPUs run the AVX2 ones). */
const AttnKernels& attn_active_kernels();

/** Block sizes: queries per block (a multiple of every nr) and keys per tile. */
constexpr int64_t kQueryBlock = 64;
constexpr int64_t kKeyBlock = 96;

}  // namespace abft::cpu::attention
