/** \file stats_injection_test.cpp
 *  \brief The runtime's error statistics (RunStats: indexing, sums, table, JSON, summary), the
 *  injection setting (parse / describe round trip and every rejected spec), the library's
 *  per-FLOP injection rate and its site selection (C API, on sgemm calls), and sample_token
 *  (greedy ties, top-k, the sampled distribution, non-finite logits).
 */
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "abft/abft.h"
#include "abft/transformer/error.hpp"
#include "abft/transformer/generate.hpp"
#include "abft/transformer/injection.hpp"
#include "abft/transformer/stats.hpp"
#include "json.hpp"

using namespace abft::transformer;

namespace {

/** Runs `f` and returns the message of the Error it throws (with the status checked). */
template <class F>
std::string error_of(F&& f, abft_status want = ABFT_STATUS_INVALID_VALUE) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), want) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no Error thrown";
  return "";
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace

// ------------------------------------------------------------------------- names

TEST(OpNames, EveryOpAndPass) {
  const char* want[] = {"qkv",       "attention", "out_proj", "mlp_up",     "mlp_gate", "mlp_down",
                        "lm_head",   "embedding", "norm",     "activation", "rope",     "loss"};
  ASSERT_EQ(sizeof want / sizeof want[0], size_t(OpKind::Count_));
  for (int i = 0; i < int(OpKind::Count_); ++i) {
    EXPECT_STREQ(op_name(OpKind(i)), want[i]);
    EXPECT_EQ(op_is_abft(OpKind(i)), i <= int(OpKind::LmHead)) << want[i];
  }
  EXPECT_STREQ(pass_name(Pass::Forward), "fwd");
  EXPECT_STREQ(pass_name(Pass::Backward), "bwd");
  EXPECT_STREQ(pass_name(Pass::Weight), "dW");
}

// ------------------------------------------------------------------------- counters

TEST(OpCounters, AddAndAddReport) {
  OpCounters a;
  a.calls = 2;
  a.injected = 1;
  a.seconds = 0.5;
  abft_report r{};
  r.checks = 10, r.detected = 3, r.corrected = 2, r.recomputed = 1, r.uncorrectable = 1;
  r.skipped = 4, r.max_ratio = 0.25;
  a.add_report(r);
  EXPECT_EQ(a.calls, 2u);  // a report is not a call
  EXPECT_EQ(a.checks, 10u);
  EXPECT_EQ(a.detected, 3u);
  EXPECT_EQ(a.corrected, 2u);
  EXPECT_EQ(a.recomputed, 1u);
  EXPECT_EQ(a.uncorrectable, 1u);
  EXPECT_EQ(a.skipped, 4u);
  OpCounters b = a;
  b.check_seconds = 0.125;
  b.timing_samples = 3;
  a.add(b);
  EXPECT_EQ(a.calls, 4u);
  EXPECT_EQ(a.checks, 20u);
  EXPECT_EQ(a.skipped, 8u);
  EXPECT_EQ(a.injected, 2u);
  EXPECT_DOUBLE_EQ(a.seconds, 1.0);
  EXPECT_DOUBLE_EQ(a.check_seconds, 0.125);
  EXPECT_EQ(a.timing_samples, 3u);
}

// ------------------------------------------------------------------------- RunStats

TEST(RunStats, EveryRowIsItsOwn) {
  RunStats s(3);
  EXPECT_EQ(s.layers(), 3);
  uint64_t v = 1;
  for (int l = -1; l < 3; ++l)
    for (int o = 0; o < int(OpKind::Count_); ++o)
      for (int p = 0; p < int(Pass::Count_); ++p) s.at(l, OpKind(o), Pass(p)).calls = v++;
  v = 1;
  const RunStats& cs = s;
  for (int l = -1; l < 3; ++l)
    for (int o = 0; o < int(OpKind::Count_); ++o)
      for (int p = 0; p < int(Pass::Count_); ++p)
        ASSERT_EQ(cs.at(l, OpKind(o), Pass(p)).calls, v++) << l << " " << o << " " << p;
  const uint64_t n = v - 1;
  EXPECT_EQ(n, uint64_t(4 * int(OpKind::Count_) * int(Pass::Count_)));
  EXPECT_EQ(s.total().calls, n * (n + 1) / 2);
  // total(op, pass): the same row of every layer, the model level included.
  const uint64_t per_layer = uint64_t(OpKind::Count_) * uint64_t(Pass::Count_);
  const uint64_t first = uint64_t(int(OpKind::MlpDown) * int(Pass::Count_) + int(Pass::Weight)) + 1;
  EXPECT_EQ(s.total(OpKind::MlpDown, Pass::Weight).calls,
            first + (first + per_layer) + (first + 2 * per_layer) + (first + 3 * per_layer));
  s.reset();
  EXPECT_EQ(s.total().calls, 0u);
  EXPECT_EQ(s.layers(), 3);
}

