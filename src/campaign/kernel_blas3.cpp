/** \file kernel_blas3.cpp
 *  \brief Campaign adapter of the drop-in BLAS's Level-3 routines other than GEMM: ?SYMM,
 *  ?HEMM, ?SYRK, ?HERK, ?SYR2K, ?HER2K, ?TRMM, ?TRSM (docs/ABFT.md §8, RELIABILITY §6).
 *
 *  The routines run in process through the shim's core (blas/level3/level3.hpp:
 *  column-major, arguments valid) on the shim's process handle, so the campaign's planner is
 *  attached there (own_handle()) and sees every protected kernel call a routine makes: each
 *  GEMM it is built from and each chunk of right-hand sides of a checked TRSM diagonal block
 *  (one injection plan per chunk of up to 256). A run's report is what the routine's
 *  ProtectedCall folded into its statistics row (the difference of the row's counters
 *  around the call); its calls are the GEMMs the handle recorded plus the TRSM leaf chunks,
 *  which the recursion fixes (counted here the way trsm.cpp / trsm_leaf.cpp cut them).
 *
 *  Escape limits: the rule of the shim's own injection tests (level3_bounds.hpp,
 *  level3_tolerance with faults below the bound), with `scale` an upper bound of every
 *  element a column check of the routine sums, taken from this trial's data (maxima of
 *  |re| + |im|, which also bound the real view the complex engine checks, ABFT.md §7).
 */
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "abft/checksum/level3_bounds.hpp"
#include "blas/common/shim.hpp"
#include "blas/level3/level3.hpp"
#include "campaign/input_gen.hpp"
#include "campaign/kernel.hpp"

