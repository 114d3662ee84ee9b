/** \file fault_util.hpp
 *  \brief Fault-injection test helpers: fault specs, injected runs, and the
 *  per-checked-line escape bound the engine guarantees (see docs/RELIABILITY.md).
 */
#pragma once
#include <algorithm>
#include <vector>

#include "abft/checksum/bounds.hpp"
#include "abft/checksum/gemm_escape.hpp"
#include "abft/checksum/float_bits.hpp"
#include "test_util.hpp"

namespace abft_test {

inline abft_fault make_spec(abft_site site, abft_fault_model model, int bit, int64_t row,
                            int64_t col, int64_t kpos) {
  abft_fault f{};
  f.site = site;
  f.model = model;
  f.bit = bit;
  f.row = row;
  f.col = col;
  f.kpos = kpos;
  return f;
}

/** One line for a fault; `row`, `kpos` name those coordinates (FFT: "unit", "stage"). */
inline std::string describe(const abft_fault& f, const char* row = "row", const char* kpos = "kpos") {
  std::ostringstream os;
  os << site_tag(f.site) << "/" << model_tag(f.model) << " bit=" << f.bit << " " << row << "="
     << f.row << " col=" << f.col << " " << kpos << "=" << f.kpos << " original=" << f.original
     << " corrupted=" << f.corrupted << " applied=" << f.applied;
  return os.str();
}

/** One call with a seeded built-in injector holding `specs`; returns the
 *  outcome and the concrete faults as abft_injector_last() reports them. */
template <class T>
struct FaultRun {
  Outcome<T> out;
  std::vector<abft_fault> faults;
};
/** Runs call() with a fresh seeded injector holding `specs` attached to h (detached
 *  after); returns the concrete faults as abft_injector_last() reports them (<= 32). */
template <class F>
std::vector<abft_fault> with_injector(abft::Handle& h, const std::vector<abft_fault>& specs,
                                      uint64_t seed, F call) {
  abft::Injector inj(seed);
  for (const abft_fault& s : specs) inj.add(s);
  h.set_injector(&inj);
  call();
  h.set_injector(nullptr);
  abft_fault buf[32];
  int cnt = 0;
  EXPECT_EQ(abft_injector_last(inj.get(), buf, 32, &cnt), ABFT_STATUS_SUCCESS);
  return std::vector<abft_fault>(buf, buf + std::min(cnt, 32));
}
template <class T>
FaultRun<T> run_with_faults(const Problem<T>& p, abft::Handle& h, abft_policy pol,
                            const std::vector<abft_fault>& specs, uint64_t seed) {
  FaultRun<T> r;
  r.faults = with_injector(h, specs, seed, [&] { r.out = run(p, h.get(), pol); });
  return r;
}

/** Did the fault change the stored bits of the value (as type T)? */
template <class T>
bool bits_changed(const abft_fault& f) {
  const T o = static_cast<T>(f.original), c = static_cast<T>(f.corrupted);
  if (std::isnan(o) != std::isnan(c)) return true;
  if (std::isnan(o)) return false;  // both NaN: can't tell, treat as unchanged
  return abft::checksum::to_bits(o) != abft::checksum::to_bits(c);
}

/** The engine's guaranteed per-line escape bound (conservative for any blocking).
 *  Internally the engine works on a row-major view and checks, for each column
 *  L of C_int, the sum over its rows. Row-major: C_int = C, A_int = op(A),
 *  B_int = op(B), lines are the caller's columns. Column-major: C_int = C^T,
 *  A_int = op(B)^T, B_int = op(A)^T, lines are the caller's rows.
 *    X_L = |alpha| max_p(sum_i |A_int(i,p)|) sum_p |B_int(p,L)| + |beta| sum_i |C0_int(i,L)|
 *    bound_L = gemm_conservative_coefficient(M_int, k, beta != 0) X_L + abs term. */
template <class T>
struct LineBounds {
  bool row_major = true;
  std::vector<double> b;
  double at(int64_t i, int64_t j) const { return b[size_t(row_major ? j : i)]; }
};
template <class T>
LineBounds<T> line_bounds(const Problem<T>& p) {
  LineBounds<T> lb;
  lb.row_major = (p.layout == ABFT_ROW_MAJOR);
  const bool rm = lb.row_major;
  const int64_t Mint = rm ? p.m : p.n;
  const int64_t lines = rm ? p.n : p.m;
  auto A_int = [&](int64_t i, int64_t q) -> double {
    return rm ? double(p.opA(i, q)) : double(p.opB(q, i));
  };
  auto B_int = [&](int64_t q, int64_t L) -> double {
    return rm ? double(p.opB(q, L)) : double(p.opA(L, q));
  };
  auto C_int = [&](int64_t i, int64_t L) -> double {
    return rm ? double(p.c0(i, L)) : double(p.c0(L, i));
  };
  lb.b = abft::checksum::gemm_line_bounds<T>(
      Mint, p.k, lines, double(p.alpha), double(p.beta), A_int, B_int, C_int);
  return lb;
}

/** Undetected-escape check: |C - C_clean| <= 2 bound_L elementwise. */
template <class T>
::testing::AssertionResult within_escape_bound(const Problem<T>& p, const std::vector<T>& C,
                                               const std::vector<T>& Cclean,
                                               const LineBounds<T>& lb) {
  int64_t bad = 0;
  std::ostringstream os;
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = 0; j < p.n; ++j) {
      const double got = C[p.ic(i, j)], want = Cclean[p.ic(i, j)];
      const double lim = 2.0 * lb.at(i, j);
      const bool ok = std::isfinite(got) ? std::fabs(got - want) <= lim : same_value(got, want);
      if (!ok) {
        if (bad < 5)
          os << "\n  C(" << i << "," << j << ") = " << got << " clean " << want << " |diff| "
             << std::fabs(got - want) << " > 2*bound " << lim;
        ++bad;
      }
    }
  if (!bad) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << p.describe() << ": undetected fault left " << bad
                                       << " element(s) beyond 2*bound of the clean run"
                                       << os.str();
}

/** A large exponent-bit flip for value v: the highest zero exponent bit at or
 *  above mantissa+3 (multiplies |v| by at least 2^8). */
template <class T>
int growing_exponent_bit(T v) {
  using FB = abft::checksum::FloatBits<T>;
  const auto u = abft::checksum::to_bits(v);
  for (int b = FB::kBits - 2; b >= FB::kMantissa + 3; --b)
    if (!((u >> b) & 1)) return b;
  return FB::kBits - 2;
}

}  // namespace abft_test
