/** \file gemm_pack.hpp
 *  \brief Packing of A blocks and B panels into micro-panel order, encoding the checksum
 *  vectors on the way (GUIDE §3 rule 6: checksums where the data already moves).
 */
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "abft/checksum/fingerprint.hpp"
#include "abft/checksum/host_device.hpp"
#include "cpu/gemm/gemm_problem.hpp"

namespace abft::cpu::gemm {
inline namespace ABFT_TARGET_NS {

/** Bound chunk: the column bound uses, per chunk of kChunk k-indices, the
 *  largest |A| column sum times the |B| column sums of the chunk (an upper
 *  bound of (e^T|A|)|B| at O(n k / kChunk) cost per block instead of O(n k)). */
constexpr int64_t kChunk = 32;

/** |x| through the compiler builtin: no out-of-line std:: function that an
 *  ISA translation unit could emit and the linker merge (see ABFT_TARGET_NS). */
inline float abs_value(float x) { return __builtin_fabsf(x); }
inline double abs_value(double x) { return __builtin_fabs(x); }

/** Pack rows [i0, i0+mb) x k-range [pc, pc+kb) of A_int into MR-row panels.
 *  With sums != nullptr also forms, per p, v[p] = fl_T(sum_i a_ip) (summed in
 *  double) and va[p] = sum_i |a_ip| (the checksum encoding of the block).
 *  S is the ISA's SIMD traits: a full panel whose rows are contiguous in k (A_int row-major,
 *  the NN case of either layout) is packed S::W values of k at a time by S::pack_a_group,
 *  a register transpose with the sums on the loaded rows; the rest takes the loops below. */
template <class T, class S>
void pack_a(const Problem<T>& P, int mr, int64_t i0, int64_t mb, int64_t pc, int64_t kb, T* ap,
            T* v, double* vsum, double* va) {
  const bool sums = v != nullptr;
  if (sums)
    for (int64_t p = 0; p < kb; ++p) vsum[p] = va[p] = 0.0;
  for (int64_t r0 = 0; r0 < mb; r0 += mr) {
    T* dst = ap + r0 * kb;  // panel r0/mr holds mr*kb values
    const int64_t rows = (mb - r0 < mr ? mb - r0 : int64_t(mr));
    if (P.csa == 1) {
      const T* src = P.A + (i0 + r0) * P.rsa + pc;
      int64_t p0 = 0;
      if constexpr (S::kPackRows > 0)
        if (mr == S::kPackRows && rows == mr)
          for (; p0 + S::W <= kb; p0 += S::W)
            S::pack_a_group(src + p0, P.rsa, dst + p0 * mr, sums ? vsum + p0 : nullptr,
                            sums ? va + p0 : nullptr);
      for (int64_t r = 0; r < rows; ++r) {
        const T* s = src + r * P.rsa;
        for (int64_t p = p0; p < kb; ++p) dst[p * mr + r] = s[p];
        if (sums)
          for (int64_t p = p0; p < kb; ++p) {
            vsum[p] += static_cast<double>(s[p]);
            va[p] += abs_value(static_cast<double>(s[p]));
          }
      }
    } else {
      for (int64_t p = 0; p < kb; ++p) {
        const T* src = P.A + (i0 + r0) * P.rsa + (pc + p) * P.csa;
        double s = 0.0, sa = 0.0;
        for (int64_t r = 0; r < rows; ++r) {
          const T x = src[r * P.rsa];
          dst[p * mr + r] = x;
          s += static_cast<double>(x);
          sa += abs_value(static_cast<double>(x));
        }
        if (sums) {
          vsum[p] += s;
          va[p] += sa;
        }
      }
    }
    for (int64_t r = rows; r < mr; ++r)
      for (int64_t p = 0; p < kb; ++p) dst[p * mr + r] = T(0);
  }
  if (sums)
    for (int64_t p = 0; p < kb; ++p) v[p] = static_cast<T>(vsum[p]);
}

/** One NR-column panel of a complex expansion (ComplexB): each row of the panel is built
 *  from the row of Q it belongs to, (re, im) pairs for even rows and (-im, re) for odd ones;
 *  rows pc, pc + step, ... (step 2 from an even pc: the half sliver, ComplexB::half).
 *  Written out here rather than through ComplexB::at so that this ISA's copy stays in its
 *  own namespace (see ABFT_TARGET_NS); the values are the same bits (copies, negations). */
template <class T>
void pack_b_expanded(const ComplexB<T>& xb, int nr, int64_t jcol, int64_t cols, int64_t pc,
                     int64_t rows, int64_t step, T* dst) {
  const bool pairs = (jcol & 1) == 0 && (cols & 1) == 0;  // always, with an even nr
  const int64_t i0 = jcol >> 1, np = cols >> 1;
  for (int64_t p = 0; p < rows; ++p) {  // packed row p is the expansion's row pc + p step
    const int64_t pq = (pc + p * step) >> 1;
    const bool odd = ((pc + p * step) & 1) != 0;
    T* d = dst + p * nr;
    if (pairs) {
      // Q(pq, i0 + i) for i < np: contiguous complex numbers unless transposed.
      const T* z = xb.x + 2 * (xb.trans ? pq + i0 * xb.ldx : i0 + pq * xb.ldx);
      const int64_t step = xb.trans ? 2 * xb.ldx : 2;
      // Even rows (re, im), odd rows (-im, re); conjugation negates im. Negations only.
      if (!odd && !xb.conj) {
        for (int64_t i = 0; i < np; ++i) {
          d[2 * i] = z[i * step];
          d[2 * i + 1] = z[i * step + 1];
        }
      } else if (!odd) {
        for (int64_t i = 0; i < np; ++i) {
          d[2 * i] = z[i * step];
          d[2 * i + 1] = -z[i * step + 1];
        }
      } else if (!xb.conj) {
        for (int64_t i = 0; i < np; ++i) {
          d[2 * i] = -z[i * step + 1];
          d[2 * i + 1] = z[i * step];
        }
      } else {
        for (int64_t i = 0; i < np; ++i) {
          d[2 * i] = z[i * step + 1];
          d[2 * i + 1] = z[i * step];
        }
      }
    } else {
      for (int64_t j = 0; j < cols; ++j) {
        const int64_t jj = jcol + j;
        const T* z = xb.x + 2 * (xb.trans ? pq + (jj >> 1) * xb.ldx : (jj >> 1) + pq * xb.ldx);
        const T re = z[0], im = xb.conj ? -z[1] : z[1];
        d[j] = odd ? ((jj & 1) ? re : -im) : ((jj & 1) ? im : re);
      }
    }
    for (int64_t j = cols; j < nr; ++j) d[j] = T(0);
  }
}

/** Bytes of the vectors pack_b_full_panel copies with: a zmm where the build has AVX-512 (its
 *  fingerprint lanes then take the rows from the registers), a ymm otherwise. */
#if defined(ABFT_FINGERPRINT_AVX512)
constexpr int kPackVecBytes = 64;
#else
constexpr int kPackVecBytes = 32;
#endif

/** The vectors a full NR-column panel row is handled in by pack_b_rows: zmm only where a row
 *  is a whole number of register pairs (the AVX-512 kernels' 128 bytes), else 32 bytes. */
template <class T, int NR>
struct PanelRowVec {
  static constexpr int VB = NR * int(sizeof(T)) % (2 * kPackVecBytes) == 0 ? kPackVecBytes : 32;
  static_assert(NR * sizeof(T) % 32 == 0, "a row is whole fingerprint steps and vectors");
  static constexpr int L = int(VB / sizeof(T)), NV = NR / L;
  typedef T V __attribute__((vector_size(VB)));
  typedef std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t> U;
  typedef U VU __attribute__((vector_size(VB)));
};

/** A full NR-column panel in one pass: row p of the panel comes from row(p, V[NV]) (a copy
 *  of the source row, or the complex expansion's), is stored at dst (kCopy; without it the
 *  panel is already packed at dst and is only encoded), with babs the |B| chunk sums (kept in
 *  registers over a chunk's rows, then written once) and, with fp, the panel's fingerprint of
 *  the rows as written (each row is a whole number of eight-word steps, so the lanes see the
 *  buffer's words in its own order). In an AVX-512 build a row of two zmm goes to the lanes
 *  from the registers: reloading the stores just made waits on store forwarding, which took a
 *  quarter of the protected pass (perf annotate, Zen 5). Vectors of kPackVecBytes (GCC vector
 *  extensions: one register each where the ISA has them). */
template <class T, int NR, bool kCopy, class RowFn, int64_t kRows = kChunk, bool kPairs = false>
void pack_b_rows(RowFn row_of, int64_t kb, T* dst, T* babs, int64_t ldbabs,
                 checksum::Fingerprint* fp) {
  using RV = PanelRowVec<T, NR>;
  [[maybe_unused]] constexpr int VB = RV::VB;
  constexpr int L = RV::L, NV = RV::NV;
  using V = typename RV::V;
  using VU = typename RV::VU;
  using U = typename RV::U;
  const VU magnitude = VU{} + (~U(0) >> 1);  // clears the sign bit
  checksum::FingerprintLanes lanes;
  VU swap{};  // kPairs: the (re, im) pair-swap pattern
  for (int l = 0; l < L; ++l) swap[l] = U(l ^ 1);
  for (int64_t c0 = 0; c0 < kb; c0 += kRows) {
    const int64_t c1 = c0 + kRows < kb ? c0 + kRows : kb;
    V acc[NV];
    for (int v = 0; v < NV; ++v) acc[v] = V{};
    for (int64_t p = c0; p < c1; ++p) {
      T* d = dst + p * NR;
      V row[NV];
      row_of(p, row);
      for (int v = 0; v < NV; ++v) {
        if (kCopy) std::memcpy(d + v * L, &row[v], sizeof row[v]);
        if (babs) acc[v] += (V)((VU)row[v] & magnitude);
      }
#if defined(ABFT_FINGERPRINT_AVX512)
      if constexpr (VB == 64 && NV % 2 == 0) {
        if (fp)  // a zmm is a pair of steps
          for (int v = 0; v < NV; v += 2) lanes.step4((__m512i)row[v], (__m512i)row[v + 1]);
        continue;
      }
#endif
      if (fp) {  // a 32-byte vector is one step
        int v = 0;
        for (; v + 4 <= NV; v += 4) lanes.step4(d + v * L);
        for (; v + 2 <= NV; v += 2) lanes.step2(d + v * L);
        for (; v < NV; ++v) lanes.step(d + v * L);
      }
    }
    if (babs)
      for (int v = 0; v < NV; ++v) {
        // kPairs: a half sliver's row stands for two rows of the expansion, the second with
        // the pair swapped, so each column's chunk sum is its own plus its partner's.
        if constexpr (kPairs) acc[v] += __builtin_shuffle(acc[v], swap);
        std::memcpy(babs + (c0 / kRows) * ldbabs + v * L, &acc[v], sizeof acc[v]);
      }
  }
  if (fp) *fp = lanes.finish();
}

/** A full NR-column panel of row-contiguous B (the common case): rows copied from src0 with
 *  row stride rsb (kCopy), or encoded where they lie (src0 = dst, rsb = NR). */
template <class T, int NR, bool kCopy = true>
void pack_b_full_panel(const T* src0, int64_t rsb, int64_t kb, T* dst, T* babs, int64_t ldbabs,
                       checksum::Fingerprint* fp) {
  using RV = PanelRowVec<T, NR>;
  pack_b_rows<T, NR, kCopy>(
      [&](int64_t p, typename RV::V* row) {
        const T* src = src0 + p * rsb;
        for (int v = 0; v < RV::NV; ++v) std::memcpy(&row[v], src + v * RV::L, sizeof row[v]);
      },
      kb, dst, babs, ldbabs, fp);
}

/** Rows of Q (ComplexB, op(X) = X or conj(X): Q(p, i) = X(i, p), contiguous complex numbers)
 *  as the vectors of a full NR-column panel from column jcol: q_row(p) is Q's row p, (re, im)
 *  pairs (im negated under conjugation); odd_row turns it into the expansion's row 2p + 1, each
 *  pair swapped and the first negated, (-im, re). Negation is the sign flip of the scalar code
 *  (pack_b_expanded, ComplexB::at): the same bits. */
template <class T, int NR>
struct QRows {
  using RV = PanelRowVec<T, NR>;
  using V = typename RV::V;
  using VU = typename RV::VU;
  using U = typename RV::U;
  const ComplexB<T>& xb;
  int64_t i0;
  VU sign_re{}, sign_im{}, swap{};  // sign bits of the re / im lanes; the pair-swap pattern
  QRows(const ComplexB<T>& x, int64_t jcol) : xb(x), i0(jcol >> 1) {
    for (int l = 0; l < RV::L; ++l) {
      ((l & 1) ? sign_im : sign_re)[l] = U(1) << (8 * sizeof(U) - 1);
      swap[l] = U(l ^ 1);
    }
  }
  void q_row(int64_t p, V* row) const {
    const T* z = xb.x + 2 * (i0 + p * xb.ldx);
    for (int v = 0; v < RV::NV; ++v) {
      std::memcpy(&row[v], z + v * RV::L, sizeof row[v]);
      if (xb.conj) row[v] = (V)((VU)row[v] ^ sign_im);
    }
  }
  void odd_row(V* row) const {
    for (int v = 0; v < RV::NV; ++v) row[v] = (V)(__builtin_shuffle((VU)row[v], swap) ^ sign_re);
  }
};

/** A full NR-column panel of the complex expansion with contiguous Q rows (QRows) in the
 *  real panel's one pass: rows 2p are Q's row p as it lies, rows 2p + 1 the same registers
 *  through QRows::odd_row. */
template <class T, int NR>
void pack_b_expanded_panel(const ComplexB<T>& xb, int64_t jcol, int64_t pc, int64_t kb, T* dst,
                           T* babs, int64_t ldbabs, checksum::Fingerprint* fp) {
  const QRows<T, NR> q(xb, jcol);
  pack_b_rows<T, NR, true>(
      [&](int64_t p, typename PanelRowVec<T, NR>::V* row) {
        const int64_t pa = pc + p;
        q.q_row(pa >> 1, row);
        if (pa & 1) q.odd_row(row);
      },
      kb, dst, babs, ldbabs, fp);
}

/** The half sliver (ComplexB::half) of a full panel with contiguous Q rows: row t is the
 *  expansion's row pc + 2t, Q's row pc / 2 + t as it lies; the |B| chunk sums are the
 *  expansion's (kChunk rows: kChunk / 2 of these, each with its pair-swapped partner). pc and
 *  kb even. */
template <class T, int NR>
void pack_b_half_panel(const ComplexB<T>& xb, int64_t jcol, int64_t pc, int64_t kb, T* dst,
                       T* babs, int64_t ldbabs, checksum::Fingerprint* fp) {
  const QRows<T, NR> q(xb, jcol);
  auto row_of = [&](int64_t t, typename PanelRowVec<T, NR>::V* row) { q.q_row((pc >> 1) + t, row); };
  pack_b_rows<T, NR, true, decltype(row_of), kChunk / 2, true>(row_of, kb / 2, dst, babs, ldbabs, fp);
}

/** The column magnitudes of one row block and kc step (gemm_driver.cpp): for j < nb,
 *  X_j += f sum_c m_c ba_cj and U_j += wu sum_c ba_cj + asum (ba_cj = babs[c ld + j]),
 *  four vectors of doubles at a time (16 columns, 32 in an AVX-512 build) with their sums in
 *  registers over the chunks, one store each. */
template <class T>
void add_magnitudes(const T* babs, int64_t ld, int64_t nchunk, const double* m, double f,
                    double wu, double asum, int64_t nb, double* X, double* U) {
  constexpr int DL = kPackVecBytes / 8;  // doubles a vector
  typedef double VD __attribute__((vector_size(kPackVecBytes)));
  typedef T VT __attribute__((vector_size(DL * sizeof(T))));
  constexpr int NV = 4;
  int64_t j0 = 0;
  for (; j0 + DL * NV <= nb; j0 += DL * NV) {
    VD x[NV], b[NV];
    for (int v = 0; v < NV; ++v) x[v] = b[v] = VD{};
    for (int64_t c = 0; c < nchunk; ++c) {
      const T* ba = babs + c * ld + j0;
      const VD mc = VD{} + m[c];
      for (int v = 0; v < NV; ++v) {
        VT t;
        std::memcpy(&t, ba + DL * v, sizeof t);
        const VD y = __builtin_convertvector(t, VD);
        x[v] += mc * y;
        b[v] += y;
      }
    }
    for (int v = 0; v < NV; ++v) {
      VD xs, us;
      std::memcpy(&xs, X + j0 + DL * v, sizeof xs);
      std::memcpy(&us, U + j0 + DL * v, sizeof us);
      xs += f * x[v];
      us += wu * b[v] + asum;
      std::memcpy(X + j0 + DL * v, &xs, sizeof xs);
      std::memcpy(U + j0 + DL * v, &us, sizeof us);
    }
  }
  for (int64_t j = j0; j < nb; ++j) {
    double x = 0.0, b = 0.0;
    for (int64_t c = 0; c < nchunk; ++c) {
      const double y = static_cast<double>(babs[c * ld + j]);
      x += m[c] * y;
      b += y;
    }
    X[j] += f * x;
    U[j] += wu * b + asum;
  }
}

/** Pack NR-column panels q in [q0, q1) of B_int rows [pc, pc+kb), columns
 *  [jc, jc+nb). With babs != nullptr also writes sum_{p in chunk} |b_pj| into
 *  babs[chunk * ldbabs + j] (panel-relative j, the panel's columns only), summed in T: at most
 *  kChunk terms, so the true sum is below fl(sum) * (1 + 2 gamma(kChunk)), the factor the
 *  driver applies. With fp != nullptr also fp[q] = the fingerprint of packed panel q. NR is the
 *  kernel's panel width: full panels of row-contiguous B take the one-pass path above. */
template <class T, int NR>
void pack_b(const Problem<T>& P, int nr, int64_t jc, int64_t nb, int64_t pc, int64_t kb,
            int64_t q0, int64_t q1, T* bp, T* babs, int64_t ldbabs, checksum::Fingerprint* fp) {
  const bool half = P.xb.x && P.xb.half;  // a half sliver: kb / 2 rows (ComplexB::half)
  const int64_t rows = half ? kb / 2 : kb;
  for (int64_t q = q0; q < q1; ++q) {
    const int64_t j0 = q * nr;
    const int64_t cols = (nb - j0 < nr ? nb - j0 : int64_t(nr));
    T* dst = bp + q * rows * nr;
    if constexpr (NR * sizeof(T) % 32 == 0) {
      if (nr == NR && cols == NR && !P.xb.x && P.csb == 1) {
        pack_b_full_panel<T, NR>(P.B + pc * P.rsb + (jc + j0), P.rsb, kb, dst,
                                 babs ? babs + j0 : nullptr, ldbabs, fp ? fp + q : nullptr);
        continue;
      }
      if (nr == NR && cols == NR && P.xb.x && !P.xb.trans && ((jc + j0) & 1) == 0) {
        if (half)
          pack_b_half_panel<T, NR>(P.xb, jc + j0, pc, kb, dst, babs ? babs + j0 : nullptr,
                                   ldbabs, fp ? fp + q : nullptr);
        else
          pack_b_expanded_panel<T, NR>(P.xb, jc + j0, pc, kb, dst, babs ? babs + j0 : nullptr,
                                       ldbabs, fp ? fp + q : nullptr);
        continue;
      }
    }
    if (P.xb.x) {
      pack_b_expanded(P.xb, nr, jc + j0, cols, pc, rows, half ? 2 : 1, dst);
    } else if (P.rsb == 1 && P.csb != 1) {
      // Columns of B_int are contiguous: stream each column, scatter by nr.
      for (int64_t j = 0; j < cols; ++j) {
        const T* src = P.B + pc + (jc + j0 + j) * P.csb;
        for (int64_t p = 0; p < kb; ++p) dst[p * nr + j] = src[p];
      }
      for (int64_t p = 0; p < kb; ++p)
        for (int64_t j = cols; j < nr; ++j) dst[p * nr + j] = T(0);
    } else {
      for (int64_t p = 0; p < kb; ++p) {
        const T* src = P.B + (pc + p) * P.rsb + (jc + j0) * P.csb;
        T* d = dst + p * nr;
        if (P.csb == 1) {
          for (int64_t j = 0; j < cols; ++j) d[j] = src[j];
        } else {
          for (int64_t j = 0; j < cols; ++j) d[j] = src[j * P.csb];
        }
        for (int64_t j = cols; j < nr; ++j) d[j] = T(0);
      }
    }
    if constexpr (NR * sizeof(T) % 32 == 0) {
      if (nr == NR && cols == NR && (babs || fp) && !half) {  // e.g. a complex expansion: encode in one pass
        pack_b_full_panel<T, NR, false>(dst, NR, kb, dst, babs ? babs + j0 : nullptr, ldbabs,
                                        fp ? fp + q : nullptr);
        continue;
      }
    }
    if (babs) {
      const int64_t crows = half ? kChunk / 2 : kChunk;  // stored rows a chunk
      for (int64_t c0 = 0; c0 < rows; c0 += crows) {
        T* ba = babs + (c0 / crows) * ldbabs + j0;
        for (int64_t j = 0; j < cols; ++j) ba[j] = T(0);
        for (int64_t p = c0; p < c0 + crows && p < rows; ++p) {
          const T* d = dst + p * nr;
          for (int64_t j = 0; j < cols; ++j) ba[j] += abs_value(d[j]);
        }
        if (half)  // each column's partner: the same sums, as pack_b_half_panel forms them
          for (int64_t j = 0; j + 1 < cols; j += 2) {
            const T s = ba[j] + ba[j + 1];
            ba[j] = ba[j + 1] = s;
          }
      }
    }
    if (fp) fp[q] = checksum::fingerprint(dst, rows * nr);
  }
}

}  // namespace ABFT_TARGET_NS
}  // namespace abft::cpu::gemm
