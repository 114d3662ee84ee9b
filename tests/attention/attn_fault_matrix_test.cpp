/** \file attn_fault_matrix_test.cpp
 *  \brief The attention fault matrix: through a handle's built-in injector,
 *  every forward site (SCORES, PROBS, ROWSTAT max and normalizer, ACC,
 *  OUTPUT) and every backward site (SCORES, PROBS, DP, DS, DQ, DK, DV) x every
 *  fault model (bit flips over sign, exponent and mantissa bits, double flips,
 *  random value, zero, NaN, +-Inf; every bit for single flips) x fixed and
 *  random coordinates, on batch 1, heads 2, kv_heads 1, q_len 70, kv_len 130,
 *  head_dim 64: causal, non-causal, and non-causal with a full mask (-inf
 *  entries, masked rows).
 *
 *  Each trial is judged against a clean run of the same call (policy CORRECT):
 *   - detected: status SUCCESS, report.corrected >= 1, and every output (O and
 *     lse, or dQ dK dV) bit-identical to the clean run (the repair recomputes
 *     the block with the same arithmetic);
 *   - not detected: every output element within the round-off scale of its
 *     tensor (kEscapeTolFactor below) of the clean run; NaN/Inf and large
 *     (>= 2^8) exponent growth must be detected unless the corrupted value was
 *     dead (output bit-identical to the clean run, e.g. a masked score);
 *   - policy DETECT on the same fault: detected iff detected under CORRECT,
 *     and then status FAULT_DETECTED.
 *  A summary per site (landed / detected / dead / escaped within tolerance,
 *  largest escape) is printed.
 */
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>

#include "abft/abft.hpp"
#include "abft/checksum/attention_bounds.hpp"
#include "abft/checksum/float_bits.hpp"
#include "attn_reference.hpp"
#include "attn_test_util.hpp"

using namespace attn_test;

