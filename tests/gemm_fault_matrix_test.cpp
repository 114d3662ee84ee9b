/** \file gemm_fault_matrix_test.cpp
 *  \brief The fault matrix: every fault model at every site (output, accumulator,
 *  packed A, packed B), float and double, both layouts, every bit position for
 *  bit flips, fixed and seeded-random coordinates, three block shapes. Each
 *  outcome is judged against a clean run and the long-double reference:
 *  faults larger than twice the engine's bound (or any packed-operand change,
 *  or a non-finite value) are detected and, with policy CORRECT, repaired to
 *  reference accuracy; smaller faults are either repaired or stay within the
 *  bound. Also: several faults per call, a custom hook, injection under
 *  policy OFF, and the statistics counters.
 */
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <tuple>

#include "fault_util.hpp"

using namespace abft_test;

namespace {

struct FaultShape {
  const char* name;
  abft_op ta, tb;
  int64_t m, n, k;
  double beta;
  int threads;
};
// k = 1100 > kc splits k into passes on every ISA (kc is 256 for AVX2, 1024 for AVX-512);
// m = n = 150 > mc gives several row blocks
// in either layout (the engine blocks its internal rows: m row-major, n col-major).
const FaultShape kShapes[] = {
    {"m37n45k29", ABFT_NO_TRANS, ABFT_NO_TRANS, 37, 45, 29, 0.0, 1},
    {"m37n45k1100", ABFT_TRANS, ABFT_NO_TRANS, 37, 45, 1100, 0.5, 1},
    {"m150n150k40", ABFT_NO_TRANS, ABFT_TRANS, 150, 150, 40, -1.0, 2},
    // At most kSmallMaxRows internal rows: the small-M path (gemm_small.cpp). Row-major m = 5
    // streams B's rows (N orientation); column-major n = 6 makes op(A) the streamed operand
    // with contiguous columns (T orientation).
    {"m5n45k300", ABFT_NO_TRANS, ABFT_NO_TRANS, 5, 45, 300, 0.5, 2},
    {"m37n6k70", ABFT_TRANS, ABFT_TRANS, 37, 6, 70, 0.0, 1},
};

using FaultParam = std::tuple<bool /*double*/, abft_site, abft_fault_model, abft_layout,
                              int /*shape*/>;

template <class T>
Problem<T> make_problem(const FaultShape& s, abft_layout l, uint64_t seed) {
  Problem<T> p;
  p.shape(l, s.ta, s.tb, s.m, s.n, s.k);
  std::mt19937_64 rng(seed);
  p.fill_uniform(rng);
  p.alpha = T(1);
  p.beta = T(s.beta);
  return p;
}

class GemmFaultMatrix : public ::testing::TestWithParam<FaultParam> {
 protected:
  template <class T>
  void Body() {
    const abft_site site = std::get<1>(GetParam());
    const abft_fault_model model = std::get<2>(GetParam());
    const abft_layout layout = std::get<3>(GetParam());
    const FaultShape& shp = kShapes[std::get<4>(GetParam())];
    const Problem<T> p = make_problem<T>(shp, layout, 1234 + std::get<4>(GetParam()));
    const Reference ref = reference(p);
    const LineBounds<T> lb = line_bounds(p);
    abft::Handle h;
    h.set_threads(shp.threads);
    const Outcome<T> clean = run(p, h.get(), ABFT_POLICY_OFF);
    ASSERT_EQ(clean.status, ABFT_STATUS_SUCCESS);
    ASSERT_TRUE(check_result(p, clean.C, ref)) << "clean run is wrong";

    const bool bit_model = model == ABFT_FAULT_BITFLIP || model == ABFT_FAULT_BITFLIP2;
    const int trials = bit_model ? int(sizeof(T) * 8) : 8;
    const bool packed = site == ABFT_SITE_PACKED_A || site == ABFT_SITE_PACKED_B;
    std::mt19937_64 rng(777 + int(site) * 10 + int(model));
    int n_detected = 0, n_escaped_small = 0;
    double max_undetected = 0.0;  // largest effect / bound among undetected faults
    double min_detected = std::numeric_limits<double>::infinity();  // smallest detected
    for (int t = 0; t < trials; ++t) {
      abft_fault spec = make_spec(site, model, bit_model ? t : 0, -1, -1, -1);
      if (t % 2 == 0) {  // fixed coordinates; odd trials let the injector draw them
        spec.row = int64_t(rng() % uint64_t(p.m));
        spec.col = int64_t(rng() % uint64_t(p.n));
        spec.kpos = int64_t(rng() % uint64_t(p.k));
      }
      const uint64_t seed = 0x5EED0000u + uint64_t(t);
      const FaultRun<T> fc = run_with_faults(p, h, ABFT_POLICY_CORRECT, {spec}, seed);
      ASSERT_EQ(fc.faults.size(), 1u);
      const abft_fault f = fc.faults[0];
      SCOPED_TRACE("trial " + std::to_string(t) + ": " + describe(f) + " | " + p.describe());
      // The small-M path (at most 8 internal rows) streams the internal B without copying it:
      // a packed-B fault has nothing to land in there, and the call is a clean one.
      const bool row_major = layout == ABFT_ROW_MAJOR;
      const bool small_path = (row_major ? shp.m : shp.n) <= 8;
      if (small_path && site == (row_major ? ABFT_SITE_PACKED_B : ABFT_SITE_PACKED_A)) {
        EXPECT_EQ(f.applied, 0);
        EXPECT_EQ(fc.out.status, ABFT_STATUS_SUCCESS);
        EXPECT_EQ(fc.out.report.detected, 0u);
        EXPECT_EQ(0, std::memcmp(fc.out.C.data(), clean.C.data(), clean.C.size() * sizeof(T)));
        continue;
      }
      ASSERT_EQ(f.applied, 1) << "the fault did not land";
      ASSERT_EQ(f.site, site);
      ASSERT_EQ(f.model, model);
      if (t % 2 == 0) {
        EXPECT_EQ(f.row, spec.row);
        if (site != ABFT_SITE_PACKED_A) {
          EXPECT_EQ(f.col, spec.col);
        }
        if (site != ABFT_SITE_OUTPUT) {
          EXPECT_EQ(f.kpos, spec.kpos);
        }
      }
      // Classify: must the engine see it? A packed copy has an exact fingerprint: any change
      // is seen.
      const bool nonfinite = !std::isfinite(static_cast<T>(f.corrupted));
      const double effect = std::fabs(f.corrupted - f.original);
      const double bound = packed ? 0.0 : lb.at(f.row, f.col);
      const bool must_detect = packed ? bits_changed<T>(f) : (nonfinite || !(effect <= 2.0 * bound));
      const Outcome<T>& oc = fc.out;

      // ---- policy CORRECT: never a silently wrong C.
      ASSERT_EQ(oc.status, ABFT_STATUS_SUCCESS) << abft_status_string(oc.status);
      EXPECT_EQ(oc.report.uncorrectable, 0u);
      if (must_detect) {
        EXPECT_GE(oc.report.detected, 1u) << "fault beyond the bound (effect " << effect
                                          << ", 2*bound " << 2 * bound << ") not detected";
      }
      if (!packed && bound > 0 && !nonfinite) {
        const double ratio = effect / bound;
        if (oc.report.detected > 0) min_detected = std::min(min_detected, ratio);
        else max_undetected = std::max(max_undetected, ratio);
      }
      if (oc.report.detected > 0) {
        ++n_detected;
        EXPECT_GE(oc.report.corrected + oc.report.recomputed, 1u) << "detected but not repaired";
        EXPECT_TRUE(check_result(p, oc.C, ref)) << "repair did not restore the result";
        // The repair recomputes with the kernel's own arithmetic: bit for bit the clean run.
        EXPECT_EQ(0, std::memcmp(oc.C.data(), clean.C.data(), oc.C.size() * sizeof(T)))
            << "repaired C differs from the clean run";
      } else {
        ++n_escaped_small;
        EXPECT_TRUE(within_escape_bound(p, oc.C, clean.C, lb));
      }

      // ---- policy DETECT: same fault (same seed), reported not repaired.
      const FaultRun<T> fd = run_with_faults(p, h, ABFT_POLICY_DETECT, {spec}, seed);
      ASSERT_EQ(fd.faults.size(), 1u);
      const abft_fault g = fd.faults[0];
      EXPECT_EQ(g.row, f.row);
      EXPECT_EQ(g.col, f.col);
      EXPECT_EQ(g.kpos, f.kpos);
      EXPECT_EQ(g.bit, f.bit);
      EXPECT_EQ(g.applied, 1);
      const Outcome<T>& od = fd.out;
      EXPECT_EQ(od.report.corrected, 0u) << "DETECT must not repair";
      EXPECT_EQ(od.report.recomputed, 0u) << "DETECT must not repair";
      if (must_detect) {
        EXPECT_EQ(od.status, ABFT_STATUS_FAULT_DETECTED) << abft_status_string(od.status);
        EXPECT_GE(od.report.detected, 1u);
        if (site == ABFT_SITE_OUTPUT && od.status == ABFT_STATUS_FAULT_DETECTED) {
          EXPECT_TRUE(same_value(od.C[p.ic(f.row, f.col)], static_cast<T>(g.corrupted)))
              << "DETECT must leave the output as computed";
        }
      } else if (od.status == ABFT_STATUS_SUCCESS) {
        EXPECT_EQ(od.report.detected, 0u);
        EXPECT_TRUE(within_escape_bound(p, od.C, clean.C, lb));
      } else {
        EXPECT_EQ(od.status, ABFT_STATUS_FAULT_DETECTED) << abft_status_string(od.status);
        EXPECT_GE(od.report.detected, 1u);
      }
    }
    RecordProperty("detected", n_detected);
    RecordProperty("undetected_within_bound", n_escaped_small);
    RecordProperty("max_undetected_effect_over_bound", std::to_string(max_undetected));
    if (std::isfinite(min_detected))
      RecordProperty("min_detected_effect_over_bound", std::to_string(min_detected));
  }
};

TEST_P(GemmFaultMatrix, DetectedOrWithinBound) {
  if (std::get<0>(GetParam()))
    Body<double>();
  else
    Body<float>();
}

std::string FaultName(const ::testing::TestParamInfo<FaultParam>& info) {
  std::ostringstream os;
  os << (std::get<0>(info.param) ? "f64" : "f32") << "_" << site_tag(std::get<1>(info.param))
     << "_" << model_tag(std::get<2>(info.param)) << "_" << layout_tag(std::get<3>(info.param))
     << "_" << kShapes[std::get<4>(info.param)].name;
  return os.str();
}

INSTANTIATE_TEST_SUITE_P(
    EveryModelEverySite, GemmFaultMatrix,
    ::testing::Combine(::testing::Bool(),
                       ::testing::Values(ABFT_SITE_OUTPUT, ABFT_SITE_ACCUMULATOR,
                                         ABFT_SITE_PACKED_A, ABFT_SITE_PACKED_B),
                       ::testing::Values(ABFT_FAULT_BITFLIP, ABFT_FAULT_BITFLIP2,
                                         ABFT_FAULT_RANDOM, ABFT_FAULT_ZERO, ABFT_FAULT_NAN,
                                         ABFT_FAULT_POS_INF, ABFT_FAULT_NEG_INF),
                       ::testing::Values(ABFT_ROW_MAJOR, ABFT_COL_MAJOR),
                       ::testing::Values(0, 1, 2, 3, 4)),
    FaultName);

// ====================================================================== several faults
using MultiParam = std::tuple<bool /*double*/, abft_layout, abft_isa, int /*shape*/>;

class GemmMultiFault : public ::testing::TestWithParam<MultiParam> {
 protected:
  void SetUp() override { ABFT_REQUIRE_ISA(std::get<2>(GetParam())); }
  IsaGuard guard_;

