/** \file fft_callback_sums.hpp
 *  \brief The GPU FFT's checksums formed inside cuFFT's own kernels (docs/ABFT.md §12.4): what a
 *  load or store callback needs to turn the element offset cuFFT hands it into the element's
 *  signal, multi-index and bucket, and the depth of the sums it feeds, for the bound.
 *
 *  A callback sees one element and its offset from the start of the side's array, nothing
 *  else: the signal b and the multi-index come from dividing the offset by the layout's
 *  distance, stride and embeddings (FftSideDecoder, with divisions by plan-time constants as a
 *  multiply-high and shifts: FastDivU64). Its terms (fft_in_term_of / fft_out_term_of, the same
 *  functions as the passes over memory) go into one of the signal's buckets of 2^shift
 *  consecutive elements (fft_callback_bucket_shift), lanes of a warp with the same bucket combined first; the verification
 *  kernel then adds a signal's buckets. Bucketing keeps the addition chain of every sum short
 *  whatever order cuFFT visits the elements in (fft_callback_sum_depth).
 *
 *  Host and device (ABFT_HD): tests/checksum/fft_callback_sums_test.cpp runs the decoding and a
 *  replay of the bucketed sums (elements visited in a shuffled order, as cuFFT may visit them)
 *  against the CPU FFT on the host.
 */
#pragma once
#include <cstdint>

#include "abft/checksum/fft_library_check.hpp"
#include "abft/checksum/host_device.hpp"

namespace abft::checksum {

/** High 64 bits of a 64 x 64-bit product. */
ABFT_HD uint64_t mul_hi_u64(uint64_t a, uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return uint64_t((unsigned __int128)a * b >> 64);
#endif
}

/** x / d for every 64-bit x, by a divisor fixed at plan time: Granlund and Montgomery's
 *  round-up method (one multiply-high, a subtraction, an add and two shifts; no 64-bit
 *  division, which costs a GPU thread dozens of instructions). */
struct FastDivU64 {
  uint64_t d = 1, m = 1;
  int s1 = 0, s2 = 0;
  /** d >= 1. l = ceil(log2 d), m = floor(2^64 (2^l - d) / d) + 1, s1 = min(l, 1), s2 = max(l - 1, 0). */
  static FastDivU64 make(uint64_t d) {
    FastDivU64 f;
    f.d = d < 1 ? 1 : d;
    int l = 0;
    while (l < 64 && (uint64_t(1) << l) < f.d) ++l;
    const unsigned __int128 two_l = (unsigned __int128)1 << l;
    f.m = uint64_t((((two_l - f.d) << 64) / f.d) + 1);
    f.s1 = l < 1 ? l : 1;
    f.s2 = l > 1 ? l - 1 : 0;
    return f;
  }
  ABFT_HD uint64_t div(uint64_t x) const {
    const uint64_t t = mul_hi_u64(m, x);
    return (t + ((x - t) >> s1)) >> s2;
  }
};

/** One side of a batch of signals as a callback sees it: cuFFT's advanced layout (element idx
 *  of signal b at b dist + ((idx0 embed1 + idx1) embed2 + idx2) stride, in elements of the
 *  side), the side's sizes, and its buckets. The plan's layout check (fft_plan_args) admits
 *  two arrangements, which decode differently:
 *   - signal after signal (dist at least one signal's span): b = off / dist, then the rest
 *     divided by the stride;
 *   - interleaved (the batch inside one stride, batch dist <= stride): b = (off mod stride) /
 *     dist, the position off / stride.
 *  A batch of one is the first with b = 0. */
struct FftSideDecoder {
  int rank = 1;
  bool interleaved = false;
  bool single = true;            ///< one signal: b = 0
  int64_t dims[3] = {1, 1, 1};   ///< the side's sizes (the flat index e runs over them)
  int64_t count = 1;             ///< elements a signal on this side
  int64_t batch = 1;             ///< signals
  int shift = 8;                 ///< a bucket holds 2^shift consecutive elements (e)
  int64_t buckets = 1;           ///< ceil(count / 2^shift)
  FastDivU64 dist, stride, emb1, emb2;

  static FftSideDecoder make(int rank, const int64_t* dims, const int64_t* embed, int64_t stride, int64_t dist,
                             int64_t batch, bool interleaved, int shift);