namespace abft::campaign {
namespace {

using blas::blas_int;
using blas::cdouble;
using blas::cfloat;
using blas::Diag;
using blas::Op;
using blas::Routine;
using blas::Side;
using blas::Uplo;

enum class Family { Symm, Syrk, Syr2k, Trmm, Trsm };

template <class T> struct real_of { using type = T; };
template <class R> struct real_of<std::complex<R>> { using type = R; };
template <class T> using real_t = typename real_of<T>::type;
template <class T> constexpr bool kCplx = !std::is_same_v<T, real_t<T>>;

/** |re| + |im| (BLAS's CABS1): bounds the modulus and every component. */
template <class T> double mag(const T& x) {
  if constexpr (kCplx<T>) return std::fabs(double(x.real())) + std::fabs(double(x.imag()));
  else return std::fabs(double(x));
}

/** One value of the trial's distribution (input_gen.hpp; Wide: sign x 10^U(-3, 3), as the
 *  GEMM adapter draws), each component drawn separately for complex T. */
template <class T> T draw(InputRng& g, InputDist d) {
  using R = real_t<T>;
  if constexpr (kCplx<T>) {
    const R re = R(g.draw(d, -3.0, 3.0));
    return T(re, R(g.draw(d, -3.0, 3.0)));
  } else {
    return T(g.draw(d, -3.0, 3.0));
  }
}

template <class T> constexpr abft_kernel gemm_kernel_of() {
  if constexpr (std::is_same_v<T, float>) return ABFT_KERNEL_SGEMM;
  else if constexpr (std::is_same_v<T, double>) return ABFT_KERNEL_DGEMM;
  else if constexpr (std::is_same_v<T, cfloat>) return ABFT_KERNEL_CGEMM;
  else return ABFT_KERNEL_ZGEMM;
}

template <class T> constexpr int type_index() {
  if constexpr (std::is_same_v<T, float>) return 0;
  else if constexpr (std::is_same_v<T, double>) return 1;
  else if constexpr (std::is_same_v<T, cfloat>) return 2;
  else return 3;
}

/** The shim's statistics row of the routine (Routine lists s, d, c, z per family, with the
 *  Hermitian c, z after the symmetric ones). */
template <class T> Routine routine_of(Family f, bool herm) {
  const int t = type_index<T>();
  int base = 0;
  switch (f) {
    case Family::Symm: base = int(Routine::SSYMM); break;
    case Family::Syrk: base = int(Routine::SSYRK); break;
    case Family::Syr2k: base = int(Routine::SSYR2K); break;
    case Family::Trmm: base = int(Routine::STRMM); break;
    case Family::Trsm: base = int(Routine::STRSM); break;
  }
  if (herm) return Routine(base + 4 + (t - 2));  // CHEMM/ZHEMM etc.
  return Routine(base + t);
}

/** Leaves of the TRSM recursion over nb rows (side L) or columns (side R): trsm.cpp's split. */
uint64_t trsm_leaves(blas_int nb) {
  if (nb <= blas::l3::kTrsmLeaf) return 1;
  const blas_int n1 = blas::l3::split_point(nb, blas::l3::kTrsmLeaf);
  return trsm_leaves(n1) + trsm_leaves(nb - n1);
}

char side_c(Side s) { return s == Side::L ? 'L' : 'R'; }
char uplo_c(Uplo u) { return u == Uplo::U ? 'U' : 'L'; }
char op_c(Op o) { return o == Op::N ? 'N' : o == Op::T ? 'T' : 'C'; }
char diag_c(Diag d) { return d == Diag::N ? 'N' : 'U'; }

/** The routine's arguments (what --sizes and --variant choose). */
struct Setup {
  Family fam = Family::Symm;
  bool herm = false;
  std::string name;  // "symm", "herk", ...
  blas_int m = 0, n = 0, k = 0;  // symm/trmm/trsm: C or B is m x n; rank-k: C n x n, depth k
  Side side = Side::L;
  Uplo uplo = Uplo::U;
  Op trans = Op::N;
  Diag diag = Diag::N;
};

template <class T>
class Blas3Kernel final : public Kernel {
 public:
  explicit Blas3Kernel(const Setup& s, int threads)
      : s_(s), routine_(routine_of<T>(s.fam, s.herm)) {
    using R = real_t<T>;
    // Scalars: BLAS's general case (neither 0 nor 1), complex where the routine takes it.
    if constexpr (kCplx<T>) {
      alpha_ = T(R(0.7), R(-0.4));
      beta_ = T(R(1.3), R(0.2));
      if (s_.herm && s_.fam == Family::Syrk) alpha_ = T(R(0.7));       // HERK: real alpha
      if (s_.herm && s_.fam != Family::Symm) beta_ = T(R(1.3));        // HERK, HER2K: real beta
    } else {
      alpha_ = T(0.7);
      beta_ = T(1.3);
    }
    switch (s_.fam) {
      case Family::Symm:
        ka_ = s_.side == Side::L ? s_.m : s_.n;
        A_.resize(size_t(ka_) * size_t(ka_));
        B_.resize(size_t(s_.m) * size_t(s_.n));
        C0_.resize(size_t(s_.m) * size_t(s_.n));
        out_rows_ = s_.m;
        out_cols_ = s_.n;
        break;
      case Family::Syrk:
      case Family::Syr2k: {
        const size_t rows = s_.trans == Op::N ? size_t(s_.n) : size_t(s_.k);
        const size_t cols = s_.trans == Op::N ? size_t(s_.k) : size_t(s_.n);
        A_.resize(rows * cols);
        if (s_.fam == Family::Syr2k) B_.resize(rows * cols);
        C0_.resize(size_t(s_.n) * size_t(s_.n));
        out_rows_ = out_cols_ = s_.n;
        break;
      }
      case Family::Trmm:
      case Family::Trsm:
        ka_ = s_.side == Side::L ? s_.m : s_.n;
        A_.resize(size_t(ka_) * size_t(ka_));
        C0_.resize(size_t(s_.m) * size_t(s_.n));  // B of TRMM / TRSM (in and out)
        out_rows_ = s_.m;
        out_cols_ = s_.n;
        break;
    }
    W_.resize(C0_.size());
    // Output scalars: every element of C (B), or the referenced triangle of a rank-k update.
    for (blas_int j = 0; j < out_cols_; ++j)
      for (blas_int i = 0; i < out_rows_; ++i)
        if (!rank_k() || (s_.uplo == Uplo::U ? i <= j : i >= j))
          out_index_.push_back(size_t(i) + size_t(j) * size_t(out_rows_));
    limits_.assign(out_index_.size() * (kCplx<T> ? 2 : 1), 0.0);
    // Protected calls that are not GEMMs: TRSM's leaf chunks (256 right-hand sides each).
    if (s_.fam == Family::Trsm) {
      const blas_int nrhs = s_.side == Side::L ? s_.n : s_.m;
      leaf_plans_ = trsm_leaves(ka_) * uint64_t((nrhs + 255) / 256);
    }
    abft_handle_set_threads(blas::shim_handle(), threads);
  }

