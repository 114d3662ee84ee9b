/** \file report.hpp
 *  \brief Combining the outcomes of several kernel runs into one: report counts add up, the
 *  largest residual ratio is kept, and the worst status wins. Used wherever one call is made
 *  of several runs (threads of the engine, chunks of a complex GEMM, the shim's Level-3
 *  routines, TRSM's leaves).
 */
#pragma once
#include <algorithm>

#include "abft/abft.h"

namespace abft::core {

/** to += r (counts), max of the ratios. */
inline void add_report(abft_report& to, const abft_report& r) {
  to.checks += r.checks;
  to.detected += r.detected;
  to.corrected += r.corrected;
  to.recomputed += r.recomputed;
  to.uncorrectable += r.uncorrectable;
  to.skipped += r.skipped;
  to.max_ratio = std::max(to.max_ratio, r.max_ratio);
}

/** The worse of two outcomes: argument/resource errors, then uncorrectable, then detected,
 *  then success. */
inline abft_status worse_status(abft_status a, abft_status b) {
  auto rank = [](abft_status s) {
    return s < 0 ? 3 : s == ABFT_STATUS_FAULT_UNCORRECTABLE ? 2 : s == ABFT_STATUS_FAULT_DETECTED ? 1 : 0;
  };
  return rank(b) > rank(a) ? b : a;
}

}  // namespace abft::core
