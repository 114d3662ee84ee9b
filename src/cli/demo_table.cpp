/** \file demo_table.cpp
 *  \brief The scenario and table helpers both parts of `abft demo` share (demo_table.hpp).
 */
#include "demo_table.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace abft::cli {

abft_fault fault_spec(abft_site site, abft_fault_model model, int bit) {
  abft_fault f;
  std::memset(&f, 0, sizeof f);
  f.site = site;
  f.model = model;
  f.bit = bit;
  f.row = f.col = f.kpos = -1;  // drawn from the seed for every call
  return f;
}

const char* site_name(abft_site s) {
  switch (s) {
    case ABFT_SITE_OUTPUT: return "out";
    case ABFT_SITE_ACCUMULATOR: return "acc";
    case ABFT_SITE_PACKED_A: return "pA";
    case ABFT_SITE_PACKED_B: return "pB";
    case ABFT_SITE_FFT_STAGE: return "stage";
    case ABFT_SITE_FFT_TWIDDLE: return "twid";
    case ABFT_SITE_ATTN_SCORES: return "scores";
    case ABFT_SITE_ATTN_PROBS: return "probs";
    case ABFT_SITE_ATTN_ROWSTAT: return "rowstat";
    case ABFT_SITE_ATTN_ACC: return "oacc";
    case ABFT_SITE_ATTN_DP: return "dP";
    case ABFT_SITE_ATTN_DS: return "dS";
    case ABFT_SITE_ATTN_DQ: return "dQ";
    case ABFT_SITE_ATTN_DK: return "dK";
    case ABFT_SITE_ATTN_DV: return "dV";
    default: return "?";
  }
}

std::string model_name(const abft_fault& f) {
  switch (f.model) {
    case ABFT_FAULT_BITFLIP: return "flip" + std::to_string(f.bit);
    case ABFT_FAULT_BITFLIP2: return "flip" + std::to_string(f.bit) + "+" + std::to_string(f.bit + 1);
    case ABFT_FAULT_RANDOM: return "random";
    case ABFT_FAULT_ZERO: return "zero";
    case ABFT_FAULT_NAN: return "NaN";
    case ABFT_FAULT_POS_INF: return "+Inf";
    case ABFT_FAULT_NEG_INF: return "-Inf";
    default: return "?";
  }
}

std::vector<Scenario> label_scenarios(const std::vector<std::vector<abft_fault>>& sets) {
  std::vector<Scenario> out;
  for (const auto& faults : sets) {
    std::string label;
    for (const abft_fault& f : faults)
      label += (label.empty() ? "" : ",") + std::string(site_name(f.site)) + ":" + model_name(f);
    out.push_back({label.empty() ? "none" : label, faults});
  }
  return out;
}

InjectedFaults last_faults(Injector& inj) {
  InjectedFaults r;
  if (abft_injector_last(inj.get(), r.got, 16, &r.count) != ABFT_STATUS_SUCCESS) r.count = 0;
  r.count = std::min(r.count, 16);
  for (int i = 0; i < r.count; ++i) r.applied += r.got[i].applied ? 1 : 0;
  return r;
}

void report_clean_failure(const char* kernel, const std::string& what, Status status,
                          size_t scenarios, DemoTally& tally) {
  std::printf("    %-8s %-26s clean run failed: %s\n", kernel, what.c_str(),
              abft_status_string(status));
  tally.runs += static_cast<int>(scenarios);
}

void print_table_header(const char* kernel, const char* what) {
  std::printf("  # %-8s %-26s %-21s %-4s %-19s %3s %3s %3s %3s  %8s  %s\n", kernel, what,
              "faults", "inj", "status", "det", "cor", "rec", "unc", "max rel", "result");
}

void report_run(const DemoRun& run, const DemoOptions& opt, const char* const coords[3],
                DemoTally& tally) {
  const Scenario& sc = *run.scenario;
  const abft_report& rep = run.report;
  const bool false_alarm = sc.faults.empty() && rep.detected > 0;
  const bool match = run.ok && !false_alarm;
  tally.runs++;
  tally.matches += match ? 1 : 0;
  tally.masked += match && run.masked ? 1 : 0;
  const char* result = false_alarm ? "FALSE-ALARM"
                       : !match    ? "MISMATCH"
                       : run.masked ? "MASKED"
                                    : "OK";
  std::printf("%3d %-8s %-26s %-21s %d/%-2zu %-19s %3llu %3llu %3llu %3llu  %8.1e  %s\n",
              tally.runs, run.kernel, run.what.c_str(), sc.label.c_str(), run.injected.applied,
              sc.faults.size(), short_status(run.status).c_str(),
              static_cast<unsigned long long>(rep.detected),
              static_cast<unsigned long long>(rep.corrected),
              static_cast<unsigned long long>(rep.recomputed),
              static_cast<unsigned long long>(rep.uncorrectable), run.max_rel, result);
  if (opt.verbose)
    for (int i = 0; i < run.injected.count; ++i) {
      const abft_fault& f = run.injected.got[i];
      std::printf("      fault %d: %s:%s at %s %lld %s %lld %s %lld: %.6g -> %.6g%s\n", i,
                  site_name(f.site), model_name(f).c_str(), coords[0],
                  static_cast<long long>(f.row), coords[1], static_cast<long long>(f.col),
                  coords[2], static_cast<long long>(f.kpos), f.original, f.corrupted,
                  f.applied ? "" : " (not applied)");
    }
}

}  // namespace abft::cli