  std::string describe() const override {
    std::ostringstream os;
    os << prefix() << s_.name;
    if (rank_k()) os << " n=" << s_.n << " k=" << s_.k;
    else os << " m=" << s_.m << " n=" << s_.n;
    if (s_.fam == Family::Symm || s_.fam == Family::Trmm || s_.fam == Family::Trsm)
      os << " side=" << side_c(s_.side);
    os << " uplo=" << uplo_c(s_.uplo);
    if (rank_k()) os << " trans=" << op_c(s_.trans);
    if (s_.fam == Family::Trmm || s_.fam == Family::Trsm)
      os << " transa=" << op_c(s_.trans) << " diag=" << diag_c(s_.diag);
    os << " alpha=" << scalar_text(alpha_);
    if (s_.fam == Family::Symm || rank_k()) os << " beta=" << scalar_text(beta_);
    os << " column-major";
    return os.str();
  }

  std::vector<abft_site> sites() const override {
    return {ABFT_SITE_OUTPUT, ABFT_SITE_ACCUMULATOR, ABFT_SITE_PACKED_A, ABFT_SITE_PACKED_B};
  }

  void prepare(uint64_t trial, uint64_t seed) override {
    InputRng g(seed);
    dist_ = input_dist_of(trial);
    switch (s_.fam) {
      case Family::Symm:
      case Family::Syrk:
      case Family::Syr2k:
        for (T& x : A_) x = draw<T>(g, dist_);
        for (T& x : B_) x = draw<T>(g, dist_);
        for (T& x : C0_) x = draw<T>(g, dist_);
        break;
      case Family::Trmm:
      case Family::Trsm:
        make_triangular(g);
        for (T& x : C0_) x = draw<T>(g, dist_);
        break;
    }
    compute_limits();
  }

  RunResult run(abft_handle_t h, abft_policy policy) override {
    (void)h;  // the routines run on the shim's handle (own_handle)
    RunResult res;
    const abft_handle_t sh = blas::shim_handle();
    try {
      res.out.resize(limits_.size());
    } catch (const std::bad_alloc&) {
      res.status = ABFT_STATUS_ALLOC_FAILED;
      return res;
    }
    if (!sh) {
      res.status = ABFT_STATUS_ALLOC_FAILED;
      return res;
    }
    abft_handle_set_policy(sh, policy);
    std::copy(C0_.begin(), C0_.end(), W_.begin());
    const abft::shim::Counters before = blas::routine_counters(routine_);
    abft_counters g0{};
    abft_stats_get(sh, gemm_kernel_of<T>(), &g0);
    try {
      call();
    } catch (const std::bad_alloc&) {  // the core catches its own; this is belt and braces
      res.status = ABFT_STATUS_ALLOC_FAILED;
    } catch (...) {
      res.status = ABFT_STATUS_INTERNAL_ERROR;
    }
    const abft::shim::Counters after = blas::routine_counters(routine_);
    abft_counters g1{};
    abft_stats_get(sh, gemm_kernel_of<T>(), &g1);
    abft_report& r = res.report;
    r.checks = after.checks - before.checks;
    r.detected = after.detected - before.detected;
    r.corrected = after.corrected - before.corrected;
    r.recomputed = after.recomputed - before.recomputed;
    r.uncorrectable = after.uncorrectable - before.uncorrectable;
    r.skipped = after.skipped - before.skipped;
    res.calls = (g1.calls - g0.calls) + leaf_plans_;
    // The routine returns nothing; its ProtectedCall counted a failed call when the worst
    // status of its kernels was not SUCCESS. Which one follows from the counts.
    if (res.status == ABFT_STATUS_SUCCESS && after.failed != before.failed) {
      if (r.detected && policy == ABFT_POLICY_DETECT) res.status = ABFT_STATUS_FAULT_DETECTED;
      else if (r.uncorrectable) res.status = ABFT_STATUS_FAULT_UNCORRECTABLE;
      else res.status = ABFT_STATUS_ALLOC_FAILED;
    }
    size_t o = 0;
    for (size_t idx : out_index_) {
      const T v = W_[idx];
      if constexpr (kCplx<T>) {
        res.out[o++] = double(v.real());
        res.out[o++] = double(v.imag());
      } else {
        res.out[o++] = double(v);
      }
    }
    return res;
  }

