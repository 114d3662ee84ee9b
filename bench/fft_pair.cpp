/** \file fft_pair.cpp
 *  \brief Paired timing of one c2c plan, policy off against policy correct, for quick
 *  comparisons while working on the FFT (the bars are measured by abft_bench_fft):
 *    build/bench/abft_fft_pair s|d n[,n...] [threads]
 *  For each n: two plans of the same transform (off, correct) on the same data, timed in
 *  31 alternating blocks of calls; prints the median time of each and the median of the
 *  per-block ratios as the overhead, the ratio of the fastest blocks (less sensitive to a
 *  busy machine), and the plan's description. Exit status 2 on bad
 *  arguments.
 */
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "abft/fft.h"
#include "bench_util.hpp"

namespace {

using abft_bench::median;  // 31 blocks: the middle one

template <class T>
int run(int64_t n, int threads, char tag) {
  const abft_precision prec = sizeof(T) == 4 ? ABFT_PRECISION_FLOAT : ABFT_PRECISION_DOUBLE;
  abft_fft_plan_t p[2] = {nullptr, nullptr};
  for (int i = 0; i < 2; ++i) {
    if (abft_fft_plan_1d(&p[i], nullptr, prec, ABFT_FFT_C2C, n, ABFT_FFT_FORWARD, 0) != ABFT_STATUS_SUCCESS) {
      std::fprintf(stderr, "cannot plan n=%lld\n", (long long)n);
      return 2;
    }
    abft_fft_set_threads(p[i], threads);
    abft_fft_set_policy(p[i], i ? ABFT_POLICY_CORRECT : ABFT_POLICY_OFF);
  }
  std::vector<T> in(size_t(2 * n)), out(size_t(2 * n));
  std::mt19937_64 g{static_cast<uint64_t>(n)};
  std::uniform_real_distribution<double> d(-0.5, 0.5);
  for (T& v : in) v = T(d(g));
  const int64_t reps = std::max<int64_t>(1, 200000 / n);
  std::vector<double> t[2], ratio;
  for (int blk = 0; blk < 31; ++blk) {
    double tt[2];
    for (int i = 0; i < 2; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int64_t r = 0; r < reps; ++r) abft_fft_execute(p[i], in.data(), out.data(), nullptr);
      tt[i] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / double(reps);
      t[i].push_back(tt[i]);
    }
    ratio.push_back(tt[1] / tt[0]);
  }
  const double flops = 5.0 * double(n) * std::log2(double(n));
  const double min0 = *std::min_element(t[0].begin(), t[0].end());
  const double min1 = *std::min_element(t[1].begin(), t[1].end());
  std::printf("%c n=%-8lld off %9.2f us (%6.2f GFLOP/s)  correct %9.2f us  overhead %+6.1f %% (fastest blocks %+6.1f %%)  [%s]\n",
              tag, (long long)n, 1e6 * median(t[0]), flops / median(t[0]) * 1e-9, 1e6 * median(t[1]),
              100.0 * (median(ratio) - 1.0), 100.0 * (min1 / min0 - 1.0), abft_fft_describe(p[1]));
  for (abft_fft_plan_t q : p) abft_fft_destroy(q);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4 || (argv[1][0] != 's' && argv[1][0] != 'd')) {
    std::fprintf(stderr, "usage: %s s|d n[,n...] [threads]\n", argv[0]);
    return 2;
  }
  const int threads = argc == 4 ? std::atoi(argv[3]) : 1;
  std::string list = argv[2];
  size_t pos = 0;
  while (pos <= list.size()) {
    const size_t comma = list.find(',', pos);
    const int64_t n = std::atoll(list.substr(pos, comma - pos).c_str());
    if (n <= 0) {
      std::fprintf(stderr, "bad size in '%s'\n", argv[2]);
      return 2;
    }
    const int rc = argv[1][0] == 's' ? run<float>(n, threads, 's') : run<double>(n, threads, 'd');
    if (rc) return rc;
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return 0;
}
