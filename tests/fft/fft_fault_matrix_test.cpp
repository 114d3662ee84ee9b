/** \file fft_fault_matrix_test.cpp
 *  \brief The FFT fault matrix: through the handle's built-in injector, every
 *  site (unit output, stage intermediate, twiddle table) x every fault model
 *  x (for bit flips) every bit position on a small size and a sample of bits
 *  on the others; c2c forward/backward, Bluestein, four-step, 2D, r2c, c2r,
 *  batches; float and double. Each trial is judged against a clean run of
 *  the same plan: a detected fault under policy CORRECT ends in SUCCESS with
 *  the clean output bit for bit (recomputation repeats the same arithmetic);
 *  an undetected one leaves every output element of every signal within
 *  fft_conservative_coefficient<T>(N) ||x_signal||_2 of the clean run. Under
 *  policy DETECT a detection returns FAULT_DETECTED with the output as
 *  computed (the same bits as the unprotected run with the same fault).
 *  Also: several faults per call, a custom planner hook, injection under
 *  policy OFF, and the statistics counters.
 */
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>

#include "abft/checksum/float_bits.hpp"
#include "fault_util.hpp"
#include "fft_test_util.hpp"

using namespace abft_fft_test;

namespace {

struct Config {
  const char* name;
  abft_fft_kind kind;
  int sign;
  std::vector<int64_t> n;
  int64_t batch;
  bool all_bits;    // every bit position (else a sample)
  int threads = 1;  // OpenMP threads of the handle
};
// Every bit position on the small plans (a trial costs microseconds there),
// a sample on the four-step one.
const Config kConfigs[] = {
    {"C2C_Forward_n64_b1", ABFT_FFT_C2C, -1, {64}, 1, true},
    {"C2C_Backward_n1000_b3", ABFT_FFT_C2C, +1, {1000}, 3, true, 2},
    {"C2C_Forward_n1009_b1", ABFT_FFT_C2C, -1, {1009}, 1, true},       // Bluestein
    {"C2C_Forward_n131072_b1", ABFT_FFT_C2C, -1, {131072}, 1, false},  // four-step
    {"C2C_Forward_16x12_b2", ABFT_FFT_C2C, -1, {16, 12}, 2, true},     // line passes
    {"R2C_Forward_n1000_b2", ABFT_FFT_R2C, -1, {1000}, 2, true},
    {"C2R_Backward_n1000_b2", ABFT_FFT_C2R, +1, {1000}, 2, true, 2},
};
const abft_site kSites[] = {ABFT_SITE_OUTPUT, ABFT_SITE_FFT_STAGE, ABFT_SITE_FFT_TWIDDLE};
const abft_fault_model kModels[] = {ABFT_FAULT_BITFLIP, ABFT_FAULT_BITFLIP2, ABFT_FAULT_RANDOM,
                                    ABFT_FAULT_ZERO,    ABFT_FAULT_NAN,      ABFT_FAULT_POS_INF,
                                    ABFT_FAULT_NEG_INF};

/** ABFT_FFT_TEST_VERBOSE=1 prints every trial. */
bool verbose() {
  static const bool v = std::getenv("ABFT_FFT_TEST_VERBOSE") != nullptr;
  return v;
}

bool bit_model(abft_fault_model m) { return m == ABFT_FAULT_BITFLIP || m == ABFT_FAULT_BITFLIP2; }

template <class T>
std::vector<int> bits_for(const Config& c, abft_fault_model m) {
  const int w = int(sizeof(T) * 8) - (m == ABFT_FAULT_BITFLIP2 ? 1 : 0);
  std::vector<int> b;
  if (c.all_bits) {
    for (int i = 0; i < w; ++i) b.push_back(i);
    return b;
  }
  // Low, middle and top mantissa bits, exponent bits (low to high), sign.
  if (sizeof(T) == 4)
    b = {0, 11, 22, 23, 26, 29, 30};
  else
    b = {0, 26, 51, 52, 56, 60, 62};
  b.push_back(m == ABFT_FAULT_BITFLIP2 ? w - 1 : int(sizeof(T) * 8) - 1);
  return b;
}

std::string describe(const abft_fault& f) { return abft_test::describe(f, "unit", "stage"); }
using abft_test::make_spec;
template <class T>
bool finite_as(double v) {
  return std::isfinite(static_cast<T>(v));
}

/** A configured plan, its clean input and output, and per-signal bounds. */
template <class T>
struct Bench {
  Config c;
  abft::Handle h;
  Plan plan;
  Transform<T> clean;  // input + the clean output
  std::vector<double> bound;  // per signal
  std::vector<double> rms;    // per signal: ||y_clean||_2 / sqrt(elements), for the summary
  abft_call_info info{};
  bool ok = false;