  const std::vector<double>& limits() const override { return limits_; }
  abft_handle_t own_handle() override { return blas::shim_handle(); }

 private:
  bool rank_k() const { return s_.fam == Family::Syrk || s_.fam == Family::Syr2k; }

  static char prefix() {
    const int t = type_index<T>();
    return "sdcz"[t];
  }
  static std::string scalar_text(const T& a) {
    char b[64];
    if constexpr (kCplx<T>) std::snprintf(b, sizeof b, "(%g,%g)", double(a.real()), double(a.imag()));
    else std::snprintf(b, sizeof b, "%g", double(a));
    return b;
  }

  /** The one call of the routine, on W_ (a copy of C0_: C of SYMM / rank-k, B of TRMM/TRSM). */
  void call() {
    const T* A = A_.data();
    T* W = W_.data();
    switch (s_.fam) {
      case Family::Symm:
        blas::l3::symm<T>(routine_, s_.herm, s_.side, s_.uplo, s_.m, s_.n, alpha_, A, ka_,
                          B_.data(), s_.m, beta_, W, s_.m);
        break;
      case Family::Syrk:
        blas::l3::syrk<T>(routine_, s_.herm, s_.uplo, s_.trans, s_.n, s_.k, alpha_, A, lda_rank(),
                          beta_, W, s_.n);
        break;
      case Family::Syr2k:
        blas::l3::syr2k<T>(routine_, s_.herm, s_.uplo, s_.trans, s_.n, s_.k, alpha_, A, lda_rank(),
                           B_.data(), lda_rank(), beta_, W, s_.n);
        break;
      case Family::Trmm:
        blas::l3::trmm<T>(routine_, s_.side, s_.uplo, s_.trans, s_.diag, s_.m, s_.n, alpha_, A, ka_,
                          W, s_.m);
        break;
      case Family::Trsm:
        blas::l3::trsm<T>(routine_, s_.side, s_.uplo, s_.trans, s_.diag, s_.m, s_.n, alpha_, A, ka_,
                          W, s_.m);
        break;
    }
  }
  blas_int lda_rank() const { return s_.trans == Op::N ? s_.n : s_.k; }

