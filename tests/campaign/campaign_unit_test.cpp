/** \file campaign_unit_test.cpp
 *  \brief The campaign's parts one by one: fault draws (determinism, patterns, call choice),
 *  the planner, the classification of trials, the verdict and the CSV.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "campaign/campaign.hpp"
#include "campaign/faults.hpp"

namespace ac = abft::campaign;

namespace {

abft_call_info gemm_call(int64_t m, int64_t n, int64_t k) {
  abft_call_info c{};
  c.kernel = ABFT_KERNEL_SGEMM;
  c.m = m, c.n = n, c.k = k, c.batch = 1;
  return c;
}

abft_call_info attn_call() {
  abft_call_info c{};
  c.kernel = ABFT_KERNEL_ATTN_FWD;
  c.m = 16, c.n = 32, c.k = 8, c.batch = 2;
  return c;
}

size_t count_commas(const std::string& s) { return size_t(std::count(s.begin(), s.end(), ',')); }

}  // namespace

TEST(CampaignFaults, SameSeedSameFaultsOtherSeedOtherFaults) {
  ac::Options o;
  o.faults = 3;
  const std::vector<abft_site> sites = {ABFT_SITE_OUTPUT, ABFT_SITE_ACCUMULATOR};
  const std::vector<abft_call_info> calls = {gemm_call(50, 60, 70)};
  const auto a = ac::draw_faults(o, sites, 32, calls, ac::trial_seed(1, 17, 2));
  const auto b = ac::draw_faults(o, sites, 32, calls, ac::trial_seed(1, 17, 2));
  const auto c = ac::draw_faults(o, sites, 32, calls, ac::trial_seed(1, 18, 2));
  ASSERT_EQ(a.faults.size(), 3u);
  bool differs = false;
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(a.faults[i].row, b.faults[i].row);
    EXPECT_EQ(a.faults[i].col, b.faults[i].col);
    EXPECT_EQ(a.faults[i].kpos, b.faults[i].kpos);
    EXPECT_EQ(a.faults[i].bit, b.faults[i].bit);
    differs = differs || a.faults[i].row != c.faults[i].row || a.faults[i].bit != c.faults[i].bit;
    EXPECT_GE(a.faults[i].row, 0);
    EXPECT_LT(a.faults[i].row, 50);
    EXPECT_GE(a.faults[i].col, 0);
    EXPECT_LT(a.faults[i].col, 60);
    EXPECT_GE(a.faults[i].bit, 0);
    EXPECT_LT(a.faults[i].bit, 32);
    if (a.faults[i].site == ABFT_SITE_ACCUMULATOR) {
      EXPECT_GE(a.faults[i].kpos, 1);  // a real mid-k fault
      EXPECT_LT(a.faults[i].kpos, 70);
    }
  }
  EXPECT_TRUE(differs);
  EXPECT_NE(ac::trial_seed(1, 17, 1), ac::trial_seed(1, 17, 2));  // input and fault streams differ
}

TEST(CampaignFaults, RowAndColumnPatternsShareTheirCoordinate) {
  ac::Options o;
  o.faults = 5;
  const std::vector<abft_call_info> calls = {gemm_call(40, 41, 42)};
  for (uint64_t t = 0; t < 50; ++t) {
    o.pattern = ac::Pattern::SameRow;
    auto r = ac::draw_faults(o, {ABFT_SITE_OUTPUT}, 64, calls, ac::trial_seed(3, int64_t(t), 2));
    o.pattern = ac::Pattern::SameCol;
    auto c = ac::draw_faults(o, {ABFT_SITE_OUTPUT}, 64, calls, ac::trial_seed(3, int64_t(t), 2));
    for (const abft_fault& f : r.faults) EXPECT_EQ(f.row, r.faults[0].row);
    for (const abft_fault& f : c.faults) EXPECT_EQ(f.col, c.faults[0].col);
  }
}

TEST(CampaignFaults, FixedBitAndModelAreKept) {
  ac::Options o;
  o.bit = 30;
  o.model = ABFT_FAULT_BITFLIP2;
  auto f = ac::draw_faults(o, {ABFT_SITE_PACKED_A}, 32, {gemm_call(8, 9, 10)}, 99);
  ASSERT_EQ(f.faults.size(), 1u);
  EXPECT_EQ(f.faults[0].bit, 30);
  EXPECT_EQ(f.faults[0].model, ABFT_FAULT_BITFLIP2);
  EXPECT_EQ(f.faults[0].site, ABFT_SITE_PACKED_A);
}

TEST(CampaignFaults, TheCallIsOneWhereTheSiteExists) {
  ac::Options o;
  const std::vector<abft_call_info> calls = {gemm_call(8, 8, 8), attn_call(), gemm_call(9, 9, 9)};
  for (uint64_t t = 0; t < 40; ++t) {
    auto a = ac::draw_faults(o, {ABFT_SITE_ATTN_PROBS}, 32, calls, ac::trial_seed(5, int64_t(t), 2));
    EXPECT_EQ(a.call, 1);
    auto g = ac::draw_faults(o, {ABFT_SITE_PACKED_B}, 32, calls, ac::trial_seed(5, int64_t(t), 2));
    EXPECT_TRUE(g.call == 0 || g.call == 2) << g.call;
  }
  auto none = ac::draw_faults(o, {ABFT_SITE_FFT_STAGE}, 32, calls, 7);
  EXPECT_EQ(none.call, -1);
  EXPECT_TRUE(none.faults.empty());
}

TEST(CampaignPlanner, RecordsCallsAndInjectsOnlyIntoTheTarget) {
  ac::Planner p;
  abft_handle_t h = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(p.attach(h), ABFT_STATUS_SUCCESS);
  std::vector<float> A(6 * 5, 1.0f), B(5 * 4, 1.0f), C(6 * 4, 0.0f);
  auto call = [&] {
    return abft_sgemm(h, ABFT_POLICY_CORRECT, ABFT_ROW_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, 6, 4, 5, 1.0f,
                      A.data(), 5, B.data(), 4, 0.0f, C.data(), 4, nullptr);
  };
  p.record();
  ASSERT_EQ(call(), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(call(), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(p.calls().size(), 2u);
  EXPECT_EQ(p.calls()[0].m, 6);
  abft_fault f{};
  f.site = ABFT_SITE_OUTPUT;
  f.model = ABFT_FAULT_NAN;
  f.row = 2, f.col = 3;
  p.inject(1, p.calls()[1], {f});
  ASSERT_EQ(call(), ABFT_STATUS_SUCCESS);  // call 0: nothing
  int n = -1;
  abft_fault got[4];
  ASSERT_EQ(abft_handle_last_injected(h, got, 4, &n), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(n, 0);
  EXPECT_FALSE(p.delivered());
  abft_report rep{};
  ASSERT_EQ(abft_sgemm(h, ABFT_POLICY_CORRECT, ABFT_ROW_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, 6, 4, 5, 1.0f,
                       A.data(), 5, B.data(), 4, 0.0f, C.data(), 4, &rep),
            ABFT_STATUS_SUCCESS);  // call 1: the NaN, repaired
  EXPECT_TRUE(p.delivered());
  ASSERT_EQ(abft_handle_last_injected(h, got, 4, &n), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(n, 1);
  EXPECT_EQ(got[0].applied, 1);
  EXPECT_GE(rep.detected, 1u);
  EXPECT_EQ(C[2 * 4 + 3], 5.0f);
  // Re-attaching clears the record of landed faults.
  ASSERT_EQ(p.attach(h), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_handle_last_injected(h, got, 4, &n), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(n, 0);
  abft_handle_destroy(h);
}

TEST(CampaignSiteExtent, PublicQueryMatchesTheKernels) {
  abft_call_info g = gemm_call(7, 8, 9);
  int64_t r = -1, c = -1, k = -1;
  EXPECT_EQ(abft_site_extent(&g, ABFT_SITE_PACKED_A, &r, &c, &k), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(r, 7);
  EXPECT_EQ(c, 0);
  EXPECT_EQ(k, 9);
  EXPECT_EQ(abft_site_extent(&g, ABFT_SITE_ATTN_SCORES, &r, &c, &k), ABFT_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(abft_site_extent(&g, abft_site(99), &r, &c, &k), ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(abft_site_extent(nullptr, ABFT_SITE_OUTPUT, &r, &c, &k), ABFT_STATUS_NULL_POINTER);
  int count = 0;
  EXPECT_EQ(abft_handle_last_injected(nullptr, nullptr, 0, &count), ABFT_STATUS_NULL_POINTER);
}

/** Whole trials of the GEMM adapter, in process: a large fault is repaired, a tiny one is
 *  masked, and DETECT reports without repairing. */
