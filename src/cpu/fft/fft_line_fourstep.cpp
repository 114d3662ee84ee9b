/** \file fft_line_fourstep.cpp
 *  \brief Checked units: the shared check/repair sequence of one unit, and the
 *  four-step line checked per sub-transform.
 *
 *  Four-step (n = n1 n2, x[j1 n2 + j2], y[k1 + n1 k2]): every column transform
 *  (length n1, gathered in blocks into a contiguous buffer) and every row
 *  transform (length n2, input z[k1][.] times the twiddles w_n^{j2 k1}) is a
 *  unit with its own weights and bound (docs/ABFT.md §9.3): a fault is located
 *  to one sub-transform and only that one is recomputed, from the gathered
 *  copy that is kept until it verifies. The twiddles between the passes are
 *  not covered by those checks (a wrong twiddle is consistent input to its
 *  row), so each row of the table is verified as it is read by an exact
 *  64-bit word sum fixed at plan time; a mismatch rebuilds the table and
 *  recomputes that row. The sub-unit bounds are those of length n1 and n2,
 *  tighter than one bound for the whole length n.
 */
#include <omp.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "core/report.hpp"
#include "cpu/fft/fft_line.hpp"
#include "cpu/fft/fft_math.hpp"

namespace abft::cpu::fft {

namespace {

/** Maps a sub-unit's stage and output positions to the line's. */
template <class T>
struct SubHook final : StageHook<T> {
  StageHook<T>* inner = nullptr;
  int stage_offset = 0;
  int64_t soff = 0, sstr = 1;  // stage element = soff + i * sstr
  bool output = false;         // row sub-units carry the line's outputs
  int64_t ooff = 0, ostr = 1;  // output element = ooff + i * ostr
  void after_stage(int stage, T* buf, int64_t n, int64_t off, int64_t str, int64_t bstr) override {
    inner->after_stage(stage + stage_offset, buf, n, soff + off * sstr, str * sstr, bstr);
  }
  void at_output(T* buf, int64_t n, int64_t off, int64_t str, bool real) override {
    if (output) inner->at_output(buf, n, ooff + off * ostr, str * ostr, real);
  }
};

}  // namespace

template <class T>
void LinePlan<T>::init_fourstep(int64_t n1, int threads) {
  fourstep_ = true;
  n1_ = n1;
  n2_ = n_ / n1;
  col_ = std::make_unique<LinePlan<T>>(ABFT_FFT_C2C, n1_, sign_, K_, 1, false);
  row_ = std::make_unique<LinePlan<T>>(ABFT_FFT_C2C, n2_, sign_, K_, 1, false);
  const int64_t n = n_, N1 = n1_, N2 = n2_;
  const int s = sign_;
  constexpr int64_t C = kTwiddleChunk;
  const int64_t nB = (N2 + C - 1) / C;
  nB_ = nB;
  tw4a_.make(size_t(4 * C * N1), [=](T* w) {
    for (int64_t k1 = 0; k1 < N1; ++k1) {
      T* a = w + 4 * C * k1;
      for (int64_t j = 0; j < C; ++j) {
        const auto z = root<T>((k1 * j) % n, n, s);
        a[2 * j] = a[2 * j + 1] = z.real();
        a[2 * C + 2 * j] = -z.imag();
        a[2 * C + 2 * j + 1] = z.imag();
      }
    }
  });
  tw4b_.make(size_t(2 * nB * N1), [=](T* w) {
    for (int64_t k1 = 0; k1 < N1; ++k1)
      for (int64_t i = 0; i < nB; ++i) {
        const auto z = root<T>((k1 * C * i) % n, n, s);
        w[2 * (k1 * nB + i)] = z.real();
        w[2 * (k1 * nB + i) + 1] = z.imag();
      }
  });
  {
    // Each twiddle is applied as two products with correctly rounded factors (cmul_tw2).
    namespace cs = abft::checksum;
    const double u = cs::unit_roundoff<T>(), mu = cs::fft_twiddle_mu<T>();
    const double eta1 = mu + std::sqrt(2.0) * cs::gamma(2.0, u) * (1.0 + mu);
    const double eta_tw = cs::fft_compose(eta1, eta1);
    const double e1 = col_->kern_E() / std::sqrt(double(N1)), e2 = row_->kern_E() / std::sqrt(double(N2));
    E_fs_ = cs::fft_compose(cs::fft_compose(e1, eta_tw), e2) * std::sqrt(double(n));
  }
  row_sum_.resize(size_t(N1));
  for (int64_t k1 = 0; k1 < N1; ++k1) row_sum_[size_t(k1)] = twiddle_row_sum(k1);
  threads_.store(threads, std::memory_order_relaxed);
}

template <class T>
uint64_t LinePlan<T>::twiddle_row_sum(int64_t k1) const {
  constexpr int64_t C = kTwiddleChunk;
  return K_.word_sum(tw4a_.data.data() + 4 * C * k1, 4 * C) + K_.word_sum(tw4b_.data.data() + 2 * nB_ * k1, 2 * nB_);
}

template <class T>
void LinePlan<T>::kernel_tables(std::vector<Table<T>*>& out) {
  if (sub_) {
    sub_->kernel_tables(out);
    return;
  }
  if (!fourstep_) {
    kernel_->tables(out);
    return;
  }
  col_->kernel_tables(out);
  out.push_back(&tw4a_);
  out.push_back(&tw4b_);
  row_->kernel_tables(out);
}

template <class T>
bool LinePlan<T>::judge(std::complex<double> in, double x2, std::complex<double> out, abft_report& rep) const {
  const double X = std::sqrt(x2);
  if (!checkable_norm(X)) {
    ++rep.skipped;  // non-finite input is data; so is an output that may overflow
    return false;
  }
  const double bnd = bound(X), res = residual(in, out);
  ++rep.checks;
  if (res <= bnd) {
    if (bnd > 0) rep.max_ratio = std::max(rep.max_ratio, res / bnd);
    return false;
  }
  ++rep.detected;
  return true;
}

template <class T>
void LinePlan<T>::check_out_batch(const T* y, int64_t nb, std::complex<double>* out) const {
  const T* w = w_.data.data();
  K_.cdot_batch(y, w, w + 2 * kWeightBlock, Rb_.data.data(), n_, nb, out);
}

template <class T>
void LinePlan<T>::gather_check_in_batch(const T* src, int64_t src_row, T* dst, int64_t nb,
                                        std::complex<double>* in, double* x2) const {
  std::complex<double> sum[64], csum[64];
  K_.gather_csum_batch(src, src_row, dst, v_.data.data(), n_, nb, sum, csum, x2);
  for (int64_t b = 0; b < nb; ++b) in[b] = sum[b] + std::complex<double>(0.0, 1.0) * csum[b];
}

template <class T>
void LinePlan<T>::run_unit(const T* src, T* dst, T* work, abft_policy pol, StageHook<T>* hook,
                           abft_report& rep, abft_status& st, std::mutex& repair_mu) const {
  std::complex<double> cin, cout;
  double x2 = 0;
  bool sampled = false;  // x2 a lower bound of ||x||^2 (the folded input sides)
  if (pol != ABFT_POLICY_OFF && !hook && kind_ == ABFT_FFT_C2C && kernel_) {
    // A complex Stockham unit folds the check's sums into its first and last stages
    // (GUIDE §3 rule 6); with a hook (injection) the stage outputs may change after they
    // are stored, so the sums are then taken by the separate passes below.
    FoldedCheck<T> fc;
    if (!vfold_.data.empty()) fc.cw = vfold_.data.data();
    fc.rr = w_.data.data();
    fc.ri = fc.rr + 2 * kWeightBlock;
    fc.R = Rb_.data.data();
    kernel_->run_folded(src, dst, work, fc);  // src is only read: its side can follow
    if (fc.in_done) {
      cin = fc.sum + std::complex<double>(0.0, 1.0) * fc.csum;
      x2 = fc.x2;
      sampled = true;
    } else {
      cin = check_in(src, &x2);
    }
    cout = fc.out_done ? fc.out : check_out(dst);
  } else if (pol != ABFT_POLICY_OFF && !hook && r2c_foldable()) {
    compute_r2c_checked(src, dst, work, pol, rep, st, repair_mu, &cin, &x2, &cout, &sampled);
  } else {
    if (pol != ABFT_POLICY_OFF) cin = check_in(src, &x2);
    compute(src, dst, work, hook, pol, &rep, &st, &repair_mu);
    if (hook) {
      const bool real = kind_ == ABFT_FFT_C2R;
      hook->at_output(dst, real ? out_scalars() : out_elems(), 0, 1, real);
    }
    if (pol != ABFT_POLICY_OFF) cout = check_out(dst);
  }
  if (pol == ABFT_POLICY_OFF) return;
  // src is kept (the recomputation reads it): the exact norm, where the sampled one does
  // not settle the check, is a pass over it.
  auto exact_x2 = [&] {
    double e = 0;
    check_in(src, &e);
    return e;
  };
  if (!(sampled ? judge_sampled(cin, x2, cout, rep, exact_x2) : judge(cin, x2, cout, rep))) return;
  if (pol == ABFT_POLICY_DETECT) {
    st = core::worse_status(st, ABFT_STATUS_FAULT_DETECTED);
    return;
  }
  {
    std::lock_guard<std::mutex> g(repair_mu);
    refresh_tables();
  }
  compute(src, dst, work, nullptr, pol, &rep, &st, &repair_mu);
  ++rep.recomputed;
  if (std::abs(check_out(dst) - cin) <= bound(std::sqrt(x2))) {
    ++rep.corrected;
  } else {
    ++rep.uncorrectable;
    st = core::worse_status(st, ABFT_STATUS_FAULT_UNCORRECTABLE);
  }
}

namespace {
/** Stage outputs of nb interleaved column transforms, mapped to the line's
 *  elements: column b's element k1 is element k1 n2 + (j0 + b). */
template <class T>
struct ColumnBatchHook final : StageHook<T> {
  StageHook<T>* inner;
  int64_t j0, nb, n1, n2;
  void after_stage(int stage, T* buf, int64_t, int64_t, int64_t, int64_t) override {
    for (int64_t b = 0; b < nb; ++b) inner->after_stage(stage, buf + 2 * b, n1, j0 + b, n2, nb);
  }
  void at_output(T*, int64_t, int64_t, int64_t, bool) override {}
};
}  // namespace

template <class T>
void LinePlan<T>::column_block(const T* in, T* z, T* bin, T* bout, T* kw, int64_t j0, int64_t nb,
                               abft_policy pol, StageHook<T>* hook, abft_report& rep, abft_status& st,
                               std::mutex& repair_mu) const {
  const int64_t n1 = n1_, n2 = n2_;
  auto copy_rows = [nb](const T* src, int64_t src_row, T* dst, int64_t dst_row, int64_t rows) {
    constexpr int64_t W = 16;  // the usual block (8 columns): a fixed-length copy the compiler vectorises
    if (2 * nb == W) {
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t i = 0; i < W; ++i) dst[2 * r * dst_row + i] = src[2 * r * src_row + i];
      return;
    }
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t i = 0; i < 2 * nb; ++i) dst[2 * r * dst_row + i] = src[2 * r * src_row + i];
  };
  ColumnBatchHook<T> bh;
  bh.inner = hook;
  bh.j0 = j0;
  bh.nb = nb;
  bh.n1 = n1;
  bh.n2 = n2;
  if (pol == ABFT_POLICY_OFF) {
    copy_rows(in + 2 * j0, n2, bin, nb, n1);
    col_->compute_batch(bin, bout, kw, nb, hook ? &bh : nullptr);
    copy_rows(bout, nb, z + 2 * j0, n2, n1);
    return;
  }
  // Gather rows of nb consecutive columns, interleaved (whole cache lines),
  // with the input side of the checks on the way; the transform; the output
  // side on the block while it is in L1, then the scatter (the same copy as
  // unprotected: fused with the sums, its strided stores ran at half speed).
  std::complex<double> cin[64], cout[64];
  double x2[64];
  col_->gather_check_in_batch(in + 2 * j0, n2, bin, nb, cin, x2);
  col_->compute_batch(bin, bout, kw, nb, hook ? &bh : nullptr);
  col_->check_out_batch(bout, nb, cout);
  copy_rows(bout, nb, z + 2 * j0, n2, n1);
  bool failed[64];
  int64_t nfail = 0;
  for (int64_t b = 0; b < nb; ++b) {
    // x2[b] sums a sample of the column's rows; the exact norm, when needed, from the
    // gathered copy (kept for the recomputation)
    auto exact_x2 = [&] {
      double e = 0;
      for (int64_t j = 0; j < n1; ++j) {
        const double xr = bin[2 * (j * nb + b)], xi = bin[2 * (j * nb + b) + 1];
        e += xr * xr + xi * xi;
      }
      return e;
    };
    nfail += (failed[b] = col_->judge_sampled(cin[b], x2[b], cout[b], rep, exact_x2));
  }
  if (nfail == 0) return;
  if (pol == ABFT_POLICY_DETECT) {
    st = core::worse_status(st, ABFT_STATUS_FAULT_DETECTED);
    return;
  }
  {
    std::lock_guard<std::mutex> g(repair_mu);
    col_->refresh_tables();
  }
  // Recompute the block (the same arithmetic: clean columns come out bit for
  // bit as before), re-verify the failed columns, store the block again.
  col_->compute_batch(bin, bout, kw, nb, nullptr);
  col_->check_out_batch(bout, nb, cout);
  for (int64_t b = 0; b < nb; ++b) {
    if (!failed[b]) continue;
    ++rep.recomputed;
    if (std::abs(cout[b] - cin[b]) <= col_->bound(std::sqrt(x2[b]))) {
      ++rep.corrected;
    } else {
      ++rep.uncorrectable;
      st = core::worse_status(st, ABFT_STATUS_FAULT_UNCORRECTABLE);
    }
  }
  copy_rows(bout, nb, z + 2 * j0, n2, n1);
}