  template <class T>
  void Body() {
    const abft_layout layout = std::get<1>(GetParam());
    const FaultShape& shp = kShapes[std::get<3>(GetParam())];
    Problem<T> p = make_problem<T>(shp, layout, 99);
    p.alpha = T(-2);  // all faults below are unambiguous, alpha need not be 1
    const Reference ref = reference(p);
    abft::Handle h;
    h.set_threads(shp.threads);
    const Outcome<T> clean = run(p, h.get(), ABFT_POLICY_OFF);
    ASSERT_TRUE(check_result(p, clean.C, ref));
    auto big = [&](int64_t i, int64_t j) {  // an exponent flip that grows C(i,j) >= 256x
      return make_spec(ABFT_SITE_OUTPUT, ABFT_FAULT_BITFLIP,
                       growing_exponent_bit<T>(clean.C[p.ic(i, j)]), i, j, 0);
    };
    const int64_t m = p.m, n = p.n, k = p.k;
    struct Case {
      const char* name;
      std::vector<abft_fault> specs;
    };
    const std::vector<Case> cases = {
        {"three outputs, distinct rows and columns",
         {make_spec(ABFT_SITE_OUTPUT, ABFT_FAULT_NAN, 0, 1, 2, 0),
          make_spec(ABFT_SITE_OUTPUT, ABFT_FAULT_POS_INF, 0, m / 2, n - 1, 0), big(m - 1, n / 3)}},
        {"output + packed A",
         {make_spec(ABFT_SITE_OUTPUT, ABFT_FAULT_NEG_INF, 0, 3, 4, 0),
          make_spec(ABFT_SITE_PACKED_A, ABFT_FAULT_BITFLIP, 5, m - 2, 0, k / 2)}},
        {"output + accumulator + packed B",
         {big(0, 0), make_spec(ABFT_SITE_ACCUMULATOR, ABFT_FAULT_NAN, 0, m - 1, n - 1, k / 2),
          make_spec(ABFT_SITE_PACKED_B, ABFT_FAULT_BITFLIP2, 40, 0, n / 2, k - 1)}},
        {"two outputs in one column", {big(1, 5), big(m - 3, 5)}},
        {"two outputs in one row", {big(6, 1), big(6, n - 2)}},
        {"rectangle of four outputs",
         {big(2, 3), make_spec(ABFT_SITE_OUTPUT, ABFT_FAULT_NAN, 0, 2, n - 4, 0), big(m - 5, 3),
          big(m - 5, n - 4)}},
        {"packed A + packed B", 
         {make_spec(ABFT_SITE_PACKED_A, ABFT_FAULT_ZERO, 0, 7, 0, 1),
          make_spec(ABFT_SITE_PACKED_B, ABFT_FAULT_POS_INF, 0, 0, 9, k - 2)}},
        {"five accumulators", 
         {make_spec(ABFT_SITE_ACCUMULATOR, ABFT_FAULT_POS_INF, 0, 0, 1, 1),
          make_spec(ABFT_SITE_ACCUMULATOR, ABFT_FAULT_NEG_INF, 0, 4, 8, k - 1),
          make_spec(ABFT_SITE_ACCUMULATOR, ABFT_FAULT_NAN, 0, m - 1, 0, k / 3),
          make_spec(ABFT_SITE_ACCUMULATOR, ABFT_FAULT_NAN, 0, m / 2, n / 2, 2),
          make_spec(ABFT_SITE_ACCUMULATOR, ABFT_FAULT_POS_INF, 0, 10, n - 1, 0)}},
    };
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(c.name) + " | " + p.describe());
      const FaultRun<T> r = run_with_faults(p, h, ABFT_POLICY_CORRECT, c.specs, 4242);
      ASSERT_EQ(r.faults.size(), c.specs.size());
      for (const abft_fault& f : r.faults) EXPECT_EQ(f.applied, 1) << describe(f);
      EXPECT_EQ(r.out.status, ABFT_STATUS_SUCCESS) << abft_status_string(r.out.status);
      EXPECT_GE(r.out.report.detected, 1u);
      EXPECT_GE(r.out.report.corrected + r.out.report.recomputed, 1u);
      EXPECT_EQ(r.out.report.uncorrectable, 0u);
      EXPECT_TRUE(check_result(p, r.out.C, ref));

