/** \file fft_kernel1d.hpp
 *  \brief 1D complex transforms without checks: mixed-radix Stockham,
 *  Bluestein for lengths with a large prime factor, and the four-step
 *  decomposition for lengths beyond the caches. The checked units (fft_line)
 *  are built on these.
 */
#pragma once
#include <atomic>
#include <complex>
#include <cstdint>
#include <new>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "abft/checksum/fingerprint.hpp"
#include "cpu/fft/fft_kernels.hpp"

namespace abft::cpu::fft {

/** Called after stage `stage` of a unit wrote `n` complex values to buf, where
 *  buf[i * bstride] is element (offset + i * stride) of that stage's full
 *  output. The injection hook lives behind this; null when nothing is injected. */
template <class T>
struct StageHook {
  virtual ~StageHook() = default;
  virtual void after_stage(int stage, T* buf, int64_t n, int64_t offset, int64_t stride,
                           int64_t bstride) = 0;
  /** The unit's output values before they are verified (ABFT_SITE_OUTPUT):
   *  buf[i] is output element (offset + i * stride), complex, or with
   *  real_scalars buf holds n real scalars of a real output. */
  virtual void at_output(T* buf, int64_t n, int64_t offset, int64_t stride, bool real_scalars) = 0;
};

/** Allocator of 64-byte aligned storage: the tables are read with 512-bit loads, which
 *  split across two cache lines when the rows start 16 bytes into one. */
template <class T>
struct CacheLineAllocator {
  using value_type = T;
  CacheLineAllocator() = default;
  template <class U>
  CacheLineAllocator(const CacheLineAllocator<U>&) noexcept {}
  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(64))); }
  void deallocate(T* p, size_t) noexcept { ::operator delete(p, std::align_val_t(64)); }
  template <class U>
  bool operator==(const CacheLineAllocator<U>&) const noexcept { return true; }
  template <class U>
  bool operator!=(const CacheLineAllocator<U>&) const noexcept { return false; }
};

/** A precomputed table (twiddles, chirps, weights) with an exact fingerprint
 *  taken when it was built, so a corrupted table can be found and rebuilt on
 *  the repair path (checksum/fingerprint.hpp; no threshold involved). */
template <class T>
struct Table {
  std::vector<T, CacheLineAllocator<T>> data;
  checksum::Fingerprint fp;
  std::function<void(T*)> build;  ///< writes the pristine contents
  void make(size_t scalars, std::function<void(T*)> b) {
    build = std::move(b);
    data.assign(scalars, T(0));
    build(data.data());
    fp = checksum::fingerprint(data.data(), int64_t(data.size()));
  }
  /** True when the table was found corrupted and rebuilt. */
  bool refresh() {
    if (data.empty() || checksum::fingerprint(data.data(), int64_t(data.size())) == fp) return false;
    build(data.data());
    return true;
  }
};

/** A complex line's check weights handed to a kernel that can fold the check's sums into
 *  its first and last stages (GUIDE §3 rule 6), and what it folded. */
template <class T>
struct FoldedCheck {
  /** Input side: the factors c_j of v_j = 1 + i sign c_j, one per element, in the kernel's
   *  fold_in_order (null: the input side is the caller's pass); with `pairs`, a (re, im)
   *  pair per element (an even R2C line's (c_2j, c_2j+1)). */
  const T* cw = nullptr;
  bool pairs = false;
  const T* rr = nullptr;    ///< output side: the block table r (re pairs, then im pairs)
  const T* ri = nullptr;
  const double* R = nullptr;  ///< the block factors R_b
  bool in_done = false, out_done = false;
  std::complex<double> sum, csum, out;
  double x2 = 0;
};

template <class T>
class Kernel1d {
 public:
  Kernel1d(int64_t n, int sign) : n_(n), sign_(sign) {}
  virtual ~Kernel1d() = default;
  int64_t n() const { return n_; }
  int sign() const { return sign_; }
  /** out = DFT(in), contiguous, n complex each. `in` is only read (it may be
   *  kept as the recomputation source); out must not overlap in. work holds
   *  work_scalars() scalars. */
  virtual void run(const T* in, T* out, T* work, StageHook<T>* hook) const = 0;
  /** run() without a hook, folding what it can of the check into the stages; the
   *  sides it leaves (in_done / out_done false) are the caller's separate passes. */
  virtual void run_folded(const T* in, T* out, T* work, FoldedCheck<T>& fc) const {
    run(in, out, work, nullptr);
    fc.in_done = fc.out_done = false;
  }
  /** Whether run_folded folds the input side (given FoldedCheck::cw), and the order of
   *  that table's entries. */
  virtual bool fold_in_order(FoldOrder*) const { return false; }
  /** nb signals interleaved element by element (element j of signal b at
   *  in[j nb + b]), out likewise; work holds batch_work_scalars(nb). The hook
   *  sees each stage's whole interleaved buffer (n nb values, stride 1).
   *  Returns false (and does nothing) when this kernel has no batched form. */
  virtual bool run_batch(const T*, T*, T*, int64_t, StageHook<T>*) const { return false; }
  virtual bool has_batch() const { return false; }
  virtual int64_t batch_work_scalars(int64_t nb) const { return 2 * n_ * nb; }
  virtual int64_t work_scalars() const = 0;
  virtual int stages() const = 0;
  /** ||fl(y) - y||_2 <= E ||x||_2 for this kernel in precision T. */
  virtual double error_E() const = 0;
  virtual void tables(std::vector<Table<T>*>& out) = 0;
  virtual std::string describe() const = 0;
  virtual int max_radix() const = 0;
  /** Threads for the kernel's own parallel passes (four-step); default none. */
  virtual void set_threads(int) {}

 protected:
  int64_t n_;
  int sign_;
};

/** Kernel for length n and sign; threads > 1 lets a four-step kernel split its
 *  passes over OpenMP threads. */
template <class T>
std::unique_ptr<Kernel1d<T>> make_kernel(int64_t n, int sign, const FftKernels<T>& k, int threads);

/** A four-step kernel for n (above the threshold, fourstep_split_for(n) > 0):
 *  the four-step line of fft_line_fourstep.cpp run without its checks, for
 *  transforms inside other units (Bluestein's inner transforms). */
template <class T>
std::unique_ptr<Kernel1d<T>> make_fourstep_kernel(int64_t n, int sign, const FftKernels<T>& K, int threads);

/** Length above which make_kernel uses the four-step decomposition, for a plan that
 *  runs on `threads` threads. With several threads the four-step's column and row
 *  passes share out well from 2^15 (float) / 2^14 (double) on; one thread gains nothing
 *  from that, and the single Stockham pass is faster up to 2^19 / 2^18 (measured:
 *  docs/PERFORMANCE.md, "Drop-in FFTW3"). */
template <class T>
int64_t fourstep_threshold(int threads);

/** The four-step split n = n1 n2 (n1 nearest sqrt(n), both >= 16) make_kernel
 *  would use for n on `threads` threads, or 0 when n is not split. */
template <class T>
int64_t fourstep_split_for(int64_t n, int threads);

/** One thread's scratch buffer `slot` (0..7) of at least `scalars` elements, 64-byte aligned:
 *  0..1 the unchecked kernels, 2..3 four-step lines, 5..7 the plan's lines. */
template <class T>
T* fft_tls_buffer(size_t scalars, int slot);

}  // namespace abft::cpu::fft
