/** \file inject.cpp
 *  \brief The built-in seeded injector and the per-call injection plan.
 *
 *  Injection is a hook on the handle: with no injector and no custom planner
 *  attached (the default) plan_injection() returns an empty plan after one
 *  pointer test, and the engines take their normal path.
 */
#include <cmath>
#include <new>

#include "core/internal.hpp"

namespace {

uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int64_t draw(uint64_t& st, int64_t n) { return n > 0 ? int64_t(splitmix64(st) % uint64_t(n)) : 0; }

int type_bits(abft_kernel k) {
  return (k == ABFT_KERNEL_DGEMM || k == ABFT_KERNEL_ZGEMM || k == ABFT_KERNEL_DFFT) ? 64 : 32;
}

bool is_attention(abft_kernel k) { return k == ABFT_KERNEL_ATTN_FWD || k == ABFT_KERNEL_ATTN_BWD; }

}  // namespace

namespace abft::core {

SiteExtent site_extent(const abft_call_info& c, abft_site site) {
  if (!is_attention(c.kernel)) {
    // GEMM kernels have the output, accumulator and packed-operand sites; the FFT its output,
    // stage and twiddle sites.
    // A strided batch of GEMMs (batch > 1, the GPU engine's) stacks its items along the rows of
    // the output and of op(A), along the columns of op(B): row = item m + i, col = item n + j.
    const bool fft = c.kernel == ABFT_KERNEL_SFFT || c.kernel == ABFT_KERNEL_DFFT;
    const int64_t items = !fft && c.batch > 1 ? c.batch : 1;
    switch (site) {
      case ABFT_SITE_OUTPUT: return {items * c.m, c.n, 0};
      case ABFT_SITE_ACCUMULATOR: return fft ? SiteExtent{} : SiteExtent{items * c.m, c.n, c.k};
      case ABFT_SITE_FFT_STAGE:
      case ABFT_SITE_FFT_TWIDDLE: return fft ? SiteExtent{c.m, c.n, c.k} : SiteExtent{};
      case ABFT_SITE_PACKED_A: return fft ? SiteExtent{} : SiteExtent{items * c.m, 0, c.k};
      case ABFT_SITE_PACKED_B: return fft ? SiteExtent{} : SiteExtent{0, items * c.n, c.k};
      default: return {};
    }
  }
  // Attention: batch = batch*heads, m = q_len, n = kv_len, k = head_dim (abft/attention.h).
  const int64_t bh = c.batch > 0 ? c.batch : 1;
  const int64_t qrows = bh * c.m, krows = bh * c.n;
  const bool bwd = c.kernel == ABFT_KERNEL_ATTN_BWD;
  switch (site) {
    case ABFT_SITE_PACKED_A: return {qrows, 0, c.k};  // the packed (scale Q)^T: row, head_dim kpos
    case ABFT_SITE_ATTN_SCORES:
    case ABFT_SITE_ATTN_PROBS: return {qrows, c.n, 0};
    case ABFT_SITE_ATTN_ROWSTAT:
    case ABFT_SITE_ATTN_ACC:
    case ABFT_SITE_OUTPUT:
      if (bwd) return {};
      return site == ABFT_SITE_ATTN_ROWSTAT ? SiteExtent{qrows, 2, c.n}
             : site == ABFT_SITE_ATTN_ACC   ? SiteExtent{qrows, c.k, c.n}
                                            : SiteExtent{qrows, c.k, 0};
    case ABFT_SITE_ATTN_DP:
    case ABFT_SITE_ATTN_DS: return bwd ? SiteExtent{qrows, c.n, 0} : SiteExtent{};
    case ABFT_SITE_ATTN_DQ: return bwd ? SiteExtent{qrows, c.k, c.n} : SiteExtent{};
    case ABFT_SITE_ATTN_DK:
    case ABFT_SITE_ATTN_DV: return bwd ? SiteExtent{krows, c.k, c.m} : SiteExtent{};
    default: return {};
  }
}

}  // namespace abft::core

