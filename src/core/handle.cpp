/** \file handle.cpp
 *  \brief Handle lifecycle and settings (policy, threads, injection hook).
 */
#include <new>

#include "core/internal.hpp"

extern "C" abft_status abft_handle_create(abft_handle_t* out) {
  if (!out) return ABFT_STATUS_NULL_POINTER;
  *out = new (std::nothrow) abft_handle_s();
  return *out ? ABFT_STATUS_SUCCESS : ABFT_STATUS_ALLOC_FAILED;
}

extern "C" abft_status abft_handle_destroy(abft_handle_t h) {
  delete h;  // NULL is fine
  return ABFT_STATUS_SUCCESS;
}

extern "C" abft_status abft_handle_set_policy(abft_handle_t h, abft_policy p) {
  if (!h) return ABFT_STATUS_NULL_POINTER;
  if (p < ABFT_POLICY_DEFAULT || p > ABFT_POLICY_CORRECT) return ABFT_STATUS_INVALID_VALUE;
  h->policy = p;
  return ABFT_STATUS_SUCCESS;
}

extern "C" abft_status abft_handle_get_policy(abft_handle_t h, abft_policy* p) {
  if (!h || !p) return ABFT_STATUS_NULL_POINTER;
  *p = h->policy;
  return ABFT_STATUS_SUCCESS;
}

extern "C" abft_status abft_handle_set_threads(abft_handle_t h, int nthreads) {
  if (!h) return ABFT_STATUS_NULL_POINTER;
  if (nthreads < 0) return ABFT_STATUS_INVALID_VALUE;
  h->threads = nthreads;
  return ABFT_STATUS_SUCCESS;
}

extern "C" abft_status abft_handle_set_injector(abft_handle_t h, abft_injector_t inj) {
  if (!h) return ABFT_STATUS_NULL_POINTER;
  h->injector = inj;
  std::lock_guard<std::mutex> g(h->injected_mu);
  h->last_injected.clear();
  return ABFT_STATUS_SUCCESS;
}

extern "C" abft_status abft_handle_set_inject_hook(abft_handle_t h, abft_inject_plan_fn fn,
                                                   void* user) {
  if (!h) return ABFT_STATUS_NULL_POINTER;
  h->hook = fn;
  h->hook_user = user;
  std::lock_guard<std::mutex> g(h->injected_mu);
  h->last_injected.clear();
  return ABFT_STATUS_SUCCESS;
}
