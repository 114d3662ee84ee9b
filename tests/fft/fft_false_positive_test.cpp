/** \file fft_false_positive_test.cpp
 *  \brief Zero false positives (GUIDE §3 rules 2-3): with policy CORRECT no
 *  check fails on any finite input - impulses, constants, zeros, alternating
 *  signs, real-only and imaginary-only data, magnitudes spanning 1e+-30
 *  (double) / 1e+-15 (float) in one signal, a spike on tiny data, denormals,
 *  identical batch members, non-Hermitian C2R input, values near overflow -
 *  for every kind, sizes from 1 to 2^19 (Bluestein primes, four-step sizes),
 *  batches and 2D/3D. Non-finite input is data: the result equals the
 *  unprotected run's bit for bit (NaN where NaN), counted as skipped, never
 *  detected. Also prints the observed sharpness (bound / largest clean
 *  residual, 1 / report.max_ratio).
 */
#include <gtest/gtest.h>

#include <iostream>

#include "fft_test_util.hpp"

using namespace abft_fft_test;

namespace {

enum class Sig {
  Random, Zeros, ImpulseAt0, ImpulseMid, Constant, Alternating, RealOnly, ImagOnly,
  HugeRange, SpikeOnTiny, Denormals, IdenticalBatch, NonHermitian, BigButSafe, NearOverflow,
  LateHalf
};
struct SigInfo {
  Sig sig;
  const char* name;
};
const SigInfo kSignals[] = {
    {Sig::Random, "Random"},           {Sig::Zeros, "Zeros"},
    {Sig::ImpulseAt0, "ImpulseAt0"},   {Sig::ImpulseMid, "ImpulseMid"},
    {Sig::Constant, "Constant"},       {Sig::Alternating, "AlternatingSigns"},
    {Sig::RealOnly, "RealOnly"},       {Sig::ImagOnly, "ImagOnly"},
    {Sig::HugeRange, "HugeDynamicRange"}, {Sig::SpikeOnTiny, "SpikeOnTiny"},
    {Sig::Denormals, "Denormals"},     {Sig::IdenticalBatch, "IdenticalBatch"},
    {Sig::NonHermitian, "NonHermitianHalfSpectrum"}, {Sig::BigButSafe, "BigButSafe"},
    {Sig::NearOverflow, "NearOverflow"},
    // zero where the folded input sides sample the squares (the first elements; LinePlan::
    // judge_sampled): every such check falls back to the exact norm
    {Sig::LateHalf, "ZeroFirstHalf"}};

template <class T> double huge_exp();
template <> double huge_exp<float>() { return 15.0; }
template <> double huge_exp<double>() { return 30.0; }

/** Logical input of signal b (cnt elements of the input side, N the
 *  transform's size). */
template <class T>
std::vector<cld> make_signal(Sig sig, int64_t cnt, int64_t N, int64_t b, uint64_t seed) {
  std::mt19937_64 g = rng_for(seed + (sig == Sig::IdenticalBatch ? 0 : 977 * uint64_t(b)));
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<cld> v(static_cast<size_t>(cnt), cld(0, 0));
  const double e = huge_exp<T>();
  auto mag = [&](double lo, double hi) {
    std::uniform_real_distribution<double> d(lo, hi);
    return std::pow(10.0, d(g)) * (g() & 1 ? 1.0 : -1.0);
  };
  auto T_ = [](double x) { return ld(static_cast<T>(x)); };
  for (int64_t i = 0; i < cnt; ++i) {
    cld& z = v[size_t(i)];
    switch (sig) {
      case Sig::Random: case Sig::IdenticalBatch: case Sig::NonHermitian:
        z = cld(T_(u(g)), T_(u(g)));
        break;
      case Sig::LateHalf: z = 2 * i < cnt ? cld(0, 0) : cld(T_(u(g)), T_(u(g))); break;
      case Sig::Zeros: break;
      case Sig::ImpulseAt0: z = cld(i == 0 ? 1 : 0, 0); break;
      case Sig::ImpulseMid: z = cld(i == cnt / 2 ? -3.5L : 0, i == cnt / 2 ? 1.25L : 0); break;
      case Sig::Constant: z = cld(0.5L, -0.25L); break;
      case Sig::Alternating: z = cld(i % 2 ? -1 : 1, i % 2 ? 1 : -1); break;
      case Sig::RealOnly: z = cld(T_(u(g)), 0); break;
      case Sig::ImagOnly: z = cld(0, T_(u(g))); break;
      case Sig::HugeRange: z = cld(T_(mag(-e, e)), T_(mag(-e, e))); break;
      case Sig::SpikeOnTiny:
        z = i == (cnt * 2) / 3 ? cld(T_(std::pow(10.0, e)), T_(-std::pow(10.0, e)))
                               : cld(T_(mag(-e - 0.5, -e + 0.5)), T_(mag(-e - 0.5, -e + 0.5)));
        break;
      case Sig::Denormals: {
        const double tiny = double(std::numeric_limits<T>::min()) * 0.25;
        z = cld(T_(u(g) * tiny), T_(u(g) * tiny));
        break;
      }
      case Sig::BigButSafe: {  // |y_k| <= max/8: no output can overflow
        const double big = double(std::numeric_limits<T>::max()) / (8.0 * 2.0 * double(N));
        z = cld(T_(u(g) * big), T_(u(g) * big));
        break;
      }
      case Sig::NearOverflow: {  // a constant whose DC bin overflows (N >= 8)
        const double big = double(std::numeric_limits<T>::max()) / 4.0;
        z = cld(T_(big), T_(big));
        break;
      }
    }
  }
  return v;
}

struct Shape {
  std::vector<int64_t> n;
  int64_t batch;
};
std::string shape_name(const Shape& s) {
  return (s.n.size() == 1 ? "n" : "") + shape_tag(s.n) + "_b" + std::to_string(s.batch);
}
// Tiny, batched, Bluestein primes (1009, 10007, 65537), four-step (2^17), 2D, 3D.
const Shape kShapes[] = {{{1}, 1},     {{2}, 1},      {{5}, 1},     {{64}, 16},
                         {{1000}, 3},  {{1009}, 2},   {{4096}, 1},  {{10007}, 1},
                         {{65537}, 1}, {{131072}, 1}, {{8, 12}, 2}, {{5, 6, 7}, 1}};

/** One batched plan (a shape of one kind), run twice per input: CORRECT,
 *  then OFF (plans are costly at large Bluestein sizes: one per shape). */
template <class T>
struct TwoRuns {
  Transform<T> prot, off;
  Run<T> rp, ro;
};
template <class T>
class ShapePlan {
 public:
  ShapePlan(const KindDir& k, const Shape& s) {
    h_.set_policy(abft::Policy::Correct);
    m_.kind = k.kind, m_.sign = k.sign, m_.n = s.n, m_.howmany = s.batch;
    m_.idist = product(k.kind == ABFT_FFT_C2R ? half_shape(s.n) : s.n);
    m_.odist = product(k.kind == ABFT_FFT_R2C ? half_shape(s.n) : s.n);
    m_.flags = ABFT_FFT_PRESERVE_INPUT;
    status_ = m_.plan(plan_.out(), h_.get(), precision_of<T>());
  }
  abft_status status() const { return status_; }
  void run(const std::function<std::vector<cld>(int64_t, int64_t)>& sig, TwoRuns<T>* out) {
    for (Transform<T>* t : {&out->prot, &out->off}) {
      t->g = m_.geometry();
      t->allocate();
      const int64_t cnt = product(t->g.in_shape());
      for (int64_t b = 0; b < m_.howmany; ++b) t->set_input(b, sig(b, cnt));
    }
    EXPECT_EQ(abft_fft_set_policy(plan_.get(), ABFT_POLICY_CORRECT), ABFT_STATUS_SUCCESS);
    out->rp = out->prot.execute(plan_.get());
    EXPECT_EQ(abft_fft_set_policy(plan_.get(), ABFT_POLICY_OFF), ABFT_STATUS_SUCCESS);
    out->ro = out->off.execute(plan_.get());
  }