TEST(CampaignTrial, ClassifiesGemmTrials) {
  ac::Options o;
  o.kernel.kernel = "gemm";
  o.kernel.sizes = {20, 24, 28};
  o.sites = {ABFT_SITE_OUTPUT};
  o.bit = 30;  // top exponent bit: far beyond any bound
  std::string err;
  auto tr = ac::TrialRunner::create(o, &err);
  ASSERT_TRUE(tr) << err;
  for (int64_t id = 0; id < 6; ++id) {
    const ac::TrialRecord r = tr->run(id);
    EXPECT_EQ(r.outcome, ac::Outcome::Corrected) << tr->explain();
    EXPECT_EQ(r.clean, ac::CleanOutcome::Ok);
    EXPECT_GT(r.effect, 1.0);
    EXPECT_EQ(r.change, 0.0);  // repaired bit for bit
    EXPECT_EQ(r.landed, 1);
  }
  o.bit = 0;  // mantissa LSB of an output: below the bound, not flagged
  tr = ac::TrialRunner::create(o, &err);
  const ac::TrialRecord m = tr->run(3);
  EXPECT_EQ(m.outcome, ac::Outcome::Masked) << tr->explain();
  EXPECT_LE(m.change, 1.0);
  EXPECT_GT(m.change, 0.0);
  o.bit = 30;
  o.policy = ABFT_POLICY_DETECT;
  tr = ac::TrialRunner::create(o, &err);
  const ac::TrialRecord d = tr->run(4);
  EXPECT_EQ(d.outcome, ac::Outcome::Detected) << tr->explain();
  EXPECT_GT(d.change, 1.0);  // left as computed
}

