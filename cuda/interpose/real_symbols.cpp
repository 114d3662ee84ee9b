/** \file real_symbols.cpp
 *  \brief Run-time resolution of the real vendor functions: one copy per vendor library
 *  (real_symbols.hpp).
 */
#include "real_symbols.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace abft::preload {
namespace {

struct VendorInfo {
  const char* env;     ///< explicit library file (mock tests, unusual installs)
  const char* prefix;  ///< file-name prefix of an already loaded copy
  const char* anchor;  ///< a function every version of the library defines
};
constexpr VendorInfo kVendors[3] = {{"ABFT_PRELOAD_CUBLAS", "libcublas.so", "cublasCreate_v2"},
                                    {"ABFT_PRELOAD_CUBLASLT", "libcublasLt.so", "cublasLtCreate"},
                                    {"ABFT_PRELOAD_CUFFT", "libcufft.so", "cufftCreate"}};

constexpr unsigned long long kNoMiss = ~0ull;
std::atomic<void*> g_handle[3] = {};
std::atomic<unsigned long long> g_miss_gen[3] = {{kNoMiss}, {kNoMiss}, {kNoMiss}};
std::atomic<bool> g_warned[3] = {};
std::atomic<unsigned long long> g_scans{0};

const void* this_base() {
  static const void* base = [] {
    Dl_info info{};
    return dladdr(reinterpret_cast<const void*>(&this_base), &info) ? info.dli_fbase : nullptr;
  }();
  return base;
}

/** Objects the loader added plus removed so far (changes whenever the set of loaded objects
 *  does). The callback stops at the first object: O(1), and it calls nothing. */
unsigned long long loader_generation() {
  unsigned long long gen = 0;
  dl_iterate_phdr(
      [](struct dl_phdr_info* info, size_t size, void* data) -> int {
        if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs)
          *static_cast<unsigned long long*>(data) = info->dlpi_adds + info->dlpi_subs;
        return 1;
      },
      &gen);
  return gen;
}

/** Rule 3, inside the loader's lock: only copy the names (no dl* call may run here). */
struct ScanState {
  const char* prefix;
  std::vector<std::string>* paths;
};

int scan_one(struct dl_phdr_info* info, size_t, void* data) {
  auto* s = static_cast<ScanState*>(data);
  if (!info->dlpi_name || !*info->dlpi_name) return 0;
  const char* slash = std::strrchr(info->dlpi_name, '/');
  const char* base = slash ? slash + 1 : info->dlpi_name;
  if (std::strncmp(base, s->prefix, std::strlen(s->prefix)) == 0 && s->paths->size() < s->paths->capacity())
    s->paths->emplace_back(info->dlpi_name);
  return 0;
}

/** A handle of the loaded object that defines `p` (RTLD_NOLOAD: never a new copy), or nullptr. */
void* handle_of(const void* p) {
  Dl_info info{};
  if (!dladdr(p, &info) || !info.dli_fname || !*info.dli_fname) return nullptr;
  return dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
}

/** The copy of vendor v by the rules of real_symbols.hpp (a new reference), or nullptr. */
void* choose(Vendor v) {
  const VendorInfo& vi = kVendors[int(v)];
  if (const char* path = std::getenv(vi.env); path && *path) {
    if (void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL)) return h;
    const char* err = dlerror();
    if (!g_warned[int(v)].exchange(true))
      std::fprintf(stderr, "abft-preload: %s=%s cannot be opened (%s); using the program's library\n", vi.env, path,
                   err ? err : "unknown error");
  }
  if (void* p = dlsym(RTLD_NEXT, vi.anchor); p && !in_this_library(p)) {
    void* h = handle_of(p);
    return h ? h : RTLD_NEXT;  // (a definition in the main program has no handle of its own)
  }
  g_scans.fetch_add(1, std::memory_order_relaxed);
  std::vector<std::string> paths;
  paths.reserve(16);
  ScanState s{vi.prefix, &paths};
  dl_iterate_phdr(scan_one, &s);
  for (const std::string& path : paths) {
    void* h = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (!h) continue;
    void* p = dlsym(h, vi.anchor);
    if (p && !in_this_library(p)) return h;
    dlclose(h);
  }
  return nullptr;
}