      const FaultRun<T> d = run_with_faults(p, h, ABFT_POLICY_DETECT, c.specs, 4242);
      EXPECT_EQ(d.out.status, ABFT_STATUS_FAULT_DETECTED) << abft_status_string(d.out.status);
      EXPECT_GE(d.out.report.detected, 1u);
    }
  }
};

TEST_P(GemmMultiFault, AllRepaired) {
  if (std::get<0>(GetParam()))
    Body<double>();
  else
    Body<float>();
}

std::string MultiName(const ::testing::TestParamInfo<MultiParam>& info) {
  std::ostringstream os;
  os << (std::get<0>(info.param) ? "f64" : "f32") << "_" << layout_tag(std::get<1>(info.param))
     << "_" << isa_tag(std::get<2>(info.param)) << "_" << kShapes[std::get<3>(info.param)].name;
  return os.str();
}

INSTANTIATE_TEST_SUITE_P(
    SeveralFaultsPerCall, GemmMultiFault,
    ::testing::Combine(::testing::Bool(), ::testing::Values(ABFT_ROW_MAJOR, ABFT_COL_MAJOR),
                       ::testing::Values(ABFT_ISA_REFERENCE, ABFT_ISA_AVX2, ABFT_ISA_AVX512),
                       ::testing::Values(0, 1, 2)),
    MultiName);

