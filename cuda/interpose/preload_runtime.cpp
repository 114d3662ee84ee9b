/** \file preload_runtime.cpp
 *  \brief Policy, injection, counters and exit report of the preload library
 *  (preload_runtime.hpp, abft_preload.h).
 */
#include "preload_runtime.hpp"

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "abft/abft_cublas.h"
#include "abft/abft_cuda.h"
#include "abft/abft_cufft.h"
#include "abft_preload.h"

namespace abft::preload {
namespace {

constexpr int kEntries = int(Entry::Count), kReasons = int(Reason::Count), kFamilies = int(Family::Count);
constexpr const char* kEntryNames[kEntries] = {
    "cublasSgemm_v2",      "cublasDgemm_v2",      "cublasHgemm",  "cublasGemmEx",
    "cublasSgemmStridedBatched", "cublasDgemmStridedBatched", "cublasGemmStridedBatchedEx",
    "cublasGemmBatchedEx", "cublasSgemm_v2_64",   "cublasDgemm_v2_64", "cublasHgemm_64", "cublasGemmEx_64",
    "cublasSgemmStridedBatched_64", "cublasDgemmStridedBatched_64", "cublasGemmStridedBatchedEx_64",
    "cublasGemmBatchedEx_64", "cublasLtMatmul",      "cufftExecC2C", "cufftExecZ2Z",
    "cufftExecR2C",        "cufftExecD2Z",        "cufftExecC2R", "cufftExecZ2D",
    "cufftXtExec"};
constexpr const char* kFamilyNames[kFamilies] = {"cuBLAS entry points", "cuBLASLt matmul", "cuFFT executions"};

struct Counters {
  std::atomic<unsigned long long> calls{0}, prot{0}, unprot{0}, failed{0};
  std::atomic<unsigned long long> reasons[kReasons] = {};
};
Counters g_counts[kEntries];
std::atomic<unsigned long long> g_nested{0};
std::atomic<bool> g_used[kFamilies] = {};
std::atomic<bool> g_printed{false};
std::atomic<bool> g_exiting{false};
void mark_exiting() { g_exiting.store(true); }
std::string g_inject_desc = "off";

const char* env(const char* name) {
  const char* e = std::getenv(name);
  return (e && *e) ? e : nullptr;
}

bool parse_model(const char* s, size_t len, abft_fault_model& m) {
  static const struct {
    const char* name;
    abft_fault_model model;
  } table[] = {{"bitflip", ABFT_FAULT_BITFLIP}, {"bitflip2", ABFT_FAULT_BITFLIP2}, {"random", ABFT_FAULT_RANDOM},
               {"zero", ABFT_FAULT_ZERO},       {"nan", ABFT_FAULT_NAN},           {"inf", ABFT_FAULT_POS_INF},
               {"+inf", ABFT_FAULT_POS_INF},    {"-inf", ABFT_FAULT_NEG_INF}};
  for (const auto& t : table)
    if (std::strlen(t.name) == len && !std::strncmp(s, t.name, len)) return m = t.model, true;
  return false;
}

/** ABFT_PRELOAD_INJECT -> an injector (nullptr: unset, or not understood — with a warning). */
abft_injector_t injector_from_env() {
  const char* spec = env("ABFT_PRELOAD_INJECT");
  if (!spec || !std::strcmp(spec, "off") || !std::strcmp(spec, "0")) return nullptr;
  const std::string s(spec);
  abft_fault_model model{};
  unsigned sites = 1u << ABFT_SITE_OUTPUT;
  double rate = 1.0;
  uint64_t seed = 1;
  int bit = -1;
  bool ok = true;
  size_t pos = 0;
  for (int field = 0; ok && pos <= s.size(); ++field) {
    size_t end = s.find(',', pos);
    if (end == std::string::npos) end = s.size();
    const std::string f = s.substr(pos, end - pos);
    pos = end + 1;
    if (field == 0) {
      ok = parse_model(f.c_str(), f.size(), model);
      continue;
    }
    const size_t eq = f.find('=');
    const std::string key = f.substr(0, eq), val = eq == std::string::npos ? "" : f.substr(eq + 1);
    char* stop = nullptr;
    if (key == "site") {
      if (val == "output") sites = 1u << ABFT_SITE_OUTPUT;
      else if (val == "a") sites = 1u << ABFT_SITE_PACKED_A;
      else if (val == "b") sites = 1u << ABFT_SITE_PACKED_B;
      else if (val == "input") sites = 1u << ABFT_SITE_FFT_STAGE;
      else if (val == "all")
        sites = (1u << ABFT_SITE_OUTPUT) | (1u << ABFT_SITE_PACKED_A) | (1u << ABFT_SITE_PACKED_B) |
                (1u << ABFT_SITE_FFT_STAGE);
      else ok = false;
    } else if (key == "rate") {
      rate = std::strtod(val.c_str(), &stop);
      ok = stop && !*stop && !val.empty() && rate >= 0.0 && rate <= 1.0;
    } else if (key == "seed") {
      seed = std::strtoull(val.c_str(), &stop, 0);
      ok = stop && !*stop && !val.empty();
    } else if (key == "bit") {
      bit = int(std::strtol(val.c_str(), &stop, 10));
      ok = stop && !*stop && !val.empty() && bit >= -1 && bit < 64;
    } else {
      ok = false;
    }
  }
  if (!ok) {
    std::fprintf(stderr,
                 "abft-preload: ABFT_PRELOAD_INJECT=%s not understood "
                 "(model[,site=output|a|b|input|all][,rate=P][,seed=N][,bit=B]); no injection\n",
                 spec);
    return nullptr;
  }
  abft_injector_t inj = nullptr;
  if (abft_injector_create(seed, &inj) != ABFT_STATUS_SUCCESS) return nullptr;
  for (int site = 0; site < ABFT_SITE_COUNT_; ++site) {
    if (!(sites & (1u << site))) continue;
    abft_fault f{};
    f.site = abft_site(site);
    f.model = model;
    f.bit = bit;
    f.row = f.col = f.kpos = -1;
    abft_injector_add(inj, &f);
  }
  // Rate mode: one fault per call at most, from the specs whose site exists for the kernel.
  abft_injector_set_rate(inj, rate);
  g_inject_desc = spec;
  return inj;
}

abft_handle_t lt_handle() {
  static abft_handle_t h = [] {
    abft_handle_t x = nullptr;
    return abft_handle_create(&x) == ABFT_STATUS_SUCCESS ? x : nullptr;
  }();
  return h;
}

abft_handle_t family_handle(Family f) {
  switch (f) {
    case Family::Cublas: return abft_cublas_handle();
    case Family::CublasLt: return lt_handle();
    default: return abft_cufft_handle();
  }
}

std::string counters_text() {
  std::string s;
  char line[256];
  const abft_policy pol = abft_default_policy();
  std::snprintf(line, sizeof line, "abft-preload report (pid %ld, policy %s, injection %s)\n", long(getpid()),
                pol == ABFT_POLICY_OFF ? "off" : pol == ABFT_POLICY_DETECT ? "detect" : "correct",
                g_inject_desc.c_str());
  s += line;
  std::snprintf(line, sizeof line, "%-28s %10s %10s %12s %8s\n", "entry point", "calls", "protected", "unprotected",
                "failed");
  s += line;
  bool any = false;
  std::string why;
  for (int e = 0; e < kEntries; ++e) {
    const Counters& c = g_counts[e];
    const unsigned long long calls = c.calls.load();
    if (!calls) continue;
    any = true;
    std::snprintf(line, sizeof line, "%-28s %10llu %10llu %12llu %8llu\n", kEntryNames[e], calls, c.prot.load(),
                  c.unprot.load(), c.failed.load());
    s += line;
    for (int r = 1; r < kReasons; ++r)
      if (const unsigned long long n = c.reasons[r].load()) {
        std::snprintf(line, sizeof line, "  %-26s %10llu  %s\n", kEntryNames[e], n, reason_text(Reason(r)));
        why += line;
      }
  }
  if (!any) s += "(no intercepted calls)\n";
  if (!why.empty()) s += "unprotected calls by reason:\n" + why;
  std::snprintf(line, sizeof line, "nested calls forwarded unchanged: %llu\n", g_nested.load());
  s += line;
  return s;
}

/** Device outcome per family (abft_cuda_sync on each used handle); guarded: CUDA may be gone. */
std::string device_text() {
  bool used = false;
  for (const auto& u : g_used) used = used || u.load();
  if (!used) return "device outcome: the engine was not entered\n";
  if (cudaDeviceSynchronize() != cudaSuccess) {
    cudaGetLastError();
    return "device outcome: unavailable (CUDA not usable at exit)\n";
  }
  std::string s;
  char line[256];
  std::snprintf(line, sizeof line, "%-28s %10s %10s %10s %14s\n", "device outcome", "checks", "detected", "corrected",
                "uncorrectable");
  s += line;
  for (int f = 0; f < kFamilies; ++f) {
    if (!g_used[f].load()) continue;
    abft_report r{};
    const abft_status st = abft_cuda_sync(family_handle(Family(f)), nullptr, &r);
    if (st != ABFT_STATUS_SUCCESS && st != ABFT_STATUS_FAULT_DETECTED && st != ABFT_STATUS_FAULT_UNCORRECTABLE) {
      std::snprintf(line, sizeof line, "%-28s (counters unavailable: %s)\n", kFamilyNames[f], abft_status_string(st));
    } else {
      std::snprintf(line, sizeof line, "%-28s %10llu %10llu %10llu %14llu\n", kFamilyNames[f],
                    (unsigned long long)r.checks, (unsigned long long)r.detected, (unsigned long long)r.corrected,
                    (unsigned long long)r.uncorrectable);
    }
    s += line;
  }
  return s;
}

/** True when this process made an intercepted call (counted or nested) or entered the engine. */
bool any_activity() {
  for (const Counters& c : g_counts)
    if (c.calls.load()) return true;
  for (const auto& u : g_used)
    if (u.load()) return true;
  return g_nested.load() != 0;
}

void print_report_at_exit() {
  if (g_printed.exchange(true)) return;
  const char* where = env("ABFT_PRELOAD_REPORT");
  if (!where || !std::strcmp(where, "0") || !std::strcmp(where, "off")) return;
  // A process that never reached the library (a wrapper such as timeout, env or a shell, which
  // inherit LD_PRELOAD) writes nothing: its empty report would only hide the program's.
  if (!any_activity()) return;
  const std::string text = counters_text() + device_text();
  if (!std::strcmp(where, "stderr") || !std::strcmp(where, "1")) {
    std::fputs(text.c_str(), stderr);
    return;
  }
  if (FILE* f = std::fopen(where, "a")) {
    std::fputs(text.c_str(), f);
    std::fclose(f);
  } else {
    std::fprintf(stderr, "abft-preload: cannot write ABFT_PRELOAD_REPORT=%s\n", where);
  }
}

/** At load: the exit report for processes whose calls never entered the engine (the engine's
 *  first use registers the one that normally prints, after the CUDA runtime's teardown hook). */
struct LoadTimeHook {
  LoadTimeHook() {
    if (env("ABFT_PRELOAD_REPORT")) std::atexit(print_report_at_exit);
  }
} g_load_time_hook;

}  // namespace

const char* entry_name(Entry e) {
  const int i = int(e);
  return i >= 0 && i < kEntries ? kEntryNames[i] : "?";
}

bool policy_off() { return abft_default_policy() == ABFT_POLICY_OFF; }

void note_call(Entry e) { g_counts[int(e)].calls.fetch_add(1, std::memory_order_relaxed); }
void note_protected(Entry e) { g_counts[int(e)].prot.fetch_add(1, std::memory_order_relaxed); }
void note_unprotected(Entry e, Reason r) {
  g_counts[int(e)].unprot.fetch_add(1, std::memory_order_relaxed);
  if (int(r) > 0 && int(r) < kReasons) g_counts[int(e)].reasons[int(r)].fetch_add(1, std::memory_order_relaxed);
}
void note_failed(Entry e) { g_counts[int(e)].failed.fetch_add(1, std::memory_order_relaxed); }
void note_nested() { g_nested.fetch_add(1, std::memory_order_relaxed); }

abft_handle_t engine_handle(Family f) {
  static std::once_flag once;
  std::call_once(once, [] {
    // Start the CUDA runtime first, then hook the report: exit handlers run in reverse order, so
    // the report runs while the runtime is still up.
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) cudaGetLastError();
    if (env("ABFT_PRELOAD_REPORT")) std::atexit(print_report_at_exit);
    std::atexit(mark_exiting);  // runs first: before the report and the runtime's teardown
    if (abft_injector_t inj = injector_from_env())
      for (int k = 0; k < kFamilies; ++k)
        if (abft_handle_t h = family_handle(Family(k))) abft_handle_set_injector(h, inj);
  });
  g_used[int(f)].store(true, std::memory_order_relaxed);
  return family_handle(f);
}