TEST(CampaignTrial, BadSiteAndKernelAreErrors) {
  ac::Options o;
  o.kernel.kernel = "gemm";
  o.sites = {ABFT_SITE_FFT_STAGE};
  std::string err;
  EXPECT_FALSE(ac::TrialRunner::create(o, &err));
  EXPECT_NE(err.find("has no such site"), std::string::npos) << err;
  o.kernel.kernel = "nope";
  o.sites.clear();
  EXPECT_FALSE(ac::TrialRunner::create(o, &err));
  EXPECT_NE(err.find("unknown kernel"), std::string::npos) << err;
}

TEST(CampaignSummary, VerdictCountsFailuresAndFalsePositives) {
  ac::Options o;
  std::vector<ac::TrialRecord> recs(4);
  for (size_t i = 0; i < recs.size(); ++i) {
    recs[i].id = int64_t(i);
    recs[i].outcome = ac::Outcome::Corrected;
    recs[i].clean = ac::CleanOutcome::Ok;
    recs[i].landed = 1;
  }
  std::string why;
  EXPECT_TRUE(ac::campaign_passes(o, recs, &why)) << why;
  recs[1].outcome = ac::Outcome::Sdc;
  recs[2].clean = ac::CleanOutcome::FalsePositive;
  recs[3].outcome = ac::Outcome::Hang;
  EXPECT_FALSE(ac::campaign_passes(o, recs, &why));
  EXPECT_NE(why.find("1 sdc"), std::string::npos) << why;
  EXPECT_NE(why.find("1 hang"), std::string::npos) << why;
  EXPECT_NE(why.find("1 false positive"), std::string::npos) << why;
  // The coverage floor.
  for (auto& r : recs) r = recs[0];
  recs[3].outcome = ac::Outcome::Masked;
  o.min_detected = 0.8;
  EXPECT_FALSE(ac::campaign_passes(o, recs, &why));
  EXPECT_NE(why.find("detected 75.00 % < required 80.00 %"), std::string::npos) << why;
  o.min_detected = 0.75;
  EXPECT_TRUE(ac::campaign_passes(o, recs, &why)) << why;
  // One CSV column per header column.
  EXPECT_EQ(count_commas(ac::csv_line(recs[0])), count_commas(ac::csv_header()));
  const std::string text = ac::summary_text(o, "test call", recs, 1.0);
  EXPECT_NE(text.find("corrected             3"), std::string::npos) << text;
  const std::string json = ac::summary_json(o, "test call", recs, 1.0);
  EXPECT_NE(json.find("\"flagged\":3"), std::string::npos) << json;
}
