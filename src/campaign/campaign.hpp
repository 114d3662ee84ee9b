/** \file campaign.hpp
 *  \brief A fault-injection campaign (`abft campaign`, docs/RELIABILITY.md §11): its options,
 *  the outcome of one trial, and the entry points the command calls.
 *
 *  A trial t of a campaign with seed s:
 *    1. the kernel makes its inputs from (s, t);
 *    2. the call runs clean under policy OFF: the reference output;
 *    3. every `clean_every`-th trial, the call runs clean under the campaign's policy: a
 *       false-positive trial (any detection, or any change beyond the escape limits, is one);
 *    4. the faults of the trial are drawn from (s, t): a site, the protected call they land in
 *       (kernels that make several calls; from the calls step 3 recorded, else step 2's),
 *       their coordinates, bit and model;
 *    5. the call runs with those faults under OFF: how far the fault alone moves the output
 *       (its effect, in units of the escape limit);
 *    6. the call runs with the same faults under the policy: the trial's outcome.
 *  Each trial runs in a worker process; a crash or a hang of the call becomes an outcome.
 */
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "abft/abft.h"
#include "campaign/kernel.hpp"

namespace abft::campaign {

/** How several faults of one call relate. */
enum class Pattern {
  Independent,  ///< every coordinate drawn for each fault
  SameRow,      ///< one row for all faults (a corrupt row of a tile)
  SameCol       ///< one column for all faults
};

struct Options {
  KernelOptions kernel;
  abft_fault_model model = ABFT_FAULT_BITFLIP;
  bool random_model = false;   ///< --model any: each trial draws one of the seven models
  int bit = -1;                ///< -1: drawn per fault (bit-flip models)
  std::vector<abft_site> sites;  ///< empty: every site the kernel has
  int faults = 1;              ///< faults per call
  Pattern pattern = Pattern::Independent;
  int64_t trials = 1000;
  uint64_t seed = 1;
  abft_policy policy = ABFT_POLICY_CORRECT;  ///< CORRECT or DETECT
  int64_t clean_every = 1;     ///< a false-positive trial every n-th trial (0: none)
  int jobs = 0;                ///< worker processes (0: cores / threads)
  double timeout_s = 60.0;     ///< watchdog: a trial taking longer is a hang
  std::string csv_path, json_path;
  bool progress = true;        ///< progress bar (only on a terminal)
  double min_detected = -1.0;  ///< fail unless detected / landed >= this (coverage floor)
  std::string command_line;    ///< for the JSON summary and replay hints
};

enum class Outcome : int {
  Masked = 0,     ///< not flagged; output within the escape limits of the clean run
  Corrected,      ///< flagged; located elements/units repaired; output within the limits
  Recomputed,     ///< flagged; rows/columns/blocks recomputed; output within the limits
  Detected,       ///< DETECT policy: flagged, output left as computed
  Uncorrectable,  ///< flagged, the repair did not re-verify (status says so)
  Sdc,            ///< not flagged, output beyond the limits: silent data corruption
  BadRepair,      ///< flagged and "repaired", output beyond the limits
  NotLanded,      ///< the fault found nothing to corrupt (e.g. a site this path lacks)
  Error,          ///< the call failed with an argument/resource status
  Crash,          ///< the worker died (signal) during the trial
  Hang,           ///< the trial ran past the watchdog's timeout
  Count_
};
const char* outcome_name(Outcome o);
/** Outcomes that fail a campaign: SDC, bad repair, error, crash, hang. */
bool outcome_is_failure(Outcome o);
bool outcome_is_detected(Outcome o);

/** Result of a clean (no fault) protected run. */
enum class CleanOutcome : int { None = 0, Ok, FalsePositive, Mismatch, Count_ };
const char* clean_outcome_name(CleanOutcome o);

/** Everything one trial produced: one CSV line. POD (crosses the worker pipe as bytes). */
struct TrialRecord {
  int64_t id = -1;
  Outcome outcome = Outcome::Masked;
  CleanOutcome clean = CleanOutcome::None;
  abft_site site = ABFT_SITE_OUTPUT;
  abft_fault_model model = ABFT_FAULT_BITFLIP;
  int32_t bit = -1;
  int64_t row = 0, col = 0, kpos = 0;  ///< the first fault's coordinates
  int32_t faults = 0, landed = 0;      ///< planned / applied
  double original = 0, corrupted = 0;  ///< the first landed fault's value before / after
  int64_t call = 0, calls = 0;         ///< the call the faults went to, of how many
  double effect = 0;      ///< injected OFF run: max |out - clean| / limit (inf: non-finite)
  double change = 0;      ///< protected run: max |out - clean| / limit
  double rel_change = 0;  ///< protected run: max |out - clean| / max |clean|
  double clean_ratio = 0; ///< clean protected run: max |out - clean OFF| / limit
  int32_t status = 0;     ///< abft_status of the protected run
  uint64_t checks = 0, detected = 0, corrected = 0, recomputed = 0, uncorrectable = 0;
  double ms = 0;          ///< wall time of the trial
  int32_t signal = 0;     ///< Crash: the signal that killed the worker
};

/** Draw-independent helpers for names. */
const char* site_label(abft_site s);       ///< "output", "packed_a", ... (runtime's names)
const char* model_label(abft_fault_model m);
bool parse_site(const std::string& name, abft_site* out);
bool parse_model(const std::string& name, abft_fault_model* out);
const char* pattern_name(Pattern p);

/** Run one trial in this process (the worker's loop body, and --replay). */
class TrialRunner {
 public:
  /** nullptr kernel on error (message in *error). */
  static std::unique_ptr<TrialRunner> create(const Options& o, std::string* error);
  ~TrialRunner();
  TrialRecord run(int64_t id);
  /** Human-readable account of the last trial: every fault, the reports, the verdict. */
  std::string explain() const;
  const Kernel& kernel() const { return *kernel_; }
  std::vector<abft_site> sites() const { return sites_; }

 private:
  TrialRunner() = default;
  struct Impl;
  std::unique_ptr<Kernel> kernel_;
  std::vector<abft_site> sites_;
  Impl* impl_ = nullptr;
};

/** Make the kernel in a child process (so the caller never initializes a kernel before it
 *  forks workers): its description in *desc, or false with the reason in *error. */
bool probe_kernel(const Options& o, std::string* desc, std::string* error);

/** Run the whole campaign in worker processes; returns the records sorted by id.
 *  *error set (and an empty result) if no worker could start the kernel. */
std::vector<TrialRecord> run_campaign(const Options& o, std::string* error);

/** Summary table (text), JSON summary, CSV. */
std::string summary_text(const Options& o, const std::string& kernel_desc,
                         const std::vector<TrialRecord>& recs, double seconds);
std::string summary_json(const Options& o, const std::string& kernel_desc,
                         const std::vector<TrialRecord>& recs, double seconds);
std::string csv_header();
std::string csv_line(const TrialRecord& r);
/** Whether the campaign passes (no failure outcome, no false positive, coverage floor met);
 *  *why lists what failed. */
bool campaign_passes(const Options& o, const std::vector<TrialRecord>& recs, std::string* why);

}  // namespace abft::campaign
