/** \file shim_runtime.cpp
 *  \brief Environment configuration, statistics rows and the exit report shared by the
 *  drop-in libraries.
 */
#include "shim/shim_runtime.hpp"

#include "core/report.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

namespace abft::shim {
namespace {

constexpr int kCols = 8;
constexpr const char* kColNames[kCols] = {"calls",      "checks",        "detected", "corrected",
                                          "recomputed", "uncorrectable", "skipped",  "failed"};

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

std::string site_names(const Config& c) {
  std::string s;
  for (int i = 0; i < c.nsites; ++i) s += (i ? "|" : "") + std::string(c.sites[i].name);
  return s;
}

/** Injector from ABFT_INJECT*; nullptr when injection is off or misconfigured (a warning
 *  says which variable was not understood). */
abft_injector_t injector_from_env(const Config& c) {
  const char* model_s = env("ABFT_INJECT");
  if (!model_s || !std::strcmp(model_s, "0") || !std::strcmp(model_s, "off")) return nullptr;
  abft_fault_model model;
  if (!parse_model(model_s, model)) {
    std::fprintf(stderr, "%s: ABFT_INJECT=%s not understood (bitflip|bitflip2|random|zero|nan|inf|-inf); no injection\n",
                 c.library, model_s);
    return nullptr;
  }
  double rate = 1.0;
  if (const char* r = env("ABFT_INJECT_RATE")) {
    char* end = nullptr;
    rate = std::strtod(r, &end);
    if (end == r || *end || !(rate >= 0.0 && rate <= 1.0)) {
      std::fprintf(stderr, "%s: ABFT_INJECT_RATE=%s is not a probability in [0,1]; no injection\n",
                   c.library, r);
      return nullptr;
    }
  }
  uint64_t seed = 1;
  if (const char* s = env("ABFT_INJECT_SEED")) seed = std::strtoull(s, nullptr, 0);
  const char* site = env("ABFT_INJECT_SITE");
  if (!site) site = c.default_site;
  unsigned sites = 0;
  for (int i = 0; i < c.nsites; ++i)
    if (!std::strcmp(site, c.sites[i].name)) sites = c.sites[i].sites;
  if (!sites) {
    std::fprintf(stderr, "%s: ABFT_INJECT_SITE=%s not understood (%s); no injection\n", c.library,
                 site, site_names(c).c_str());
    return nullptr;
  }
  abft_injector_t inj = nullptr;
  if (abft_injector_create(seed, &inj) != ABFT_STATUS_SUCCESS) return nullptr;
  for (int s = 0; s < ABFT_SITE_COUNT_; ++s) {
    if (!(sites & (1u << s))) continue;
    abft_fault f{};
    f.site = abft_site(s);
    f.model = model;
    f.bit = -1;
    f.row = f.col = f.kpos = -1;
    abft_injector_add(inj, &f);
  }
  abft_injector_set_rate(inj, rate);
  return inj;
}

/** Every runtime of this library image, for the one exit handler. */
std::mutex g_mu;
std::vector<const Runtime*>& runtimes() {
  static auto* v = new std::vector<const Runtime*>();
  return *v;
}

/** True when `path` already holds a report line of this process (another abft library
 *  wrote it first): the caller appends instead of replacing. */
bool written_by_this_process(const char* path) {
  FILE* f = std::fopen(path, "r");
  if (!f) return false;
  char tag[48];
  std::snprintf(tag, sizeof tag, "\"pid\":%ld,", long(getpid()));
  char line[1024];
  bool found = false;
  while (!found && std::fgets(line, sizeof line, f)) found = std::strstr(line, tag) != nullptr;
  std::fclose(f);
  return found;
}

void print_reports_at_exit() {
  const char* where = env("ABFT_REPORT");
  if (!where || !std::strcmp(where, "0") || !std::strcmp(where, "off")) return;
  const bool to_stderr = !std::strcmp(where, "stderr") || !std::strcmp(where, "1") ||
                         !std::strcmp(where, "text") || !std::strcmp(where, "json");
  const bool json = !to_stderr || !std::strcmp(where, "json");
  std::string all;
  {
    std::lock_guard<std::mutex> g(g_mu);
    for (const Runtime* rt : runtimes()) all += rt->format_report(json);
  }
  if (to_stderr) {
    std::fputs(all.c_str(), stderr);
    return;
  }
  if (FILE* f = std::fopen(where, written_by_this_process(where) ? "a" : "w")) {
    std::fputs(all.c_str(), f);
    std::fclose(f);
  } else {
    std::fprintf(stderr, "abft: cannot write ABFT_REPORT file %s\n", where);
  }
}

}  // namespace

struct Runtime::Rows {
  explicit Rows(int n) : v(new std::atomic<uint64_t>[size_t(n) * kCols]) {
    for (int i = 0; i < n * kCols; ++i) v[i].store(0, std::memory_order_relaxed);
  }
  std::unique_ptr<std::atomic<uint64_t>[]> v;
};

Runtime::Runtime(const Config& cfg) : cfg_(cfg), rows_(new Rows(cfg.nrows)) {
  if (abft_handle_create(&handle_) != ABFT_STATUS_SUCCESS) handle_ = nullptr;
  if (const char* t = env("ABFT_NUM_THREADS")) {
    const long n = std::strtol(t, nullptr, 10);
    if (n > 0) env_threads_ = int(n);
  }
  if (handle_) {
    if (env_threads_) abft_handle_set_threads(handle_, env_threads_);
    if (abft_injector_t inj = injector_from_env(cfg_)) abft_handle_set_injector(handle_, inj);
  }
  std::lock_guard<std::mutex> g(g_mu);
  if (runtimes().empty() && env("ABFT_REPORT")) std::atexit(print_reports_at_exit);
  runtimes().push_back(this);
}

abft_policy Runtime::policy() const {
  abft_policy p = ABFT_POLICY_DEFAULT;
  if (handle_) (void)abft_handle_get_policy(handle_, &p);
  return p == ABFT_POLICY_DEFAULT ? abft_default_policy() : p;
}

void Runtime::record(int r, const abft_report& rep, abft_status st) {
  if (r < 0 || r >= cfg_.nrows) return;
  const uint64_t add[kCols] = {1,
                               rep.checks,
                               rep.detected,
                               rep.corrected,
                               rep.recomputed,
                               rep.uncorrectable,
                               rep.skipped,
                               uint64_t(st != ABFT_STATUS_SUCCESS ? 1 : 0)};
  std::atomic<uint64_t>* row = &rows_->v[size_t(r) * kCols];
  for (int i = 0; i < kCols; ++i)
    if (add[i]) row[i].fetch_add(add[i], std::memory_order_relaxed);
}

Counters Runtime::counters(int r) const {
  Counters c{};
  if (r < 0 || r >= cfg_.nrows) return c;
  const std::atomic<uint64_t>* row = &rows_->v[size_t(r) * kCols];
  uint64_t* out[kCols] = {&c.calls,      &c.checks,        &c.detected, &c.corrected,
                          &c.recomputed, &c.uncorrectable, &c.skipped,  &c.failed};
  for (int i = 0; i < kCols; ++i) *out[i] = row[i].load(std::memory_order_relaxed);
  return c;
}

std::string Runtime::format_report(bool json) const {
  std::string s;
  char line[320];
  const abft_policy pol = policy();
  const char* pname = pol == ABFT_POLICY_OFF ? "off" : pol == ABFT_POLICY_DETECT ? "detect" : "correct";
  if (json) {
    std::snprintf(line, sizeof line, "{\"library\":\"%s\",\"pid\":%ld,\"policy\":\"%s\",\"routines\":{",
                  cfg_.library, long(getpid()), pname);
  } else {
    std::snprintf(line, sizeof line, "%s report (policy %s; %s)\n%-10s %9s %9s %9s %9s %10s %13s %8s %7s\n",
                  cfg_.library, pname, cfg_.what, "routine", kColNames[0], kColNames[1], kColNames[2],
                  kColNames[3], kColNames[4], kColNames[5], kColNames[6], kColNames[7]);
  }
  s += line;
  bool first = true;
  for (int i = 0; i < cfg_.nrows; ++i) {
    const Counters c = counters(i);
    if (!c.calls) continue;
    const unsigned long long v[kCols] = {c.calls,      c.checks,        c.detected, c.corrected,
                                         c.recomputed, c.uncorrectable, c.skipped,  c.failed};
    if (json) {
      std::snprintf(line, sizeof line,
                    "%s\"%s\":{\"calls\":%llu,\"checks\":%llu,\"detected\":%llu,\"corrected\":%llu,"
                    "\"recomputed\":%llu,\"uncorrectable\":%llu,\"skipped\":%llu,\"failed\":%llu}",
                    first ? "" : ",", cfg_.rows[i], v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
    } else {
      std::snprintf(line, sizeof line, "%-10s %9llu %9llu %9llu %9llu %10llu %13llu %8llu %7llu\n",
                    cfg_.rows[i], v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
    }
    s += line;
    first = false;
  }
  if (json) s += "}}\n";
  return s;
}

void Call::absorb(const abft_report& r, abft_status st) {
  core::add_report(rep_, r);
  status_ = core::worse_status(status_, st);
}

}  // namespace abft::shim
