/** \file internal.hpp
 *  \brief Library-internal state shared by the engines: handle, injector, stats, policy resolution.
 */
#pragma once
#include <atomic>
#include <cstdint>
#include <mutex>
#include <random>
#include <vector>

#include "abft/abft.h"

/** Process-wide or per-handle counters, one row per kernel; updated once per call. */
struct abft_stats_block {
  std::atomic<uint64_t> v[ABFT_KERNEL_COUNT_][7];
  abft_stats_block() { reset(); }
  void reset() {
    for (auto& row : v)
      for (auto& x : row) x.store(0, std::memory_order_relaxed);
  }
  /** Add a report; `calls` calls (0: counts that arrive later, as the GPU engine's do). */
  void add(abft_kernel k, const abft_report& r, uint64_t calls = 1);
  abft_counters get(abft_kernel k) const;
};

struct abft_injector_s {
  std::mutex mu;
  uint64_t seed = 0;
  uint64_t calls = 0;
  double rate = -1.0;  // < 0: every spec fires each call; else P(one fault per call)
  bool per_flop = false;  // rate is per nominal FLOP of the call (abft_call_flops)
  std::vector<abft_fault> specs;
  std::vector<abft_fault> last;  // concrete faults of the most recent call
};

struct abft_handle_s {
  abft_policy policy = ABFT_POLICY_DEFAULT;
  int threads = 0;
  abft_injector_t injector = nullptr;
  abft_inject_plan_fn hook = nullptr;
  void* hook_user = nullptr;
  abft_stats_block stats;
  /** Faults of the most recent call that planned any (abft_handle_last_injected). */
  std::mutex injected_mu;
  std::vector<abft_fault> last_injected;
};

namespace abft::core {

/** The process-wide statistics (also printed at exit when ABFT_STATS is set). */
abft_stats_block& global_stats();

/** Resolve call -> handle -> environment -> CORRECT. */
abft_policy resolve_policy(abft_handle_t h, abft_policy call_policy);

/** Threads to use for a call (handle setting, else OpenMP's default). */
int resolve_threads(abft_handle_t h);

/** Injection plan of one call: concrete faults, empty when no hook is attached
 *  (the common case: one pointer test). Faults are later written back with
 *  original/corrupted/applied so the injector can report them. */
struct InjectionPlan {
  std::vector<abft_fault> faults;
  abft_injector_t injector = nullptr;
  abft_handle_t handle = nullptr;  ///< the call's handle (keeps the landed faults)
  bool empty() const { return faults.empty(); }
};
/** Coordinate ranges [0, rows) x [0, cols) x [0, kpos) of a site for a call;
 *  a zero range means the site ignores that coordinate (a random draw gives 0).
 *  One table for the injector's random draws and for the validity check of
 *  planned faults. */
struct SiteExtent {
  int64_t rows = 0, cols = 0, kpos = 0;
  bool exists = false;
  SiteExtent() = default;
  SiteExtent(int64_t r, int64_t c, int64_t k) : rows(r), cols(c), kpos(k), exists(true) {}
};
SiteExtent site_extent(const abft_call_info& call, abft_site site);

InjectionPlan plan_injection(abft_handle_t h, const abft_call_info& call);
void finish_injection(InjectionPlan& plan);

/** Record a finished call in the handle's and the global statistics (calls = 0: counts of
 *  earlier calls that arrive late, as the GPU engine's device counters do at abft_cuda_sync). */
void record_call(abft_handle_t h, abft_kernel k, const abft_report& r, uint64_t calls = 1);

}  // namespace abft::core
