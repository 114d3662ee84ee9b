/** \file kernel_gemm.cpp
 *  \brief Campaign adapter of the protected GEMM (abft_sgemm/dgemm/cgemm/zgemm).
 *
 *  --sizes m,n,k (default 96,96,96). --variant <ta><tb>[-row|-col] with ta, tb in n, t, c
 *  (default nn-row; complex types run column-major only, the BLAS convention). alpha and beta
 *  vary by trial over {1, -0.75} x {0, 0.5}; values from the trial's distribution
 *  (input_gen.hpp: uniform, normal, sign x 10^U(-3,3)).
 *
 *  Limits: twice the per-line bound of gemm_escape.hpp on the engine's internal view. A
 *  complex product runs as one real product of depth 2k (docs/ABFT.md §7): C' = P' Q' with
 *  P = op(B)^T (n x k) read as n x 2k reals and Q' the 2k x 2m real form of op(A)^T; its
 *  lines are the real and imaginary parts of the caller's rows.
 */
#include <algorithm>
#include <cmath>
#include <complex>

#include "abft/checksum/gemm_escape.hpp"
#include "campaign/input_gen.hpp"
#include "campaign/kernel.hpp"

namespace abft::campaign {

namespace {

bool parse_op(char c, abft_op* op) {
  switch (c) {
    case 'n': *op = ABFT_NO_TRANS; return true;
    case 't': *op = ABFT_TRANS; return true;
    case 'c': *op = ABFT_CONJ_TRANS; return true;
    default: return false;
  }
}

/** Fill v with values of distribution d (Wide: magnitudes 10^U(-3, 3)). */
template <class R>
void fill(std::vector<R>& v, InputDist d, InputRng& r) {
  for (R& x : v) x = R(r.draw(d, -3.0, 3.0));
}

template <class R, bool Cplx>
class GemmKernel final : public Kernel {
 public:
  static constexpr int kComp = Cplx ? 2 : 1;  // reals per element
  using C = std::complex<R>;

  GemmKernel(int64_t m, int64_t n, int64_t k, abft_op ta, abft_op tb, abft_layout lay)
      : m_(m), n_(n), k_(k), ta_(ta), tb_(tb), lay_(lay) {
    const bool rm = lay == ABFT_ROW_MAJOR;
    // Stored shapes: A is m x k (N) or k x m; B is k x n (N) or n x k; C m x n; tight lds.
    const int64_t ar = ta == ABFT_NO_TRANS ? m : k, ac = ta == ABFT_NO_TRANS ? k : m;
    const int64_t br = tb == ABFT_NO_TRANS ? k : n, bc = tb == ABFT_NO_TRANS ? n : k;
    lda_ = std::max<int64_t>(1, rm ? ac : ar);
    ldb_ = std::max<int64_t>(1, rm ? bc : br);
    ldc_ = std::max<int64_t>(1, rm ? n : m);
    A_.resize(size_t(ar * ac * kComp));
    B_.resize(size_t(br * bc * kComp));
    C0_.resize(size_t(m * n * kComp));
    Cw_.resize(C0_.size());
    lim_.resize(C0_.size());
  }

  std::string describe() const override {
    const char* ops = "ntc";
    std::string s = std::string(Cplx ? (sizeof(R) == 4 ? "cgemm" : "zgemm") : (sizeof(R) == 4 ? "sgemm" : "dgemm")) +
                    " m=" + std::to_string(m_) + " n=" + std::to_string(n_) + " k=" + std::to_string(k_) + " " +
                    (lay_ == ABFT_ROW_MAJOR ? "row-major " : "column-major ") + ops[ta_ - ABFT_NO_TRANS] +
                    ops[tb_ - ABFT_NO_TRANS] + ", alpha in {1,-0.75}, beta in {0,0.5}";
    return s;
  }

  std::vector<abft_site> sites() const override {
    return {ABFT_SITE_OUTPUT, ABFT_SITE_ACCUMULATOR, ABFT_SITE_PACKED_A, ABFT_SITE_PACKED_B};
  }

  void prepare(uint64_t trial, uint64_t seed) override {
    InputRng r(seed);
    const InputDist d = input_dist_of(trial);
    fill(A_, d, r);
    fill(B_, d, r);
    fill(C0_, d, r);
    alpha_ = (trial / 3) % 2 ? R(-0.75) : R(1);
    beta_ = (trial / 6) % 2 ? R(0.5) : R(0);
    limits_();
  }

  RunResult run(abft_handle_t h, abft_policy policy) override {
    RunResult r;
    std::copy(C0_.begin(), C0_.end(), Cw_.begin());
    if constexpr (Cplx) {
      const C al(alpha_, 0), be(beta_, 0);
      r.status = (sizeof(R) == 4 ? abft_cgemm : abft_zgemm)(h, policy, lay_, ta_, tb_, m_, n_, k_, &al, A_.data(),
                                                            lda_, B_.data(), ldb_, &be, Cw_.data(), ldc_, &r.report);
    } else if constexpr (sizeof(R) == 4) {
      r.status = abft_sgemm(h, policy, lay_, ta_, tb_, m_, n_, k_, alpha_, A_.data(), lda_, B_.data(), ldb_, beta_,
                            Cw_.data(), ldc_, &r.report);
    } else {
      r.status = abft_dgemm(h, policy, lay_, ta_, tb_, m_, n_, k_, alpha_, A_.data(), lda_, B_.data(), ldb_, beta_,
                            Cw_.data(), ldc_, &r.report);
    }
    r.calls = 1;
    r.out.assign(Cw_.begin(), Cw_.end());
    return r;
  }

  const std::vector<double>& limits() const override { return lim_; }