namespace {

/** An undetected fault may move an output element by at most twice the bound of
 *  the engine's check that covers the element (GUIDE §4: an SDC from a fault larger
 *  than the bound is a bug; below it, the check cannot see it), and never by less
 *  than the round-off tolerance of the correctness tests. The bounds are the
 *  engine's own coefficients (abft/checksum/attention_bounds.hpp) times magnitude
 *  sums from the double reference (attn_reference.hpp), over the block the check
 *  sums: forward O, a query row's sum over head_dim (attn_output_coefficient x
 *  sum_c magO); backward dV and dK, a key block's column sums
 *  (attn_accumulated_coefficient x sum over the block of magdV / magdK); dQ, a query
 *  block's column sums. The references' dS magnitudes (P (|dP| + |D|)) are at least
 *  the engine's |dS|, so these limits are no tighter than the engine's. Sites
 *  upstream of the checked products (scores, dP, dS) reach the outputs through them
 *  and are held to the same limits. kEscapeTolFactor scales them (lowering it makes
 *  the matrix fail close to the thresholds: the test bites). */
constexpr double kEscapeTolFactor = 2.0;
/** Detailed failure messages per test (env ABFT_ATTN_FAULT_VERBOSE=1: all). */
int max_messages() {
  static const int n = std::getenv("ABFT_ATTN_FAULT_VERBOSE") ? 1 << 30 : 12;
  return n;
}

struct SiteCfg {
  bool bwd;
  abft_site site;
  int col = -2;  ///< ROWSTAT: 0 (running max) or 1 (normalizer); -2 = site's own coordinates
  int causal = 0;
  bool mask = false;  ///< a full additive mask with -inf entries (attn_test_util.hpp, MaskKind::Full)
  std::string name() const {
    std::string s = std::string(bwd ? "Bwd_" : "Fwd_") + site_tag(site);
    if (site == ABFT_SITE_ATTN_ROWSTAT) s += col == 0 ? "Max" : "Sum";
    return s + (causal ? "_causal" : "_full") + (mask ? "_mask" : "");
  }
};

void PrintTo(const SiteCfg& s, std::ostream* os) { *os << s.name(); }

std::vector<SiteCfg> site_cfgs() {
  std::vector<SiteCfg> v;
  // Non-causal, causal, and non-causal with a mask (-inf entries, a fully masked row).
  for (int variant = 0; variant < 3; ++variant) {
    const int causal = variant == 1;
    const bool mask = variant == 2;
    for (abft_site s : {ABFT_SITE_ATTN_SCORES, ABFT_SITE_ATTN_PROBS}) v.push_back({false, s, -2, causal, mask});
    v.push_back({false, ABFT_SITE_ATTN_ROWSTAT, 0, causal, mask});
    v.push_back({false, ABFT_SITE_ATTN_ROWSTAT, 1, causal, mask});
    for (abft_site s : {ABFT_SITE_ATTN_ACC, ABFT_SITE_OUTPUT, ABFT_SITE_PACKED_A})
      v.push_back({false, s, -2, causal, mask});
    for (abft_site s : {ABFT_SITE_ATTN_SCORES, ABFT_SITE_ATTN_PROBS, ABFT_SITE_ATTN_DP, ABFT_SITE_ATTN_DS,
                        ABFT_SITE_ATTN_DQ, ABFT_SITE_ATTN_DK, ABFT_SITE_ATTN_DV, ABFT_SITE_PACKED_A})
      v.push_back({true, s, -2, causal, mask});
  }
  return v;
}

// The problem: batch 1, heads 2 sharing kv head 0, q_len 70, kv_len 130, head_dim 64.
constexpr int64_t kHeads = 2, kQ = 70, kKv = 130, kD = 64;
int64_t qrow(int64_t h, int64_t i) { return h * kQ + i; }
int64_t krow(int64_t h, int64_t j) { return h * kKv + j; }

struct Coord {
  int64_t row, col, kpos;
};
/** Fixed coordinates (attention.h): first/last query, a causal boundary, a
 *  causally masked key, first/last block positions, and query 1 of head 1
 *  (a row with no admissible key in the masked variant: O = 0, lse = -inf). */
std::vector<Coord> fixed_coords(const SiteCfg& s) {
  switch (s.site) {
    case ABFT_SITE_ATTN_SCORES:
    case ABFT_SITE_ATTN_PROBS:
    case ABFT_SITE_ATTN_DP:
    case ABFT_SITE_ATTN_DS:  // (query row, key j); j = 110 is masked for query 20 when causal
      return {{qrow(0, 0), 60, 0}, {qrow(1, 69), 129, 0}, {qrow(1, 33), 47, 0}, {qrow(0, 20), 110, 0},
              {qrow(1, 1), 50, 0}};
    case ABFT_SITE_ATTN_ROWSTAT:  // (query row, 0/1, after the block of key kpos)
      return {{qrow(0, 0), s.col, 0}, {qrow(1, 69), s.col, 129}, {qrow(1, 33), s.col, 64}, {qrow(0, 50), s.col, 100},
              {qrow(1, 1), s.col, 7}};
    case ABFT_SITE_ATTN_ACC:
    case ABFT_SITE_ATTN_DQ:  // (query row, column c, after the block of key kpos)
      return {{qrow(0, 0), 0, 0}, {qrow(1, 69), 63, 129}, {qrow(1, 33), 17, 64}, {qrow(0, 50), 5, 100},
              {qrow(1, 1), 29, 7}};
    case ABFT_SITE_OUTPUT:
      return {{qrow(0, 0), 0, 0}, {qrow(1, 69), 63, 0}, {qrow(1, 33), 31, 0}, {qrow(0, 50), 5, 0}, {qrow(1, 1), 29, 0}};
    case ABFT_SITE_PACKED_A:  // (query row, -, head_dim column kpos) of the packed (scale Q)^T
      return {{qrow(0, 0), 0, 0}, {qrow(1, 69), 0, 63}, {qrow(1, 33), 0, 17}, {qrow(0, 50), 0, 5},
              {qrow(1, 1), 0, 29}};
    case ABFT_SITE_ATTN_DK:
    case ABFT_SITE_ATTN_DV:  // ((head, key j) row, column c, after head h's block of query kpos)
      return {{krow(0, 0), 0, 0}, {krow(1, 129), 63, 69}, {krow(0, 64), 20, 40}, {krow(1, 100), 7, 10}};
    default: return {};
  }
}
constexpr int kRandomCoords = 2;

struct Model {
  abft_fault_model m;
  int bit;  // -1: drawn (random coordinates) or not a bit model
};
std::vector<Model> models() {
  std::vector<Model> v;
  // Every bit (mantissa 0..22, exponent 23..30, sign 31); double flips across
  // the mantissa, the mantissa/exponent boundary and the exponent.
  for (int b = 0; b < 32; ++b) v.push_back({ABFT_FAULT_BITFLIP, b});
  for (int b : {0, 5, 10, 15, 20, 21, 22, 23, 25, 27, 28, 29, 30}) v.push_back({ABFT_FAULT_BITFLIP2, b});
  for (abft_fault_model m : {ABFT_FAULT_RANDOM, ABFT_FAULT_ZERO, ABFT_FAULT_NAN, ABFT_FAULT_POS_INF,
                             ABFT_FAULT_NEG_INF})
    v.push_back({m, -1});
  return v;
}

/** One run's outputs (forward: O, lse; backward: dQ, dK, dV), logical order. */
struct Outputs {
  abft_status status = ABFT_STATUS_INTERNAL_ERROR;
  abft_report report{};
  std::vector<std::vector<float>> t;
};
const char* const kFwdNames[] = {"O", "lse"};
const char* const kBwdNames[] = {"dQ", "dK", "dV"};

struct Bench {
  SiteCfg s;
  Problem p;
  abft::Handle h;
  FwdRun clean_f;
  Outputs clean;
  std::vector<double> clean_max;  // per output tensor: max |finite|
  std::vector<std::vector<double>> limit;  // per output element: escape limit (see kEscapeTolFactor)