namespace {

/** Resolve the -1 ("random") fields of a spec for one call. */
abft_fault concretize(const abft_fault& spec, const abft_call_info& call, uint64_t& st) {
  abft_fault f = spec;
  f.applied = 0;
  f.original = f.corrupted = 0.0;
  const abft::core::SiteExtent ext = abft::core::site_extent(call, f.site);
  if (f.bit < 0) f.bit = int32_t(draw(st, type_bits(call.kernel)));
  // An ignored coordinate (zero range) still draws over the call's own range, so
  // the random stream, and with it every seeded campaign, stays as it was.
  if (f.row < 0) f.row = draw(st, ext.rows ? ext.rows : call.m);
  if (f.col < 0) f.col = draw(st, ext.cols ? ext.cols : call.n);
  if (f.kpos < 0) {
    // ACCUMULATOR: after kpos of k terms, 1 <= kpos < k when k > 1 (a real mid-k fault).
    f.kpos = (f.site == ABFT_SITE_ACCUMULATOR) ? (ext.kpos > 1 ? 1 + draw(st, ext.kpos - 1) : 0)
                                               : draw(st, ext.kpos ? ext.kpos : call.k);
  }
  if (f.model == ABFT_FAULT_RANDOM) {
    const double mant = (double(splitmix64(st) >> 11) * 0x1.0p-53) * 2.0 - 1.0;
    f.value = std::ldexp(mant, int(draw(st, 17)) - 8);
  }
  return f;
}

}  // namespace

extern "C" abft_status abft_injector_create(uint64_t seed, abft_injector_t* out) {
  if (!out) return ABFT_STATUS_NULL_POINTER;
  *out = new (std::nothrow) abft_injector_s();
  if (!*out) return ABFT_STATUS_ALLOC_FAILED;
  (*out)->seed = seed;
  return ABFT_STATUS_SUCCESS;
}

extern "C" abft_status abft_injector_destroy(abft_injector_t inj) {
  delete inj;
  return ABFT_STATUS_SUCCESS;
}

extern "C" abft_status abft_injector_add(abft_injector_t inj, const abft_fault* spec) {
  if (!inj || !spec) return ABFT_STATUS_NULL_POINTER;
  if (spec->site < 0 || spec->site >= ABFT_SITE_COUNT_) return ABFT_STATUS_INVALID_VALUE;
  if (spec->model < 0 || spec->model >= ABFT_FAULT_MODEL_COUNT_) return ABFT_STATUS_INVALID_VALUE;
  if (spec->bit < -1 || spec->bit >= 64) return ABFT_STATUS_INVALID_VALUE;
  if (spec->row < -1 || spec->col < -1 || spec->kpos < -1) return ABFT_STATUS_INVALID_VALUE;
  std::lock_guard<std::mutex> g(inj->mu);
  inj->specs.push_back(*spec);
  return ABFT_STATUS_SUCCESS;
}

extern "C" abft_status abft_injector_set_rate(abft_injector_t inj, double rate) {
  if (!inj) return ABFT_STATUS_NULL_POINTER;
  if (!(rate <= 1.0)) return ABFT_STATUS_INVALID_VALUE;  // also rejects NaN
  std::lock_guard<std::mutex> g(inj->mu);
  inj->rate = rate < 0.0 ? -1.0 : rate;
  inj->per_flop = false;
  return ABFT_STATUS_SUCCESS;
}

extern "C" abft_status abft_injector_set_flop_rate(abft_injector_t inj, double per_flop) {
  if (!inj) return ABFT_STATUS_NULL_POINTER;
  if (std::isnan(per_flop) || std::isinf(per_flop)) return ABFT_STATUS_INVALID_VALUE;
  std::lock_guard<std::mutex> g(inj->mu);
  inj->rate = per_flop < 0.0 ? -1.0 : per_flop;
  inj->per_flop = per_flop >= 0.0;
  return ABFT_STATUS_SUCCESS;
}

extern "C" double abft_call_flops(const abft_call_info* c) {
  if (!c || c->m <= 0 || c->n <= 0 || c->k <= 0) return 0.0;
  const double mnk = double(c->m) * double(c->n) * double(c->k);
  const double b = c->batch > 0 ? double(c->batch) : 1.0;
  switch (c->kernel) {
    case ABFT_KERNEL_SGEMM:
    case ABFT_KERNEL_DGEMM: return 2.0 * b * mnk;  // (b > 1: a strided batch)
    case ABFT_KERNEL_CGEMM:
    case ABFT_KERNEL_ZGEMM: return 8.0 * mnk;
    case ABFT_KERNEL_ATTN_FWD: return 4.0 * b * mnk;
    case ABFT_KERNEL_ATTN_BWD: return 10.0 * b * mnk;
    case ABFT_KERNEL_SFFT:
    case ABFT_KERNEL_DFFT: return 2.5 * mnk;
    default: return 0.0;
  }
}

extern "C" abft_status abft_injector_clear(abft_injector_t inj) {
  if (!inj) return ABFT_STATUS_NULL_POINTER;
  std::lock_guard<std::mutex> g(inj->mu);
  inj->specs.clear();
  inj->last.clear();
  return ABFT_STATUS_SUCCESS;
}

