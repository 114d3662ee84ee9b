/** \file fft_line.hpp
 *  \brief A checked unit: one 1D transform (complex, real-to-complex or
 *  complex-to-real) on contiguous data, with its checksum weights and its
 *  round-off bound (include/abft/checksum/fft_bounds.hpp, docs/ABFT.md §9).
 */
#pragma once
#include <atomic>
#include <complex>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "abft/checksum/fft_bounds.hpp"
#include "abft/fft.h"
#include "cpu/fft/fft_kernel1d.hpp"

namespace abft::cpu::fft {

template <class T>
class LinePlan {
 public:
  /** kind: C2C (sign +-1), R2C (sign -1) or C2R (sign +1); n the logical length.
   *  allow_fourstep: a complex line above the cache threshold becomes a
   *  four-step line checked per sub-transform (false for those sub-transforms
   *  themselves: they are whole units whatever their length). */
  LinePlan(abft_fft_kind kind, int64_t n, int sign, const FftKernels<T>& K, int threads,
           bool allow_fourstep = true);

  abft_fft_kind kind() const { return kind_; }
  int64_t n() const { return n_; }
  int sign() const { return sign_; }
  /** Length of the complex transform the line runs (n, or n/2 for even real lines). */
  int64_t kernel_n() const { return fourstep_ ? n_ : sub_ ? sub_->n() : kernel_->n(); }
  /** Elements of the input / output line (complex elements for complex sides). */
  int64_t in_elems() const { return kind_ == ABFT_FFT_C2R ? h1_ : n_; }
  int64_t out_elems() const { return kind_ == ABFT_FFT_R2C ? h1_ : n_; }
  /** Scalars of the input / output line. */
  int64_t in_scalars() const { return kind_ == ABFT_FFT_R2C ? n_ : 2 * in_elems(); }
  int64_t out_scalars() const { return kind_ == ABFT_FFT_C2R ? n_ : 2 * out_elems(); }
  int64_t work_scalars() const;
  int stages() const;
  /** Threads a large (four-step) line may use inside itself. */
  void set_threads(int nt);
  /** Checked units in one execution of this line (1, or n1 + n2 for a
   *  four-step line checked per sub-transform). */
  int64_t units() const { return fourstep_ ? n1_ + n2_ : sub_ ? 1 + sub_->units() : 1; }

