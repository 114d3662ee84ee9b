/** \file cmd_demo_fft.cpp
 *  \brief The FFT part of `abft demo`: protected FFT plans with faults injected through the
 *  handle's built-in injector, each run compared bit for bit with a clean run of the same plan.
 *
 *  Every case (c2c float and double, a batch, r2c and c2r, a four-step length,
 *  a Bluestein prime, a 2D transform) is one plan on the protected handle.
 *  Its clean run executes the plan with policy off and no faults; then each
 *  scenario executes it under policy correct with the scenario's faults at
 *  the three FFT sites (a unit's output before verification, a value a stage
 *  wrote, a twiddle/chirp table entry) and the models of the shared hook.
 *  A repaired unit is recomputed with the same arithmetic, so the protected
 *  output must equal the clean one bitwise (OK). The exceptions allowed are
 *  the ones the checksum cannot see: a fault whose effect is below the
 *  round-off bound goes undetected, and a twiddle fault also reaches units
 *  whose change stayed below their bound. Both leave every output element of
 *  every signal within fft_conservative_coefficient(N) ||x_signal||_2 of the
 *  clean run (MASKED, the rule GUIDE §4 gives for escapes); anything else is
 *  a MISMATCH, and a detection in a run without faults is a FALSE-ALARM.
 */
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "abft/checksum/fft_bounds.hpp"
#include "abft/fft.hpp"
#include "commands.hpp"
#include "demo_table.hpp"

