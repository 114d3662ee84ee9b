/** \file shim.hpp
 *  \brief The BLAS shim's process-wide state: the shared drop-in runtime
 *  (shim/shim_runtime.hpp: handle from the environment, statistics, exit report) with one
 *  statistics row per protected Level-3 routine.
 *
 *  Environment: as shim/shim_runtime.hpp lists; ABFT_INJECT_SITE here is
 *  output | accumulator | compute (both; default) | packed | any.
 */
#pragma once
#include <cstdint>

#include "abft/abft.h"
#include "shim/shim_runtime.hpp"

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

/** The shim's runtime (created on first use, never destroyed). */
shim::Runtime& blas_runtime();
/** The handle every protected kernel of the shim runs on. */
inline abft_handle_t shim_handle() { return blas_runtime().handle(); }
/** The policy the shim's kernels run under (OFF, DETECT or CORRECT; never DEFAULT). */
inline abft_policy shim_policy() { return blas_runtime().policy(); }

/** One protected BLAS call: collects the reports of the kernels it runs and records
 *  them (plus one call) in the routine's row when it goes out of scope. */
class ProtectedCall : public shim::Call {
 public:
  explicit ProtectedCall(Routine r) : shim::Call(blas_runtime(), int(r)) {}
};

/** Counters of one routine (for tests and the report). */
inline shim::Counters routine_counters(Routine r) { return blas_runtime().counters(int(r)); }

}  // namespace abft::blas