  /** A complex line above the cache threshold: n = n1 n2, checked per
   *  column and row sub-transform (run_fourstep), not as a whole. */
  bool is_fourstep() const { return fourstep_; }
  /** Four-step line: column transforms (each a checked unit of length n1),
   *  the twiddles (rows verified by exact fingerprints as they are read),
   *  row transforms (checked units of length n2). Policy OFF skips checks.
   *  Counts go to rep, the worst outcome to st; hook (may be null) injects. */
  void run_fourstep(const T* in, T* out, T* work, abft_policy pol, StageHook<T>* hook,
                    abft_report& rep, abft_status& st, std::mutex& repair_mu) const;
  /** Complex lines with a Stockham kernel also run nb signals interleaved
   *  element by element (the four-step column pass): transform and checks. */
  bool batchable() const { return kind_ == ABFT_FFT_C2C && kernel_ && kernel_->has_batch(); }
  void compute_batch(const T* in, T* out, T* work, int64_t nb, StageHook<T>* hook) const {
    kernel_->run_batch(in, out, work, nb, hook);
  }
  int64_t batch_work_scalars(int64_t nb) const { return kernel_->batch_work_scalars(nb); }
  void check_out_batch(const T* y, int64_t nb, std::complex<double>* out) const;
  /** The batched input side fused with the gather (rows src_row apart into dst); x2 sums
   *  a sample of the rows (judge_sampled). */
  void gather_check_in_batch(const T* src, int64_t src_row, T* dst, int64_t nb, std::complex<double>* in,
                             double* x2) const;
  /** Judges one check: counts it (or a skip) in rep; true when it failed. */
  bool judge(std::complex<double> in, double x2, std::complex<double> out, abft_report& rep) const;
  /** judge() given only x2 <= ||x||_2^2 (a sampled sum of squares, as the folded input sides
   *  form it): a residual within the bound for that norm is within the exact bound, and the
   *  check passes; otherwise x2 becomes exact_x2() (||x||_2^2) and judge() decides. The
   *  verdict is judge()'s on the exact norm either way; only max_ratio may be an upper
   *  estimate (docs/ABFT.md §9.2). */
  template <class F>
  bool judge_sampled(std::complex<double> in, double& x2, std::complex<double> out, abft_report& rep,
                     F&& exact_x2) const {
    const double X = std::sqrt(x2);
    if (checkable_norm(X)) {
      const double bnd = bound(X), res = residual(in, out);
      if (res <= bnd) {
        ++rep.checks;
        if (bnd > 0) rep.max_ratio = std::max(rep.max_ratio, res / bnd);
        return false;
      }
    }
    x2 = exact_x2();
    return judge(in, x2, out, rep);
  }
  /** A check is made for input of 2-norm X: X finite (non-finite input is data) and no
   *  output that may overflow legitimately (docs/ABFT.md §9.2). */
  bool checkable_norm(double X) const {
    return std::isfinite(X) && growth() * X <= double(std::numeric_limits<T>::max()) * 0.25;
  }
  /** |out - in| without hypot (one call per unit, a visible share of a small transform): a
   *  difference whose square overflows is a fault either way (Inf > bound; NaN fails <=). */
  static double residual(std::complex<double> in, std::complex<double> out) {
    const double dr = out.real() - in.real(), di = out.imag() - in.imag();
    return std::sqrt(dr * dr + di * di);
  }

  /** One checked unit on contiguous data: check in, compute, check out,
   *  repair. Shared by the plan (whole lines) and the four-step sub-units. */
  void run_unit(const T* src, T* dst, T* work, abft_policy pol, StageHook<T>* hook,
                abft_report& rep, abft_status& st, std::mutex& repair_mu) const;

  /** out = transform(in); in is only read, out must not overlap it. A real
   *  line whose complex part is a four-step line checks and repairs that
   *  part's sub-transforms on the way when pol is not OFF (counts into
   *  *rep, worst outcome into *st). */
  void compute(const T* in, T* out, T* work, StageHook<T>* hook, abft_policy pol = ABFT_POLICY_OFF,
               abft_report* rep = nullptr, abft_status* st = nullptr, std::mutex* mu = nullptr) const;

  /** An even R2C line's transform with its check's sums folded in (no hook: the sums are
   *  of the values computed): the input side into the half-length kernel's first stage
   *  when it is a Stockham kernel that folds (*in_folded says whether it did; else a
   *  separate pass), the output side into the split step. *cin, *x2 and *cout are what
   *  check_in and check_out give, up to rounding within the bound (docs/ABFT.md §9.2). */
  void compute_r2c_checked(const T* in, T* out, T* work, abft_policy pol, abft_report& rep, abft_status& st,
                           std::mutex& mu, std::complex<double>* cin, double* x2, std::complex<double>* cout,
                           bool* in_folded = nullptr) const;
  bool r2c_foldable() const { return kind_ == ABFT_FFT_R2C && half_; }

  /** Input side of the check: sum_j v_j x_j, and ||x||_2^2 in *x2. */
  std::complex<double> check_in(const T* in, double* x2) const;
  /** Output side of the check: sum_k w_k y_k. */
  std::complex<double> check_out(const T* out) const;
  /** The bound for an input of 2-norm x_norm. */
  double bound(double x_norm) const { return bound_.bound(x_norm) + abs_; }
  /** ||y||_2 <= Y ||x||_2 (decides when the output could overflow legitimately). */
  double growth() const { return bound_.Y; }
  const checksum::FftUnitBound& bound_pieces() const { return bound_; }