  static Case make_case(const SiteCfg& s) {
    Case c;
    c.batch = 1, c.heads = kHeads, c.kv_heads = 1, c.q_len = kQ, c.kv_len = kKv, c.head_dim = kD;
    c.causal = s.causal, c.seed = 2024;
    if (s.mask) c.mask = MaskKind::Full;
    return c;
  }
  explicit Bench(const SiteCfg& cfg) : s(cfg), p(make_case(cfg)) {
    h.set_policy(abft::Policy::Correct);
    clean_f = run_forward(h.get(), ABFT_POLICY_CORRECT, p);
    clean = run(ABFT_POLICY_CORRECT, nullptr);
    for (const auto& v : clean.t) {
      double m = 0;
      for (float x : v)
        if (std::isfinite(x)) m = std::max(m, double(std::fabs(x)));
      clean_max.push_back(m);
    }
    // Round-off tolerances of the correctness tests, raised to kEscapeTolFactor x the
    // bound of the engine's check over each element's block (attention_reference.hpp: the
    // same limits the campaign's attention adapter judges by).
    const attn_ref::Forward rf = attn_ref::forward(p.d, p.Q.ptr(), p.K.ptr(), p.V.ptr(), p.mask_ptr());
    if (!s.bwd) {
      limit = attn_ref::forward_escape_limits(p.d, rf, kEscapeTolFactor).t;
    } else {
      const std::vector<double> O = clean_f.O.logical(), L = clean_f.lse.logical();
      const attn_ref::Backward rb =
          attn_ref::backward(p.d, p.Q.ptr(), p.K.ptr(), p.V.ptr(), p.mask_ptr(), O.data(), L.data(), p.dO.ptr());
      limit = attn_ref::backward_escape_limits(p.d, rb, max_abs(L), kEscapeTolFactor).t;
    }
  }
  Outputs run(abft_policy pol, const abft::Injector* inj) {
    Outputs o;
    h.set_injector(inj);
    if (!s.bwd) {
      const FwdRun r = run_forward(h.get(), pol, p);
      o.status = r.status, o.report = r.report;
      o.t = {r.O.logical_f(), std::vector<float>(r.lse.buf.begin() + 8, r.lse.buf.begin() + 8 + long(r.lse.n))};
    } else {
      const BwdRun r = run_backward(h.get(), pol, p, clean_f.O, clean_f.lse);
      o.status = r.status, o.report = r.report;
      o.t = {r.dQ.logical_f(), r.dK.logical_f(), r.dV.logical_f()};
    }
    h.set_injector(nullptr);
    return o;
  }
  const char* tname(size_t k) const { return s.bwd ? kBwdNames[k] : kFwdNames[k]; }
  bool identical(const Outputs& o) const {
    for (size_t k = 0; k < o.t.size(); ++k)
      for (size_t e = 0; e < o.t[k].size(); ++e)
        if (!same_bits(o.t[k][e], clean.t[k][e])) return false;
    return true;
  }
  /** Largest |o - clean| / limit over the outputs (inf for a new non-finite value), and
   *  in *rel the largest |o - clean| / max|clean| of its tensor; *where names the element
   *  with the largest ratio to its limit. */
  double escape(const Outputs& o, std::string* where, double* rel = nullptr) const {
    double worst = 0, worst_rel = 0;
    for (size_t k = 0; k < o.t.size(); ++k)
      for (size_t e = 0; e < o.t[k].size(); ++e) {
        const float g = o.t[k][e], c = clean.t[k][e];
        double d, r;
        if (!std::isfinite(c)) d = r = same_bits(g, c) ? 0.0 : kInf;
        else if (!std::isfinite(g)) d = r = kInf;
        else {
          const double diff = std::fabs(double(g) - double(c));
          d = diff == 0 ? 0.0 : diff / limit[k][e];
          r = diff / std::max(clean_max[k], 1e-30);
        }
        worst_rel = std::max(worst_rel, r);
        if (d > worst) {
          worst = d;
          std::ostringstream os;
          os << tname(k) << "[" << e << "] = " << g << " clean " << c;
          if (std::isfinite(d))
            os << ", |diff| " << std::fabs(double(g) - double(c)) << " vs escape limit " << limit[k][e]
               << ", " << r << " of max|" << tname(k) << "|";
          else
            os << ", a non-finite value the clean run does not have";
          *where = os.str();
        }
      }
    if (rel) *rel = worst_rel;
    return worst;
  }
};

std::string describe(const abft_fault& f) {
  std::ostringstream os;
  os << site_tag(f.site) << "/" << model_tag(f.model) << " bit=" << f.bit << " row=" << f.row
     << " col=" << f.col << " kpos=" << f.kpos << " original=" << f.original << " corrupted=" << f.corrupted;
  return os.str();
}

/** Must this fault be detected whenever it reaches the output? NaN/Inf, and
 *  exponent growth by >= 2^8 of a non-negligible value, except the running
 *  maximum, which the online softmax only uses as a shift (a larger one cancels
 *  between numerator and normalizer). */
bool must_detect(const abft_fault& f) {
  const double o = f.original, c = f.corrupted;
  if (!std::isfinite(c)) return true;
  if (f.site == ABFT_SITE_ATTN_ROWSTAT && f.col == 0) return false;
  if (f.model != ABFT_FAULT_BITFLIP && f.model != ABFT_FAULT_BITFLIP2) return false;
  return o != 0.0 && std::isfinite(o) && std::fabs(c) >= 256.0 * std::fabs(o) && std::fabs(c) >= 1e-2;
}

struct Tally {
  int trials = 0, landed = 0, detected = 0, dead = 0, escaped = 0, failed = 0;
  double max_tol = 0;  ///< largest undetected change / escape limit
  double max_rel = 0;  ///< largest undetected change / max|clean| of its tensor
};

class AttnFaultMatrix : public ::testing::TestWithParam<SiteCfg> {};

TEST_P(AttnFaultMatrix, DetectedFaultsAreRepairedEscapesAreRoundOff) {
  const SiteCfg& cfg = GetParam();
  Bench bench(cfg);
  ASSERT_EQ(bench.clean_f.status, ABFT_STATUS_SUCCESS);
  ASSERT_EQ(bench.clean.status, ABFT_STATUS_SUCCESS) << cfg.name() << " clean";
  ASSERT_EQ(bench.clean.report.detected, 0u) << cfg.name() << " clean run flagged " << report_str(bench.clean.report);

  std::map<std::string, Tally> tally;  // per model
  std::vector<std::string> order;
  int messages = 0, failures = 0;
  Tally* cur = nullptr;
  auto fail = [&](const std::string& msg) {
    ++failures;
    if (cur) ++cur->failed;
    if (messages++ < max_messages()) ADD_FAILURE() << cfg.name() << ": " << msg;
  };

  const std::vector<Coord> coords = fixed_coords(cfg);
  const int ncoords = int(coords.size()) + kRandomCoords;
  uint64_t seed = 1;
  for (const Model& md : models()) {
    const std::string mname = std::string(model_tag(md.m)) + (md.bit >= 0 ? " b" + std::to_string(md.bit) : "");
    const std::string mkey = model_tag(md.m);
    if (!tally.count(mkey)) order.push_back(mkey);
    Tally& t = tally[mkey];
    cur = &t;
    for (int ci = 0; ci < ncoords; ++ci) {
      abft_fault spec{};
      spec.site = cfg.site;
      spec.model = md.m;
      const bool random = ci >= int(coords.size());
      spec.bit = md.bit;
      if (random) {
        spec.row = spec.col = spec.kpos = -1;
        if (cfg.site == ABFT_SITE_ATTN_ROWSTAT) spec.col = cfg.col;
        if (ci == int(coords.size()) && (md.m == ABFT_FAULT_BITFLIP || md.m == ABFT_FAULT_BITFLIP2) && md.bit == 0)
          spec.bit = -1;  // one draw of the bit too
      } else {
        spec.row = coords[size_t(ci)].row, spec.col = coords[size_t(ci)].col, spec.kpos = coords[size_t(ci)].kpos;
      }
      ++seed;
      abft::Injector inj(seed);
      inj.add(spec);
      const Outputs o = bench.run(ABFT_POLICY_CORRECT, &inj);
      abft_fault f{};
      int cnt = 0;
      ASSERT_EQ(abft_injector_last(inj.get(), &f, 1, &cnt), ABFT_STATUS_SUCCESS);
      ++t.trials;
      if (random && cnt == 1) {
        // A drawn coordinate lies inside the site's extent (attention.h).
        const bool qsite = cfg.site != ABFT_SITE_ATTN_DK && cfg.site != ABFT_SITE_ATTN_DV;
        if (f.row < 0 || f.row >= (qsite ? kHeads * kQ : kHeads * kKv) || f.col < 0 || f.bit < 0 || f.bit > 31)
          fail("random coordinates out of range: " + describe(f));
      }
      if (cnt != 1 || !f.applied) {
        if (o.report.detected) fail("fault did not land but the call detected one: " + report_str(o.report));
        if (!bench.identical(o)) fail("fault did not land but the output changed (" + mname + ")");
        continue;
      }
      ++t.landed;
      const bool det = o.report.detected > 0;
      const std::string what = mname + " " + describe(f) + " -> " + abft_status_string(o.status) + " " +
                               report_str(o.report);
      if (det) {
        ++t.detected;
        if (o.status != ABFT_STATUS_SUCCESS) fail("detected but not repaired: " + what);
        else if (o.report.corrected < 1) fail("repaired without report.corrected: " + what);
        else if (!bench.identical(o)) {
          std::string where;
          bench.escape(o, &where);
          fail("repaired output differs from the clean run (" + where + "): " + what);
        }
      } else {
        if (o.status != ABFT_STATUS_SUCCESS) fail("status without detection: " + what);
        if (bench.identical(o)) {
          ++t.dead;
        } else {
          std::string where;
          double rel = 0;
          const double e = bench.escape(o, &where, &rel);
          t.max_tol = std::max(t.max_tol, e);
          t.max_rel = std::max(t.max_rel, rel);
          if (must_detect(f)) {
            fail("escaped although it must be detected (" + where + "): " + what);
          } else if (!(e <= 1.0)) {
            fail("undetected change beyond the escape limit (x" + std::to_string(e) + ": " + where + "): " + what);
          } else {
            ++t.escaped;
          }
        }
      }
      // Policy DETECT on the same fault (same seed, same draw): the first coordinate
      // and the first random one of every model, and every fault CORRECT detected
      // at the first two coordinates.
      if (ci == 0 || ci == int(coords.size()) || (det && ci < 2)) {
        abft::Injector inj2(seed);
        inj2.add(spec);
        const Outputs od = bench.run(ABFT_POLICY_DETECT, &inj2);
        const bool ddet = od.report.detected > 0;
        if (ddet != det)
          fail(std::string("policy DETECT ") + (ddet ? "detected" : "missed") + " what CORRECT " +
               (det ? "detected" : "missed") + ": " + what);
        if (ddet && od.status != ABFT_STATUS_FAULT_DETECTED)
          fail(std::string("policy DETECT returned ") + abft_status_string(od.status) + ": " + what);
        if (ddet && od.report.corrected != 0) fail("policy DETECT corrected: " + what);
        if (!ddet && od.status != ABFT_STATUS_SUCCESS) fail("policy DETECT status without detection: " + what);
      }
    }
  }
  int landed = 0;
  for (const auto& kv : tally) landed += kv.second.landed;
  // Summary.
  // escaped = undetected, output changed within the escape limit; dead = undetected,
  // output bit-identical; max/tol, max/|max| = largest undetected change over the
  // tolerance and over max|clean| of its tensor (failed trials included).
  std::printf("  %-22s %-9s %6s %6s %8s %5s %7s %6s %8s %9s\n", cfg.name().c_str(), "model", "trials", "landed",
              "detected", "dead", "escaped", "failed", "max/tol", "max/|max|");
  for (const std::string& k : order) {
    const Tally& t = tally[k];
    std::printf("  %-22s %-9s %6d %6d %8d %5d %7d %6d %8.2g %9.2g\n", "", k.c_str(), t.trials, t.landed, t.detected,
                t.dead, t.escaped, t.failed, t.max_tol, t.max_rel);
  }
  std::printf("  %-22s failures: %d\n", "", failures);
  EXPECT_GT(landed, 0) << cfg.name() << ": no fault landed at this site";
  EXPECT_EQ(failures, 0) << cfg.name() << ": " << failures << " failing trial(s), the first " << max_messages()
                         << " listed above (ABFT_ATTN_FAULT_VERBOSE=1 lists all)";
}

INSTANTIATE_TEST_SUITE_P(Sites, AttnFaultMatrix, ::testing::ValuesIn(site_cfgs()),
                         [](const ::testing::TestParamInfo<SiteCfg>& i) { return i.param.name(); });

/** Sites that do not exist in a direction (ROWSTAT, ACC, OUTPUT in the
 *  backward; DP..DV in the forward) never land and change nothing. */
TEST(AttnFaultMatrixSites, WrongDirectionSitesNeverLand) {
  for (bool bwd : {false, true}) {
    const abft_site sites_fwd_only[] = {ABFT_SITE_ATTN_ROWSTAT, ABFT_SITE_ATTN_ACC, ABFT_SITE_OUTPUT};
    const abft_site sites_bwd_only[] = {ABFT_SITE_ATTN_DP, ABFT_SITE_ATTN_DS, ABFT_SITE_ATTN_DQ, ABFT_SITE_ATTN_DK,
                                        ABFT_SITE_ATTN_DV};
    Bench bench(SiteCfg{bwd, ABFT_SITE_ATTN_SCORES, -2, 0});
    std::vector<abft_site> sites;
    if (bwd) sites.assign(std::begin(sites_fwd_only), std::end(sites_fwd_only));
    else sites.assign(std::begin(sites_bwd_only), std::end(sites_bwd_only));
    for (abft_site s : sites) {
      abft_fault spec{};
      spec.site = s, spec.model = ABFT_FAULT_NAN, spec.bit = 0, spec.row = 3, spec.col = 1, spec.kpos = 0;
      abft::Injector inj(9);
      inj.add(spec);
      const Outputs o = bench.run(ABFT_POLICY_CORRECT, &inj);
      abft_fault f{};
      int cnt = 0;
      ASSERT_EQ(abft_injector_last(inj.get(), &f, 1, &cnt), ABFT_STATUS_SUCCESS);
      EXPECT_TRUE(cnt == 0 || !f.applied) << (bwd ? "backward" : "forward") << " site " << site_tag(s) << " landed";
      EXPECT_EQ(o.report.detected, 0u) << site_tag(s);
      EXPECT_TRUE(bench.identical(o)) << site_tag(s);
    }
  }
}

/** With the injector under policy OFF the fault lands unchecked: the call
 *  reports nothing (and returns SUCCESS). */
TEST(AttnFaultMatrixSites, PolicyOffReportsNothing) {
  Bench bench(SiteCfg{false, ABFT_SITE_OUTPUT, -2, 0});
  abft_fault spec{};
  spec.site = ABFT_SITE_OUTPUT, spec.model = ABFT_FAULT_BITFLIP, spec.bit = 30, spec.row = 5, spec.col = 5;
  abft::Injector inj(3);
  inj.add(spec);
  const Outputs o = bench.run(ABFT_POLICY_OFF, &inj);
  EXPECT_EQ(o.status, ABFT_STATUS_SUCCESS);
  EXPECT_EQ(o.report.detected, 0u);
  EXPECT_EQ(o.report.checks, 0u);
}

}  // namespace
