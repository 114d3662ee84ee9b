/** \file shim_runtime.hpp
 *  \brief What every drop-in library (the BLAS shim, the FFTW3 shim) shares: one handle
 *  configured from the environment, per-entry-point statistics and the report at exit.
 *
 *  Environment (read once, when the library is loaded):
 *    ABFT_POLICY        off | detect | correct (default correct)
 *    ABFT_NUM_THREADS   threads of the protected kernels (default: the library's own rule)
 *    ABFT_INJECT        fault model: bitflip | bitflip2 | random | zero | nan | inf | -inf
 *                       (unset: no injection)
 *    ABFT_INJECT_RATE   probability that a protected kernel call gets one fault (default 1)
 *    ABFT_INJECT_SEED   seed of the injector (default 1)
 *    ABFT_INJECT_SITE   one of the names the library lists (Config::sites)
 *    ABFT_REPORT        stderr (text table at exit) | json (JSON to stderr) | PATH (JSON to
 *                       the file PATH at exit: one line per abft library loaded in the
 *                       process, each naming its library); unset: no report
 */
#pragma once
#include <cstdint>
#include <string>

#include "abft/abft.h"

namespace abft::shim {

/** A value of ABFT_INJECT_SITE and the injection sites it stands for (bit i = abft_site i). */
struct SiteOption {
  const char* name;
  unsigned sites;
};

/** What one library reports and accepts. The arrays must outlive the runtime. */
struct Config {
  const char* library;  ///< "abft-blas", "abft-fftw3": names the report
  const char* what;     ///< text report heading, e.g. "Level-3 routines called"
  const char* const* rows;
  int nrows;  ///< one statistics row per protected entry point (or family)
  const SiteOption* sites;
  int nsites;
  const char* default_site;
};

/** Counters of one row. */
struct Counters {
  uint64_t calls, checks, detected, corrected, recomputed, uncorrectable, skipped, failed;
};

/** Process-wide state of one drop-in library. Create it once, as a function-local static
 *  that is never destroyed (the exit report reads it). */
class Runtime {
 public:
  explicit Runtime(const Config& cfg);
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  /** The handle every protected kernel of the library runs on (policy, threads and
   *  injector from the environment). nullptr only if the handle could not be allocated. */
  abft_handle_t handle() const { return handle_; }
  /** The policy the kernels run under (OFF, DETECT or CORRECT; never DEFAULT). */
  abft_policy policy() const;
  /** ABFT_NUM_THREADS when set to a positive number, else 0. */
  int env_threads() const { return env_threads_; }

  /** Record one call of row r with its folded report and status. */
  void record(int r, const abft_report& rep, abft_status st);
  Counters counters(int r) const;
  /** The report as ABFT_REPORT prints it (text table or one JSON line). */
  std::string format_report(bool json) const;
  const Config& config() const { return cfg_; }

 private:
  Config cfg_;
  abft_handle_t handle_ = nullptr;
  int env_threads_ = 0;
  struct Rows;
  Rows* rows_;
};

/** One protected call: folds in the reports of the kernels it runs and records them (plus
 *  one call) in its row when it goes out of scope. */
class Call {
 public:
  Call(Runtime& rt, int row) : rt_(rt), row_(row) {}
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;
  ~Call() { rt_.record(row_, rep_, status_); }
  void absorb(const abft_report& rep, abft_status st);
  const abft_report& report() const { return rep_; }
  abft_status status() const { return status_; }

 private:
  Runtime& rt_;
  int row_;
  abft_report rep_{};
  abft_status status_ = ABFT_STATUS_SUCCESS;
};

}  // namespace abft::shim