  /** Refresh every table (twiddles, chirps, weights) whose fingerprint no
   *  longer matches: the first step of a repair. */
  void refresh_tables() const;
  /** ||fl(y) - y||_2 <= error_E() ||x||_2 for the transform inside the line
   *  (the whole four-step transform for four-step lines). */
  double error_E() const { return kern_E(); }
  int max_radix() const { return kern_max_radix(); }
  /** Only the tables the transform reads (injection targets). */
  void kernel_tables(std::vector<Table<T>*>& out);
  std::string describe() const;

 private:
  void init_fourstep(int64_t n1, int threads);
  /** Exact word sum of the four-step twiddle tables' row k1 (A and B). */
  uint64_t twiddle_row_sum(int64_t k1) const;
  /** Four-step column pass on columns [j0, j0 + nb), batched and checked. */
  void column_block(const T* in, T* z, T* bin, T* bout, T* kw, int64_t j0, int64_t nb, abft_policy pol,
                    StageHook<T>* hook, abft_report& rep, abft_status& st, std::mutex& repair_mu) const;
  // The complex transform inside the line: kernel_, or sub_ (a four-step line).
  void kern_run(const T* in, T* out, T* work, StageHook<T>* hook, abft_policy pol, abft_report* rep,
                abft_status* st, std::mutex* mu) const;
  double kern_E() const;
  int kern_max_radix() const;
  void build_weights_c2c();
  void build_weights_r2c();
  void build_weights_c2r();
  /** The R2C output check from S = sum_{k<h1} w_k y_k: the mirror at half weight. */
  std::complex<double> r2c_mirror(std::complex<double> S, const T* out) const;

  abft_fft_kind kind_;
  int64_t n_, h1_;  // h1 = n/2 + 1
  int sign_;
  bool half_;  // real line through a complex kernel of length n/2
  const FftKernels<T>& K_;
  std::unique_ptr<Kernel1d<T>> kernel_;
  Table<T> twist_;     // real lines of even length: exp(sign 2 pi i k / n), k < n/2
  // Weights. Complex lines: w_ holds the block table r_j (j < kWeightBlock) as
  // (re, re) then (im, im) pairs and Rb_ the block factors R_b (double), so
  // w_{bB+j} = R_b r_j; v_ holds (c_j, c_j) pairs, v_j = 1 + i c_j. Real
  // sides: real and imaginary parts of the weights as two blocks.
  Table<T> w_, v_;
  // The input weights' factor c_j = sign cot phi_j in the order the kernel's folded first
  // stage reads (Kernel1d::fold_in_order; empty when it does not fold): complex lines c_j
  // once per element j, even R2C lines the pair (c_2j, c_2j+1) per packed complex input
  // z_j = x_2j + i x_2j+1 (fft_line.cpp).
  Table<T> vfold_;
  std::complex<double> split_e1_, split_eh1_;  // SplitCheck's w_1 and w_{h-1} (even R2C lines)
  Table<double> Rb_;
  checksum::FftUnitBound bound_;
  double abs_ = 0;

  // Four-step mode (kernel_ is null): sub-unit lines, the twiddles
  // w_n^{j2 k1} by rows k1 (two small tables), and each row's exact word sum.
  bool fourstep_ = false;
  int64_t n1_ = 0, n2_ = 0;
  std::unique_ptr<LinePlan<T>> col_, row_;
  double E_fs_ = 0;  // error of the whole four-step transform (for enclosing real lines)
  // Real lines whose complex part is above the four-step threshold.
  std::unique_ptr<LinePlan<T>> sub_;
  // w_n^{k1 j2} = A_{k1}[j2 mod C] B_{k1}[j2 / C] (C = kTwiddleChunk, cmul_tw2): per row k1
  // the chunk table A (4C scalars, split layout) and the chunk factors B (nB complex).
  mutable Table<T> tw4a_, tw4b_;
  int64_t nB_ = 0;
  std::vector<uint64_t> row_sum_;  // exact word sum of row k1 of A and B together
  std::atomic<int> threads_{1};
};

}  // namespace abft::cpu::fft
