/** \file abft.hpp
 *  \brief C++ API: RAII handle and injector, strided matrix views, typed gemm().
 */
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "abft/abft.h"

namespace abft {

using Status = abft_status;
using Report = abft_report;
using Counters = abft_counters;

enum class Policy : int { Default = ABFT_POLICY_DEFAULT, Off = ABFT_POLICY_OFF,
                          Detect = ABFT_POLICY_DETECT, Correct = ABFT_POLICY_CORRECT };
enum class Layout : int { RowMajor = ABFT_ROW_MAJOR, ColMajor = ABFT_COL_MAJOR };
enum class Op : int { N = ABFT_NO_TRANS, T = ABFT_TRANS, C = ABFT_CONJ_TRANS };

/** Exception thrown by the throwing helpers (the C API itself never throws). */
class Error : public std::runtime_error {
 public:
  explicit Error(Status s) : std::runtime_error(abft_status_string(s)), status_(s) {}
  Status status() const noexcept { return status_; }
 private:
  Status status_;
};

inline void check(Status s) {
  if (s < 0) throw Error(s);
}

namespace detail {
/** Sole owner of a C API object P (a plan), destroyed with Destroy: move-only, empty when
 *  default-made or moved from. The C++ plans (abft/fft.hpp, abft/cuda.hpp) derive from it. */
template <class P, abft_status (*Destroy)(P)>
class Owner {
 public:
  Owner() noexcept = default;
  /** Takes ownership of p. */
  explicit Owner(P p) noexcept : p_(p) {}
  ~Owner() { reset(); }
  Owner(const Owner&) = delete;
  Owner& operator=(const Owner&) = delete;
  Owner(Owner&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  Owner& operator=(Owner&& o) noexcept {
    if (this != &o) {
      reset();
      p_ = std::exchange(o.p_, nullptr);
    }
    return *this;
  }
  P get() const noexcept { return p_; }
  explicit operator bool() const noexcept { return p_ != nullptr; }
  /** Gives up ownership: the caller destroys the returned object. */
  P release() noexcept { return std::exchange(p_, nullptr); }
  void reset() noexcept {
    if (p_) Destroy(p_);
    p_ = nullptr;
  }

 protected:
  P p_ = nullptr;
};
}  // namespace detail

/** Non-owning strided view of a matrix in the given layout. */
template <class T>
struct MatrixView {
  T* data = nullptr;
  int64_t rows = 0, cols = 0, ld = 0;
  Layout layout = Layout::ColMajor;
};

/** Seeded fault injector (RAII over abft_injector_t). */
class Injector {
 public:
  explicit Injector(uint64_t seed = 0) { check(abft_injector_create(seed, &inj_)); }
  ~Injector() { if (inj_) abft_injector_destroy(inj_); }
  Injector(const Injector&) = delete;
  Injector& operator=(const Injector&) = delete;
  Injector(Injector&& o) noexcept : inj_(std::exchange(o.inj_, nullptr)) {}
  Injector& operator=(Injector&& o) noexcept { std::swap(inj_, o.inj_); return *this; }
  void add(const abft_fault& spec) { check(abft_injector_add(inj_, &spec)); }
  void clear() { check(abft_injector_clear(inj_)); }
  /** At most one fault per call, with this probability (negative: every spec every call). */
  void set_rate(double per_call) { check(abft_injector_set_rate(inj_, per_call)); }
  /** At most one fault per call, with probability 1 - exp(-per_flop * flops of the call). */
  void set_flop_rate(double per_flop) { check(abft_injector_set_flop_rate(inj_, per_flop)); }
  abft_injector_t get() const noexcept { return inj_; }
 private:
  abft_injector_t inj_ = nullptr;
};

/** Handle: policy, thread count, statistics and injection hook (RAII). */
class Handle {
 public:
  Handle() { check(abft_handle_create(&h_)); }
  ~Handle() { if (h_) abft_handle_destroy(h_); }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  Handle& operator=(Handle&& o) noexcept { std::swap(h_, o.h_); return *this; }

