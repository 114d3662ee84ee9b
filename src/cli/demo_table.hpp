/** \file demo_table.hpp
 *  \brief What the parts of `abft demo` (GEMM in cmd_demo.cpp, FFT in cmd_demo_fft.cpp,
 *  attention in cmd_demo_attention.cpp) share: fault specs and their names, labelled scenarios, the faults the injector
 *  reports back, and the result table (header, one row per protected run, the tally).
 */
#pragma once
#include <string>
#include <vector>

#include "abft/abft.h"
#include "abft/abft.hpp"
#include "commands.hpp"

namespace abft::cli {

/** One call's injection: the specs given to the injector (-1 fields drawn per call). */
struct Scenario {
  std::string label;
  std::vector<abft_fault> faults;
};

/** A fault spec at `site` with `model` (and `bit`); coordinates drawn from the seed per call. */
abft_fault fault_spec(abft_site site, abft_fault_model model, int bit = -1);

/** Short site name for the table: out, acc, pA, pB, stage, twid; attention: scores, probs,
 *  rowstat, oacc (the output accumulator), dP, dS, dQ, dK, dV. */
const char* site_name(abft_site s);

/** Short model name: flip<bit>, flip<bit>+<bit+1>, random, zero, NaN, +Inf, -Inf. */
std::string model_name(const abft_fault& f);

/** Scenarios from fault sets, each labelled "site:model,..." ("none" without faults). */
std::vector<Scenario> label_scenarios(const std::vector<std::vector<abft_fault>>& sets);

/** The faults abft_injector_last() reports for the last call (at most 16 kept). */
struct InjectedFaults {
  abft_fault got[16];
  int count = 0;    ///< faults reported
  int applied = 0;  ///< of those, the ones that landed
};
InjectedFaults last_faults(Injector& inj);

/** The clean run of a shape/case failed: says so, and counts its scenarios as runs
 *  that did not match. */
void report_clean_failure(const char* kernel, const std::string& what, Status status,
                          size_t scenarios, DemoTally& tally);

/** The column header of a part's table; `kernel` and `what` name the first two columns. */
void print_table_header(const char* kernel, const char* what);

/** One protected run of a part, as the table reports it. */
struct DemoRun {
  const char* kernel;      ///< abft_kernel_name of the call
  std::string what;        ///< the shape or case
  const Scenario* scenario;
  InjectedFaults injected;
  Status status;
  abft_report report;
  bool ok;                 ///< status acceptable and output OK or MASKED
  bool masked;             ///< the output matches only within the checksum bound
  double max_rel;          ///< max |y - y_clean| / max |y_clean|
};

/** Counts the run in `tally` and prints its row: FALSE-ALARM (a detection in a run
 *  without faults), MISMATCH (!ok), MASKED or OK; with --verbose, every injected fault
 *  with its coordinates named by `coords` (row, col, kpos: "row", "col", "kpos" for GEMM). */
void report_run(const DemoRun& run, const DemoOptions& opt, const char* const coords[3],
                DemoTally& tally);

}  // namespace abft::cli