TEST(RunStats, LayerOutOfRangeThrows) {
  RunStats s(2);
  EXPECT_NO_THROW(s.at(-1, OpKind::Embedding, Pass::Forward));
  EXPECT_NO_THROW(s.at(1, OpKind::QKV, Pass::Forward));
  EXPECT_TRUE(contains(error_of([&] { s.at(2, OpKind::QKV, Pass::Forward); }), "layer 2"));
  EXPECT_TRUE(contains(error_of([&] { s.at(-2, OpKind::QKV, Pass::Forward); }), "layer -2"));
  const RunStats& cs = s;
  error_of([&] { cs.at(5, OpKind::QKV, Pass::Forward); });
  error_of([&] { s.at(0, OpKind::Count_, Pass::Forward); });
  error_of([&] { s.at(0, OpKind::QKV, Pass::Count_); });
  RunStats none;
  EXPECT_EQ(none.layers(), 0);
  EXPECT_NO_THROW(none.at(-1, OpKind::Loss, Pass::Forward));
  error_of([&] { none.at(0, OpKind::QKV, Pass::Forward); });
  error_of([&] { s.resize(-1); });
}

TEST(RunStats, AddAndResize) {
  RunStats a(2), b(2), c(3);
  a.at(0, OpKind::QKV, Pass::Forward).calls = 2;
  b.at(0, OpKind::QKV, Pass::Forward).calls = 3;
  b.at(-1, OpKind::Loss, Pass::Forward).detected = 1;
  a.add(b);
  EXPECT_EQ(a.at(0, OpKind::QKV, Pass::Forward).calls, 5u);
  EXPECT_EQ(a.at(-1, OpKind::Loss, Pass::Forward).detected, 1u);
  error_of([&] { a.add(c); });
  a.resize(4);
  EXPECT_EQ(a.layers(), 4);
  EXPECT_EQ(a.total().calls, 0u);
  EXPECT_NO_THROW(a.at(3, OpKind::MlpGate, Pass::Backward));
}

namespace {
RunStats sample_stats() {
  RunStats s(2);
  OpCounters& q0 = s.at(0, OpKind::QKV, Pass::Forward);
  q0.calls = 4, q0.checks = 8, q0.detected = 1, q0.corrected = 1, q0.injected = 1;
  q0.seconds = 0.002;
  OpCounters& q1 = s.at(1, OpKind::QKV, Pass::Forward);
  q1.calls = 4, q1.checks = 8, q1.seconds = 0.003;
  OpCounters& at = s.at(1, OpKind::Attention, Pass::Backward);
  at.calls = 2, at.checks = 6, at.detected = 2, at.recomputed = 2, at.uncorrectable = 1;
  at.injected = 2, at.seconds = 0.004, at.check_seconds = 0.0005, at.timing_samples = 1;
  OpCounters& lm = s.at(-1, OpKind::LmHead, Pass::Weight);
  lm.calls = 1, lm.checks = 2;
  OpCounters& ln = s.at(-1, OpKind::Norm, Pass::Forward);
  ln.calls = 3, ln.checks = 3, ln.skipped = 1;
  return s;
}

/** The lines of a table that start (after blanks) with `first`. */
std::vector<std::string> lines_starting(const std::string& table, const std::string& first) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < table.size()) {
    size_t e = table.find('\n', pos);
    if (e == std::string::npos) e = table.size();
    const std::string line = table.substr(pos, e - pos);
    const size_t b = line.find_first_not_of(' ');
    if (b != std::string::npos && line.compare(b, first.size(), first) == 0) out.push_back(line);
    pos = e + 1;
  }
  return out;
}

std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> w;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ') ++j;
    if (j > i) w.push_back(line.substr(i, j - i));
    i = j;
  }
  return w;
}
}  // namespace