extern "C" abft_status abft_injector_last(abft_injector_t inj, abft_fault* out, int cap, int* count) {
  if (!inj || !count) return ABFT_STATUS_NULL_POINTER;
  if (cap > 0 && !out) return ABFT_STATUS_NULL_POINTER;
  std::lock_guard<std::mutex> g(inj->mu);
  *count = int(inj->last.size());
  for (int i = 0; i < cap && i < *count; ++i) out[i] = inj->last[size_t(i)];
  return ABFT_STATUS_SUCCESS;
}

extern "C" abft_status abft_site_extent(const abft_call_info* call, abft_site site, int64_t* rows,
                                        int64_t* cols, int64_t* kpos) {
  if (!call) return ABFT_STATUS_NULL_POINTER;
  if (site < 0 || site >= ABFT_SITE_COUNT_ || call->kernel < 0 || call->kernel >= ABFT_KERNEL_COUNT_)
    return ABFT_STATUS_INVALID_VALUE;
  const abft::core::SiteExtent e = abft::core::site_extent(*call, site);
  if (rows) *rows = e.rows;
  if (cols) *cols = e.cols;
  if (kpos) *kpos = e.kpos;
  return e.exists ? ABFT_STATUS_SUCCESS : ABFT_STATUS_NOT_SUPPORTED;
}

extern "C" abft_status abft_handle_last_injected(abft_handle_t h, abft_fault* out, int cap,
                                                 int* count) {
  if (!h || !count) return ABFT_STATUS_NULL_POINTER;
  if (cap > 0 && !out) return ABFT_STATUS_NULL_POINTER;
  std::lock_guard<std::mutex> g(h->injected_mu);
  *count = int(h->last_injected.size());
  for (int i = 0; i < cap && i < *count; ++i) out[i] = h->last_injected[size_t(i)];
  return ABFT_STATUS_SUCCESS;
}

namespace abft::core {

InjectionPlan plan_injection(abft_handle_t h, const abft_call_info& call_in) {
  InjectionPlan plan;
  if (!h || (!h->injector && !h->hook)) return plan;
  if (call_in.m <= 0 || call_in.n <= 0 || call_in.k <= 0) return plan;
  abft_call_info call = call_in;
  if (h->injector) {
    abft_injector_s* inj = h->injector;
    std::lock_guard<std::mutex> g(inj->mu);
    call.call_index = inj->calls++;
    uint64_t st = inj->seed ^ (0xD1B54A32D192ED03ull * (call.call_index + 1));
    if (inj->rate < 0.0) {
      for (const abft_fault& spec : inj->specs) plan.faults.push_back(concretize(spec, call, st));
    } else {
      // Rate modes: at most one fault, from a spec whose site exists for this kernel.
      std::vector<const abft_fault*> usable;
      for (const abft_fault& spec : inj->specs)
        if (site_extent(call, spec.site).exists) usable.push_back(&spec);
      const double p = inj->per_flop ? -std::expm1(-inj->rate * abft_call_flops(&call)) : inj->rate;
      if (!usable.empty() && double(splitmix64(st) >> 11) * 0x1.0p-53 < p) {
        const abft_fault& spec = *usable[size_t(draw(st, int64_t(usable.size())))];
        plan.faults.push_back(concretize(spec, call, st));
      }
    }
    plan.injector = inj;
  }
  if (h->hook) {
    abft_fault buf[64];
    const int n = h->hook(h->hook_user, &call, buf, 64);
    for (int i = 0; i < n && i < 64; ++i) {
      buf[i].applied = 0;
      plan.faults.push_back(buf[i]);
    }
  }
  // Discard faults outside the problem (a custom hook may ask for anything).
  std::vector<abft_fault> ok;
  for (const abft_fault& f : plan.faults) {
    const SiteExtent e = site_extent(call, f.site);
    auto in = [](int64_t x, int64_t n) { return n == 0 || (x >= 0 && x < n); };
    const bool valid = e.exists && in(f.row, e.rows) && in(f.col, e.cols) && in(f.kpos, e.kpos);
    if (valid && f.model >= 0 && f.model < ABFT_FAULT_MODEL_COUNT_) ok.push_back(f);
  }
  plan.faults.swap(ok);
  plan.handle = h;
  return plan;
}

void finish_injection(InjectionPlan& plan) {
  if (plan.handle && !plan.faults.empty()) {
    std::lock_guard<std::mutex> g(plan.handle->injected_mu);
    plan.handle->last_injected = plan.faults;
  }
  if (!plan.injector) return;
  std::lock_guard<std::mutex> g(plan.injector->mu);
  plan.injector->last = plan.faults;
}

}  // namespace abft::core
