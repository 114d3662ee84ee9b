/** \file cuda_bench_util.hpp
 *  \brief Shared by the GPU benchmarks (cuda_gemm_bench.cpp, cuda_fft_bench.cpp,
 *  cuda_attention_bench.cpp): skipping a row without a device, the paired timing of a plain
 *  call against the protected one, the main that writes each row out as it finishes, and the
 *  rehearsal's small shapes.
 */
#pragma once
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "abft/abft_cuda.h"
#include "scoped_env.hpp"  // tests/common: abft_test::ScopedEnv

namespace abft_bench {

/** The rehearsal (scripts/gpu-rehearsal.sh, on the CUDA emulator): with ABFT_BENCH_REHEARSAL set
 *  (not "0"), every row keeps its name, its counters and its place in the run but times a small
 *  shape once (rehearsal_extent caps each dimension and the work a call holds), so
 *  that scripts/gpu-check.sh, its tables and its deadlines are tried end to end before a device
 *  run, where none of them can be fixed cheaply. Its figures are the emulator's: no speed. */
inline bool rehearsal() {
  static const bool on = [] {
    const char* v = std::getenv("ABFT_BENCH_REHEARSAL");
    return v && *v && std::strcmp(v, "0") != 0;
  }();
  return on;
}
/** A dimension of a row's shape: `n` itself, or in the rehearsal at most `cap`. */
inline int64_t rehearsal_extent(int64_t n, int64_t cap) { return rehearsal() && n > cap ? cap : n; }
/** A row's timed iterations: `n`, or 1 in the rehearsal. */
inline int iterations(int n) { return rehearsal() ? 1 : n; }

/** False (the row skipped, with the reason abft_cuda_describe gives) when no CUDA device can
 *  be used. */
inline bool device_or_skip(benchmark::State& state) {
  if (abft_cuda_device_count() > 0) return true;
  char why[256];
  abft_cuda_describe(why, sizeof why);
  state.SkipWithError(("no usable CUDA device: " + std::string(why)).c_str());
  return false;
}

/** Seconds summed over the benchmark's iterations for each of the two calls; and the median
 *  seconds of a burst of kBurst back-to-back calls of each (burst_plain, burst_protected). */
struct PairedTimes {
  double plain = 0, protected_ = 0;
  int64_t iterations = 0;
  double burst_plain = 0, burst_protected = 0;
};

/** Calls per burst, and bursts of each kind timed (their median is kept); no bursts for calls
 *  longer than kBurstLongestCall seconds (the rehearsal: one burst of two, whatever the call's
 *  time, so the burst counters are in its tables too). */
constexpr int kBurst = 8, kBurstRounds = 5;
constexpr double kBurstLongestCall = 2e-3;

/** Times `plain` and `prot` (callables that enqueue work on the default stream) with CUDA events:
 *  one untimed warm-up of each, then per iteration both, in alternating order, so the ratio is
 *  paired; the protected time is the iteration's time (UseManualTime). Each timed call starts on
 *  an idle device, so its time includes what the host does before the device has work (for the
 *  protected call, its extra launches): a call's latency. Then kBurstRounds bursts of kBurst
 *  calls of each, alternating, events around each burst: with the host ahead of the device, the
 *  device's time per call (what a pipelined program, a training step, sees); `bursts` false
 *  skips them, as do calls longer than kBurstLongestCall (where the host's share is lost in
 *  the device's): their burst times stay 0. */
template <class Plain, class Prot>
PairedTimes time_paired(benchmark::State& state, Plain&& plain, Prot&& prot, bool bursts = true) {
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  auto timed = [&](auto&& fn, int calls) {
    cudaEventRecord(e0);
    for (int i = 0; i < calls; ++i) fn();
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    return double(ms) * 1e-3;
  };
  timed(plain, 1);
  timed(prot, 1);
  PairedTimes t;
  for (auto _ : state) {
    double tp, tq;
    if (t.iterations % 2 == 0) tp = timed(plain, 1), tq = timed(prot, 1);
    else tq = timed(prot, 1), tp = timed(plain, 1);
    state.SetIterationTime(tq);
    t.plain += tp;
    t.protected_ += tq;
    ++t.iterations;
  }
  // Calls of milliseconds: the host's share is lost in the device's, and bursts of them would
  // only lengthen the run (a 16384^3 float product takes 0.17 s): no bursts.
  if (t.iterations > 0 && t.plain / double(t.iterations) > kBurstLongestCall && !rehearsal()) bursts = false;
  const int burst = rehearsal() ? 2 : kBurst, rounds = rehearsal() ? 1 : kBurstRounds;
  std::vector<double> bp, bq;
  for (int r = 0; bursts && r < rounds; ++r) {
    if (r % 2 == 0) bp.push_back(timed(plain, burst)), bq.push_back(timed(prot, burst));
    else bq.push_back(timed(prot, burst)), bp.push_back(timed(plain, burst));
  }
  if (bursts) {
    std::sort(bp.begin(), bp.end());
    std::sort(bq.begin(), bq.end());
    t.burst_plain = bp[bp.size() / 2];
    t.burst_protected = bq[bq.size() / 2];
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return t;
}

/** Google Benchmark's JSON file reporter, flushed after every row: scripts/gpu-check.sh stops a
 *  benchmark at its time limit, and the rows it finished must be in the file then (the plain
 *  reporter leaves them in its stream's buffer; scripts/gpu_bench_table.py reads a file cut
 *  short). */
class FlushingJsonReporter : public benchmark::JSONReporter {
 public:
  void ReportRuns(const std::vector<Run>& reports) override {
    benchmark::JSONReporter::ReportRuns(reports);
    GetOutputStream().flush();
  }
};

/** The GPU benchmarks' main after registration: Google Benchmark's flags, the rows run, with
 *  the flushing reporter for a JSON --benchmark_out (the default format). */
inline int run_benchmarks(int argc, char** argv) {
  bool out = false, json = true;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--benchmark_out=", 16) == 0) out = true;
    if (std::strncmp(argv[i], "--benchmark_out_format=", 23) == 0) json = std::strcmp(argv[i] + 23, "json") == 0;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  FlushingJsonReporter file;
  if (out && json) benchmark::RunSpecifiedBenchmarks(nullptr, &file);
  else benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace abft_bench