TEST(RunStats, TableSumsOverLayers) {
  const std::string t = sample_stats().table();
  SCOPED_TRACE(t);
  const auto head = lines_starting(t, "op ");
  ASSERT_EQ(head.size(), 1u);
  EXPECT_EQ(words(head[0]),
            (std::vector<std::string>{"op", "pass", "abft", "calls", "checks", "detected",
                                      "corrected", "recomputed", "uncorrectable", "injected",
                                      "ms", "check", "ms"}));
  const auto qkv = lines_starting(t, "qkv");
  ASSERT_EQ(qkv.size(), 1u);
  EXPECT_EQ(words(qkv[0]), (std::vector<std::string>{"qkv", "fwd", "ABFT", "8", "16", "1", "1",
                                                     "0", "0", "1", "5.00", "-"}));
  const auto attn = lines_starting(t, "attention");
  ASSERT_EQ(attn.size(), 1u);
  EXPECT_EQ(words(attn[0]), (std::vector<std::string>{"attention", "bwd", "ABFT", "2", "6", "2",
                                                      "0", "2", "1", "2", "4.00", "0.50"}));
  const auto norm = lines_starting(t, "norm");
  ASSERT_EQ(norm.size(), 1u);
  EXPECT_EQ(words(norm[0])[2], "inv");
  ASSERT_EQ(lines_starting(t, "lm_head").size(), 1u);
  EXPECT_EQ(words(lines_starting(t, "lm_head")[0])[1], "dW");
  // Rows without calls are left out.
  EXPECT_TRUE(lines_starting(t, "mlp_up").empty());
  EXPECT_TRUE(lines_starting(t, "out_proj").empty());
  const auto total = lines_starting(t, "total");
  ASSERT_EQ(total.size(), 1u);
  EXPECT_EQ(words(total[0]), (std::vector<std::string>{"total", "14", "27", "3", "1", "2", "1",
                                                       "3", "9.00", "0.50"}));
  // Columns are aligned: every data line has the header's length or less, the numbers
  // right-aligned at the same end column as their header.
  const size_t calls_end = head[0].find("calls") + 5;
  EXPECT_EQ(qkv[0].find(" 8 ") + 2, calls_end);
}

TEST(RunStats, TablePerLayer) {
  const std::string t = sample_stats().table(true);
  SCOPED_TRACE(t);
  ASSERT_EQ(lines_starting(t, "layer").size(), 1u);
  EXPECT_EQ(words(lines_starting(t, "layer")[0])[0], "layer");
  const auto model_level = lines_starting(t, "- ");
  ASSERT_EQ(model_level.size(), 2u);  // lm_head dW, norm fwd
  EXPECT_EQ(words(model_level[0])[1], "lm_head");
  EXPECT_EQ(words(model_level[1])[1], "norm");
  const auto l0 = lines_starting(t, "0 ");
  ASSERT_EQ(l0.size(), 1u);
  EXPECT_EQ(words(l0[0]), (std::vector<std::string>{"0", "qkv", "fwd", "ABFT", "4", "8", "1", "1",
                                                    "0", "0", "1", "2.00", "-"}));
  EXPECT_EQ(lines_starting(t, "1 ").size(), 2u);
  // Model-level rows come first.
  EXPECT_LT(t.find("lm_head"), t.find(" qkv "));
}

TEST(RunStats, EmptyTableHasHeaderAndTotal) {
  const std::string t = RunStats(2).table();
  EXPECT_EQ(lines_starting(t, "op ").size(), 1u);
  const auto total = lines_starting(t, "total");
  ASSERT_EQ(total.size(), 1u);
  EXPECT_EQ(words(total[0])[1], "0");
}

TEST(RunStats, JsonParsesWithTheNumbers) {
  const RunStats s = sample_stats();
  const json::Value v = json::parse(s.json(), "stats");
  ASSERT_TRUE(v.is_object());
  ASSERT_NE(v.find("layers"), nullptr);
  EXPECT_EQ(v.find("layers")->number, 2.0);
  const json::Value* total = v.find("total");
  ASSERT_NE(total, nullptr);
  EXPECT_EQ(total->find("calls")->number, 14.0);
  EXPECT_EQ(total->find("checks")->number, 27.0);
  EXPECT_EQ(total->find("detected")->number, 3.0);
  EXPECT_EQ(total->find("uncorrectable")->number, 1.0);
  EXPECT_EQ(total->find("skipped")->number, 1.0);
  EXPECT_EQ(total->find("injected")->number, 3.0);
  EXPECT_NEAR(total->find("seconds")->number, 0.009, 1e-12);
  const json::Value* ops = v.find("ops");
  ASSERT_NE(ops, nullptr);
  ASSERT_TRUE(ops->is_array());
  ASSERT_EQ(ops->items.size(), 5u);
  // Rows in (layer, op, pass) order, the model level (-1) first.
  const json::Value& lm = ops->items[0];
  EXPECT_EQ(lm.find("layer")->number, -1.0);
  EXPECT_EQ(lm.find("op")->text, "lm_head");
  EXPECT_EQ(lm.find("pass")->text, "dW");
  EXPECT_TRUE(lm.find("abft")->boolean);
  const json::Value& ln = ops->items[1];
  EXPECT_EQ(ln.find("op")->text, "norm");
  EXPECT_FALSE(ln.find("abft")->boolean);
  EXPECT_EQ(ln.find("skipped")->number, 1.0);
  const json::Value& at = ops->items[4];
  EXPECT_EQ(at.find("layer")->number, 1.0);
  EXPECT_EQ(at.find("op")->text, "attention");
  EXPECT_EQ(at.find("pass")->text, "bwd");
  EXPECT_EQ(at.find("calls")->number, 2.0);
  EXPECT_EQ(at.find("recomputed")->number, 2.0);
  EXPECT_EQ(at.find("timing_samples")->number, 1.0);
  EXPECT_DOUBLE_EQ(at.find("check_seconds")->number, 0.0005);
  // Empty statistics: no rows.
  const json::Value e = json::parse(RunStats(1).json());
  EXPECT_TRUE(e.find("ops")->items.empty());
}