// ====================================================================== policy OFF
/** Injection is a hook, independent of policy: with OFF a NaN fault lands and
 *  shows in C exactly where the site says (caller coordinates, either layout). */
using OffParam = std::tuple<bool, abft_layout, abft_site>;
class GemmInjectionUnderOff : public ::testing::TestWithParam<OffParam> {
 protected:
  template <class T>
  void Body() {
    const abft_layout layout = std::get<1>(GetParam());
    const abft_site site = std::get<2>(GetParam());
    const Problem<T> p = make_problem<T>(kShapes[1], layout, 5);
    abft::Handle h;
    h.set_threads(1);
    const abft_fault spec = make_spec(site, ABFT_FAULT_NAN, 0, 11, 17, 123);
    const FaultRun<T> r = run_with_faults(p, h, ABFT_POLICY_OFF, {spec}, 1);
    ASSERT_EQ(r.faults.size(), 1u);
    EXPECT_EQ(r.faults[0].applied, 1);
    EXPECT_EQ(r.out.status, ABFT_STATUS_SUCCESS);
    EXPECT_EQ(r.out.report.detected, 0u);
    EXPECT_EQ(r.out.report.checks, 0u);
    int64_t nan_in = 0, nan_out = 0;
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.n; ++j) {
        const bool expect_possible = (site == ABFT_SITE_PACKED_A)   ? i == 11
                                     : (site == ABFT_SITE_PACKED_B) ? j == 17
                                                                    : (i == 11 && j == 17);
        if (std::isnan(r.out.C[p.ic(i, j)])) (expect_possible ? nan_in : nan_out)++;
      }
    EXPECT_GE(nan_in, 1) << "the NaN fault is not visible where the site says";
    EXPECT_EQ(nan_out, 0) << "the NaN fault shows outside its row/column";
  }
};
TEST_P(GemmInjectionUnderOff, LandsWhereTheSiteSays) {
  if (std::get<0>(GetParam()))
    Body<double>();
  else
    Body<float>();
}
INSTANTIATE_TEST_SUITE_P(
    Sites, GemmInjectionUnderOff,
    ::testing::Combine(::testing::Bool(), ::testing::Values(ABFT_ROW_MAJOR, ABFT_COL_MAJOR),
                       ::testing::Values(ABFT_SITE_OUTPUT, ABFT_SITE_ACCUMULATOR,
                                         ABFT_SITE_PACKED_A, ABFT_SITE_PACKED_B)),
    [](const ::testing::TestParamInfo<OffParam>& info) {
      return std::string(std::get<0>(info.param) ? "f64" : "f32") + "_" +
             layout_tag(std::get<1>(info.param)) + "_" + site_tag(std::get<2>(info.param));
    });

