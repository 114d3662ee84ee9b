/** \file stats.cpp
 *  \brief Thread-safe error statistics per kernel: record, snapshot, reset, text/JSON, print at exit.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/internal.hpp"

void abft_stats_block::add(abft_kernel k, const abft_report& r, uint64_t calls) {
  // Only the counters that change: a clean call adds to two, and each atomic add costs
  // tens of cycles (a small FFT spent a quarter of its time here adding zeros).
  auto& row = v[k];
  const uint64_t add[7] = {calls, r.checks, r.detected, r.corrected, r.recomputed, r.uncorrectable, r.skipped};
  for (int i = 0; i < 7; ++i)
    if (add[i]) row[i].fetch_add(add[i], std::memory_order_relaxed);
}

abft_counters abft_stats_block::get(abft_kernel k) const {
  const auto& row = v[k];
  abft_counters c;
  c.calls = row[0].load(std::memory_order_relaxed);
  c.checks = row[1].load(std::memory_order_relaxed);
  c.detected = row[2].load(std::memory_order_relaxed);
  c.corrected = row[3].load(std::memory_order_relaxed);
  c.recomputed = row[4].load(std::memory_order_relaxed);
  c.uncorrectable = row[5].load(std::memory_order_relaxed);
  c.skipped = row[6].load(std::memory_order_relaxed);
  return c;
}

namespace {

std::string format_stats(const abft_stats_block& s, abft_format f) {
  static const char* cols[] = {"calls", "checks", "detected", "corrected", "recomputed",
                               "uncorrectable", "skipped"};
  std::string out;
  char line[512];
  if (f == ABFT_FORMAT_JSON) {
    out += "{\"kernels\":{";
    for (int k = 0; k < ABFT_KERNEL_COUNT_; ++k) {
      const abft_counters c = s.get(static_cast<abft_kernel>(k));
      const uint64_t vals[] = {c.calls, c.checks, c.detected, c.corrected, c.recomputed,
                               c.uncorrectable, c.skipped};
      std::snprintf(line, sizeof line, "%s\"%s\":{", k ? "," : "",
                    abft_kernel_name(static_cast<abft_kernel>(k)));
      out += line;
      for (int i = 0; i < 7; ++i) {
        std::snprintf(line, sizeof line, "%s\"%s\":%llu", i ? "," : "", cols[i],
                      static_cast<unsigned long long>(vals[i]));
        out += line;
      }
      out += "}";
    }
    out += "}}\n";
    return out;
  }
  std::snprintf(line, sizeof line, "%-8s %10s %10s %10s %10s %10s %13s %10s\n", "kernel",
                cols[0], cols[1], cols[2], cols[3], cols[4], cols[5], cols[6]);
  out += line;
  for (int k = 0; k < ABFT_KERNEL_COUNT_; ++k) {
    const abft_counters c = s.get(static_cast<abft_kernel>(k));
    std::snprintf(line, sizeof line, "%-8s %10llu %10llu %10llu %10llu %10llu %13llu %10llu\n",
                  abft_kernel_name(static_cast<abft_kernel>(k)),
                  (unsigned long long)c.calls, (unsigned long long)c.checks,
                  (unsigned long long)c.detected, (unsigned long long)c.corrected,
                  (unsigned long long)c.recomputed, (unsigned long long)c.uncorrectable,
                  (unsigned long long)c.skipped);
    out += line;
  }
  return out;
}

void print_at_exit() {
  const char* e = std::getenv("ABFT_STATS");
  if (!e || !*e || !std::strcmp(e, "0")) return;
  const abft_format f = !std::strcmp(e, "json") ? ABFT_FORMAT_JSON : ABFT_FORMAT_TEXT;
  const std::string s = format_stats(abft::core::global_stats(), f);
  std::fputs("abft error statistics (process totals)\n", stderr);
  std::fputs(s.c_str(), stderr);
}

}  // namespace

namespace abft::core {

abft_stats_block& global_stats() {
  static abft_stats_block* g = [] {
    auto* p = new abft_stats_block();  // never destroyed: readable from atexit handlers
    const char* e = std::getenv("ABFT_STATS");
    if (e && *e) std::atexit(print_at_exit);
    return p;
  }();
  return *g;
}

void record_call(abft_handle_t h, abft_kernel k, const abft_report& r, uint64_t calls) {
  global_stats().add(k, r, calls);
  if (h) h->stats.add(k, r, calls);
}

// Make sure the at-exit printer is registered even if no kernel is ever called.
static const bool g_stats_registered = (global_stats(), true);

}  // namespace abft::core

extern "C" abft_status abft_stats_get(abft_handle_t h, abft_kernel k, abft_counters* out) {
  if (!out) return ABFT_STATUS_NULL_POINTER;
  if (k < 0 || k >= ABFT_KERNEL_COUNT_) return ABFT_STATUS_INVALID_VALUE;
  *out = (h ? h->stats : abft::core::global_stats()).get(k);
  return ABFT_STATUS_SUCCESS;
}

extern "C" abft_status abft_stats_reset(abft_handle_t h) {
  (h ? h->stats : abft::core::global_stats()).reset();
  return ABFT_STATUS_SUCCESS;
}

extern "C" abft_status abft_stats_format(abft_handle_t h, abft_format f, char* buf, size_t cap,
                                         size_t* needed) {
  if (f != ABFT_FORMAT_TEXT && f != ABFT_FORMAT_JSON) return ABFT_STATUS_INVALID_VALUE;
  if (!buf && cap) return ABFT_STATUS_NULL_POINTER;
  const std::string s = format_stats(h ? h->stats : abft::core::global_stats(), f);
  if (needed) *needed = s.size() + 1;
  if (cap) {
    const size_t n = s.size() < cap - 1 ? s.size() : cap - 1;
    std::memcpy(buf, s.data(), n);
    buf[n] = '\0';
  }
  return ABFT_STATUS_SUCCESS;
}