TEST(RunStats, SummaryLine) {
  EXPECT_EQ(sample_stats().summary_line(),
            "checks 27 detected 3 corrected 1 recomputed 2 uncorrectable 1 injected 3");
  EXPECT_EQ(RunStats(1).summary_line(),
            "checks 0 detected 0 corrected 0 recomputed 0 uncorrectable 0 injected 0");
}

// ------------------------------------------------------------------------- injection settings

TEST(InjectionSettings, Defaults) {
  const InjectionSettings s;
  EXPECT_FALSE(s.enabled());
  const std::vector<abft_site> sites = s.effective_sites();
  const std::vector<abft_site> want = {
      ABFT_SITE_OUTPUT,       ABFT_SITE_ACCUMULATOR, ABFT_SITE_PACKED_A, ABFT_SITE_PACKED_B,
      ABFT_SITE_ATTN_SCORES,  ABFT_SITE_ATTN_PROBS,  ABFT_SITE_ATTN_ROWSTAT,
      ABFT_SITE_ATTN_ACC,     ABFT_SITE_ATTN_DP,     ABFT_SITE_ATTN_DS,
      ABFT_SITE_ATTN_DQ,      ABFT_SITE_ATTN_DK,     ABFT_SITE_ATTN_DV};
  EXPECT_EQ(sites, want);
  InjectionSettings t;
  t.sites = {ABFT_SITE_PACKED_B};
  EXPECT_EQ(t.effective_sites(), std::vector<abft_site>{ABFT_SITE_PACKED_B});
  EXPECT_FALSE(InjectionSettings::parse("").enabled());
  EXPECT_FALSE(InjectionSettings::parse("rate=0").enabled());
  EXPECT_TRUE(InjectionSettings::parse("rate=1e-9").enabled());
}

TEST(InjectionSettings, Names) {
  const char* sites[] = {"output",      "accumulator", "packed_a",     "packed_b",
                         "fft_stage",   "fft_twiddle", "attn_scores",  "attn_probs",
                         "attn_rowstat", "attn_acc",   "attn_dp",      "attn_ds",
                         "attn_dq",     "attn_dk",     "attn_dv"};
  for (int i = 0; i < ABFT_SITE_COUNT_; ++i) EXPECT_STREQ(site_name(abft_site(i)), sites[i]);
  const char* models[] = {"bitflip", "bitflip2", "random", "zero", "nan", "inf", "-inf"};
  for (int i = 0; i < ABFT_FAULT_MODEL_COUNT_; ++i)
    EXPECT_STREQ(fault_model_name(abft_fault_model(i)), models[i]);
  EXPECT_STREQ(site_name(abft_site(99)), "unknown");
  EXPECT_STREQ(fault_model_name(abft_fault_model(-3)), "unknown");
}