  /** A triangular ka x ka A (the stored triangle; the other one holds values never read) whose
   *  op(A) is well conditioned: off-diagonal entries from the trial's distribution, scaled so
   *  that the largest is 1 (non-unit) or every off-diagonal row and column sum is at most 1/2
   *  (unit diagonal), and a diagonal of modulus 1 + 2 max(row sum, column sum) with a random
   *  sign (phase): so |D^-1 N| <= 1/2 in both orientations, |d| >= 1, |op(A)^-1| <= 2. */
  void make_triangular(InputRng& g) {
    const blas_int n = ka_;
    const bool up = s_.uplo == Uplo::U;
    for (blas_int j = 0; j < n; ++j)
      for (blas_int i = 0; i < n; ++i) A_[size_t(i) + size_t(j) * n] = draw<T>(g, dist_);
    auto stored = [&](blas_int i, blas_int j) { return i != j && (up ? i < j : i > j); };
    std::vector<double> rs(size_t(n), 0.0), cs(size_t(n), 0.0);
    double amax = 0.0;
    for (blas_int j = 0; j < n; ++j)
      for (blas_int i = 0; i < n; ++i)
        if (stored(i, j)) amax = std::max(amax, mag(A_[size_t(i) + size_t(j) * n]));
    double f = amax > 0.0 ? 1.0 / amax : 1.0;
    auto sums = [&](double scale) {
      std::fill(rs.begin(), rs.end(), 0.0);
      std::fill(cs.begin(), cs.end(), 0.0);
      double worst = 0.0;
      for (blas_int j = 0; j < n; ++j)
        for (blas_int i = 0; i < n; ++i)
          if (stored(i, j)) {
            const double a = mag(A_[size_t(i) + size_t(j) * n]) * scale;
            rs[size_t(i)] += a;
            cs[size_t(j)] += a;
          }
      for (blas_int i = 0; i < n; ++i) worst = std::max(worst, std::max(rs[size_t(i)], cs[size_t(i)]));
      return worst;
    };
    double worst = sums(f);
    if (s_.diag == Diag::U && worst > 0.5) {
      f *= 0.5 / worst;
      worst = sums(f);
    }
    using R = real_t<T>;
    for (blas_int j = 0; j < n; ++j)
      for (blas_int i = 0; i < n; ++i) {
        T& a = A_[size_t(i) + size_t(j) * n];
        if (stored(i, j)) a = a * T(R(f));
      }
    // Diagonal (not read with a unit diagonal; any value there then).
    for (blas_int i = 0; i < n; ++i) {
      const double dm = 1.0 + 2.0 * std::max(rs[size_t(i)], cs[size_t(i)]);
      T d;
      if constexpr (kCplx<T>) {
        const double ph = 6.283185307179586 * g.unit();
        d = T(R(dm * std::cos(ph)), R(dm * std::sin(ph)));
      } else {
        d = T((g.next() & 1) ? -dm : dm);
      }
      A_[size_t(i) + size_t(i) * n] = d;
    }
  }

  /** The escape limit of every output scalar: level3_tolerance (the shim tests' rule) with
   *  `scale` bounding every element a check sums:
   *    SYMM   |alpha| ka max|A| max|B| + |beta| max|C0|
   *    SYRK   |alpha| k max|A|^2 + |beta| max|C0|;  SYR2K: 2 |alpha| k max|A| max|B| + ...
   *    TRMM   |alpha| Rfull max|B|   (Rfull: largest row or column sum of |op(A)|, diagonal
   *           included: bounds |E11||B1| + |E12||B2| of every update, partial results too)
   *    TRSM   |alpha| max|B| + Rfull Xmax, Xmax = 2 |alpha| max|B| / min|d| (|op(A)^-1| <= 2/min|d|
   *           by construction): the GEMM updates alpha B2 - E21 X1 and the leaves' |M||x|.
   *  Magnitudes are |re| + |im|. k of the tolerance is the inner dimension (ka for SYMM, TRMM,
   *  TRSM), rows = max(m, n). */
  void compute_limits() {
    using R = real_t<T>;
    auto maxmag = [](const std::vector<T>& v) {
      double s = 0.0;
      for (const T& x : v) s = std::max(s, mag(x));
      return s;
    };
    const double aa = mag(alpha_), ba = mag(beta_);
    double scale = 0.0;
    int64_t k = 0, rows = 0;
    switch (s_.fam) {
      case Family::Symm:
        k = ka_;
        rows = std::max(s_.m, s_.n);
        scale = aa * double(ka_) * maxmag(A_) * maxmag(B_) + ba * maxmag(C0_);
        break;
      case Family::Syrk:
        k = s_.k;
        rows = s_.n;
        scale = aa * double(s_.k) * maxmag(A_) * maxmag(A_) + ba * maxmag(C0_);
        break;
      case Family::Syr2k:
        k = s_.k;
        rows = s_.n;
        scale = 2.0 * aa * double(s_.k) * maxmag(A_) * maxmag(B_) + ba * maxmag(C0_);
        break;
      case Family::Trmm:
      case Family::Trsm: {
        k = ka_;
        rows = std::max(s_.m, s_.n);
        const blas_int n = ka_;
        const bool up = s_.uplo == Uplo::U;
        double rfull = 0.0, dmin = std::numeric_limits<double>::infinity();
        for (blas_int i = 0; i < n; ++i) {
          const double d = s_.diag == Diag::U ? 1.0 : mag(A_[size_t(i) + size_t(i) * n]);
          dmin = std::min(dmin, d);
          double r = d, c = d;
          for (blas_int j = 0; j < n; ++j) {
            if (j == i) continue;
            if (up ? i < j : i > j) r += mag(A_[size_t(i) + size_t(j) * n]);  // row i of A
            if (up ? j < i : j > i) c += mag(A_[size_t(j) + size_t(i) * n]);  // column i of A
          }
          rfull = std::max(rfull, std::max(r, c));
        }
        const double bmax = maxmag(C0_);
        if (s_.fam == Family::Trmm) {
          scale = aa * rfull * bmax;
        } else {
          const double xmax = 2.0 * aa * bmax / dmin;
          scale = aa * bmax + rfull * xmax;
        }
        break;
      }
    }
    const double tol = abft::checksum::level3_tolerance<R>(k, rows, scale + 1e-300, true);
    std::fill(limits_.begin(), limits_.end(), tol);
  }