bool process_exiting() { return g_exiting.load(); }

bool stream_capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
  const cudaError_t e = cudaStreamIsCapturing(stream, &st);
  if (e == cudaErrorStreamCaptureImplicit || e == cudaErrorStreamCaptureUnsupported) {
    cudaGetLastError();
    return true;  // the legacy stream while another stream captures: stay out of the way
  }
  if (e != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return st != cudaStreamCaptureStatusNone;
}

}  // namespace abft::preload

using namespace abft::preload;

extern "C" int abft_preload_entry_counts(const char* entry, abft_preload_counts* out) {
  if (!entry || !out) return -1;
  for (int e = 0; e < kEntries; ++e)
    if (!std::strcmp(entry, kEntryNames[e])) {
      const Counters& c = g_counts[e];
      *out = {c.calls.load(), c.prot.load(), c.unprot.load(), c.failed.load()};
      return 0;
    }
  return -1;
}

extern "C" unsigned long long abft_preload_reason_count(const char* entry, const char* reason) {
  if (!entry || !reason) return 0;
  for (int e = 0; e < kEntries; ++e) {
    if (std::strcmp(entry, kEntryNames[e])) continue;
    for (int r = 1; r < kReasons; ++r)
      if (!std::strcmp(reason, reason_key(Reason(r)))) return g_counts[e].reasons[r].load();
  }
  return 0;
}

extern "C" unsigned long long abft_preload_nested_calls(void) { return g_nested.load(); }

extern "C" size_t abft_preload_report(char* buf, size_t cap) {
  const std::string s = counters_text();
  if (buf && cap) {
    const size_t n = s.size() < cap - 1 ? s.size() : cap - 1;
    std::memcpy(buf, s.data(), n);
    buf[n] = '\0';
  }
  return s.size();
}

extern "C" void abft_preload_reset(void) {
  for (Counters& c : g_counts) {
    c.calls = 0, c.prot = 0, c.unprot = 0, c.failed = 0;
    for (auto& r : c.reasons) r = 0;
  }
  g_nested = 0;
}
