/** \file preload_probe.hpp
 *  \brief What the interposition tests need from outside: the preload library's counters
 *  (abft_preload.h, looked up with dlsym: the test binaries do not link the library, they run with
 *  it in LD_PRELOAD), the stub libraries' logs, and whether a real GPU is present (the "no GPU:
 *  forwarded" tests only make sense without one).
 */
#pragma once
#include <dlfcn.h>

#include <cstddef>
#include <string>
#include <vector>

#include "abft_preload.h"

namespace probe {

struct Preload {
  decltype(&abft_preload_entry_counts) counts_fn = nullptr;
  decltype(&abft_preload_reason_count) reason_fn = nullptr;
  decltype(&abft_preload_nested_calls) nested_fn = nullptr;
  decltype(&abft_preload_report) report_fn = nullptr;
  decltype(&abft_preload_reset) reset_fn = nullptr;

  Preload() {
    counts_fn = reinterpret_cast<decltype(counts_fn)>(dlsym(RTLD_DEFAULT, "abft_preload_entry_counts"));
    reason_fn = reinterpret_cast<decltype(reason_fn)>(dlsym(RTLD_DEFAULT, "abft_preload_reason_count"));
    nested_fn = reinterpret_cast<decltype(nested_fn)>(dlsym(RTLD_DEFAULT, "abft_preload_nested_calls"));
    report_fn = reinterpret_cast<decltype(report_fn)>(dlsym(RTLD_DEFAULT, "abft_preload_report"));
    reset_fn = reinterpret_cast<decltype(reset_fn)>(dlsym(RTLD_DEFAULT, "abft_preload_reset"));
  }
  bool loaded() const { return counts_fn && reason_fn && nested_fn && report_fn && reset_fn; }
  abft_preload_counts counts(const char* entry) const {
    abft_preload_counts c{};
    counts_fn(entry, &c);
    return c;
  }
  unsigned long long reason(const char* entry, const char* key) const { return reason_fn(entry, key); }
  unsigned long long nested() const { return nested_fn(); }
  std::string report() const {
    std::string s(report_fn(nullptr, 0) + 1, '\0');
    report_fn(&s[0], s.size());
    s.resize(s.size() - 1);
    return s;
  }
  void reset() const { reset_fn(); }
};

/** A stub library's log, read through its exported accessors (`prefix`_log_count / _entry / _clear)
 *  found in `handle` (RTLD_DEFAULT: the copy the test binary links). */
struct StubLog {
  size_t (*count)(void) = nullptr;
  const char* (*entry)(size_t) = nullptr;
  void (*clear)(void) = nullptr;
  StubLog(void* handle, const std::string& prefix) {
    count = reinterpret_cast<size_t (*)(void)>(dlsym(handle, (prefix + "_log_count").c_str()));
    entry = reinterpret_cast<const char* (*)(size_t)>(dlsym(handle, (prefix + "_log_entry").c_str()));
    clear = reinterpret_cast<void (*)(void)>(dlsym(handle, (prefix + "_log_clear").c_str()));
  }
  bool ok() const { return count && entry && clear; }
  std::vector<std::string> all() const {
    std::vector<std::string> v;
    for (size_t i = 0, n = count(); i < n; ++i) v.emplace_back(entry(i));
    return v;
  }
  std::string last() const {
    const size_t n = count();
    return n ? std::string(entry(n - 1)) : std::string();
  }
  /** Records whose first word is `name`. */
  size_t calls_of(const std::string& name) const {
    size_t c = 0;
    for (const std::string& s : all())
      if (s == name || s.rfind(name + " ", 0) == 0) ++c;
    return c;
  }
};

/** True when the CUDA driver reports a device. */
inline bool gpu_present() {
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) return false;
  auto init = reinterpret_cast<int (*)(unsigned)>(dlsym(h, "cuInit"));
  auto count = reinterpret_cast<int (*)(int*)>(dlsym(h, "cuDeviceGetCount"));
  int n = 0;
  return init && count && init(0) == 0 && count(&n) == 0 && n > 0;
}

/** The file that defines `addr` ("" when none). */
inline std::string file_of(const void* addr) {
  Dl_info info{};
  return addr && dladdr(addr, &info) && info.dli_fname ? std::string(info.dli_fname) : std::string();
}

}  // namespace probe