  explicit Bench(const Config& cfg, int threads = 1) : c(cfg) {
    h.set_policy(abft::Policy::Correct);
    h.set_threads(threads);
    ManyArgs m;
    m.kind = c.kind, m.sign = c.sign, m.n = c.n, m.howmany = c.batch;
    m.idist = product(c.kind == ABFT_FFT_C2R ? half_shape(c.n) : c.n);
    m.odist = product(c.kind == ABFT_FFT_R2C ? half_shape(c.n) : c.n);
    m.flags = ABFT_FFT_PRESERVE_INPUT;
    const abft_status ps = m.plan(plan.out(), h.get(), precision_of<T>());
    EXPECT_EQ(ps, ABFT_STATUS_SUCCESS) << abft_status_string(ps);
    if (ps != ABFT_STATUS_SUCCESS) return;
    clean.g = m.geometry();
    clean.allocate();
    clean.fill_random(20240 + uint64_t(product(c.n)));
    const Run<T> r = clean.execute(plan.get());
    EXPECT_EQ(r.status, ABFT_STATUS_SUCCESS);
    EXPECT_EQ(r.report.detected, 0u) << "clean run flagged";
    if (r.status != ABFT_STATUS_SUCCESS || r.report.detected) return;
    const int64_t N = product(c.n);
    for (int64_t b = 0; b < c.batch; ++b)
      bound.push_back(escape_bound<T>(N, unit_input_norm(c.kind, clean.input(b))));
    for (int64_t b = 0; b < c.batch; ++b) {
      const std::vector<cld> y = clean.output(b);
      rms.push_back(double(l2norm(y)) / std::sqrt(double(y.size())));
    }
    // What the injector is told about the call.
    ProbeInfo probe;
    EXPECT_EQ(abft_handle_set_inject_hook(h.get(), probe_hook, &probe), ABFT_STATUS_SUCCESS);
    Transform<T> t = clean;
    t.execute(plan.get());
    EXPECT_EQ(abft_handle_set_inject_hook(h.get(), nullptr, nullptr), ABFT_STATUS_SUCCESS);
    EXPECT_EQ(probe.calls, 1) << "the planner hook was not consulted exactly once";
    info = probe.info;
    EXPECT_EQ(info.kernel, kernel_of<T>());
    EXPECT_GE(info.m, c.batch) << "fewer units than signals";
    EXPECT_GE(info.n, 2) << "scalars of the longest unit";
    EXPECT_EQ(first_difference(t.out.data, clean.out.data), -1) << "an empty injection plan changed the output";
    ok = probe.calls == 1 && info.m > 0 && info.n > 0;
  }

  /** Runs one call with a fresh seeded injector holding `specs`. */
  struct Trial {
    Transform<T> t;
    Run<T> r;
    std::vector<abft_fault> faults;
  };
  Trial run(const std::vector<abft_fault>& specs, uint64_t seed) {
    Trial tr;
    tr.t = clean;
    tr.faults = abft_test::with_injector(h, specs, seed, [&] { tr.r = tr.t.execute(plan.get()); });
    return tr;
  }