// ====================================================================== determinism
TEST(GemmInjector, SameSeedSameFaults) {
  const Problem<double> p = make_problem<double>(kShapes[0], ABFT_COL_MAJOR, 3);
  abft::Handle h;
  const abft_fault spec = make_spec(ABFT_SITE_ACCUMULATOR, ABFT_FAULT_RANDOM, -1, -1, -1, -1);
  const FaultRun<double> a = run_with_faults(p, h, ABFT_POLICY_CORRECT, {spec, spec}, 77);
  const FaultRun<double> b = run_with_faults(p, h, ABFT_POLICY_CORRECT, {spec, spec}, 77);
  const FaultRun<double> c = run_with_faults(p, h, ABFT_POLICY_CORRECT, {spec, spec}, 78);
  ASSERT_EQ(a.faults.size(), 2u);
  ASSERT_EQ(b.faults.size(), 2u);
  ASSERT_EQ(c.faults.size(), 2u);
  bool all_same_c = true;
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(a.faults[i].row, b.faults[i].row);
    EXPECT_EQ(a.faults[i].col, b.faults[i].col);
    EXPECT_EQ(a.faults[i].kpos, b.faults[i].kpos);
    EXPECT_EQ(a.faults[i].value, b.faults[i].value);
    EXPECT_GE(a.faults[i].kpos, 0);
    EXPECT_LT(a.faults[i].kpos, p.k);
    all_same_c = all_same_c && a.faults[i].row == c.faults[i].row &&
                 a.faults[i].col == c.faults[i].col && a.faults[i].kpos == c.faults[i].kpos &&
                 a.faults[i].value == c.faults[i].value;
  }
  EXPECT_FALSE(all_same_c) << "a different seed drew the same faults";
  EXPECT_FALSE(a.faults[0].row == a.faults[1].row && a.faults[0].col == a.faults[1].col &&
               a.faults[0].value == a.faults[1].value)
      << "two specs of one call drew identical faults";
}