TEST(InjectionSettings, ParseEveryKey) {
  const InjectionSettings s = InjectionSettings::parse(
      "rate=2.5e-7, per=flop,model=-inf,bit=30,sites=output+attn_probs+packed_b,seed=0x10");
  EXPECT_DOUBLE_EQ(s.rate, 2.5e-7);
  EXPECT_TRUE(s.per_flop);
  EXPECT_EQ(s.model, ABFT_FAULT_NEG_INF);
  EXPECT_EQ(s.bit, 30);
  EXPECT_EQ(s.sites, (std::vector<abft_site>{ABFT_SITE_OUTPUT, ABFT_SITE_ATTN_PROBS,
                                             ABFT_SITE_PACKED_B}));
  EXPECT_EQ(s.seed, 16u);
  // Any order, any subset; the rest keep their defaults.
  const InjectionSettings t = InjectionSettings::parse("seed=9,rate=0.5");
  EXPECT_EQ(t.seed, 9u);
  EXPECT_EQ(t.rate, 0.5);
  EXPECT_FALSE(t.per_flop);
  EXPECT_EQ(t.model, ABFT_FAULT_BITFLIP);
  EXPECT_EQ(t.bit, -1);
  EXPECT_TRUE(t.sites.empty());
  // "all" is the default list; listed twice, a site counts once.
  EXPECT_EQ(InjectionSettings::parse("sites=all").sites, InjectionSettings{}.effective_sites());
  EXPECT_EQ(InjectionSettings::parse("sites=output+output").sites,
            std::vector<abft_site>{ABFT_SITE_OUTPUT});
  // FFT sites may be named (they never land in a transformer pass).
  EXPECT_EQ(InjectionSettings::parse("sites=fft_stage").sites,
            std::vector<abft_site>{ABFT_SITE_FFT_STAGE});
  EXPECT_EQ(InjectionSettings::parse("rate=1,per=call").rate, 1.0);
  EXPECT_EQ(InjectionSettings::parse("rate=3,per=flop").rate, 3.0);
  EXPECT_EQ(InjectionSettings::parse("bit=0").bit, 0);
  EXPECT_EQ(InjectionSettings::parse("bit=-1").bit, -1);
}

TEST(InjectionSettings, RoundTrip) {
  const char* specs[] = {
      "",
      "rate=0.05",
      "rate=1e-3,per=call,model=bitflip2,bit=31,sites=accumulator,seed=7",
      "rate=3.3e-10,per=flop,model=nan",
      "model=zero,sites=attn_scores+attn_probs+attn_rowstat+attn_acc+attn_dp+attn_ds+attn_dq+"
      "attn_dk+attn_dv+packed_a",
      "model=random,seed=18446744073709551615",
      "model=inf,bit=0,rate=0.1",
      "model=-inf,rate=0.30000000000000004",
  };
  for (const char* spec : specs) {
    SCOPED_TRACE(spec);
    const InjectionSettings a = InjectionSettings::parse(spec);
    const std::string d = a.describe();
    const InjectionSettings b = InjectionSettings::parse(d);
    EXPECT_EQ(b.rate, a.rate) << d;
    EXPECT_EQ(b.per_flop, a.per_flop);
    EXPECT_EQ(b.model, a.model);
    EXPECT_EQ(b.bit, a.bit);
    EXPECT_EQ(b.sites, a.sites);
    EXPECT_EQ(b.seed, a.seed);
    EXPECT_EQ(b.describe(), d);
  }
  InjectionSettings s;
  s.rate = 0.001;
  s.per_flop = false;
  s.model = ABFT_FAULT_POS_INF;
  s.bit = 30;
  s.sites = {ABFT_SITE_OUTPUT, ABFT_SITE_ATTN_DV};
  s.seed = 42;
  EXPECT_EQ(s.describe(), "rate=0.001,per=call,model=inf,bit=30,sites=output+attn_dv,seed=42");
  EXPECT_EQ(InjectionSettings{}.describe(), "rate=0,per=call,model=bitflip,bit=-1,seed=1");
}

