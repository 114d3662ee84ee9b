/** \file real_symbols.cpp
 *  \brief Run-time resolution of the real vendor functions (real_symbols.hpp).
 */
#include "real_symbols.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace abft::preload {
namespace {

struct VendorInfo {
  const char* env;     ///< explicit library file (mock tests, unusual installs)
  const char* prefix;  ///< file-name prefix of an already loaded copy
};
constexpr VendorInfo kVendors[3] = {{"ABFT_PRELOAD_CUBLAS", "libcublas.so"},
                                    {"ABFT_PRELOAD_CUBLASLT", "libcublasLt.so"},
                                    {"ABFT_PRELOAD_CUFFT", "libcufft.so"}};

const void* this_base() {
  static const void* base = [] {
    Dl_info info{};
    return dladdr(reinterpret_cast<const void*>(&this_base), &info) ? info.dli_fbase : nullptr;
  }();
  return base;
}

/** The library named by the vendor's environment variable, opened once (nullptr: unset or
 *  not openable, with one warning). */
void* override_handle(Vendor v) {
  static std::once_flag once[3];
  static void* handle[3] = {nullptr, nullptr, nullptr};
  const int i = int(v);
  std::call_once(once[i], [i] {
    const char* path = std::getenv(kVendors[i].env);
    if (!path || !*path) return;
    handle[i] = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle[i]) {
      const char* err = dlerror();
      std::fprintf(stderr, "abft-preload: %s=%s cannot be opened (%s); using the program's library\n",
                   kVendors[i].env, path, err ? err : "unknown error");
    }
  });
  return handle[i];
}

/** Rule 3: an already loaded library whose file name starts with the vendor's prefix. */
struct ScanState {
  const char* prefix;
  const char* name;
  void* found;
};

int scan_one(struct dl_phdr_info* info, size_t, void* data) {
  auto* s = static_cast<ScanState*>(data);
  if (!info->dlpi_name || !*info->dlpi_name) return 0;
  if (reinterpret_cast<const void*>(info->dlpi_addr) == this_base()) return 0;
  const char* slash = std::strrchr(info->dlpi_name, '/');
  const char* base = slash ? slash + 1 : info->dlpi_name;
  if (std::strncmp(base, s->prefix, std::strlen(s->prefix)) != 0) return 0;
  // RTLD_NOLOAD: a handle to the copy already in the process, never a new one.
  void* h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
  if (!h) return 0;
  void* p = dlsym(h, s->name);
  if (p && !in_this_library(p)) {
    s->found = p;  // the handle stays open: the function must not be unloaded under us
    return 1;
  }
  dlclose(h);
  return 0;
}

}  // namespace

bool in_this_library(const void* addr) {
  Dl_info info{};
  return addr && dladdr(addr, &info) && info.dli_fbase == this_base();
}

void* find_real(Vendor v, const char* name) {
  if (void* h = override_handle(v)) {
    void* p = dlsym(h, name);
    if (p && !in_this_library(p)) return p;
  }
  void* p = dlsym(RTLD_NEXT, name);
  if (p && !in_this_library(p)) return p;
  ScanState s{kVendors[int(v)].prefix, name, nullptr};
  dl_iterate_phdr(scan_one, &s);
  return s.found;
}

}  // namespace abft::preload
