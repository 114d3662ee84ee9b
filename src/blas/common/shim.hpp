/** \file shim.hpp
 *  \brief Process-wide state of the BLAS shim: the handle its protected kernels run on
 *  (policy, threads and injector from the environment), per-routine statistics and the
 *  report printed at exit.
 *
 *  Environment (read once, at the first protected call):
 *    ABFT_POLICY        off | detect | correct (default correct)
 *    ABFT_NUM_THREADS   threads of the protected kernels (default: OpenMP's)
 *    ABFT_INJECT        fault model: bitflip | bitflip2 | random | zero | nan | inf | -inf
 *                       (unset: no injection)
 *    ABFT_INJECT_RATE   probability that a protected kernel call gets one fault (default 1)
 *    ABFT_INJECT_SEED   seed of the injector (default 1)
 *    ABFT_INJECT_SITE   output | accumulator | compute (both; default) | packed | any
 *    ABFT_REPORT        stderr (text table at exit) | json (JSON to stderr) | PATH (JSON
 *                       written to the file PATH at exit); unset: no report
 */
#pragma once
#include <cstdint>

#include "abft/abft.h"

namespace abft::blas {

/** Level-3 routines that run protected; one statistics row each. */
enum class Routine : int {
  SGEMM, DGEMM, CGEMM, ZGEMM,
  SSYMM, DSYMM, CSYMM, ZSYMM, CHEMM, ZHEMM,
  SSYRK, DSYRK, CSYRK, ZSYRK, CHERK, ZHERK,
  SSYR2K, DSYR2K, CSYR2K, ZSYR2K, CHER2K, ZHER2K,
  STRMM, DTRMM, CTRMM, ZTRMM,
  STRSM, DTRSM, CTRSM, ZTRSM,
  COUNT_
};
const char* routine_name(Routine r);  ///< lower case, e.g. "dtrsm"

/** The handle every protected kernel of the shim runs on (created on first use). */
abft_handle_t shim_handle();
/** The policy the shim's kernels run under (OFF, DETECT or CORRECT; never DEFAULT). */
abft_policy shim_policy();

/** One protected BLAS call: collects the reports of the kernels it runs and records
 *  them (plus one call) in the routine's row when it goes out of scope. */
class ProtectedCall {
 public:
  explicit ProtectedCall(Routine r) : r_(r) {}
  ProtectedCall(const ProtectedCall&) = delete;
  ProtectedCall& operator=(const ProtectedCall&) = delete;
  ~ProtectedCall();
  /** Fold in one kernel run's report and status. */
  void absorb(const abft_report& rep, abft_status st);
  const abft_report& report() const { return rep_; }
  abft_status status() const { return status_; }

 private:
  Routine r_;
  abft_report rep_{};
  abft_status status_ = ABFT_STATUS_SUCCESS;
};

/** Counters of one routine (for tests and the report). */
struct RoutineCounters {
  uint64_t calls, checks, detected, corrected, recomputed, uncorrectable, skipped, failed;
};
RoutineCounters routine_counters(Routine r);
/** The report as ABFT_REPORT prints it. */
void format_report(bool json, char* buf, std::size_t cap);

}  // namespace abft::blas