/** Rate mode: at most one fault per call, from one spec, with the given probability;
 *  0 never fires, 1 always; bad rates are rejected; a negative rate restores plain mode. */
TEST(GemmInjector, RateMode) {
  abft_handle_t h;
  abft_injector_t inj;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_injector_create(5, &inj), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(abft_injector_set_rate(nullptr, 0.5), ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(abft_injector_set_rate(inj, 1.5), ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(abft_injector_set_rate(inj, std::nan("")), ABFT_STATUS_INVALID_VALUE);
  for (abft_site site : {ABFT_SITE_OUTPUT, ABFT_SITE_ACCUMULATOR}) {
    const abft_fault spec = make_spec(site, ABFT_FAULT_BITFLIP, 62, -1, -1, -1);
    ASSERT_EQ(abft_injector_add(inj, &spec), ABFT_STATUS_SUCCESS);
  }
  ASSERT_EQ(abft_handle_set_injector(h, inj), ABFT_STATUS_SUCCESS);
  const int64_t n = 24;
  std::vector<double> A(n * n, 0.5), B(n * n, 0.25), C(n * n);
  auto faults_of_one_call = [&] {
    EXPECT_EQ(abft_dgemm(h, ABFT_POLICY_CORRECT, ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, n,
                         n, n, 1.0, A.data(), n, B.data(), n, 0.0, C.data(), n, nullptr),
              ABFT_STATUS_SUCCESS);
    abft_fault last[4];
    int count = 0;
    EXPECT_EQ(abft_injector_last(inj, last, 4, &count), ABFT_STATUS_SUCCESS);
    return count;
  };
  EXPECT_EQ(faults_of_one_call(), 2);  // plain mode: every spec fires
  ASSERT_EQ(abft_injector_set_rate(inj, 0.0), ABFT_STATUS_SUCCESS);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(faults_of_one_call(), 0);
  ASSERT_EQ(abft_injector_set_rate(inj, 1.0), ABFT_STATUS_SUCCESS);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(faults_of_one_call(), 1);
  ASSERT_EQ(abft_injector_set_rate(inj, 0.5), ABFT_STATUS_SUCCESS);
  int fired = 0;
  for (int i = 0; i < 200; ++i) fired += faults_of_one_call();
  EXPECT_GT(fired, 60);  // about 100 (seeded, so the count is fixed)
  EXPECT_LT(fired, 140);
  ASSERT_EQ(abft_injector_set_rate(inj, -1.0), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(faults_of_one_call(), 2);
  abft_handle_destroy(h);
  abft_injector_destroy(inj);
}

// ====================================================================== custom hook
struct HookState {
  int calls = 0;
  abft_call_info last{};
  bool out_of_range = false;
};
int hook_plan(void* user, const abft_call_info* call, abft_fault* out, int cap) {
  auto* st = static_cast<HookState*>(user);
  ++st->calls;
  st->last = *call;
  if (cap < 3) return 0;
  out[0] = make_spec(ABFT_SITE_OUTPUT, ABFT_FAULT_NAN, 0, 2, 3, 0);
  out[1] = make_spec(ABFT_SITE_PACKED_B, ABFT_FAULT_BITFLIP, 60 % (call->kernel == ABFT_KERNEL_DGEMM ? 64 : 32), 0, 4, call->k - 1);
  if (st->out_of_range) {
    out[0].row = call->m + 5;  // outside C: must be ignored, not crash
    out[1].kpos = call->k;
    out[2] = make_spec(ABFT_SITE_ACCUMULATOR, ABFT_FAULT_POS_INF, 0, 0, call->n, 0);
    return 3;
  }
  return 2;
}

template <class T>
void CustomHook() {
  for (abft_layout l : {ABFT_ROW_MAJOR, ABFT_COL_MAJOR}) {
    const Problem<T> p = make_problem<T>(kShapes[0], l, 8);
    const Reference ref = reference(p);
    abft::Handle h;
    HookState st;
    ASSERT_EQ(abft_handle_set_inject_hook(h.get(), hook_plan, &st), ABFT_STATUS_SUCCESS);
    Outcome<T> o = run(p, h.get(), ABFT_POLICY_CORRECT);
    EXPECT_EQ(st.calls, 1);
    EXPECT_EQ(st.last.m, p.m);
    EXPECT_EQ(st.last.n, p.n);
    EXPECT_EQ(st.last.k, p.k);
    EXPECT_EQ(st.last.kernel, (std::is_same<T, float>::value ? ABFT_KERNEL_SGEMM : ABFT_KERNEL_DGEMM));
    EXPECT_EQ(o.status, ABFT_STATUS_SUCCESS);
    EXPECT_GE(o.report.detected, 1u);
    EXPECT_TRUE(check_result(p, o.C, ref));

    o = run(p, h.get(), ABFT_POLICY_DETECT);
    EXPECT_EQ(st.calls, 2);
    EXPECT_EQ(o.status, ABFT_STATUS_FAULT_DETECTED);
    EXPECT_TRUE(std::isnan(o.C[p.ic(2, 3)])) << "DETECT leaves the output as computed";

    st.out_of_range = true;  // out-of-range coordinates are discarded
    o = run(p, h.get(), ABFT_POLICY_CORRECT);
    EXPECT_EQ(o.status, ABFT_STATUS_SUCCESS);
    EXPECT_EQ(o.report.detected, 0u) << "out-of-range hook faults must be ignored";
    EXPECT_TRUE(check_result(p, o.C, ref));

    ASSERT_EQ(abft_handle_set_inject_hook(h.get(), nullptr, nullptr), ABFT_STATUS_SUCCESS);
    const int before = st.calls;
    o = run(p, h.get(), ABFT_POLICY_CORRECT);
    EXPECT_EQ(st.calls, before) << "a detached hook was still called";
    EXPECT_EQ(o.report.detected, 0u);
  }
}
TEST(GemmInjectHook, CustomPlanner_f32) { CustomHook<float>(); }
TEST(GemmInjectHook, CustomPlanner_f64) { CustomHook<double>(); }

// ====================================================================== statistics
template <class T>
void StatsCounters() {
  const abft_kernel kern = std::is_same<T, float>::value ? ABFT_KERNEL_SGEMM : ABFT_KERNEL_DGEMM;
  const abft_kernel other = std::is_same<T, float>::value ? ABFT_KERNEL_DGEMM : ABFT_KERNEL_SGEMM;
  const Problem<T> p = make_problem<T>(kShapes[0], ABFT_ROW_MAJOR, 10);
  abft::Handle h;
  abft_counters g0{};
  ASSERT_EQ(abft_stats_get(nullptr, kern, &g0), ABFT_STATUS_SUCCESS);
  abft_counters sum{};
  auto add = [&](const abft_report& r) { add_report(&sum, r); };
  for (int i = 0; i < 3; ++i) add(run(p, h.get(), ABFT_POLICY_CORRECT).report);
  const int64_t m = p.m, n = p.n;
  add(run_with_faults(p, h, ABFT_POLICY_CORRECT,
                      {make_spec(ABFT_SITE_OUTPUT, ABFT_FAULT_NAN, 0, 1, 1, 0)}, 1).out.report);
  add(run_with_faults(p, h, ABFT_POLICY_CORRECT,
                      {make_spec(ABFT_SITE_PACKED_A, ABFT_FAULT_POS_INF, 0, m - 1, 0, 3)}, 2)
          .out.report);
  add(run_with_faults(p, h, ABFT_POLICY_DETECT,
                      {make_spec(ABFT_SITE_OUTPUT, ABFT_FAULT_NEG_INF, 0, 2, n - 1, 0)}, 3)
          .out.report);
  Problem<T> q = p;  // non-finite input: skipped
  q.A[q.ia(0, 0)] = std::numeric_limits<T>::quiet_NaN();
  add(run(q, h.get(), ABFT_POLICY_CORRECT).report);

  const abft_counters c = h.stats(kern);
  EXPECT_EQ(c.calls, 7u);
  EXPECT_TRUE(counters_match(c, sum));
  EXPECT_GE(c.detected, 3u);
  EXPECT_GE(c.corrected + c.recomputed, 2u);
  EXPECT_GE(c.skipped, 1u);
  EXPECT_GE(c.checks, 6u);
  EXPECT_EQ(h.stats(other).calls, 0u) << "a call counted under the wrong kernel";

  // Process-wide totals include this handle's calls.
  abft_counters g1{};
  ASSERT_EQ(abft_stats_get(nullptr, kern, &g1), ABFT_STATUS_SUCCESS);
  EXPECT_GE(g1.calls, g0.calls + 7);
  EXPECT_GE(g1.detected, g0.detected + c.detected);

  const std::string text = h.stats_text(ABFT_FORMAT_TEXT);
  const std::string json = h.stats_text(ABFT_FORMAT_JSON);
  EXPECT_NE(text.find("sgemm"), std::string::npos) << text;
  EXPECT_NE(text.find("dgemm"), std::string::npos) << text;
  EXPECT_NE(json.find("sgemm"), std::string::npos) << json;
  EXPECT_EQ(json.front(), '{') << json;
  EXPECT_NE(json.find("\"detected\""), std::string::npos) << json;
  // Truncation: a small buffer is NUL-terminated and *needed is the full size.
  char small[8];
  size_t need = 0;
  ASSERT_EQ(abft_stats_format(h.get(), ABFT_FORMAT_TEXT, small, sizeof small, &need),
            ABFT_STATUS_SUCCESS);
  EXPECT_EQ(need, text.size() + 1);
  EXPECT_EQ(std::strlen(small), sizeof small - 1);

  h.reset_stats();
  const abft_counters z = h.stats(kern);
  EXPECT_EQ(z.calls + z.checks + z.detected + z.corrected + z.recomputed + z.uncorrectable +
                z.skipped,
            0u);
  abft_counters g2{};
  ASSERT_EQ(abft_stats_get(nullptr, kern, &g2), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(g2.calls, g1.calls) << "resetting a handle must not reset the process totals";
  ASSERT_EQ(abft_stats_reset(nullptr), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_stats_get(nullptr, kern, &g2), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(g2.calls, 0u);
}
TEST(GemmStats, CountersResetFormat_f32) { StatsCounters<float>(); }
TEST(GemmStats, CountersResetFormat_f64) { StatsCounters<double>(); }

/** Statistics are thread-safe: concurrent calls on one handle are all counted. */
TEST(GemmStats, ConcurrentCallsAllCounted) {
  const Problem<float> p = make_problem<float>(kShapes[0], ABFT_COL_MAJOR, 11);
  abft::Handle h;
  h.set_threads(1);
  constexpr int kThreads = 4, kCalls = 25;
  std::vector<std::thread> pool;
  std::atomic<int> bad{0};
  for (int t = 0; t < kThreads; ++t)
    pool.emplace_back([&] {
      for (int c = 0; c < kCalls; ++c)
        if (run(p, h.get(), ABFT_POLICY_CORRECT).status != ABFT_STATUS_SUCCESS) ++bad;
    });
  for (auto& th : pool) th.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(h.stats(ABFT_KERNEL_SGEMM).calls, uint64_t(kThreads * kCalls));
}

}  // namespace
