/** \file policy.cpp
 *  \brief Run-time policy resolution: call -> handle -> ABFT_POLICY -> correct.
 */
#include <omp.h>

#include <cstdlib>
#include <cstring>

#include "core/internal.hpp"

namespace {
abft_policy parse_env_policy() {
  const char* e = std::getenv("ABFT_POLICY");
  if (!e || !*e) return ABFT_POLICY_CORRECT;
  if (!std::strcmp(e, "off") || !std::strcmp(e, "0") || !std::strcmp(e, "none")) return ABFT_POLICY_OFF;
  if (!std::strcmp(e, "detect") || !std::strcmp(e, "1")) return ABFT_POLICY_DETECT;
  return ABFT_POLICY_CORRECT;  // "correct", "2" and anything unrecognised: the safe default
}
}  // namespace

extern "C" abft_policy abft_default_policy(void) {
  static const abft_policy p = parse_env_policy();
  return p;
}

namespace abft::core {

abft_policy resolve_policy(abft_handle_t h, abft_policy call_policy) {
  if (call_policy != ABFT_POLICY_DEFAULT) return call_policy;
  if (h && h->policy != ABFT_POLICY_DEFAULT) return h->policy;
  return abft_default_policy();
}

int resolve_threads(abft_handle_t h) {
  if (h && h->threads > 0) return h->threads;
  return omp_get_max_threads();
}

}  // namespace abft::core