/** The address range [lo, hi) of a chosen copy's loaded segments (hi = 0: not known yet; lo = 1,
 *  hi = 1: known to be unavailable). */
struct Range {
  std::atomic<uintptr_t> lo{0}, hi{0};
};
Range g_range[3];

struct RangeScan {
  uintptr_t base;
  const char* name;
  uintptr_t lo, hi;
};

/** Inside the loader's lock: only reads the program headers of the matching object. */
int range_one(struct dl_phdr_info* info, size_t, void* data) {
  auto* r = static_cast<RangeScan*>(data);
  if (uintptr_t(info->dlpi_addr) != r->base || !info->dlpi_name || std::strcmp(info->dlpi_name, r->name) != 0) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    const uintptr_t a = uintptr_t(info->dlpi_addr) + ph.p_vaddr, b = a + ph.p_memsz;
    if (!r->lo || a < r->lo) r->lo = a;
    if (b > r->hi) r->hi = b;
  }
  return 1;
}

void compute_range(int i, void* h) {
  RangeScan r{0, nullptr, 0, 0};
  struct link_map* lm = nullptr;
  if (h && h != RTLD_NEXT && dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name) {
    r.base = uintptr_t(lm->l_addr);
    r.name = lm->l_name;
    dl_iterate_phdr(range_one, &r);
  }
  if (!r.hi) r.lo = r.hi = 1;  // unavailable: nothing is ever inside [1, 1)
  g_range[i].lo.store(r.lo, std::memory_order_relaxed);
  g_range[i].hi.store(r.hi, std::memory_order_release);
}

}  // namespace

bool in_vendor_library(Vendor v, const void* addr) {
  const int i = int(v);
  uintptr_t hi = g_range[i].hi.load(std::memory_order_acquire);
  if (!hi) {
    void* h = vendor_handle(v);
    if (!h) return false;
    compute_range(i, h);
    hi = g_range[i].hi.load(std::memory_order_acquire);
  }
  const uintptr_t a = uintptr_t(addr);
  return a >= g_range[i].lo.load(std::memory_order_relaxed) && a < hi;
}

bool in_this_library(const void* addr) {
  Dl_info info{};
  return addr && dladdr(addr, &info) && info.dli_fbase == this_base();
}

void* vendor_handle(Vendor v) {
  const int i = int(v);
  if (void* h = g_handle[i].load(std::memory_order_acquire)) return h;
  const unsigned long long gen = loader_generation();
  if (g_miss_gen[i].load(std::memory_order_acquire) == gen) return nullptr;  // nothing loaded since
  // No lock is held here: choose() calls dlopen, and a thread inside dlopen (a constructor
  // calling an intercepted function) must never wait for us. Two threads may choose at once;
  // the first to publish wins and the other drops its reference.
  void* h = choose(v);
  if (!h) {
    g_miss_gen[i].store(gen, std::memory_order_release);
    return nullptr;
  }
  void* expected = nullptr;
  if (!g_handle[i].compare_exchange_strong(expected, h, std::memory_order_acq_rel)) {
    if (h != RTLD_NEXT) dlclose(h);
    return expected;
  }
  return h;
}

void* find_real(Vendor v, const char* name) {
  void* h = vendor_handle(v);
  if (!h) return nullptr;
  void* p = dlsym(h, name);
  return p && !in_this_library(p) ? p : nullptr;
}

void reset_for_tests() {
  for (int i = 0; i < 3; ++i) {
    void* h = g_handle[i].exchange(nullptr);
    if (h && h != RTLD_NEXT) dlclose(h);
    g_miss_gen[i] = kNoMiss;
    g_range[i].hi = 0;
    g_range[i].lo = 0;
  }
}

unsigned long long scans_for_tests() { return g_scans.load(); }

}  // namespace abft::preload