  /** Every output element of every signal within its bound of the clean run;
   *  returns the largest |change| / bound seen (inf when not finite). */
  double worst_change(const Transform<T>& t, int64_t* bad_signal, int64_t* bad_elem) const {
    double worst = 0;
    for (int64_t b = 0; b < c.batch; ++b) {
      const std::vector<cld> got = t.output(b), ref = clean.output(b);
      for (size_t i = 0; i < got.size(); ++i) {
        const long double dr = got[i].real() - ref[i].real(), di = got[i].imag() - ref[i].imag();
        const long double d = std::sqrt(dr * dr + di * di);
        const double ratio = std::isfinite(double(d)) ? double(d) / bound[size_t(b)]
                                                      : std::numeric_limits<double>::infinity();
        if (!(ratio <= worst)) {
          worst = std::isnan(ratio) ? std::numeric_limits<double>::infinity() : ratio;
          *bad_signal = b;
          *bad_elem = int64_t(i);
        }
      }
    }
    return worst;
  }
};

/** The matrix cell (site, model, config) under policy CORRECT. */
template <class T>
void matrix_cell(abft_site site, abft_fault_model model, const Config& cfg) {
  Bench<T> bench(cfg, cfg.threads);
  ASSERT_TRUE(bench.ok) << "setup failed";
  const abft_call_info& ci = bench.info;
  std::mt19937_64 rng(1000003u * uint64_t(site) + 7919u * uint64_t(model) + uint64_t(product(cfg.n)));
  std::vector<std::pair<int, int>> trials;  // (bit, index)
  if (bit_model(model)) {
    for (int b : bits_for<T>(cfg, model)) trials.push_back({b, int(trials.size())});
  } else {
    for (int i = 0; i < 4; ++i) trials.push_back({0, i});
  }
  int applied = 0, detected = 0, masked = 0, no_effect = 0, partly_masked = 0;
  double worst_masked = 0, worst_masked_rms = 0;  // largest undetected change: / bound, / rms |y|
  for (const auto& tb : trials) {
    const int bit = tb.first, idx = tb.second;
    abft_fault spec = make_spec(site, model, bit, -1, -1, -1);
    const bool fixed = idx % 2 == 0;  // odd trials let the injector draw the coordinates
    if (fixed) {
      spec.row = int64_t(rng() % uint64_t(ci.m));
      spec.col = int64_t(rng() % uint64_t(ci.n));
      spec.kpos = ci.k > 0 ? int64_t(rng() % uint64_t(ci.k)) : 0;
    }
    const uint64_t seed = 0xFF70000u + uint64_t(idx) * 131 + uint64_t(model);
    auto tr = bench.run({spec}, seed);
    ASSERT_EQ(tr.faults.size(), 1u) << "the injector planned no fault for this call";
    const abft_fault f = tr.faults[0];
    SCOPED_TRACE("trial " + std::to_string(idx) + (fixed ? " (fixed)" : " (drawn)") + ": " +
                 describe(f) + " | " + cfg.name + " " + type_tag<T>() + " units=" +
                 std::to_string(ci.m) + " scalars=" + std::to_string(ci.n) + " stages=" +
                 std::to_string(ci.k));
    EXPECT_EQ(f.site, site);
    EXPECT_EQ(f.model, model);
    if (bit_model(model)) {
      EXPECT_EQ(f.bit, bit);
    }
    if (fixed) {
      EXPECT_EQ(f.row, spec.row);
      if (site != ABFT_SITE_OUTPUT) {
        EXPECT_EQ(f.kpos, spec.kpos);
      }
    }
    EXPECT_EQ(tr.r.report.uncorrectable, 0u);
    if (!f.applied) {
      // Nothing landed: the call is a clean one.
      EXPECT_EQ(tr.r.status, ABFT_STATUS_SUCCESS);
      EXPECT_EQ(tr.r.report.detected, 0u) << "a fault that did not land was detected";
      EXPECT_EQ(first_difference(tr.t.out.data, bench.clean.out.data), -1)
          << "a fault that did not land changed the output";
      continue;
    }
    ++applied;
    const int64_t d = first_difference(tr.t.out.data, bench.clean.out.data);
    const std::string rep = "report: checks " + std::to_string(tr.r.report.checks) + " detected " +
                            std::to_string(tr.r.report.detected) + " corrected " +
                            std::to_string(tr.r.report.corrected) + " recomputed " +
                            std::to_string(tr.r.report.recomputed) + " status " +
                            abft_status_string(tr.r.status);
    if (verbose()) {
      int64_t bs = -1, be = -1;
      std::cout << "  " << describe(f) << " -> detected " << tr.r.report.detected << " corrected "
                << tr.r.report.corrected << " recomputed " << tr.r.report.recomputed
                << " status " << int(tr.r.status) << " change/bound "
                << bench.worst_change(tr.t, &bs, &be) << std::endl;
    }
    if (tr.r.report.detected == 0 && d == -1) {
      // Applied to memory the computation never read (e.g. a unity twiddle a
      // butterfly skips): the call is a clean one.
      ++no_effect;
      continue;
    }
    if (!finite_as<T>(f.corrupted) && finite_as<T>(f.original)) {
      EXPECT_GE(tr.r.report.detected, 1u) << "a non-finite value from finite data is a fault; " << rep;
    }
    if (tr.r.report.detected > 0) {
      ++detected;
      EXPECT_EQ(tr.r.status, ABFT_STATUS_SUCCESS) << rep;
      EXPECT_GE(tr.r.report.corrected + tr.r.report.recomputed, 1u) << "detected but not repaired; " << rep;
      if (d != -1) {
        // Recomputation repeats the same arithmetic: a repaired unit is the
        // clean one bit for bit. A twiddle-table fault reaches every unit that
        // reads the entry; units that passed their checks keep an escape
        // within the bound (the rule for undetected faults).
        int64_t bs = -1, be = -1;
        const double w = bench.worst_change(tr.t, &bs, &be);
        if (site != ABFT_SITE_FFT_TWIDDLE || !(w <= 1.0)) {
          ADD_FAILURE() << "repaired output differs from the clean run (first at scalar " << d
                        << ": " << double(tr.t.out.data[size_t(d)]) << " vs "
                        << double(bench.clean.out.data[size_t(d)]) << "); largest change " << w
                        << " x bound in signal " << bs << " element " << be << "; " << rep;
        } else {
          ++partly_masked;
        }
      }
    } else {
      ++masked;
      EXPECT_EQ(tr.r.status, ABFT_STATUS_SUCCESS) << abft_status_string(tr.r.status);
      int64_t bs = -1, be = -1;
      const double w = bench.worst_change(tr.t, &bs, &be);
      worst_masked = std::max(worst_masked, w);
      if (bs >= 0) worst_masked_rms = std::max(worst_masked_rms, w * bench.bound[size_t(bs)] / bench.rms[size_t(bs)]);
      EXPECT_LE(w, 1.0) << "undetected fault (SDC): signal " << bs << " element " << be
                        << " moved " << w << " x its bound " << (bs >= 0 ? bench.bound[size_t(bs)] : 0.0);
    }
  }
  std::cout << "[fault-matrix] " << site_tag(site) << "/" << model_tag(model) << " " << type_tag<T>()
            << " " << cfg.name << ": trials " << trials.size() << ", applied " << applied
            << ", detected " << detected << " (of which other units kept an escape within the bound: "
            << partly_masked << "), masked " << masked << ", no effect " << no_effect
            << " (largest masked change " << worst_masked << " x bound = " << worst_masked_rms
            << " x rms |y|)" << std::endl;
  EXPECT_GT(applied, 0) << "no fault landed at this site for this plan";
}

/** Policy DETECT: FAULT_DETECTED, output as computed (= policy OFF with the same fault). */
template <class T>
void detect_cell(abft_site site, const Config& cfg) {
  Bench<T> bench(cfg, cfg.threads);
  ASSERT_TRUE(bench.ok) << "setup failed";
  int detected = 0, applied = 0;
  for (abft_fault_model model : kModels) {
    for (int s = 0; s < 2; ++s) {
      const int bit = model == ABFT_FAULT_BITFLIP ? int(sizeof(T) * 8) - 2 - s   // exponent bits
                      : model == ABFT_FAULT_BITFLIP2 ? int(sizeof(T) * 8) - 3 : 0;
      const abft_fault spec = make_spec(site, model, bit, -1, -1, -1);
      const uint64_t seed = 0xDE7EC7u + uint64_t(model) * 17 + uint64_t(s);
      ASSERT_EQ(abft_fft_set_policy(bench.plan.get(), ABFT_POLICY_DETECT), ABFT_STATUS_SUCCESS);
      auto td = bench.run({spec}, seed);
      ASSERT_EQ(abft_fft_set_policy(bench.plan.get(), ABFT_POLICY_OFF), ABFT_STATUS_SUCCESS);
      auto to = bench.run({spec}, seed);
      ASSERT_EQ(abft_fft_set_policy(bench.plan.get(), ABFT_POLICY_DEFAULT), ABFT_STATUS_SUCCESS);
      ASSERT_EQ(td.faults.size(), 1u);
      ASSERT_EQ(to.faults.size(), 1u);
      const abft_fault f = td.faults[0], fo = to.faults[0];
      SCOPED_TRACE(describe(f) + " | OFF: " + describe(fo) + " | " + cfg.name + " " + type_tag<T>());
      EXPECT_EQ(to.r.status, ABFT_STATUS_SUCCESS);
      EXPECT_EQ(to.r.report.checks, 0u) << "policy OFF verified something";
      EXPECT_EQ(to.r.report.detected, 0u);
      EXPECT_EQ(td.r.report.corrected, 0u) << "policy DETECT repaired";
      EXPECT_EQ(td.r.report.recomputed, 0u) << "policy DETECT recomputed";
      if (!f.applied) continue;
      ++applied;
      if (td.r.report.detected > 0) {
        ++detected;
        EXPECT_EQ(td.r.status, ABFT_STATUS_FAULT_DETECTED) << abft_status_string(td.r.status);
        const bool same_fault = fo.applied && fo.row == f.row && fo.col == f.col &&
                                fo.kpos == f.kpos && same_bits(fo.original, f.original) &&
                                same_bits(fo.corrupted, f.corrupted);
        EXPECT_TRUE(same_fault) << "the same seed placed a different fault under OFF";
        if (same_fault) {
          const int64_t d = first_difference(td.t.out.data, to.t.out.data);
          EXPECT_EQ(d, -1) << "DETECT did not leave the output as computed (differs from the "
                              "unprotected run with the same fault at scalar "
                           << d << ")";
        }
      } else {
        EXPECT_EQ(td.r.status, ABFT_STATUS_SUCCESS);
        int64_t bs = -1, be = -1;
        EXPECT_LE(bench.worst_change(td.t, &bs, &be), 1.0)
            << "undetected fault beyond the bound: signal " << bs << " element " << be;
      }
    }
  }
  EXPECT_GT(detected, 0) << "no fault detected under DETECT (" << applied << " applied)";
}

/** Several faults in one call, in different signals of a batch. */
template <class T>
void multi_fault() {
  Config cfg{"C2C_Forward_n256_b4", ABFT_FFT_C2C, -1, {256}, 4, false};
  Bench<T> bench(cfg, 2);
  ASSERT_TRUE(bench.ok);
  const int64_t m = bench.info.m;
  const std::vector<abft_fault> specs = {
      make_spec(ABFT_SITE_OUTPUT, ABFT_FAULT_NAN, 0, 0, 5, 0),
      make_spec(ABFT_SITE_OUTPUT, ABFT_FAULT_POS_INF, 0, m - 1, 17, 0),
      make_spec(ABFT_SITE_FFT_STAGE, ABFT_FAULT_BITFLIP, int(sizeof(T) * 8) - 2, m / 2, 3, 1)};
  auto tr = bench.run(specs, 77);
  ASSERT_EQ(tr.faults.size(), 3u);
  int landed = 0;
  for (const auto& f : tr.faults) landed += f.applied ? 1 : 0;
  EXPECT_EQ(landed, 3) << describe(tr.faults[0]) << " | " << describe(tr.faults[1]) << " | "
                       << describe(tr.faults[2]);
  EXPECT_EQ(tr.r.status, ABFT_STATUS_SUCCESS) << abft_status_string(tr.r.status);
  EXPECT_GE(tr.r.report.detected, 2u);
  EXPECT_EQ(first_difference(tr.t.out.data, bench.clean.out.data), -1)
      << "three faults in three units not all repaired";
}

/** A custom planner hook places one concrete fault. */
struct HookState {
  abft_fault f{};
  int calls = 0;
};
int one_fault_hook(void* user, const abft_call_info* call, abft_fault* out, int cap) {
  auto* s = static_cast<HookState*>(user);
  ++s->calls;
  if (cap < 1 || call->m < 1) return 0;
  out[0] = s->f;
  out[0].row = call->m - 1;
  return 1;
}
template <class T>
void custom_hook() {
  Config cfg{"C2C_Forward_n1000_b2", ABFT_FFT_C2C, -1, {1000}, 2, false};
  Bench<T> bench(cfg);
  ASSERT_TRUE(bench.ok);
  HookState st;
  st.f = make_spec(ABFT_SITE_OUTPUT, ABFT_FAULT_NEG_INF, 0, 0, 9, 0);
  ASSERT_EQ(abft_handle_set_inject_hook(bench.h.get(), one_fault_hook, &st), ABFT_STATUS_SUCCESS);
  Transform<T> t = bench.clean;
  const Run<T> r = t.execute(bench.plan.get());
  ASSERT_EQ(abft_handle_set_inject_hook(bench.h.get(), nullptr, nullptr), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(st.calls, 1);
  EXPECT_EQ(r.status, ABFT_STATUS_SUCCESS);
  EXPECT_GE(r.report.detected, 1u);
  EXPECT_EQ(first_difference(t.out.data, bench.clean.out.data), -1);
}

/** Injection is independent of policy: under OFF a NaN lands in the output. */
template <class T>
void injection_under_off() {
  Config cfg{"C2C_Forward_n64_b3", ABFT_FFT_C2C, -1, {64}, 3, false};
  Bench<T> bench(cfg);
  ASSERT_TRUE(bench.ok);
  ASSERT_EQ(abft_fft_set_policy(bench.plan.get(), ABFT_POLICY_OFF), ABFT_STATUS_SUCCESS);
  auto tr = bench.run({make_spec(ABFT_SITE_OUTPUT, ABFT_FAULT_NAN, 0, 1, 6, 0)}, 5);
  ASSERT_EQ(tr.faults.size(), 1u);
  EXPECT_EQ(tr.faults[0].applied, 1);
  EXPECT_EQ(tr.r.status, ABFT_STATUS_SUCCESS);
  EXPECT_EQ(tr.r.report.checks, 0u);
  EXPECT_EQ(tr.r.report.detected, 0u);
  int64_t nans = 0;
  for (T v : tr.t.out.data) nans += std::isnan(v) ? 1 : 0;
  EXPECT_GE(nans, 1) << "the NaN fault is not visible under policy OFF";
}

/** The handle's statistics add up the reports. */
template <class T>
void stats_counters() {
  Config cfg{"C2C_Forward_n512_b2", ABFT_FFT_C2C, -1, {512}, 2, false};
  Bench<T> bench(cfg);
  ASSERT_TRUE(bench.ok);
  bench.h.reset_stats();
  abft_counters sum{};
  auto add = [&](const Run<T>& r) { abft_test::add_report(&sum, r.report); };
  for (int i = 0; i < 2; ++i) {
    Transform<T> t = bench.clean;
    add(t.execute(bench.plan.get()));
  }
  for (int i = 0; i < 3; ++i) {
    auto tr = bench.run({make_spec(ABFT_SITE_OUTPUT, ABFT_FAULT_NAN, 0, i % 2, -1, 0)}, 10 + i);
    EXPECT_GE(tr.r.report.detected, 1u);
    add(tr.r);
  }
  ASSERT_EQ(abft_fft_set_policy(bench.plan.get(), ABFT_POLICY_DETECT), ABFT_STATUS_SUCCESS);
  auto td = bench.run({make_spec(ABFT_SITE_OUTPUT, ABFT_FAULT_POS_INF, 0, 0, -1, 0)}, 20);
  EXPECT_EQ(td.r.status, ABFT_STATUS_FAULT_DETECTED);
  add(td.r);
  const abft::Counters c = bench.h.stats(kernel_of<T>());
  EXPECT_EQ(c.calls, sum.calls);
  EXPECT_TRUE(abft_test::counters_match(c, sum));
  EXPECT_GE(c.detected, 4u);
  EXPECT_GE(c.corrected + c.recomputed, 3u);
  const abft_kernel other = kernel_of<T>() == ABFT_KERNEL_SFFT ? ABFT_KERNEL_DFFT : ABFT_KERNEL_SFFT;
  EXPECT_EQ(bench.h.stats(other).calls, 0u);
  EXPECT_EQ(bench.h.stats(ABFT_KERNEL_DGEMM).calls, 0u);
  // Process-wide totals include this handle's.
  abft_counters g{};
  ASSERT_EQ(abft_stats_get(nullptr, kernel_of<T>(), &g), ABFT_STATUS_SUCCESS);
  EXPECT_GE(g.calls, c.calls);
  EXPECT_GE(g.detected, c.detected);
  const std::string text = bench.h.stats_text();
  EXPECT_NE(text.find(abft_kernel_name(kernel_of<T>())), std::string::npos) << text;
}

template <class T>
void register_for() {
  for (const Config& cfg : kConfigs)
    for (abft_site site : kSites) {
      for (abft_fault_model model : kModels)
        register_test("FftFaultMatrix",
                      std::string(site_tag(site)) + "_" + model_tag(model) + "_" + type_tag<T>() +
                          "_" + cfg.name,
                      [site, model, cfg] { matrix_cell<T>(site, model, cfg); });
      register_test("FftFaultDetect", std::string(site_tag(site)) + "_" + type_tag<T>() + "_" + cfg.name,
                    [site, cfg] { detect_cell<T>(site, cfg); });
    }
  register_test("FftFaultMulti", std::string("ThreeUnitsOneCall_") + type_tag<T>(), [] { multi_fault<T>(); });
  register_test("FftFaultHook", std::string("CustomPlanner_") + type_tag<T>(), [] { custom_hook<T>(); });
  register_test("FftFaultOff", std::string("InjectionLandsUnderOff_") + type_tag<T>(),
                [] { injection_under_off<T>(); });
  register_test("FftFaultStats", std::string("CountersAddUpReports_") + type_tag<T>(),
                [] { stats_counters<T>(); });
}

const bool kRegistered = [] {
  register_for<float>();
  register_for<double>();
  return true;
}();

}  // namespace