 private:
  /** Element (i, j) of a stored matrix, complex or real, as C. */
  C at(const std::vector<R>& M, int64_t ld, int64_t i, int64_t j) const {
    const int64_t e = lay_ == ABFT_ROW_MAJOR ? i * ld + j : i + j * ld;
    return Cplx ? C(M[size_t(2 * e)], M[size_t(2 * e + 1)]) : C(M[size_t(e)], 0);
  }
  C opA(int64_t i, int64_t p) const {
    if (ta_ == ABFT_NO_TRANS) return at(A_, lda_, i, p);
    const C v = at(A_, lda_, p, i);
    return ta_ == ABFT_CONJ_TRANS ? std::conj(v) : v;
  }
  C opB(int64_t p, int64_t j) const {
    if (tb_ == ABFT_NO_TRANS) return at(B_, ldb_, p, j);
    const C v = at(B_, ldb_, j, p);
    return tb_ == ABFT_CONJ_TRANS ? std::conj(v) : v;
  }

  void limits_() {
    const bool rm = lay_ == ABFT_ROW_MAJOR;
    std::vector<double> b;
    if constexpr (!Cplx) {
      const int64_t Mint = rm ? m_ : n_, lines = rm ? n_ : m_;
      auto A_int = [&](int64_t i, int64_t q) { return rm ? opA(i, q).real() : opB(q, i).real(); };
      auto B_int = [&](int64_t q, int64_t L) { return rm ? opB(q, L).real() : opA(L, q).real(); };
      auto C_int = [&](int64_t i, int64_t L) { return rm ? at(C0_, ldc_, i, L).real() : at(C0_, ldc_, L, i).real(); };
      b = abft::checksum::gemm_line_bounds<R>(Mint, k_, lines, double(alpha_), double(beta_), A_int, B_int, C_int);
    } else {
      // Column-major only: C'^T = P' Q', M_int = n, depth 2k, lines 2m (docs/ABFT.md §7).
      auto A_int = [&](int64_t j, int64_t q) {
        const C v = opB(q / 2, j);
        return q % 2 ? v.imag() : v.real();
      };
      auto B_int = [&](int64_t q, int64_t L) {
        const C v = opA(L / 2, q / 2);  // Q(p, i) = op(A)(i, p)
        const bool qi = q % 2, li = L % 2;
        return !qi ? (li ? v.imag() : v.real()) : (li ? v.real() : -v.imag());
      };
      auto C_int = [&](int64_t j, int64_t L) {
        const C v = at(C0_, ldc_, L / 2, j);
        return L % 2 ? v.imag() : v.real();
      };
      b = abft::checksum::gemm_line_bounds<R>(n_, 2 * k_, 2 * m_, double(alpha_), double(beta_), A_int, B_int, C_int);
    }
    for (int64_t i = 0; i < m_; ++i)
      for (int64_t j = 0; j < n_; ++j) {
        const int64_t e = rm ? i * ldc_ + j : i + j * ldc_;
        for (int c = 0; c < kComp; ++c) {
          const int64_t line = Cplx ? 2 * i + c : (rm ? j : i);
          lim_[size_t(e * kComp + c)] = 2.0 * b[size_t(line)];
        }
      }
  }

  int64_t m_, n_, k_, lda_ = 1, ldb_ = 1, ldc_ = 1;
  abft_op ta_, tb_;
  abft_layout lay_;
  R alpha_ = 1, beta_ = 0;
  std::vector<R> A_, B_, C0_, Cw_;
  std::vector<double> lim_;
};

}  // namespace

std::unique_ptr<Kernel> make_gemm_kernel(const KernelOptions& o, std::string* error) {
  std::vector<int64_t> s = o.sizes.empty() ? std::vector<int64_t>{96, 96, 96} : o.sizes;
  if (s.size() != 3 || s[0] < 1 || s[1] < 1 || s[2] < 1) {
    *error = "--sizes for gemm needs m,n,k (positive), e.g. 96,96,96";
    return nullptr;
  }
  std::string v = o.variant.empty() ? "nn" : o.variant;
  abft_layout lay = ABFT_ROW_MAJOR;
  const bool cplx = o.type == DataType::C32 || o.type == DataType::C64;
  if (cplx) lay = ABFT_COL_MAJOR;
  const size_t dash = v.find('-');
  if (dash != std::string::npos) {
    const std::string l = v.substr(dash + 1);
    if (l == "row") lay = ABFT_ROW_MAJOR;
    else if (l == "col") lay = ABFT_COL_MAJOR;
    else v = "?";
    v = v.substr(0, dash);
  }
  abft_op ta, tb;
  if (v.size() != 2 || !parse_op(v[0], &ta) || !parse_op(v[1], &tb)) {
    *error = "--variant for gemm needs <ta><tb>[-row|-col] with ta, tb in n, t, c, e.g. tn-col, got '" +
             o.variant + "'";
    return nullptr;
  }
  if (cplx && lay != ABFT_COL_MAJOR) {
    *error = "complex gemm campaigns run column-major (the BLAS convention): use --variant " + v + "-col";
    return nullptr;
  }
  switch (o.type) {
    case DataType::F32: return std::make_unique<GemmKernel<float, false>>(s[0], s[1], s[2], ta, tb, lay);
    case DataType::F64: return std::make_unique<GemmKernel<double, false>>(s[0], s[1], s[2], ta, tb, lay);
    case DataType::C32: return std::make_unique<GemmKernel<float, true>>(s[0], s[1], s[2], ta, tb, lay);
    default: return std::make_unique<GemmKernel<double, true>>(s[0], s[1], s[2], ta, tb, lay);
  }
}

}  // namespace abft::campaign
