/** \file gemm_pack.hpp
 *  \brief Packing of A blocks and B panels into micro-panel order, encoding the checksum
 *  vectors on the way (GUIDE §3 rule 6: checksums where the data already moves).
 */
#pragma once
#include <cstdint>

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
 *  double) and va[p] = sum_i |a_ip| (the checksum encoding of the block). */
template <class T>
void pack_a(const Problem<T>& P, int mr, int64_t i0, int64_t mb, int64_t pc, int64_t kb, T* ap,
            T* v, double* vsum, double* va) {
  const bool sums = v != nullptr;
  if (sums)
    for (int64_t p = 0; p < kb; ++p) vsum[p] = va[p] = 0.0;
  for (int64_t r0 = 0; r0 < mb; r0 += mr) {
    T* dst = ap + r0 * kb;  // panel r0/mr holds mr*kb values
    const int64_t rows = (mb - r0 < mr ? mb - r0 : int64_t(mr));
    if (P.csa == 1) {
      for (int64_t r = 0; r < rows; ++r) {
        const T* src = P.A + (i0 + r0 + r) * P.rsa + pc;
        for (int64_t p = 0; p < kb; ++p) dst[p * mr + r] = src[p];
        if (sums)
          for (int64_t p = 0; p < kb; ++p) {
            vsum[p] += static_cast<double>(src[p]);
            va[p] += abs_value(static_cast<double>(src[p]));
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

/** Pack NR-column panels q in [q0, q1) of B_int rows [pc, pc+kb), columns
 *  [jc, jc+nb). With babs != nullptr also adds sum_{p in chunk} |b_pj| into
 *  babs[chunk * ldbabs + j] (panel-relative j), summed in T: at most kChunk
 *  terms, so the true sum is below fl(sum) * (1 + 2 gamma(kChunk)), the
 *  factor the driver applies. */
/** One NR-column panel of a complex expansion (ComplexB): each row of the panel is built
 *  from the row of Q it belongs to, (re, im) pairs for even rows and (-im, re) for odd ones.
 *  Written out here rather than through ComplexB::at so that this ISA's copy stays in its
 *  own namespace (see ABFT_TARGET_NS); the values are the same bits (copies, negations). */
template <class T>
void pack_b_expanded(const ComplexB<T>& xb, int nr, int64_t jcol, int64_t cols, int64_t pc,
                     int64_t kb, T* dst) {
  const bool pairs = (jcol & 1) == 0 && (cols & 1) == 0;  // always, with an even nr
  const int64_t i0 = jcol >> 1, np = cols >> 1;
  for (int64_t p = 0; p < kb; ++p) {
    const int64_t pq = (pc + p) >> 1;
    const bool odd = ((pc + p) & 1) != 0;
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

template <class T>
void pack_b(const Problem<T>& P, int nr, int64_t jc, int64_t nb, int64_t pc, int64_t kb,
            int64_t q0, int64_t q1, T* bp, T* babs, int64_t ldbabs) {
  for (int64_t q = q0; q < q1; ++q) {
    const int64_t j0 = q * nr;
    const int64_t cols = (nb - j0 < nr ? nb - j0 : int64_t(nr));
    T* dst = bp + q * kb * nr;
    bool babs_done = false;
    if (P.xb.x) {
      pack_b_expanded(P.xb, nr, jc + j0, cols, pc, kb, dst);
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
        if (P.csb == 1 && babs) {  // the common case: copy and encode in one pass
          T* ba = babs + (p / kChunk) * ldbabs + j0;
          for (int64_t j = 0; j < cols; ++j) {
            d[j] = src[j];
            ba[j] += abs_value(src[j]);
          }
        } else if (P.csb == 1) {
          for (int64_t j = 0; j < cols; ++j) d[j] = src[j];
        } else {
          for (int64_t j = 0; j < cols; ++j) d[j] = src[j * P.csb];
        }
        for (int64_t j = cols; j < nr; ++j) d[j] = T(0);
      }
      if (P.csb == 1) babs_done = true;
    }
    if (babs && !babs_done)
      for (int64_t p = 0; p < kb; ++p) {
        T* ba = babs + (p / kChunk) * ldbabs + j0;
        const T* d = dst + p * nr;
        for (int64_t j = 0; j < cols; ++j) ba[j] += abs_value(d[j]);
      }
  }
}

}  // namespace ABFT_TARGET_NS
}  // namespace abft::cpu::gemm