TEST(InjectionSettings, EveryError) {
  struct Bad {
    const char* spec;
    const char* message;  // a part of the message
  };
  const Bad bad[] = {
      {"foo=1", "injection: unknown key 'foo' (keys: rate, per, model, bit, sites, seed)"},
      {"rate", "'rate' is not key=value"},
      {"rate=0.1,", "empty item"},
      {",rate=0.1", "empty item"},
      {"rate=0.1,rate=0.2", "key 'rate' given twice"},
      {"rate=", "key 'rate' has no value"},
      {"rate=abc", "rate needs a finite number, got 'abc'"},
      {"rate=0.1x", "rate needs a finite number, got '0.1x'"},
      {"rate=nan", "rate needs a finite number"},
      {"rate=inf", "rate needs a finite number"},
      {"rate=1.5", "rate per call must be in [0, 1], got 1.5"},
      {"rate=-0.1", "rate per call must be in [0, 1], got -0.1"},
      {"rate=-1e-9,per=flop", "rate per flop must be >= 0, got -1e-09"},
      {"per=byte", "per needs 'call' or 'flop', got 'byte'"},
      {"model=flip", "unknown model 'flip' (models: bitflip, bitflip2, random, zero, nan, inf, -inf)"},
      {"bit=32", "bit needs an integer in [0, 31] or -1"},
      {"bit=-2", "bit needs an integer in [0, 31] or -1"},
      {"bit=1.5", "bit needs an integer"},
      {"bit=x", "bit needs an integer"},
      {"sites=output+gemm", "unknown site 'gemm' (sites: output, accumulator, packed_a"},
      {"sites=output+", "unknown site ''"},
      {"seed=-1", "seed needs an unsigned integer, got '-1'"},
      {"seed=1e3", "seed needs an unsigned integer, got '1e3'"},
      {"seed=99999999999999999999999", "seed needs an unsigned integer"},
  };
  for (const Bad& b : bad) {
    SCOPED_TRACE(b.spec);
    const std::string msg = error_of([&] { InjectionSettings::parse(b.spec); });
    EXPECT_TRUE(contains(msg, b.message)) << msg;
    EXPECT_EQ(msg.rfind("injection: ", 0), 0u) << msg;
  }
  // A rate above 1 is fine per flop, whichever key comes first.
  EXPECT_NO_THROW(InjectionSettings::parse("rate=2,per=flop"));
  EXPECT_NO_THROW(InjectionSettings::parse("per=flop,rate=2"));
}

// ------------------------------------------------------------------------- per-FLOP injector

namespace {

struct CApi {
  abft_handle_t h = nullptr;
  abft_injector_t inj = nullptr;
  CApi(uint64_t seed) {
    EXPECT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
    EXPECT_EQ(abft_injector_create(seed, &inj), ABFT_STATUS_SUCCESS);
    EXPECT_EQ(abft_handle_set_injector(h, inj), ABFT_STATUS_SUCCESS);
    EXPECT_EQ(abft_handle_set_policy(h, ABFT_POLICY_CORRECT), ABFT_STATUS_SUCCESS);
    EXPECT_EQ(abft_handle_set_threads(h, 1), ABFT_STATUS_SUCCESS);
  }
  ~CApi() {
    abft_handle_destroy(h);
    abft_injector_destroy(inj);
  }
  void add(abft_site site) {
    abft_fault f{};
    f.site = site;
    f.model = ABFT_FAULT_BITFLIP;
    f.bit = 30;
    f.row = f.col = f.kpos = -1;
    ASSERT_EQ(abft_injector_add(inj, &f), ABFT_STATUS_SUCCESS);
  }
  /** Runs `calls` sgemms of m x n x k; returns how many planned a fault, and the sites. */
  int run(int calls, int64_t m, int64_t n, int64_t k, std::vector<abft_site>* sites = nullptr) {
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-1, 1);
    std::vector<float> A(size_t(m * k)), B(size_t(k * n)), C(size_t(m * n));
    for (float& x : A) x = u(rng);
    for (float& x : B) x = u(rng);
    int hit = 0;
    for (int c = 0; c < calls; ++c) {
      abft_report r{};
      EXPECT_EQ(abft_sgemm(h, ABFT_POLICY_DEFAULT, ABFT_ROW_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, m,
                           n, k, 1.0f, A.data(), k, B.data(), n, 0.0f, C.data(), n, &r),
                ABFT_STATUS_SUCCESS);
      abft_fault last[4];
      int count = 0;
      EXPECT_EQ(abft_injector_last(inj, last, 4, &count), ABFT_STATUS_SUCCESS);
      EXPECT_LE(count, 1);  // rate modes: at most one fault per call
      if (count > 0) {
        ++hit;
        if (sites) sites->push_back(last[0].site);
      }
    }
    return hit;
  }
};

/** Binomial check: `hits` of `n` trials against probability p, within 5 standard deviations. */
void expect_binomial(int hits, int n, double p) {
  const double sd = std::sqrt(p * (1 - p) / n);
  const double f = double(hits) / n;
  EXPECT_NEAR(f, p, 5 * sd + 1e-12) << hits << " of " << n;
}

}  // namespace