namespace abft::cli {
namespace {

namespace af = abft::fft;

/** One plan of the demo: kind, direction (C2C), precision, shape, batch. */
struct FftCase {
  abft_fft_kind kind;
  af::Direction dir;
  bool dbl;
  af::Dims n;
  int64_t batch;
  const char* note;  ///< what the case exercises, shown after the shape
};

std::vector<FftCase> fft_cases(bool quick) {
  using D = af::Direction;
  if (quick)
    return {{ABFT_FFT_C2C, D::Forward, false, {256}, 1, ""},
            {ABFT_FFT_C2C, D::Backward, true, {360}, 1, ""},
            {ABFT_FFT_C2C, D::Forward, true, {100}, 16, ""},
            {ABFT_FFT_R2C, D::Forward, false, {512}, 4, ""},
            {ABFT_FFT_C2R, D::Backward, true, {200}, 2, ""},
            {ABFT_FFT_C2C, D::Forward, false, {131072}, 1, "4-step"},
            {ABFT_FFT_C2C, D::Forward, true, {1009}, 1, "Bluestein"}};
  return {{ABFT_FFT_C2C, D::Forward, false, {4096}, 1, ""},
          {ABFT_FFT_C2C, D::Backward, true, {3000}, 1, ""},
          {ABFT_FFT_C2C, D::Forward, true, {1000}, 64, ""},
          {ABFT_FFT_C2C, D::Backward, false, {64, 48}, 2, "2D"},
          {ABFT_FFT_R2C, D::Forward, false, {4096}, 8, ""},
          {ABFT_FFT_C2R, D::Backward, true, {2000}, 4, ""},
          {ABFT_FFT_C2C, D::Forward, false, {131072}, 1, "4-step"},
          {ABFT_FFT_C2C, D::Backward, true, {131072}, 1, "4-step"},
          {ABFT_FFT_C2C, D::Forward, true, {1009}, 1, "Bluestein"},
          {ABFT_FFT_C2C, D::Forward, false, {1009}, 4, "Bluestein"}};
}

std::string case_text(const FftCase& c) {
  std::string s = c.kind == ABFT_FFT_C2C ? (c.dir == af::Direction::Forward ? "c2c fwd " : "c2c bwd ")
                  : c.kind == ABFT_FFT_R2C ? "r2c "
                                           : "c2r ";
  for (size_t d = 0; d < c.n.size(); ++d) s += (d ? "x" : "") + std::to_string(c.n[d]);
  if (c.batch > 1) s += " b" + std::to_string(c.batch);
  if (*c.note) s += std::string(" ") + c.note;
  return s;
}

/** Scenarios for a type whose top exponent bit is `hi` (30 float, 62 double). */
std::vector<Scenario> fft_scenarios(int hi) {
  auto spec = [](abft_site s, abft_fault_model m, int bit = -1) { return fault_spec(s, m, bit); };
  return label_scenarios({
      {},
      {spec(ABFT_SITE_OUTPUT, ABFT_FAULT_BITFLIP, hi)},
      {spec(ABFT_SITE_OUTPUT, ABFT_FAULT_NAN)},
      {spec(ABFT_SITE_FFT_STAGE, ABFT_FAULT_BITFLIP, hi)},
      {spec(ABFT_SITE_FFT_STAGE, ABFT_FAULT_POS_INF)},
      {spec(ABFT_SITE_FFT_STAGE, ABFT_FAULT_RANDOM)},
      {spec(ABFT_SITE_FFT_STAGE, ABFT_FAULT_BITFLIP2, hi - 1)},
      {spec(ABFT_SITE_FFT_TWIDDLE, ABFT_FAULT_BITFLIP, hi)},
      {spec(ABFT_SITE_FFT_TWIDDLE, ABFT_FAULT_RANDOM)},
      {spec(ABFT_SITE_OUTPUT, ABFT_FAULT_NEG_INF), spec(ABFT_SITE_FFT_TWIDDLE, ABFT_FAULT_NAN)},
  });
}

template <class E> struct Scalar { using type = E; };
template <class R> struct Scalar<std::complex<R>> { using type = R; };

template <class E>
void fill(std::vector<E>& v, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  for (E& x : v) {
    if constexpr (std::is_same_v<E, typename Scalar<E>::type>)
      x = E(d(rng));
    else
      x = E(typename Scalar<E>::type(d(rng)), typename Scalar<E>::type(d(rng)));
  }
}

double magnitude(double x) { return std::fabs(x); }
template <class R>
double magnitude(std::complex<R> z) { return std::hypot(double(z.real()), double(z.imag())); }

struct Verdict {
  bool bitwise = true;   ///< output identical to the clean run
  bool in_bound = true;  ///< every signal's change within its escape bound
  double max_rel = 0;    ///< max |y - y_clean| / max |y_clean| (inf when not finite)
};

/** Compares the output with the clean one, signal by signal (packed layout:
 *  signal b is elements [b*per, (b+1)*per)). */
template <class Out>
Verdict compare(const std::vector<Out>& y, const std::vector<Out>& ref, int64_t batch,
                const std::vector<double>& bound) {
  Verdict v;
  v.bitwise = std::memcmp(y.data(), ref.data(), y.size() * sizeof(Out)) == 0;
  if (v.bitwise) return v;
  const size_t per = y.size() / size_t(batch);
  double max_ref = 0, max_diff = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    max_ref = std::max(max_ref, magnitude(ref[i]));
    double d = magnitude(y[i] - ref[i]);
    if (!std::isfinite(d)) d = INFINITY;
    max_diff = std::max(max_diff, d);
    if (!(d <= bound[i / per])) v.in_bound = false;
  }
  v.max_rel = max_ref > 0 ? max_diff / max_ref : max_diff;
  return v;
}

/** All scenarios of one case with input type In and output type Out. */
template <class In, class Out>
void run_case(const FftCase& c, const DemoOptions& opt, Handle& prot, Injector& inj,
              std::mt19937_64& rng, DemoTally& tally) {
  using R = typename af::Plan<In, Out>::real_type;
  constexpr abft_kernel kernel = sizeof(R) == 4 ? ABFT_KERNEL_SFFT : ABFT_KERNEL_DFFT;
  const char* kname = abft_kernel_name(kernel);
  const std::string text = case_text(c);
  const std::vector<Scenario> scenarios = fft_scenarios(sizeof(R) == 4 ? 30 : 62);

  // Packed batches; PreserveInput (FFTW's rule for c2r of rank >= 2) keeps
  // the input of every scenario the same.
  af::Plan<In, Out> plan = af::many<In, Out>(c.n, c.batch, {}, {}, c.dir, &prot, af::PreserveInput);
  std::vector<In> x(size_t(plan.in_size()));
  std::vector<Out> ref(size_t(plan.out_size())), y(ref.size());
  fill(x, rng);
  if (opt.verbose) std::printf("      plan: %s\n", plan.describe().c_str());

  // The clean run: the same plan, policy off, no faults.
  inj.clear();
  plan.set_policy(Policy::Off);
  const Status cs = plan.execute(x, ref);
  plan.set_policy(Policy::Default);  // the handle's: correct
  if (cs != ABFT_STATUS_SUCCESS) {
    report_clean_failure(kname, text, cs, scenarios.size(), tally);
    return;
  }

  // Escape bound of each signal: coefficient(N) ||x_signal||_2 (a half
  // spectrum stands for a Hermitian one of up to sqrt(2) times its norm).
  int64_t N = 1;
  for (int64_t v : c.n) N *= v;
  const size_t per_in = x.size() / size_t(c.batch);
  std::vector<double> bound(size_t(c.batch));
  for (int64_t b = 0; b < c.batch; ++b) {
    double s = 0;
    for (size_t i = 0; i < per_in; ++i) s += std::pow(magnitude(x[size_t(b) * per_in + i]), 2);
    const double norm = std::sqrt(s) * (c.kind == ABFT_FFT_C2R ? std::sqrt(2.0) : 1.0);
    bound[size_t(b)] = checksum::fft_escape_bound<R>(N, norm);
  }

  for (const Scenario& sc : scenarios) {
    inj.clear();
    for (const abft_fault& f : sc.faults) inj.add(f);
    std::fill(y.begin(), y.end(), Out(0));
    abft_report rep;
    std::memset(&rep, 0, sizeof rep);
    const Status st = plan.execute(x, y, &rep);
    const InjectedFaults injected = last_faults(inj);

    const Verdict v = compare(y, ref, c.batch, bound);
    static const char* const coords[3] = {"unit", "scalar", "stage"};
    report_run({kname, text, &sc, injected, st, rep,
                st == ABFT_STATUS_SUCCESS && (v.bitwise || v.in_bound), !v.bitwise, v.max_rel},
               opt, coords, tally);
  }
  inj.clear();
}

template <class R>
void run_case_typed(const FftCase& c, const DemoOptions& opt, Handle& prot, Injector& inj,
                    std::mt19937_64& rng, DemoTally& tally) {
  using C = std::complex<R>;
  switch (c.kind) {
    case ABFT_FFT_C2C: run_case<C, C>(c, opt, prot, inj, rng, tally); break;
    case ABFT_FFT_R2C: run_case<R, C>(c, opt, prot, inj, rng, tally); break;
    case ABFT_FFT_C2R: run_case<C, R>(c, opt, prot, inj, rng, tally); break;
  }
}

/** ISA of the FFT kernels, from a small plan's description ("... isa=avx2"). */
std::string fft_isa() {
  const std::string d = af::c2c<float>(64, af::Direction::Forward).describe();
  const size_t at = d.rfind("isa=");
  return at == std::string::npos ? "?" : d.substr(at + 4);
}

}  // namespace

void demo_fft(const DemoOptions& opt, Handle& prot, DemoTally& tally) {
  // Its own injector and data stream: the FFT draws do not depend on the GEMM part.
  Injector inj(opt.seed ^ 0xFF7u);
  prot.set_injector(&inj);
  std::mt19937_64 rng(opt.seed + 0x9E3779B97F4A7C15ull);

  std::printf("FFT: kernels %s, units checked per line (four-step: per sub-transform)\n",
              fft_isa().c_str());
  std::printf(
      "OK: the output equals the clean run of the same plan bit for bit (a repair recomputes\n"
      "    the unit with the same arithmetic). MASKED: a fault the checksum cannot tell from\n"
      "    round-off moved each signal by less than its bound. MISMATCH: anything else.\n\n");
  print_table_header("fft", "case");
  for (const FftCase& c : fft_cases(opt.quick)) {
    if (c.dbl)
      run_case_typed<double>(c, opt, prot, inj, rng, tally);
    else
      run_case_typed<float>(c, opt, prot, inj, rng, tally);
  }
  prot.set_injector(nullptr);
}

}  // namespace abft::cli
