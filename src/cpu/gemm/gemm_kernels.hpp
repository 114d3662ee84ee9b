/** \file gemm_kernels.hpp
 *  \brief Interface between the GEMM driver and the per-ISA micro-kernels (tile epilogue flags, kernel sets).
 */
#pragma once
#include <cstdint>

#include "abft/abft.h"
#include "abft/checksum/fingerprint.hpp"
#include "cpu/gemm/gemm_problem.hpp"

namespace abft::cpu::gemm {

/** What a tile epilogue does besides C = alpha*AB (+ beta*C). The checksum
 *  work rides on values that are already in registers (GUIDE §3 rule 6). */
enum EpiFlags : unsigned {
  kLoadC = 1u,   ///< read C and add beta*C (later k-chunks use beta = 1)
  kSaveC0 = 2u,  ///< copy the loaded C (the caller's C0) to the backup, for recomputation
                 ///< (non-temporal stores: the backup tile must be vector aligned)
  kSumC0 = 4u,   ///< add column sums of the loaded C0 and of |C0| into c0sum / c0abs
  kSumOut = 8u,  ///< add column sums of the stored result into obs (the observed checksum)
};

template <class T>
struct Epi {
  T alpha = T(1), beta = T(0);
  unsigned flags = 0;
  T* c0 = nullptr;  ///< backup tile origin (kSaveC0)
  int64_t ldc0 = 0;
  double* c0sum = nullptr;  ///< per-column arrays at the tile's first column
  double* c0abs = nullptr;
  double* obs = nullptr;
  /// ukr_ref only: the checksum row v of the A block (one value per p) and the sliver's
  /// reference sums, ref[j] += alpha * sum_p v[p] Bp[p][j] (what colref computes).
  const T* v = nullptr;
  double* ref = nullptr;
  /// The packed B sliver the next tile of this thread will start (set for the last tile of a
  /// sliver), or null: the tile's k loop brings it into L2 as it goes, two cache lines a step.
  /// Without it the first tile of every sliver streamed its B from L3 at 1.2-2.5x a tile's
  /// time (Zen 5; docs/PERFORMANCE.md); the prefetches use load slots the FMA-bound loop leaves.
  const T* b_next = nullptr;
  /// ukr_fp only: the fingerprint of the packed B sliver as the tile read it.
  checksum::Fingerprint* fp = nullptr;
};

/** One ISA's GEMM kernels and blocking. Internal problems are row-major:
 *  C (M x N, row stride ldc) += A (M x K) B (K x N); packed A is MR-row
 *  micro-panels (p-major, MR values per p), packed B is NR-column panels
 *  (p-major, NR values per p), both zero padded. */
template <class T>
struct KernelSet {
  abft_isa isa;
  int mr, nr;      ///< register tile
  int mc, kc, nc;  ///< cache blocking (mc % mr == 0, nc % nr == 0)
  /// Full MR x NR tile: C = alpha*Ap*Bp (+ beta*C when kLoadC), plus the flags' side effects.
  void (*ukr)(int64_t kb, const T* a, const T* b, T* c, int64_t ldc, const Epi<T>& e);
  /// The same tile that also forms the sliver's column reference from the B vectors it loads
  /// anyway (e.v, e.ref), or nullptr where the registers do not allow it (the driver then
  /// calls colref after the sliver's tiles).
  void (*ukr_ref)(int64_t kb, const T* a, const T* b, T* c, int64_t ldc, const Epi<T>& e);
  /// The same tile that also fingerprints the B sliver from the vectors it loads (into *e.fp),
  /// or nullptr where the build cannot (the driver then fingerprints the sliver in a pass).
  void (*ukr_fp)(int64_t kb, const T* a, const T* b, T* c, int64_t ldc, const Epi<T>& e);
  /// Column reference of one packed NR-column sliver: ref[j] += alpha * sum_p v[p]*Bp[p][j], j < ncols.
  void (*colref)(int64_t kb, int64_t ncols, const T* v, const T* bp, double alpha, double* ref);
  /// Packing with checksum encoding (gemm_pack.hpp), compiled for this ISA.
  void (*pack_a)(const Problem<T>& P, int mr, int64_t i0, int64_t mb, int64_t pc, int64_t kb, T* ap,
                 T* v, double* vsum, double* va);
  void (*pack_b)(const Problem<T>& P, int nr, int64_t jc, int64_t nb, int64_t pc, int64_t kb,
                 int64_t q0, int64_t q1, T* bp, T* babs, int64_t ldbabs, checksum::Fingerprint* fp);
  /// Column magnitudes X, U of a row block from the |B| chunk sums (gemm_pack.hpp).
  void (*magnitudes)(const T* babs, int64_t ld, int64_t nchunk, const double* m, double f,
                     double wu, double asum, int64_t nb, double* X, double* U);
  /// Exact fingerprint of a packed buffer (abft/checksum/fingerprint.hpp), this ISA's build.
  checksum::Fingerprint (*fingerprint)(const T* buf, int64_t n);
  const char* desc;
  /// The small-M path (gemm_small.cpp, gemm_small_kernels.hpp): chunks of `lanes` columns of
  /// B with contiguous rows, or columns with contiguous k, against R rows of an A copy.
  int lanes = 1;
  void (*small_n)(int R, int64_t K, int nchunks, const T* ap, const T* b, int64_t rsb, T* out) = nullptr;
  void (*small_t)(int R, int64_t K, int ncols, const T* arows, int64_t lda, const T* b, int64_t ldb,
                  T* out) = nullptr;
  /// Tiles and colref on a complex expansion's half slivers (ComplexB::half: the packed sliver
  /// holds the expansion's even rows; the tile forms each odd row from its even row in
  /// registers, with the same arithmetic as on the full expansion), or nullptr where the
  /// registers do not allow it (the driver then packs the full expansion).
  void (*ukr_half)(int64_t kb, const T* a, const T* b, T* c, int64_t ldc, const Epi<T>& e) = nullptr;
  void (*ukr_half_ref)(int64_t kb, const T* a, const T* b, T* c, int64_t ldc, const Epi<T>& e) = nullptr;
  void (*ukr_half_fp)(int64_t kb, const T* a, const T* b, T* c, int64_t ldc, const Epi<T>& e) = nullptr;
  void (*colref_half)(int64_t kb, int64_t ncols, const T* v, const T* bp, double alpha, double* ref) = nullptr;
};

/** Rows of C up to which the small-M path runs (decoding a batch of a few sequences). */
constexpr int64_t kSmallMaxRows = 8;

const KernelSet<float>* kernels_ref_f32();
const KernelSet<double>* kernels_ref_f64();
const KernelSet<float>* kernels_avx2_f32();
const KernelSet<double>* kernels_avx2_f64();
const KernelSet<float>* kernels_avx512_f32();
const KernelSet<double>* kernels_avx512_f64();

/** The kernel set for the active ISA (abft_cpu_isa()). */
template <class T>
const KernelSet<T>& active_kernels();

}  // namespace abft::cpu::gemm