template <class T>
void LinePlan<T>::run_fourstep(const T* in, T* out, T* work, abft_policy pol, StageHook<T>* hook,
                               abft_report& rep_total, abft_status& st_total,
                               std::mutex& repair_mu) const {
  constexpr int64_t B = 8;  // columns / rows per block (one cache line of doubles or more)
  const int64_t n1 = n1_, n2 = n2_;
  T* z = work;
  const int64_t ncb = (n2 + B - 1) / B, nrb = (n1 + B - 1) / B;
  const int tn = threads_.load(std::memory_order_relaxed);
  const int nt = (tn > 1 && !omp_in_parallel()) ? tn : 1;
  const int S1 = col_->stages();
  const bool batch = col_->batchable();
  std::mutex merge;
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    abft_report rep{};
    abft_status st = ABFT_STATUS_SUCCESS;
    const int64_t nmax = std::max(n1, n2);
    T* bin = fft_tls_buffer<T>(size_t(4 * B * nmax), 2);
    T* bout = bin + 2 * B * nmax;
    T* kw = fft_tls_buffer<T>(
        size_t(std::max({col_->work_scalars(), row_->work_scalars(), batch ? col_->batch_work_scalars(B) : 0})), 3);
#pragma omp for schedule(static)
    for (int64_t cb = 0; cb < ncb; ++cb) {
      const int64_t j0 = cb * B, nb = std::min<int64_t>(B, n2 - j0);
      if (batch) {
        column_block(in, z, bin, bout, kw, j0, nb, pol, hook, rep, st, repair_mu);
        continue;
      }
      for (int64_t j1 = 0; j1 < n1; ++j1) {
        const T* src = in + 2 * (j1 * n2 + j0);
        for (int64_t b = 0; b < nb; ++b) {
          bin[2 * (b * n1 + j1)] = src[2 * b];
          bin[2 * (b * n1 + j1) + 1] = src[2 * b + 1];
        }
      }
      for (int64_t b = 0; b < nb; ++b) {
        SubHook<T> h;
        h.inner = hook;
        h.soff = j0 + b;
        h.sstr = n2;
        col_->run_unit(bin + 2 * b * n1, bout + 2 * b * n1, kw, pol, hook ? &h : nullptr, rep, st, repair_mu);
      }
      K_.transpose_rows(bout, n1, nb, z + 2 * j0, n2);
    }
#pragma omp for schedule(static)
    for (int64_t rb = 0; rb < nrb; ++rb) {
      const int64_t k0 = rb * B, nb = std::min<int64_t>(B, n1 - k0);
      for (int64_t b = 0; b < nb; ++b) {
        const int64_t k1 = k0 + b;
        T* xr = bin + 2 * b * n2;
        const T* Ar = tw4a_.data.data() + 4 * kTwiddleChunk * k1;
        const T* Br = tw4b_.data.data() + 2 * nB_ * k1;
        // Protected: the row's twiddle tables checked by their exact word sum first.
        if (pol != ABFT_POLICY_OFF && twiddle_row_sum(k1) != row_sum_[size_t(k1)]) {
          // A twiddle of this row changed since plan time (exact test, no threshold).
          ++rep.checks;
          ++rep.detected;
          if (pol == ABFT_POLICY_DETECT) {
            st = core::worse_status(st, ABFT_STATUS_FAULT_DETECTED);
          } else {
            {
              std::lock_guard<std::mutex> g(repair_mu);
              tw4a_.refresh();
              tw4b_.refresh();
            }
            ++rep.recomputed;
            if (twiddle_row_sum(k1) == row_sum_[size_t(k1)]) {
              ++rep.corrected;
            } else {
              ++rep.uncorrectable;
              st = core::worse_status(st, ABFT_STATUS_FAULT_UNCORRECTABLE);
            }
          }
        }
        K_.cmul_tw2(xr, z + 2 * k1 * n2, Ar, Br, n2);
        SubHook<T> h;
        h.inner = hook;
        h.stage_offset = S1;
        h.soff = k1 * n2;
        h.sstr = 1;
        h.output = true;
        h.ooff = k1;
        h.ostr = n1;
        row_->run_unit(xr, bout + 2 * b * n2, kw, pol, hook ? &h : nullptr, rep, st, repair_mu);
      }
      K_.transpose_rows(bout, n2, nb, out + 2 * k0, n1);
    }
    std::lock_guard<std::mutex> g(merge);
    core::add_report(rep_total, rep);
    st_total = core::worse_status(st_total, st);
  }
}