TEST(FlopRate, FractionOfCallsFollowsOneMinusExp) {
  abft_call_info info{};
  info.kernel = ABFT_KERNEL_SGEMM;
  info.m = 24, info.n = 16, info.k = 32;
  EXPECT_EQ(abft_call_flops(&info), 2.0 * 24 * 16 * 32);
  const double flops = abft_call_flops(&info);
  struct Case {
    double per_flop;
    int64_t m, n, k;
  };
  const Case cases[] = {{0.5 / flops, 24, 16, 32},   // p = 1 - e^-0.5 = 0.39
                        {0.5 / flops, 48, 16, 32},   // twice the FLOPs: p = 1 - e^-1 = 0.63
                        {0.05 / flops, 24, 16, 32},  // p = 0.049
                        {0.0, 24, 16, 32}};          // never
  uint64_t seed = 11;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.m);
    CApi api(seed++);
    api.add(ABFT_SITE_OUTPUT);
    api.add(ABFT_SITE_ACCUMULATOR);
    ASSERT_EQ(abft_injector_set_flop_rate(api.inj, c.per_flop), ABFT_STATUS_SUCCESS);
    const int n = 800;
    const int hits = api.run(n, c.m, c.n, c.k);
    const double p = -std::expm1(-c.per_flop * 2.0 * double(c.m * c.n * c.k));
    expect_binomial(hits, n, p);
    if (c.per_flop == 0.0) {
      EXPECT_EQ(hits, 0);
    }
  }
}

