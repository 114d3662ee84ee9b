/** \file injection.hpp
 *  \brief One fault-injection setting for every kernel a model pass calls: a rate (per call or
 *  per floating-point operation), a fault model, the sites and a seed. It configures the
 *  library's seeded injector (abft_injector_set_rate / abft_injector_set_flop_rate), which
 *  draws each fault from the sites that exist for the kernel at hand.
 */
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "abft/abft.h"

namespace abft::transformer {

struct InjectionSettings {
  double rate = 0.0;      ///< 0: no injection
  bool per_flop = false;  ///< rate per nominal FLOP (abft_call_flops) instead of per call
  abft_fault_model model = ABFT_FAULT_BITFLIP;
  int bit = -1;           ///< -1: drawn per fault
  /** Empty: every GEMM site (output, accumulator, packed A, packed B) and every attention site. */
  std::vector<abft_site> sites;
  uint64_t seed = 1;

  bool enabled() const { return rate > 0.0; }
  /** The sites actually used (the default list when `sites` is empty). */
  std::vector<abft_site> effective_sites() const;
  /** "rate=1e-3,per=call|flop,model=bitflip|bitflip2|random|zero|nan|inf|-inf,bit=30,
   *   sites=output+accumulator+packed_a+...,seed=7" (any subset, any order). Throws Error
   *  (INVALID_VALUE) naming the bad key or value. */
  static InjectionSettings parse(const std::string& spec);
  std::string describe() const;  ///< the same syntax
};

const char* site_name(abft_site s);  ///< "output", "accumulator", "packed_a", "attn_scores", ...
const char* fault_model_name(abft_fault_model m);

}  // namespace abft::transformer