  /** Signal, multi-index and flat index of the element at offset off (its bucket key:
   *  b buckets + (e >> shift)). R > 0: the rank known at compile time. */
  template <int R = 0>
  ABFT_HD void decode(uint64_t off, int64_t& b, int64_t* idx, int64_t& e) const {
    uint64_t q;
    if (single) {
      b = 0;
      q = stride.div(off);
    } else if (!interleaved) {
      const uint64_t bb = dist.div(off);
      b = int64_t(bb);
      q = stride.div(off - bb * dist.d);
    } else {
      const uint64_t at = stride.div(off);
      b = int64_t(dist.div(off - at * stride.d));
      q = at;
    }
    const int r = R > 0 ? R : rank;
    if (r == 1) {
      idx[0] = int64_t(q);
      e = idx[0];
      return;
    }
    if (r == 2) {
      const uint64_t h = emb1.div(q);
      idx[0] = int64_t(h), idx[1] = int64_t(q - h * emb1.d);
      e = idx[0] * dims[1] + idx[1];
      return;
    }
    const uint64_t h = emb2.div(q), g = emb1.div(h);
    idx[2] = int64_t(q - h * emb2.d), idx[1] = int64_t(h - g * emb1.d), idx[0] = int64_t(g);
    e = (idx[0] * dims[1] + idx[1]) * dims[2] + idx[2];
  }

  /** Whether a decoded (b, idx) is an element of the batch: an offset in the padding between
   *  rows (embed > dims), past a signal's last element or past the last signal decodes to an
   *  index out of its range. cuFFT calls the callbacks once for each element of the transform
   *  and for nothing else; this keeps a call it were to make elsewhere (an in-place R2C's two
   *  padding reals a row, say) out of another signal's sums and out of the repair copy, at
   *  the cost of a few compares an element. */
  template <int R = 0>
  ABFT_HD bool holds(int64_t b, const int64_t* idx) const {
    const int r = R > 0 ? R : rank;
    bool in = uint64_t(b) < uint64_t(batch);
    for (int d = 0; d < 3; ++d)
      if (d < r) in = in && uint64_t(idx[d]) < uint64_t(dims[d]);
    return in;
  }
};

/** log2 of the elements a bucket of a side with `count` elements a signal: every sum a
 *  callback feeds adds at most this many values into one address, whatever order cuFFT's
 *  threads run in. A trade between the bound's depth (fft_callback_sum_depth), the buckets'
 *  traffic (five doubles a bucket, added by atomics, then read and cleared) and the
 *  verification's work (a warp a signal over its buckets):
 *   - 256 elements for float, where the sums' rounding is far below the transform's;
 *   - 64 for double, where it is not (a bucket of 256 would loosen the bound of short double
 *     transforms several times, of 64 by under 2x);
 *   - at most 512 buckets a signal: longer signals get larger buckets (2^22 elements: 16384),
 *     whose chain stays near the one the passes' re-check already charges (count / 256). */
inline int fft_callback_bucket_shift(bool dbl, int64_t count) {
  int lg = 0;
  while ((int64_t(1) << (lg + 1)) <= count) ++lg;  // floor(log2 count)
  const int base = dbl ? 6 : 8;
  return lg - 8 > base ? lg - 8 : base;
}

inline FftSideDecoder FftSideDecoder::make(int rank, const int64_t* dims, const int64_t* embed, int64_t stride,
                                           int64_t dist, int64_t batch, bool interleaved, int shift) {
  FftSideDecoder s;
  s.rank = rank;
  s.shift = shift;
  s.count = 1;
  for (int d = 0; d < 3; ++d) {
    s.dims[d] = d < rank ? dims[d] : 1;
    s.count *= s.dims[d];
  }
  s.buckets = (s.count + (int64_t(1) << shift) - 1) >> shift;
  s.batch = batch < 1 ? 1 : batch;
  s.single = batch <= 1;
  s.interleaved = !s.single && interleaved;
  s.dist = FastDivU64::make(uint64_t(dist < 1 ? 1 : dist));
  s.stride = FastDivU64::make(uint64_t(stride < 1 ? 1 : stride));
  s.emb1 = FastDivU64::make(uint64_t(rank > 1 ? embed[1] : 1));
  s.emb2 = FastDivU64::make(uint64_t(rank > 2 ? embed[2] : 1));
  return s;
}

/** The longest chain of double additions in a callback sum of one side of `count` elements
 *  in buckets of 2^shift: a warp's lanes of one bucket (a contiguous run) combined in 5
 *  levels, at most min(count, 2^shift) atomic additions into the bucket (one per element when
 *  no run forms), then the verification kernel's warp per signal: ceil(buckets /
 *  32) per lane and 5 levels. */
inline double fft_callback_sum_depth(int64_t count, int shift) {
  const int64_t size = int64_t(1) << shift, buckets = (count + size - 1) / size;
  const int64_t chain = count < size ? count : size;
  return double(5 + chain + (buckets + 31) / 32 + 5);
}

}  // namespace abft::checksum
