/** \file cmd_campaign.cpp
 *  \brief `abft campaign`: a fault-injection campaign over one kernel (src/campaign/,
 *  docs/RELIABILITY.md §11). Parses the options, runs the trials in worker processes (or one
 *  trial in process with --replay), prints the summary table, writes the CSV and JSON.
 *
 *  Exit status: 0 when the campaign passes (no SDC, bad repair, error, crash or hang; no
 *  false positive; the --min-detected floor met), 1 when it does not, 2 on a bad command line.
 */
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "campaign/campaign.hpp"
#include "commands.hpp"
#include "runtime_args.hpp"

namespace abft::cli {

namespace {

const char* const kHelp =
    "usage: abft campaign --kernel K [options]\n"
    "\n"
    "Injects faults into a protected kernel, one call per trial, and classifies every trial\n"
    "against a clean run of the same call: masked, corrected, recomputed, detected,\n"
    "uncorrectable, sdc (not flagged, output beyond the escape bound), bad-repair, not-landed,\n"
    "crash, hang; clean trials interleaved count false positives.\n"
    "\n"
    "  --kernel K          gemm, symm, hemm, syrk, herk, syr2k, her2k, trmm, trsm, fft,\n"
    "                      attn-fwd, attn-bwd, train (--list: types, sizes, variants)\n"
    "  --type T            f32 (default), f64, c32, c64\n"
    "  --sizes A,B,...     the kernel's sizes (--list shows their meaning and defaults)\n"
    "  --variant V         the kernel's variant (transposes, transform kind, masking, preset)\n"
    "  --model M           bitflip (default), bitflip2 (two adjacent bits), random, zero, nan,\n"
    "                      inf, -inf, or any (each trial draws one)\n"
    "  --bit B             bit to flip (0 = mantissa LSB); default: drawn per fault\n"
    "  --site S[,S...]     output, accumulator, packed_a, packed_b, fft_stage, fft_twiddle,\n"
    "                      attn_scores, attn_probs, attn_rowstat, attn_acc, attn_dp, attn_ds,\n"
    "                      attn_dq, attn_dk, attn_dv, or all (default: every site the kernel has)\n"
    "  --faults N          faults per call (default 1)\n"
    "  --pattern P         independent (default), row or col: the faults of a call share a\n"
    "                      row / a column (correlated faults)\n"
    "  --trials N          trials (default 1000)\n"
    "  --seed S            campaign seed (default 1); trial t is the same for the same seed\n"
    "  --threads N         threads per kernel call (default 1)\n"
    "  --jobs N            worker processes (default: cores / threads)\n"
    "  --policy P          correct (default) or detect\n"
    "  --clean-every N     a clean (false-positive) trial with every N-th trial (default 1; 0: none)\n"
    "  --timeout S         watchdog: a trial running longer is a hang (default 60)\n"
    "  --csv FILE          one line per trial\n"
    "  --json FILE         the summary as JSON (tables by site, model and bit)\n"
    "  --min-detected F    fail unless at least this fraction of landed faults is detected\n"
    "  --replay ID         run trial ID alone, in this process, and explain it\n"
    "  --no-progress       no progress bar (it is drawn only on a terminal anyway)\n"
    "  --list              the kernels, their types, sizes and variants\n"
    "\n"
    "Exit status: 0 pass, 1 fail (any sdc, bad-repair, error, crash, hang, false positive,\n"
    "or coverage below --min-detected), 2 bad command line.\n";

std::vector<int64_t> sizes_value(ArgReader& a) {
  const std::string v = a.value("comma-separated sizes");
  std::vector<int64_t> out;
  std::stringstream ss(v);
  std::string item;
  while (std::getline(ss, item, ',')) {
    uint64_t x = 0;
    if (!parse_u64(item.c_str(), &x) || x > (uint64_t(1) << 40))
      throw UsageError("--sizes needs comma-separated non-negative integers, got '" + v + "'");
    out.push_back(int64_t(x));
  }
  if (out.empty() || v.back() == ',') throw UsageError("--sizes needs comma-separated non-negative integers, got '" + v + "'");
  return out;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  f.close();
  if (!f) throw UsageError("cannot write '" + path + "'");
}

int run(int argc, char** argv) {
  campaign::Options o;
  int64_t replay = -1;
  bool list = false;
  for (int i = 0; i < argc; ++i) o.command_line += std::string(i ? " " : "") + argv[i];
  ArgReader a(argc, argv);
  while (!a.done()) {
    const char* arg = a.next();
    if (a.is("--kernel")) o.kernel.kernel = a.value("a kernel name");
    else if (a.is("--type")) {
      const std::string t = a.value("f32, f64, c32 or c64");
      if (t == "f32") o.kernel.type = campaign::DataType::F32;
      else if (t == "f64") o.kernel.type = campaign::DataType::F64;
      else if (t == "c32") o.kernel.type = campaign::DataType::C32;
      else if (t == "c64") o.kernel.type = campaign::DataType::C64;
      else throw UsageError("--type needs f32, f64, c32 or c64, got '" + t + "'");
    } else if (a.is("--sizes")) o.kernel.sizes = sizes_value(a);
    else if (a.is("--variant")) o.kernel.variant = a.value("a variant");
    else if (a.is("--model")) {
      const std::string m = a.value("a fault model");
      if (m == "any") o.random_model = true;
      else if (!campaign::parse_model(m, &o.model))
        throw UsageError("--model needs bitflip, bitflip2, random, zero, nan, inf, -inf or any, got '" + m + "'");
    } else if (a.is("--bit")) {
      const uint64_t b = u64_value(a);
      if (b > 63) throw UsageError("--bit needs a bit position 0..63, got " + std::to_string(b));
      o.bit = int(b);
    } else if (a.is("--site")) {
      const std::string v = a.value("site names");
      o.sites.clear();
      if (v != "all") {
        std::stringstream ss(v);
        std::string s;
        while (std::getline(ss, s, ',')) {
          abft_site site;
          if (!campaign::parse_site(s, &site)) throw UsageError("--site: unknown site '" + s + "' (abft campaign --help lists them)");
          o.sites.push_back(site);
        }
        if (o.sites.empty()) throw UsageError("--site needs site names or all");
      }
    } else if (a.is("--faults")) {
      const int64_t f = positive_value(a);
      if (f > 64) throw UsageError("--faults needs 1..64, got " + std::to_string(f));
      o.faults = int(f);
    } else if (a.is("--pattern")) {
      const std::string p = a.value("independent, row or col");
      if (p == "independent") o.pattern = campaign::Pattern::Independent;
      else if (p == "row") o.pattern = campaign::Pattern::SameRow;
      else if (p == "col") o.pattern = campaign::Pattern::SameCol;
      else throw UsageError("--pattern needs independent, row or col, got '" + p + "'");
    } else if (a.is("--trials")) o.trials = positive_value(a);
    else if (a.is("--seed")) o.seed = u64_value(a);
    else if (a.is("--threads")) {
      const int64_t t = positive_value(a);
      if (t > 1024) throw UsageError("--threads needs 1..1024");
      o.kernel.threads = int(t);
    } else if (a.is("--jobs")) {
      const int64_t j = positive_value(a);
      if (j > 256) throw UsageError("--jobs needs 1..256");
      o.jobs = int(j);
    } else if (a.is("--policy")) {
      const std::string p = a.value("'correct' or 'detect'");
      if (p == "correct") o.policy = ABFT_POLICY_CORRECT;
      else if (p == "detect") o.policy = ABFT_POLICY_DETECT;
      else throw UsageError("--policy needs 'correct' or 'detect', got '" + p + "'");
    } else if (a.is("--clean-every")) o.clean_every = int64_t(u64_value(a));
    else if (a.is("--timeout")) {
      o.timeout_s = double_value(a);
      if (!(o.timeout_s > 0)) throw UsageError("--timeout needs a positive number of seconds");
    } else if (a.is("--csv")) o.csv_path = a.value("a file name");
    else if (a.is("--json")) o.json_path = a.value("a file name");
    else if (a.is("--min-detected")) {
      o.min_detected = double_value(a);
      if (o.min_detected < 0 || o.min_detected > 1) throw UsageError("--min-detected needs a fraction in [0, 1]");
    } else if (a.is("--replay")) replay = int64_t(u64_value(a));
    else if (a.is("--no-progress")) o.progress = false;
    else if (a.is("--list")) list = true;
    else if (a.is("--help") || a.is("-h")) {
      std::fputs(kHelp, stdout);
      return 0;
    } else throw UsageError(std::string("unknown option '") + arg + "'");
  }
  if (list) {
    std::printf("%-9s %-16s %-26s %s\n", "kernel", "types", "sizes (default)", "what");
    for (const campaign::KernelInfo& k : campaign::kernel_list())
      std::printf("%-9s %-16s %-26s %s\n", k.name, k.types, k.sizes, k.help);
    return 0;
  }
  if (o.kernel.kernel.empty()) throw UsageError("--kernel is required (abft campaign --list shows the kernels)");
  if (o.pattern != campaign::Pattern::Independent && o.faults < 2)
    throw UsageError("--pattern row|col needs --faults 2 or more");

  if (replay >= 0) {
    std::string err;
    auto tr = campaign::TrialRunner::create(o, &err);
    if (!tr) throw UsageError(err);
    const campaign::TrialRecord r = tr->run(replay);
    std::fputs(tr->explain().c_str(), stdout);
    std::fputs((campaign::csv_header() + campaign::csv_line(r)).c_str(), stdout);
    const bool bad = campaign::outcome_is_failure(r.outcome) || r.clean == campaign::CleanOutcome::FalsePositive ||
                     r.clean == campaign::CleanOutcome::Mismatch;
    return bad ? 1 : 0;
  }

  // Validate the kernel options in a throw-away process (the parent never runs a kernel,
  // so forking the workers stays safe); its description comes back through a pipe.
  const auto t0 = std::chrono::steady_clock::now();
  std::string err;
  std::string desc;
  if (!campaign::probe_kernel(o, &desc, &err)) throw UsageError(err);
  const std::vector<campaign::TrialRecord> recs = campaign::run_campaign(o, &err);
  if (recs.empty()) {
    std::fprintf(stderr, "abft campaign: %s\n", err.empty() ? "no trial ran" : err.c_str());
    return 1;
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fputs(campaign::summary_text(o, desc, recs, secs).c_str(), stdout);
  if (!o.csv_path.empty()) {
    std::string csv = campaign::csv_header();
    for (const auto& r : recs) csv += campaign::csv_line(r);
    write_text(o.csv_path, csv);
  }
  if (!o.json_path.empty()) write_text(o.json_path, campaign::summary_json(o, desc, recs, secs));
  std::string why;
  const bool pass = campaign::campaign_passes(o, recs, &why) && err.empty();
  if (!err.empty()) why += (why.empty() ? "" : "; ") + err;
  std::printf("\nverdict: %s%s%s\n", pass ? "PASS" : "FAIL", pass ? "" : ": ", why.c_str());
  if (!pass) {
    for (const auto& r : recs)
      if (campaign::outcome_is_failure(r.outcome) || r.clean == campaign::CleanOutcome::FalsePositive ||
          r.clean == campaign::CleanOutcome::Mismatch) {
        std::printf("first failing trial: %lld (%s); replay: abft campaign %s --replay %lld\n",
                    static_cast<long long>(r.id), r.outcome == campaign::Outcome::Masked ? campaign::clean_outcome_name(r.clean) : campaign::outcome_name(r.outcome),
                    o.command_line.c_str(), static_cast<long long>(r.id));
        break;
      }
  }
  return pass ? 0 : 1;
}

}  // namespace

int cmd_campaign(int argc, char** argv) {
  return guarded_command("campaign", [&] { return run(argc, argv); });
}

}  // namespace abft::cli
