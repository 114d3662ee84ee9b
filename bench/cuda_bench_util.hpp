/** \file cuda_bench_util.hpp
 *  \brief Shared by the GPU benchmarks (cuda_gemm_bench.cpp, cuda_fft_bench.cpp,
 *  cuda_attention_bench.cpp): skipping a row without a device, the paired timing of a plain
 *  call against the protected one, and the main that writes each row out as it finishes.
 */
#pragma once
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "abft/abft_cuda.h"
#include "scoped_env.hpp"  // tests/common: abft_test::ScopedEnv

namespace abft_bench {

/** False (the row skipped, with the reason abft_cuda_describe gives) when no CUDA device can
 *  be used. */
inline bool device_or_skip(benchmark::State& state) {
  if (abft_cuda_device_count() > 0) return true;
  char why[256];
  abft_cuda_describe(why, sizeof why);
  state.SkipWithError(("no usable CUDA device: " + std::string(why)).c_str());
  return false;
}

/** Seconds summed over the benchmark's iterations for each of the two calls. */
struct PairedTimes {
  double plain = 0, protected_ = 0;
  int64_t iterations = 0;
};

/** Times `plain` and `prot` (callables that enqueue work on the default stream) with CUDA events:
 *  one untimed warm-up of each, then per iteration both, in alternating order, so the ratio is
 *  paired; the protected time is the iteration's time (UseManualTime). */
template <class Plain, class Prot>
PairedTimes time_paired(benchmark::State& state, Plain&& plain, Prot&& prot) {
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  auto timed = [&](auto&& fn) {
    cudaEventRecord(e0);
    fn();
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    return double(ms) * 1e-3;
  };
  timed(plain);
  timed(prot);
  PairedTimes t;
  for (auto _ : state) {
    double tp, tq;
    if (t.iterations % 2 == 0) tp = timed(plain), tq = timed(prot);
    else tq = timed(prot), tp = timed(plain);
    state.SetIterationTime(tq);
    t.plain += tp;
    t.protected_ += tq;
    ++t.iterations;
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
