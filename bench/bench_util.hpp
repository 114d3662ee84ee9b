/** \file bench_util.hpp
 *  \brief Benchmark helpers: 64-byte aligned operand buffers, a one-shape
 *         operand cache, wall-clock timing, environment knobs, machine context.
 */
#pragma once
#include <sys/resource.h>
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace abft_bench {

/** Owning, 64-byte aligned array of T (freed with std::free). */
template <typename T>
struct AlignedBuffer {
  struct Free { void operator()(T* p) const noexcept { std::free(p); } };
  std::unique_ptr<T, Free> ptr;
  size_t count = 0;

  explicit AlignedBuffer(size_t n = 0) { reset(n); }
  void reset(size_t n) {
    count = n;
    size_t bytes = (n * sizeof(T) + 63) / 64 * 64;
    ptr.reset(n ? static_cast<T*>(std::aligned_alloc(64, bytes)) : nullptr);
    if (n && !ptr) count = 0;
  }
  T* data() const noexcept { return ptr.get(); }
  bool ok() const noexcept { return count == 0 || ptr != nullptr; }
};

/** Fill with uniform values in [-1, 1), reproducibly from seed. */
template <typename T>
void fill_uniform(T* p, size_t n, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<T>(dist(gen));
}

/** Column-major operands A (m x k), B (k x n), C (m x n) of one shape. Every
 *  variant of a shape shares them, so the random fill happens once per shape
 *  and every variant multiplies the same numbers. Only the last shape per
 *  type is kept. */
template <typename T>
struct Operands {
  int64_t m = -1, n = -1, k = -1;
  AlignedBuffer<T> A, B, C;
  bool ok() const noexcept { return A.ok() && B.ok() && C.ok(); }
};

template <typename T>
Operands<T>& operands(int64_t m, int64_t n, int64_t k) {
  static Operands<T> cache;
  if (cache.m != m || cache.n != n || cache.k != k || !cache.ok()) {
    cache.A.reset(0), cache.B.reset(0), cache.C.reset(0);  // free before the next allocation
    cache.A.reset(size_t(m) * size_t(k));
    cache.B.reset(size_t(k) * size_t(n));
    cache.C.reset(size_t(m) * size_t(n));
    cache.m = m, cache.n = n, cache.k = k;
    if (cache.ok()) {
      fill_uniform(cache.A.data(), cache.A.count, 0xA0A0u + uint64_t(m));
      fill_uniform(cache.B.data(), cache.B.count, 0xB0B0u + uint64_t(n));
      fill_uniform(cache.C.data(), cache.C.count, 0xC0C0u + uint64_t(k));
    }
  }
  return cache;
}

/** The median of v (the mean of the middle two for an even count; 0 when empty): the
 *  benches' per-iteration ratios and times. */
inline double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

/** Seconds taken by f() (steady clock). */
template <typename F>
double time_call(F&& f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(t1 - t0).count();
}

inline double env_double(const char* name, double fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  double x = std::strtod(v, &end);
  return (end && *end == '\0') ? x : fallback;
}

inline std::string env_string(const char* name, const char* fallback = "") {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string(fallback);
}

/** The value of the first "key : value" line of /proc/cpuinfo, or "". */
inline std::string cpuinfo_field(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, key.size(), key) != 0) continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    size_t start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? std::string() : line.substr(start);
  }
  return std::string();
}

/** True if the cpuinfo "flags" line lists flag (whole word). */
inline bool cpu_has_flag(const std::string& flag) {
  std::string flags = " " + cpuinfo_field("flags") + " ";
  return flags.find(" " + flag + " ") != std::string::npos;
}

// ------------------------------------------------------------------ load probe

/** CPU seconds all CPUs spent busy (/proc/stat, steal included: a vCPU kept
 *  from running) and CPU seconds this process used, at one instant. */
struct CpuSample {
  double busy = -1, self = 0, wall = 0;
};

inline CpuSample cpu_sample() {
  CpuSample c;
  c.wall = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  rusage ru{};
  if (getrusage(RUSAGE_SELF, &ru) == 0)
    c.self = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
             1e-6 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
  std::ifstream in("/proc/stat");
  std::string cpu;
  unsigned long long v[8] = {};  // user nice system idle iowait irq softirq steal
  if (in >> cpu && cpu == "cpu" && in >> v[0] >> v[1] >> v[2] >> v[3] >> v[4] >> v[5] >> v[6] >> v[7]) {
    const double hz = double(sysconf(_SC_CLK_TCK));
    c.busy = double(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / (hz > 0 ? hz : 100.0);
  }
  return c;
}

/** Mean number of CPUs other processes kept busy between a and b (-1 if unknown):
 *  above ~0.2 on this 2-core machine, the row's timings are contaminated. */
inline double other_load(const CpuSample& a, const CpuSample& b) {
  if (a.busy < 0 || b.busy < 0 || b.wall <= a.wall) return -1.0;
  return std::max(0.0, ((b.busy - a.busy) - (b.self - a.self)) / (b.wall - a.wall));
}

}  // namespace abft_bench
