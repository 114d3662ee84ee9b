/** \file faults.hpp
 *  \brief The campaign's fault planner: a custom injection planner on the handle
 *  (abft_handle_set_inject_hook) that records the protected calls of a run, and injects a
 *  trial's faults into one chosen call of a later run.
 */
#pragma once
#include <cstdint>
#include <mutex>
#include <vector>

#include "abft/abft.h"
#include "campaign/campaign.hpp"

namespace abft::campaign {

/** A seed for stream `what` of trial `id` of a campaign seeded with `seed`. */
uint64_t trial_seed(uint64_t seed, int64_t id, uint64_t what);

class Planner {
 public:
  /** Record mode: count the calls and keep their descriptions; plan nothing. */
  void record();
  /** Inject mode: `faults` go into call number `call` (0-based, in call order) when its
   *  description matches `expect`; other calls get nothing. */
  void inject(int64_t call, const abft_call_info& expect, const std::vector<abft_fault>& faults);
  /** Attach to h (clears h's record of landed faults). */
  abft_status attach(abft_handle_t h);
  const std::vector<abft_call_info>& calls() const { return calls_; }
  /** Whether the inject-mode call was reached and matched. */
  bool delivered() const { return delivered_; }

 private:
  static int hook(void* user, const abft_call_info* call, abft_fault* out, int cap);
  std::mutex mu_;
  bool inject_ = false, delivered_ = false;
  int64_t target_ = -1, seen_ = 0;
  abft_call_info expect_{};
  std::vector<abft_fault> faults_;
  std::vector<abft_call_info> calls_;
};

/** The faults of one trial. */
struct TrialFaults {
  abft_site site = ABFT_SITE_OUTPUT;
  abft_fault_model model = ABFT_FAULT_BITFLIP;
  int64_t call = -1;  ///< index into the recorded calls; -1: no call has the site
  std::vector<abft_fault> faults;
};

/** Draw a trial's faults from `seed` (the trial's fault stream): a site among `sites`, a call
 *  among the recorded `calls` where that site exists, then for each of o.faults faults the
 *  coordinates (sharing a row or column per o.pattern), the bit (o.bit, or drawn in
 *  [0, bits)) and the value for the random model. */
TrialFaults draw_faults(const Options& o, const std::vector<abft_site>& sites, int bits,
                        const std::vector<abft_call_info>& calls, uint64_t seed);

}  // namespace abft::campaign