  void set_policy(Policy p) { check(abft_handle_set_policy(h_, static_cast<abft_policy>(p))); }
  void set_threads(int n) { check(abft_handle_set_threads(h_, n)); }
  void set_injector(const Injector* inj) { check(abft_handle_set_injector(h_, inj ? inj->get() : nullptr)); }
  Counters stats(abft_kernel k) const { Counters c{}; check(abft_stats_get(h_, k, &c)); return c; }
  void reset_stats() { check(abft_stats_reset(h_)); }
  std::string stats_text(abft_format f = ABFT_FORMAT_TEXT) const {
    size_t need = 0;
    abft_stats_format(h_, f, nullptr, 0, &need);
    std::string s(need, '\0');
    check(abft_stats_format(h_, f, s.data(), s.size(), &need));
    s.resize(need ? need - 1 : 0);
    return s;
  }
  abft_handle_t get() const noexcept { return h_; }
 private:
  abft_handle_t h_ = nullptr;
};

namespace detail {
inline Status gemm_c(abft_handle_t h, abft_policy p, abft_layout l, abft_op ta, abft_op tb,
                     int64_t m, int64_t n, int64_t k, float al, const float* A, int64_t lda,
                     const float* B, int64_t ldb, float be, float* C, int64_t ldc, Report* r) {
  return abft_sgemm(h, p, l, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc, r);
}
inline Status gemm_c(abft_handle_t h, abft_policy p, abft_layout l, abft_op ta, abft_op tb,
                     int64_t m, int64_t n, int64_t k, double al, const double* A, int64_t lda,
                     const double* B, int64_t ldb, double be, double* C, int64_t ldc, Report* r) {
  return abft_dgemm(h, p, l, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc, r);
}
/** m, n, k of C = op(A) op(B) from views: INVALID_VALUE when the layouts differ,
 *  INVALID_SIZE when the shapes disagree (shared by the CPU and CUDA view forms). */
template <class TA, class TB, class TC>
Status view_shape(Op ta, const MatrixView<TA>& A, Op tb, const MatrixView<TB>& B, const MatrixView<TC>& C,
                  int64_t* m, int64_t* n, int64_t* k) {
  if (A.layout != C.layout || B.layout != C.layout) return ABFT_STATUS_INVALID_VALUE;
  *k = (ta == Op::N) ? A.cols : A.rows;
  const int64_t kb = (tb == Op::N) ? B.rows : B.cols;
  const int64_t ma = (ta == Op::N) ? A.rows : A.cols;
  const int64_t nb = (tb == Op::N) ? B.cols : B.rows;
  if (*k != kb || ma != C.rows || nb != C.cols) return ABFT_STATUS_INVALID_SIZE;
  *m = C.rows, *n = C.cols;
  return ABFT_STATUS_SUCCESS;
}
}  // namespace detail

namespace gemm {
/** C = alpha*op(A)*op(B) + beta*C, BLAS argument order. Returns the status. */
template <class T>
Status run(Handle* h, Layout layout, Op ta, Op tb, int64_t m, int64_t n, int64_t k, T alpha,
           const T* A, int64_t lda, const T* B, int64_t ldb, T beta, T* C, int64_t ldc,
           Report* report = nullptr, Policy policy = Policy::Default) {
  return detail::gemm_c(h ? h->get() : nullptr, static_cast<abft_policy>(policy),
                        static_cast<abft_layout>(layout), static_cast<abft_op>(ta),
                        static_cast<abft_op>(tb), m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                        report);
}

/** View form: shapes come from the views; all three must share a layout. */
template <class T>
Status run(Handle* h, Op ta, MatrixView<const T> A, Op tb, MatrixView<const T> B,
           MatrixView<T> C, T alpha = T(1), T beta = T(0), Report* report = nullptr,
           Policy policy = Policy::Default) {
  int64_t m = 0, n = 0, k = 0;
  const Status s = detail::view_shape(ta, A, tb, B, C, &m, &n, &k);
  if (s != ABFT_STATUS_SUCCESS) return s;
  return run<T>(h, C.layout, ta, tb, m, n, k, alpha, A.data, A.ld, B.data, B.ld, beta, C.data, C.ld, report,
                policy);
}
}  // namespace gemm

}  // namespace abft
