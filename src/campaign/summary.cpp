/** \file summary.cpp
 *  \brief What a campaign reports (campaign.hpp): the summary table, the JSON summary, one CSV
 *  line per trial, and the pass/fail verdict.
 */
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "campaign/campaign.hpp"

namespace abft::campaign {

namespace {

constexpr int kOutcomes = int(Outcome::Count_);

/** Counts over a group of trials (all, one site, one bit). */
struct Group {
  int64_t n[kOutcomes] = {};
  int64_t landed = 0, detected = 0, beyond = 0, beyond_detected = 0;
  double esc_ratio = 0, esc_rel = 0;  ///< largest change of an undetected (masked) fault: / limit, relative
  double min_detected_effect = INFINITY;  ///< smallest effect (x limit) that was detected
  void add(const TrialRecord& r) {
    ++n[int(r.outcome)];
    if (r.outcome == Outcome::NotLanded || r.outcome == Outcome::Error) return;
    ++landed;
    const bool det = outcome_is_detected(r.outcome);
    if (det) {
      ++detected;
      if (std::isfinite(r.effect)) min_detected_effect = std::min(min_detected_effect, r.effect);
    }
    if (r.effect > 1.0) {
      ++beyond;
      beyond_detected += det;
    }
    if (r.outcome == Outcome::Masked || r.outcome == Outcome::Sdc) {
      esc_ratio = std::max(esc_ratio, r.change);
      esc_rel = std::max(esc_rel, r.rel_change);
    }
  }
  double pct(int64_t k) const { return landed ? 100.0 * double(k) / double(landed) : 0.0; }
};

struct Totals {
  Group all;
  std::map<int, Group> by_site, by_bit, by_model;
  int64_t clean = 0, clean_fp = 0, clean_mismatch = 0;
  double clean_max_ratio = 0;
  explicit Totals(const std::vector<TrialRecord>& recs) {
    for (const TrialRecord& r : recs) {
      all.add(r);
      if (r.outcome != Outcome::Crash && r.outcome != Outcome::Hang) {
        by_site[int(r.site)].add(r);
        by_model[int(r.model)].add(r);
        if (r.model == ABFT_FAULT_BITFLIP || r.model == ABFT_FAULT_BITFLIP2) by_bit[r.bit].add(r);
      }
      if (r.clean != CleanOutcome::None) {
        ++clean;
        clean_fp += r.clean == CleanOutcome::FalsePositive;
        clean_mismatch += r.clean == CleanOutcome::Mismatch;
        clean_max_ratio = std::max(clean_max_ratio, r.clean_ratio);
      }
    }
  }
};

std::string num(double v, const char* fmt = "%.3g") {
  if (std::isnan(v)) return "-";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char b[64];
  std::snprintf(b, sizeof b, fmt, v);
  return b;
}

std::string json_num(double v) {
  if (!std::isfinite(v)) return std::isnan(v) ? "null" : (v > 0 ? "1e999" : "-1e999");
  char b[64];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

std::string json_str(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\', o += c;
    else if (static_cast<unsigned char>(c) < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
    } else o += c;
  }
  return o + "\"";
}

std::string sites_text(const Options& o) {
  if (o.sites.empty()) return "all";
  std::string s;
  for (abft_site x : o.sites) s += std::string(s.empty() ? "" : ",") + site_label(x);
  return s;
}

std::string settings_text(const Options& o) {
  std::ostringstream os;
  os << "model " << (o.random_model ? "any" : model_label(o.model));
  if (o.model == ABFT_FAULT_BITFLIP || o.model == ABFT_FAULT_BITFLIP2 || o.random_model)
    os << ", bit " << (o.bit < 0 ? std::string("random") : std::to_string(o.bit));
  os << ", sites " << sites_text(o) << ", " << o.faults << " fault(s)/call";
  if (o.faults > 1) os << " (" << pattern_name(o.pattern) << ")";
  os << ", policy " << (o.policy == ABFT_POLICY_DETECT ? "detect" : "correct");
  return os.str();
}

std::string group_json(const Group& g) {
  std::ostringstream os;
  // "flagged": every detected outcome; "detected" (below) is the DETECT-policy outcome only.
  os << "{\"landed\":" << g.landed << ",\"flagged\":" << g.detected
     << ",\"flagged_pct\":" << json_num(g.pct(g.detected));
  for (int i = 0; i < kOutcomes; ++i) os << ",\"" << outcome_name(Outcome(i)) << "\":" << g.n[i];
  os << ",\"beyond_bound\":" << g.beyond << ",\"beyond_bound_detected\":" << g.beyond_detected
     << ",\"max_escape_change_over_limit\":" << json_num(g.esc_ratio)
     << ",\"max_escape_rel_change\":" << json_num(g.esc_rel)
     << ",\"min_detected_effect\":" << json_num(std::isfinite(g.min_detected_effect) ? g.min_detected_effect : NAN)
     << "}";
  return os.str();
}

}  // namespace

std::string summary_text(const Options& o, const std::string& desc, const std::vector<TrialRecord>& recs,
                         double seconds) {
  const Totals T(recs);
  std::ostringstream os;
  char line[256];
  os << "campaign: " << desc << "\n  " << settings_text(o) << "\n  " << recs.size() << " trials, seed "
     << o.seed << ", " << num(seconds, "%.1f") << " s ("
     << num(seconds > 0 ? double(recs.size()) / seconds : 0.0, "%.0f") << " trials/s)\n\n";
  os << "outcome          trials      % of landed\n";
  for (int i = 0; i < kOutcomes; ++i) {
    const Outcome oc = Outcome(i);
    if (T.all.n[i] == 0 && oc != Outcome::Sdc && oc != Outcome::Masked) continue;
    const bool of_landed = oc != Outcome::NotLanded && oc != Outcome::Crash && oc != Outcome::Hang &&
                           oc != Outcome::Error;
    std::snprintf(line, sizeof line, "%-15s %7lld   %s\n", outcome_name(oc), static_cast<long long>(T.all.n[i]),
                  of_landed ? num(T.all.pct(T.all.n[i]), "%6.2f").c_str() : "     -");
    os << line;
  }
  std::snprintf(line, sizeof line, "\ndetected %lld of %lld landed faults (%.2f %%); beyond the bound: %lld, detected %lld\n",
                static_cast<long long>(T.all.detected), static_cast<long long>(T.all.landed), T.all.pct(T.all.detected),
                static_cast<long long>(T.all.beyond), static_cast<long long>(T.all.beyond_detected));
  os << line;
  os << "undetected faults moved the output by at most " << num(T.all.esc_ratio) << " x the escape limit ("
     << num(T.all.esc_rel) << " relative to max |output|)\n";
  std::snprintf(line, sizeof line, "clean trials %lld: false positives %lld, mismatches %lld; largest clean change %s x limit\n",
                static_cast<long long>(T.clean), static_cast<long long>(T.clean_fp),
                static_cast<long long>(T.clean_mismatch), num(T.clean_max_ratio).c_str());
  os << line;

  os << "\nby site          landed  detected%  corrected recomputed   masked      sdc  max escape/limit\n";
  for (const auto& kv : T.by_site) {
    const Group& g = kv.second;
    std::snprintf(line, sizeof line, "%-15s %7lld   %7.2f  %9lld %10lld %8lld %8lld  %s\n",
                  site_label(abft_site(kv.first)), static_cast<long long>(g.landed), g.pct(g.detected),
                  static_cast<long long>(g.n[int(Outcome::Corrected)]),
                  static_cast<long long>(g.n[int(Outcome::Recomputed)]),
                  static_cast<long long>(g.n[int(Outcome::Masked)]), static_cast<long long>(g.n[int(Outcome::Sdc)]),
                  num(g.esc_ratio).c_str());
    os << line;
  }
  if (o.random_model || o.model != ABFT_FAULT_BITFLIP) {
    os << "\nby model         landed  detected%   masked      sdc  max escape/limit\n";
    for (const auto& kv : T.by_model) {
      const Group& g = kv.second;
      std::snprintf(line, sizeof line, "%-15s %7lld   %7.2f %8lld %8lld  %s\n", model_label(abft_fault_model(kv.first)),
                    static_cast<long long>(g.landed), g.pct(g.detected),
                    static_cast<long long>(g.n[int(Outcome::Masked)]),
                    static_cast<long long>(g.n[int(Outcome::Sdc)]), num(g.esc_ratio).c_str());
      os << line;
    }
  }
  if (!T.by_bit.empty()) {
    os << "\nby bit  landed  detected%   masked      sdc  escapes: max rel change  max change/limit\n";
    for (const auto& kv : T.by_bit) {
      const Group& g = kv.second;
      const int64_t esc = g.n[int(Outcome::Masked)] + g.n[int(Outcome::Sdc)];
      std::snprintf(line, sizeof line, "%6d %7lld   %7.2f %8lld %8lld  %22s  %16s\n", kv.first,
                    static_cast<long long>(g.landed), g.pct(g.detected),
                    static_cast<long long>(g.n[int(Outcome::Masked)]), static_cast<long long>(g.n[int(Outcome::Sdc)]),
                    esc ? num(g.esc_rel).c_str() : "-", esc ? num(g.esc_ratio).c_str() : "-");
      os << line;
    }
  }
  return os.str();
}

std::string summary_json(const Options& o, const std::string& desc, const std::vector<TrialRecord>& recs,
                         double seconds) {
  const Totals T(recs);
  std::ostringstream os;
  std::string why;
  const bool pass = campaign_passes(o, recs, &why);
  os << "{\"kernel\":" << json_str(o.kernel.kernel) << ",\"type\":" << json_str(type_name(o.kernel.type))
     << ",\"call\":" << json_str(desc) << ",\"settings\":" << json_str(settings_text(o))
     << ",\"command\":" << json_str(o.command_line) << ",\"seed\":" << o.seed << ",\"trials\":" << recs.size()
     << ",\"seconds\":" << json_num(seconds) << ",\"pass\":" << (pass ? "true" : "false")
     << ",\"failures\":" << json_str(why) << ",\"clean\":{\"trials\":" << T.clean
     << ",\"false_positives\":" << T.clean_fp << ",\"mismatches\":" << T.clean_mismatch
     << ",\"max_change_over_limit\":" << json_num(T.clean_max_ratio) << "}"
     << ",\"total\":" << group_json(T.all) << ",\"by_site\":{";
  bool first = true;
  for (const auto& kv : T.by_site) {
    os << (first ? "" : ",") << json_str(site_label(abft_site(kv.first))) << ":" << group_json(kv.second);
    first = false;
  }
  os << "},\"by_model\":{";
  first = true;
  for (const auto& kv : T.by_model) {
    os << (first ? "" : ",") << json_str(model_label(abft_fault_model(kv.first))) << ":" << group_json(kv.second);
    first = false;
  }
  os << "},\"by_bit\":{";
  first = true;
  for (const auto& kv : T.by_bit) {
    os << (first ? "" : ",") << "\"" << kv.first << "\":" << group_json(kv.second);
    first = false;
  }
  os << "}}\n";
  return os.str();
}

std::string csv_header() {
  return "id,outcome,clean,site,model,bit,row,col,kpos,faults,landed,call,calls,original,corrupted,"
         "effect,change,rel_change,clean_change,status,checks,detected,corrected,recomputed,"
         "uncorrectable,ms,signal\n";
}

std::string csv_line(const TrialRecord& r) {
  std::ostringstream os;
  os.precision(9);
  auto v = [](double x) { return std::isnan(x) ? std::string() : num(x, "%.9g"); };
  os << r.id << "," << outcome_name(r.outcome) << "," << clean_outcome_name(r.clean) << ","
     << site_label(r.site) << "," << model_label(r.model) << "," << r.bit << "," << r.row << "," << r.col
     << "," << r.kpos << "," << r.faults << "," << r.landed << "," << r.call << "," << r.calls << ","
     << v(r.original) << "," << v(r.corrupted) << "," << v(r.effect) << "," << v(r.change) << ","
     << v(r.rel_change) << "," << v(r.clean_ratio) << "," << r.status << "," << r.checks << ","
     << r.detected << "," << r.corrected << "," << r.recomputed << "," << r.uncorrectable << ","
     << num(r.ms, "%.3f") << "," << r.signal << "\n";
  return os.str();
}

bool campaign_passes(const Options& o, const std::vector<TrialRecord>& recs, std::string* why) {
  const Totals T(recs);
  std::ostringstream os;
  for (int i = 0; i < kOutcomes; ++i)
    if (outcome_is_failure(Outcome(i)) && T.all.n[i] > 0)
      os << (os.tellp() > 0 ? "; " : "") << T.all.n[i] << " " << outcome_name(Outcome(i));
  if (T.clean_fp) os << (os.tellp() > 0 ? "; " : "") << T.clean_fp << " false positive(s)";
  if (T.clean_mismatch) os << (os.tellp() > 0 ? "; " : "") << T.clean_mismatch << " clean mismatch(es)";
  if (o.min_detected >= 0 && T.all.pct(T.all.detected) < 100.0 * o.min_detected)
    os << (os.tellp() > 0 ? "; " : "") << "detected " << num(T.all.pct(T.all.detected), "%.2f")
       << " % < required " << num(100.0 * o.min_detected, "%.2f") << " %";
  if (T.all.landed == 0 && recs.size() > 0) os << (os.tellp() > 0 ? "; " : "") << "no fault landed";
  *why = os.str();
  return why->empty();
}

}  // namespace abft::campaign