TEST(FlopRate, RejectsNonFinite) {
  abft_injector_t inj = nullptr;
  ASSERT_EQ(abft_injector_create(1, &inj), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(abft_injector_set_flop_rate(inj, std::numeric_limits<double>::quiet_NaN()),
            ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(abft_injector_set_flop_rate(inj, std::numeric_limits<double>::infinity()),
            ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(abft_injector_set_flop_rate(nullptr, 1e-9), ABFT_STATUS_NULL_POINTER);
  abft_injector_destroy(inj);
}

TEST(FlopRate, GemmCallsPickOnlyGemmSites) {
  // Every site of the runtime's default list: a GEMM must only ever draw a GEMM site.
  CApi api(5);
  for (abft_site s : InjectionSettings{}.effective_sites()) api.add(s);
  ASSERT_EQ(abft_injector_set_rate(api.inj, 1.0), ABFT_STATUS_SUCCESS);
  std::vector<abft_site> sites;
  EXPECT_EQ(api.run(200, 20, 12, 16, &sites), 200);
  bool seen[4] = {false, false, false, false};
  for (abft_site s : sites) {
    ASSERT_LE(int(s), int(ABFT_SITE_PACKED_B)) << site_name(s);
    seen[int(s)] = true;
  }
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(seen[i]) << site_name(abft_site(i));
  // The same under the per-FLOP rate (a large one: nearly every call).
  ASSERT_EQ(abft_injector_set_flop_rate(api.inj, 1e-2), ABFT_STATUS_SUCCESS);
  sites.clear();
  const int hits = api.run(100, 20, 12, 16, &sites);
  EXPECT_GE(hits, 95);
  for (abft_site s : sites) EXPECT_LE(int(s), int(ABFT_SITE_PACKED_B)) << site_name(s);
}

TEST(FlopRate, OnlyAttentionSitesNeverHitAGemm) {
  CApi api(6);
  for (abft_site s : {ABFT_SITE_ATTN_SCORES, ABFT_SITE_ATTN_PROBS, ABFT_SITE_ATTN_DV})
    api.add(s);
  ASSERT_EQ(abft_injector_set_flop_rate(api.inj, 1.0), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(api.run(50, 16, 16, 16), 0);
  ASSERT_EQ(abft_injector_set_rate(api.inj, 1.0), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(api.run(50, 16, 16, 16), 0);
}

// ------------------------------------------------------------------------- sample_token

TEST(SampleToken, GreedyLowestIdOnTies) {
  SampleOptions o;  // temperature 0
  uint64_t rng = 5;
  const float a[] = {0.5f, 3.0f, -1.0f, 3.0f, 2.0f};
  EXPECT_EQ(sample_token(a, 5, o, rng), 1);
  EXPECT_EQ(rng, 5u);  // greedy draws nothing
  const float b[] = {-2.0f, -2.0f, -2.0f};
  EXPECT_EQ(sample_token(b, 3, o, rng), 0);
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float c[] = {1.0f, nan, inf, inf, -inf};
  EXPECT_EQ(sample_token(c, 5, o, rng), 2);
  const float d[] = {nan, -1.0f, nan};
  EXPECT_EQ(sample_token(d, 3, o, rng), 1);  // NaN is never the maximum
  const float e[] = {nan, nan};
  error_of([&] { sample_token(e, 2, o, rng); });
  o.top_k = 2;  // no effect on greedy
  EXPECT_EQ(sample_token(a, 5, o, rng), 1);
}

TEST(SampleToken, TopKOneIsGreedy) {
  std::mt19937 gen(1);
  std::normal_distribution<float> nd(0, 3);
  std::vector<float> logits(300);
  SampleOptions greedy, top1;
  top1.temperature = 1.7;
  top1.top_k = 1;
  uint64_t rng = 77;
  for (int trial = 0; trial < 50; ++trial) {
    for (float& x : logits) x = nd(gen);
    if (trial % 5 == 0) logits[size_t(trial)] = logits[size_t(trial + 100)] = 50.0f;  // a tie
    uint64_t r0 = 0;
    const int32_t want = sample_token(logits.data(), 300, greedy, r0);
    const uint64_t before = rng;
    EXPECT_EQ(sample_token(logits.data(), 300, top1, rng), want);
    EXPECT_NE(rng, before);  // sampling advances the stream
  }
}

TEST(SampleToken, SampledDistributionFollowsSoftmax) {
  const std::vector<float> logits = {1.0f, 2.0f, 0.5f, 2.0f, -1.0f, 0.0f};
  const int V = int(logits.size());
  struct Case {
    double temperature;
    int64_t top_k;
  };
  for (const Case c : {Case{1.0, 0}, Case{0.7, 0}, Case{2.5, 0}, Case{1.0, 3}, Case{0.5, 2}}) {
    SCOPED_TRACE(testing::Message() << "T=" << c.temperature << " k=" << c.top_k);
    SampleOptions o;
    o.temperature = c.temperature;
    o.top_k = c.top_k;
    // Expected: softmax over the k largest (ties by lower id: for k=3 ids 1, 3, 0).
    std::vector<int> order = {1, 3, 0, 2, 5, 4};
    const int k = c.top_k > 0 ? int(c.top_k) : V;
    std::vector<double> p(size_t(V), 0.0);
    double sum = 0;
    for (int i = 0; i < k; ++i) sum += std::exp(logits[size_t(order[size_t(i)])] / c.temperature);
    for (int i = 0; i < k; ++i)
      p[size_t(order[size_t(i)])] = std::exp(logits[size_t(order[size_t(i)])] / c.temperature) / sum;
    uint64_t rng = 12345;
    const int n = 20000;
    std::vector<int> count(size_t(V), 0);
    for (int d = 0; d < n; ++d) {
      const int32_t t = sample_token(logits.data(), V, o, rng);
      ASSERT_GE(t, 0);
      ASSERT_LT(t, V);
      ++count[size_t(t)];
    }
    for (int i = 0; i < V; ++i) {
      if (p[size_t(i)] == 0.0) {
        EXPECT_EQ(count[size_t(i)], 0) << "id " << i << " is outside the top k";
      } else {
        SCOPED_TRACE(i);
        expect_binomial(count[size_t(i)], n, p[size_t(i)]);
      }
    }
  }
}

TEST(SampleToken, SameSeedSameDraws) {
  const std::vector<float> logits = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f};
  SampleOptions o;
  o.temperature = 1.0;
  uint64_t r1 = 9, r2 = 9, r3 = 10;
  std::vector<int32_t> a, b, c;
  for (int i = 0; i < 64; ++i) {
    a.push_back(sample_token(logits.data(), 8, o, r1));
    b.push_back(sample_token(logits.data(), 8, o, r2));
    c.push_back(sample_token(logits.data(), 8, o, r3));
  }
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(SampleToken, RejectsNonFiniteAndBadOptions) {
  SampleOptions o;
  o.temperature = 0.8;
  uint64_t rng = 1;
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (float bad : {nan, inf, -inf}) {
    const float l[] = {0.0f, 1.0f, bad, 2.0f};
    const std::string msg = error_of([&] { sample_token(l, 4, o, rng); });
    EXPECT_TRUE(contains(msg, "non-finite")) << msg;
    EXPECT_TRUE(contains(msg, "id 2")) << msg;
  }
  o.top_k = 1;  // even when the bad logit is outside the top k
  const float l[] = {5.0f, nan, 1.0f};
  error_of([&] { sample_token(l, 3, o, rng); });
  const float ok[] = {1.0f, 2.0f};
  error_of([&] { sample_token(ok, 0, o, rng); });
  error_of([&] { sample_token(nullptr, 2, o, rng); });
  o.temperature = -1.0;
  error_of([&] { sample_token(ok, 2, o, rng); });
  o.temperature = std::numeric_limits<double>::infinity();
  error_of([&] { sample_token(ok, 2, o, rng); });
  o.temperature = 1.0;
  o.top_k = -1;
  error_of([&] { sample_token(ok, 2, o, rng); });
}