  Setup s_;
  Routine routine_;
  T alpha_{}, beta_{};
  blas_int ka_ = 0;
  blas_int out_rows_ = 0, out_cols_ = 0;
  InputDist dist_ = InputDist::Uniform;
  std::vector<T> A_, B_, C0_, W_;
  std::vector<size_t> out_index_;
  std::vector<double> limits_;
  uint64_t leaf_plans_ = 0;
};

// ------------------------------------------------------------------ options

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : s) {
    if (c == ',') {
      parts.push_back(cur);
      cur.clear();
    } else if (c != ' ') {
      cur += c;
    }
  }
  parts.push_back(cur);
  return parts;
}

char upper(char c) { return (c >= 'a' && c <= 'z') ? char(c - 'a' + 'A') : c; }

/** One letter of the variant: `part` must be one of `allowed`; fills *out. */
bool letter(const std::string& part, const char* allowed, char* out) {
  if (part.size() != 1) return false;
  const char c = upper(part[0]);
  if (!std::strchr(allowed, c)) return false;
  *out = c;
  return true;
}

}  // namespace

std::unique_ptr<Kernel> make_blas3_kernel(const KernelOptions& o, std::string* error) {
  Setup s;
  s.name = o.kernel;
  if (o.kernel == "symm") s.fam = Family::Symm;
  else if (o.kernel == "hemm") s.fam = Family::Symm, s.herm = true;
  else if (o.kernel == "syrk") s.fam = Family::Syrk;
  else if (o.kernel == "herk") s.fam = Family::Syrk, s.herm = true;
  else if (o.kernel == "syr2k") s.fam = Family::Syr2k;
  else if (o.kernel == "her2k") s.fam = Family::Syr2k, s.herm = true;
  else if (o.kernel == "trmm") s.fam = Family::Trmm;
  else if (o.kernel == "trsm") s.fam = Family::Trsm;
  else {
    *error = "unknown kernel '" + o.kernel + "'";
    return nullptr;
  }
  const bool cplx = o.type == DataType::C32 || o.type == DataType::C64;
  if (s.herm && !cplx) {
    *error = "--type: " + o.kernel + " is complex only (c32, c64)";
    return nullptr;
  }
  const bool rank = s.fam == Family::Syrk || s.fam == Family::Syr2k;
  const bool tri = s.fam == Family::Trmm || s.fam == Family::Trsm;

  // --sizes: m,n (SYMM/HEMM, TRMM, TRSM) or n,k (rank-k updates).
  std::vector<int64_t> sz = o.sizes;
  if (sz.empty()) {
    // About 1 ms a call on one core in double (a few ms in complex double), and past the
    // recursions' first split: SYRK/SYR2K/TRMM cut at 128 (three GEMMs, six for SYR2K),
    // TRSM at leaves of 32 (three checked leaves and two GEMM updates).
    if (s.fam == Family::Symm) sz = {96, 96};
    else if (rank || s.fam == Family::Trmm) sz = {160, 64};
    else sz = {96, 96};
  }
  const char* what = rank ? "n,k" : "m,n";
  if (sz.size() != 2) {
    *error = "--sizes: " + o.kernel + " takes two sizes (" + what + ")";
    return nullptr;
  }
  for (int64_t v : sz)
    if (v < 1 || v > 8192) {
      *error = "--sizes: " + o.kernel + " sizes (" + what + ") must be in [1, 8192]";
      return nullptr;
    }
  if (rank) s.n = blas_int(sz[0]), s.k = blas_int(sz[1]);
  else s.m = blas_int(sz[0]), s.n = blas_int(sz[1]);

  // --variant: SYMM/HEMM "side,uplo"; rank-k "uplo,trans"; TRMM/TRSM "side,uplo,transa,diag".
  std::string v = o.variant;
  if (v.empty()) v = s.fam == Family::Symm ? "L,U" : rank ? "U,N" : s.fam == Family::Trmm ? "L,U,N,N" : "L,L,N,N";
  const std::vector<std::string> p = split(v);
  char side = 'L', uplo = 'U', trans = 'N', diag = 'N';
  bool ok = false;
  std::string form;
  if (s.fam == Family::Symm) {
    form = "side,uplo with side L|R, uplo U|L";
    ok = p.size() == 2 && letter(p[0], "LR", &side) && letter(p[1], "UL", &uplo);
  } else if (rank) {
    // Real types take N, T, C; complex symmetric N, T; Hermitian N, C (as BLAS).
    const char* ops = !cplx ? "NTC" : s.herm ? "NC" : "NT";
    form = std::string("uplo,trans with uplo U|L, trans ") + (!cplx ? "N|T|C" : s.herm ? "N|C" : "N|T");
    ok = p.size() == 2 && letter(p[0], "UL", &uplo) && letter(p[1], ops, &trans);
  } else if (tri) {
    form = "side,uplo,transa,diag with side L|R, uplo U|L, transa N|T|C, diag N|U";
    ok = p.size() == 4 && letter(p[0], "LR", &side) && letter(p[1], "UL", &uplo) &&
         letter(p[2], "NTC", &trans) && letter(p[3], "NU", &diag);
  }
  if (!ok) {
    *error = "--variant: '" + v + "' for " + o.kernel + ": expected " + form;
    return nullptr;
  }
  s.side = side == 'L' ? Side::L : Side::R;
  s.uplo = uplo == 'U' ? Uplo::U : Uplo::L;
  s.trans = trans == 'N' ? Op::N : trans == 'T' ? Op::T : Op::C;
  s.diag = diag == 'N' ? Diag::N : Diag::U;

  if (!blas::shim_handle()) {
    *error = "the BLAS shim's handle could not be created";
    return nullptr;
  }
  const int threads = std::max(1, o.threads);
  try {
    switch (o.type) {
      case DataType::F32: return std::make_unique<Blas3Kernel<float>>(s, threads);
      case DataType::F64: return std::make_unique<Blas3Kernel<double>>(s, threads);
      case DataType::C32: return std::make_unique<Blas3Kernel<cfloat>>(s, threads);
      case DataType::C64: return std::make_unique<Blas3Kernel<cdouble>>(s, threads);
    }
  } catch (const std::bad_alloc&) {
    *error = "out of memory for " + o.kernel + " at these sizes";
    return nullptr;
  }
  *error = "unknown type";
  return nullptr;
}

}  // namespace abft::campaign
