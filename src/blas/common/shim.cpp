/** \file shim.cpp
 *  \brief Environment configuration, per-routine statistics and the exit report of the shim.
 */
#include "blas/common/shim.hpp"

#include "core/report.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace abft::blas {
namespace {

constexpr int kRoutines = int(Routine::COUNT_);
constexpr const char* kNames[kRoutines] = {
    "sgemm",  "dgemm",  "cgemm",  "zgemm",  "ssymm",  "dsymm",  "csymm",  "zsymm",
    "chemm",  "zhemm",  "ssyrk",  "dsyrk",  "csyrk",  "zsyrk",  "cherk",  "zherk",
    "ssyr2k", "dsyr2k", "csyr2k", "zsyr2k", "cher2k", "zher2k", "strmm",  "dtrmm",
    "ctrmm",  "ztrmm",  "strsm",  "dtrsm",  "ctrsm",  "ztrsm"};

struct Row {
  std::atomic<uint64_t> v[8];
};
Row g_rows[kRoutines];

const char* env(const char* name) {
  const char* e = std::getenv(name);
  return (e && *e) ? e : nullptr;
}

bool parse_model(const char* s, abft_fault_model& m) {
  static const struct { const char* name; abft_fault_model model; } table[] = {
      {"bitflip", ABFT_FAULT_BITFLIP}, {"bitflip2", ABFT_FAULT_BITFLIP2},
      {"random", ABFT_FAULT_RANDOM},   {"zero", ABFT_FAULT_ZERO},
      {"nan", ABFT_FAULT_NAN},         {"inf", ABFT_FAULT_POS_INF},
      {"+inf", ABFT_FAULT_POS_INF},    {"-inf", ABFT_FAULT_NEG_INF}};
  for (const auto& t : table)
    if (!std::strcmp(s, t.name)) { m = t.model; return true; }
  return false;
}

void add_spec(abft_injector_t inj, abft_site site, abft_fault_model model) {
  abft_fault f{};
  f.site = site;
  f.model = model;
  f.bit = -1;
  f.row = f.col = f.kpos = -1;
  abft_injector_add(inj, &f);
}

/** Injector from ABFT_INJECT*; nullptr when injection is off or misconfigured (a warning
 *  says which variable was not understood). */
abft_injector_t injector_from_env() {
  const char* model_s = env("ABFT_INJECT");
  if (!model_s || !std::strcmp(model_s, "0") || !std::strcmp(model_s, "off")) return nullptr;
  abft_fault_model model;
  if (!parse_model(model_s, model)) {
    std::fprintf(stderr, "abft: ABFT_INJECT=%s not understood (bitflip|bitflip2|random|zero|nan|inf|-inf); no injection\n", model_s);
    return nullptr;
  }
  double rate = 1.0;
  if (const char* r = env("ABFT_INJECT_RATE")) {
    char* end = nullptr;
    rate = std::strtod(r, &end);
    if (end == r || *end || !(rate >= 0.0 && rate <= 1.0)) {
      std::fprintf(stderr, "abft: ABFT_INJECT_RATE=%s is not a probability in [0,1]; no injection\n", r);
      return nullptr;
    }
  }
  uint64_t seed = 1;
  if (const char* s = env("ABFT_INJECT_SEED")) seed = std::strtoull(s, nullptr, 0);
  const char* site = env("ABFT_INJECT_SITE");
  if (!site) site = "compute";
  abft_injector_t inj = nullptr;
  if (abft_injector_create(seed, &inj) != ABFT_STATUS_SUCCESS) return nullptr;
  const bool out = !std::strcmp(site, "output") || !std::strcmp(site, "compute") || !std::strcmp(site, "any");
  const bool acc = !std::strcmp(site, "accumulator") || !std::strcmp(site, "compute") || !std::strcmp(site, "any");
  const bool packed = !std::strcmp(site, "packed") || !std::strcmp(site, "any");
  if (!out && !acc && !packed) {
    std::fprintf(stderr, "abft: ABFT_INJECT_SITE=%s not understood (output|accumulator|compute|packed|any); no injection\n", site);
    abft_injector_destroy(inj);
    return nullptr;
  }
  if (out) add_spec(inj, ABFT_SITE_OUTPUT, model);
  if (acc) add_spec(inj, ABFT_SITE_ACCUMULATOR, model);
  if (packed) {
    add_spec(inj, ABFT_SITE_PACKED_A, model);
    add_spec(inj, ABFT_SITE_PACKED_B, model);
  }
  abft_injector_set_rate(inj, rate);
  return inj;
}

void print_report_at_exit() {
  const char* where = env("ABFT_REPORT");
  if (!where || !std::strcmp(where, "0") || !std::strcmp(where, "off")) return;
  const bool to_stderr = !std::strcmp(where, "stderr") || !std::strcmp(where, "1") ||
                         !std::strcmp(where, "text") || !std::strcmp(where, "json");
  const bool json = !to_stderr || !std::strcmp(where, "json");
  static char buf[16384];
  format_report(json, buf, sizeof buf);
  if (to_stderr) {
    std::fputs(buf, stderr);
    return;
  }
  if (FILE* f = std::fopen(where, "w")) {
    std::fputs(buf, f);
    std::fclose(f);
  } else {
    std::fprintf(stderr, "abft: cannot write ABFT_REPORT file %s\n", where);
  }
}

struct Shim {
  abft_handle_t handle = nullptr;
  Shim() {
    if (abft_handle_create(&handle) != ABFT_STATUS_SUCCESS) return;
    if (const char* t = env("ABFT_NUM_THREADS")) {
      const long n = std::strtol(t, nullptr, 10);
      if (n > 0) abft_handle_set_threads(handle, int(n));
    }
    if (abft_injector_t inj = injector_from_env()) abft_handle_set_injector(handle, inj);
    if (env("ABFT_REPORT")) std::atexit(print_report_at_exit);
  }
};

}  // namespace