 private:
  abft::Handle h_;
  ManyArgs m_;
  Plan plan_;
  abft_status status_ = ABFT_STATUS_INTERNAL_ERROR;
};

/** Finite data, every signal on one shape: nothing detected, and the result
 *  is the unprotected one (within the accuracy tolerance; the same
 *  arithmetic normally gives the same bits). */
template <class T>
void finite_case(const KindDir& k, const Shape& s) {
  ShapePlan<T> plan(k, s);
  ASSERT_EQ(plan.status(), ABFT_STATUS_SUCCESS) << abft_status_string(plan.status());
  const int64_t N = product(s.n);
  for (const SigInfo& si : kSignals) {
    const Sig sig = si.sig;
    if (sig == Sig::NearOverflow && N < 8) continue;
    if (sig == Sig::NonHermitian && k.kind != ABFT_FFT_C2R) continue;
    SCOPED_TRACE(std::string(k.tag) + " " + type_tag<T>() + " " + shape_name(s) + " signal " + si.name);
    auto gen = [&](int64_t b, int64_t cnt) {
      std::vector<cld> v = make_signal<T>(sig, cnt, N, b, 4242 + uint64_t(N));
      if (k.kind == ABFT_FFT_C2R && sig != Sig::NonHermitian) make_hermitian(&v, s.n);
      return v;
    };
    TwoRuns<T> r;
    plan.run(gen, &r);
    EXPECT_EQ(r.rp.status, ABFT_STATUS_SUCCESS) << abft_status_string(r.rp.status);
    EXPECT_EQ(r.ro.status, ABFT_STATUS_SUCCESS) << abft_status_string(r.ro.status);
    EXPECT_EQ(r.rp.report.detected, 0u) << "false positive";
    EXPECT_EQ(r.rp.report.corrected, 0u);
    EXPECT_EQ(r.rp.report.recomputed, 0u);
    EXPECT_EQ(r.rp.report.uncorrectable, 0u);
    const bool may_skip = sig == Sig::NearOverflow || sig == Sig::BigButSafe;
    if (!may_skip) {
      EXPECT_EQ(r.rp.report.skipped, 0u) << "a check was skipped on finite, well-scaled input";
    }
    if (N >= 4) {
      EXPECT_GE(r.rp.report.checks + r.rp.report.skipped, 1u) << "nothing was verified";
    }
    if (may_skip) {
      // Overflow (or its absence) must be the unprotected kernel's, bit for bit.
      const int64_t d = first_difference(r.prot.out.data, r.off.out.data);
      EXPECT_EQ(d, -1) << "protected result differs from the unprotected one at scalar " << d;
      continue;
    }
    for (int64_t b = 0; b < s.batch; ++b) {
      const std::vector<cld> got = r.prot.output(b), want = r.off.output(b);
      const ErrStats es = compare(got, want);
      EXPECT_TRUE(within(es, tolerance<T>(N), tolerance_floor<T>(N), got, want))
          << "signal " << b << ": protected result far from the unprotected one";
    }
  }
}

/** Non-finite input: same bits as policy OFF (NaN positions match), the
 *  affected checks counted as skipped, nothing detected. */
enum class Bad { NaN, PosInf, NegInf, NaNAndInf };
const char* bad_name(Bad b) {
  return b == Bad::NaN ? "NaN" : b == Bad::PosInf ? "PosInf" : b == Bad::NegInf ? "NegInf" : "NaNAndInf";
}
const Shape kNonFiniteShapes[] = {{{1}, 1},      {{7}, 1},     {{64}, 3},   {{1009}, 3},
                                  {{4096}, 2},   {{131072}, 1}, {{8, 12}, 2}, {{5, 6, 7}, 1}};

template <class T>
void nonfinite_case(const KindDir& k) {
  for (const Shape& s : kNonFiniteShapes) {
    ShapePlan<T> plan(k, s);
    ASSERT_EQ(plan.status(), ABFT_STATUS_SUCCESS) << abft_status_string(plan.status());
    const int64_t N = product(s.n);
    const int64_t poisoned = s.batch > 1 ? 1 : 0;  // the batch member holding the bad value
    for (Bad bad : {Bad::NaN, Bad::PosInf, Bad::NegInf, Bad::NaNAndInf}) {
      SCOPED_TRACE(std::string(k.tag) + " " + type_tag<T>() + " " + shape_name(s) + " " + bad_name(bad));
      auto gen = [&](int64_t b, int64_t cnt) {
        std::vector<cld> v = make_signal<T>(Sig::Random, cnt, N, b, 99);
        if (k.kind == ABFT_FFT_C2R) make_hermitian(&v, s.n);
        if (b != poisoned) return v;
        const ld nan = std::numeric_limits<ld>::quiet_NaN(), inf = std::numeric_limits<ld>::infinity();
        const int64_t p = cnt / 3, q = (2 * cnt) / 3;
        switch (bad) {  // real parts, so that the real input of R2C holds them too
          case Bad::NaN: v[size_t(p)] = cld(nan, v[size_t(p)].imag()); break;
          case Bad::PosInf: v[size_t(p)] = cld(inf, 0); break;
          case Bad::NegInf: v[size_t(q)] = cld(-inf, v[size_t(q)].imag()); break;
          case Bad::NaNAndInf:
            v[size_t(p)] = cld(inf, v[size_t(p)].imag());
            v[size_t(q)] = cld(nan, -inf);
            break;
        }
        return v;
      };
      TwoRuns<T> r;
      plan.run(gen, &r);
      EXPECT_EQ(r.rp.status, ABFT_STATUS_SUCCESS) << abft_status_string(r.rp.status);
      EXPECT_EQ(r.rp.report.detected, 0u) << "non-finite input flagged as a fault";
      EXPECT_EQ(r.rp.report.corrected, 0u);
      EXPECT_EQ(r.rp.report.recomputed, 0u);
      EXPECT_GE(r.rp.report.skipped, 1u) << "non-finite input not counted as a skipped check";
      if (s.n.size() == 1 && s.batch > 1) {
        EXPECT_GE(r.rp.report.checks, 1u) << "the finite batch members were not checked";
      }
      const int64_t d = first_difference(r.prot.out.data, r.off.out.data);
      EXPECT_EQ(d, -1) << "protected result differs from policy OFF at scalar " << d
                       << (d >= 0 ? " (" + std::to_string(double(r.prot.out.data[size_t(d)])) + " vs " +
                                        std::to_string(double(r.off.out.data[size_t(d)])) + ")"
                                  : std::string());
    }
  }
}

/** Observed sharpness: the bound over the largest clean residual. */
template <class T>
void sharpness() {
  struct C {
    abft_fft_kind kind;
    int sign;
    int64_t n;
  };
  const C cases[] = {{ABFT_FFT_C2C, -1, 64},      {ABFT_FFT_C2C, -1, 1024},
                     {ABFT_FFT_C2C, -1, 1009},    {ABFT_FFT_C2C, +1, 65536},
                     {ABFT_FFT_C2C, -1, 131072},  {ABFT_FFT_C2C, -1, 1048576},
                     {ABFT_FFT_R2C, -1, 4096},    {ABFT_FFT_C2R, +1, 4096}};
  for (const C& c : cases) {
    SCOPED_TRACE(std::string(kind_tag(c.kind)) + " n=" + std::to_string(c.n));
    abft::Handle h;
    h.set_policy(abft::Policy::Correct);
    Plan plan;
    ASSERT_EQ(abft_fft_plan_1d(plan.out(), h.get(), precision_of<T>(), c.kind, c.n, c.sign, 0),
              ABFT_STATUS_SUCCESS);
    Transform<T> t;
    t.g = contiguous(c.kind, c.sign, {c.n});
    t.allocate();
    double worst = 0;  // largest max_ratio over a few random inputs
    uint64_t checks = 0;
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      t.fill_random(seed * 31 + uint64_t(c.n));
      const Run<T> r = t.execute(plan.get());
      ASSERT_EQ(r.status, ABFT_STATUS_SUCCESS);
      EXPECT_EQ(r.report.detected, 0u);
      worst = std::max(worst, r.report.max_ratio);
      checks += r.report.checks;
    }
    std::cout << "[sharpness] " << kind_tag(c.kind) << " " << type_tag<T>() << " n=" << c.n
              << ": bound / largest clean residual = " << (worst > 0 ? 1.0 / worst : 0.0)
              << " (max_ratio " << worst << ", " << checks << " checks)" << std::endl;
    EXPECT_GT(worst, 0.0) << "report.max_ratio not filled: sharpness unknown";
    EXPECT_LT(worst, 1.0) << "a passing check's residual exceeded its bound";
  }
}

template <class T>
void register_for() {
  for (const KindDir& k : kKinds) {
    for (const Shape& sh : kShapes)
      register_test("FftFalsePositive", std::string(k.tag) + "_" + type_tag<T>() + "_" + shape_name(sh),
                    [k, sh] { finite_case<T>(k, sh); });
    register_test("FftNonFiniteInput", std::string(k.tag) + "_" + type_tag<T>(),
                  [k] { nonfinite_case<T>(k); });
  }
  register_test("FftSharpness", std::string("Report_") + type_tag<T>(), [] { sharpness<T>(); });
}

const bool kRegistered = [] {
  register_for<float>();
  register_for<double>();
  return true;
}();

}  // namespace