namespace {
/** A four-step line used as a plain kernel: the same passes, policy OFF. */
template <class T>
class FourStepKernel final : public Kernel1d<T> {
 public:
  FourStepKernel(int64_t n, int sign, const FftKernels<T>& K, int threads)
      : Kernel1d<T>(n, sign), line_(ABFT_FFT_C2C, n, sign, K, threads) {}
  void run(const T* in, T* out, T* work, StageHook<T>* hook) const override {
    line_.compute(in, out, work, hook);
  }
  int64_t work_scalars() const override { return line_.work_scalars(); }
  int stages() const override { return line_.stages(); }
  double error_E() const override { return line_.error_E(); }
  void tables(std::vector<Table<T>*>& out) override { line_.kernel_tables(out); }
  std::string describe() const override {
    std::string d = line_.describe();
    const std::string tag = " checked per sub-transform";
    const size_t at = d.find(tag);
    if (at != std::string::npos) d.erase(at, tag.size());
    return d;
  }
  int max_radix() const override { return line_.max_radix(); }
  void set_threads(int nt) override { line_.set_threads(nt); }

 private:
  LinePlan<T> line_;
};
}  // namespace

template <class T>
std::unique_ptr<Kernel1d<T>> make_fourstep_kernel(int64_t n, int sign, const FftKernels<T>& K, int threads) {
  return std::make_unique<FourStepKernel<T>>(n, sign, K, threads);
}
template std::unique_ptr<Kernel1d<float>> make_fourstep_kernel<float>(int64_t, int, const FftKernels<float>&, int);
template std::unique_ptr<Kernel1d<double>> make_fourstep_kernel<double>(int64_t, int, const FftKernels<double>&, int);

template class LinePlan<float>;
template class LinePlan<double>;

}  // namespace abft::cpu::fft