const char* routine_name(Routine r) {
  const int i = int(r);
  return (i >= 0 && i < kRoutines) ? kNames[i] : "unknown";
}

abft_handle_t shim_handle() {
  static Shim* shim = new Shim();  // never destroyed: used by at-exit reporting
  return shim->handle;
}

abft_policy shim_policy() {
  abft_policy p = ABFT_POLICY_DEFAULT;
  (void)abft_handle_get_policy(shim_handle(), &p);
  return p == ABFT_POLICY_DEFAULT ? abft_default_policy() : p;
}

// The report must be registered even when the program never makes a protected call.
static const bool g_shim_started = (shim_handle(), true);

ProtectedCall::~ProtectedCall() {
  Row& row = g_rows[int(r_)];
  const uint64_t add[8] = {1,
                           rep_.checks,
                           rep_.detected,
                           rep_.corrected,
                           rep_.recomputed,
                           rep_.uncorrectable,
                           rep_.skipped,
                           uint64_t(status_ != ABFT_STATUS_SUCCESS ? 1 : 0)};
  for (int i = 0; i < 8; ++i)
    if (add[i]) row.v[i].fetch_add(add[i], std::memory_order_relaxed);
}

void ProtectedCall::absorb(const abft_report& r, abft_status st) {
  core::add_report(rep_, r);
  status_ = core::worse_status(status_, st);
}

RoutineCounters routine_counters(Routine r) {
  const Row& row = g_rows[int(r)];
  RoutineCounters c;
  uint64_t* out[8] = {&c.calls, &c.checks, &c.detected, &c.corrected,
                      &c.recomputed, &c.uncorrectable, &c.skipped, &c.failed};
  for (int i = 0; i < 8; ++i) *out[i] = row.v[i].load(std::memory_order_relaxed);
  return c;
}

void format_report(bool json, char* buf, std::size_t cap) {
  std::string s;
  char line[256];
  const char* cols[8] = {"calls", "checks", "detected", "corrected", "recomputed", "uncorrectable", "skipped", "failed"};
  const abft_policy pol = shim_policy();
  const char* pname = pol == ABFT_POLICY_OFF ? "off" : pol == ABFT_POLICY_DETECT ? "detect" : "correct";
  if (json) {
    s += "{\"library\":\"abft-blas\",\"policy\":\"";
    s += pname;
    s += "\",\"routines\":{";
  } else {
    s += "abft-blas report (policy ";
    s += pname;
    s += "; Level-3 routines called)\n";
    std::snprintf(line, sizeof line, "%-8s %9s %9s %9s %9s %10s %13s %8s %7s\n", "routine", cols[0],
                  cols[1], cols[2], cols[3], cols[4], cols[5], cols[6], cols[7]);
    s += line;
  }
  bool first = true;
  for (int i = 0; i < kRoutines; ++i) {
    const RoutineCounters c = routine_counters(Routine(i));
    if (!c.calls) continue;
    const unsigned long long v[8] = {c.calls, c.checks, c.detected, c.corrected,
                                     c.recomputed, c.uncorrectable, c.skipped, c.failed};
    if (json) {
      std::snprintf(line, sizeof line,
                    "%s\"%s\":{\"calls\":%llu,\"checks\":%llu,\"detected\":%llu,\"corrected\":%llu,"
                    "\"recomputed\":%llu,\"uncorrectable\":%llu,\"skipped\":%llu,\"failed\":%llu}",
                    first ? "" : ",", kNames[i], v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
    } else {
      std::snprintf(line, sizeof line, "%-8s %9llu %9llu %9llu %9llu %10llu %13llu %8llu %7llu\n",
                    kNames[i], v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
    }
    s += line;
    first = false;
  }
  if (json) s += "}}\n";
  std::snprintf(buf, cap, "%s", s.c_str());
}

}  // namespace abft::blas
