/** \file gemm_bench.cpp
 *  \brief Google Benchmark suite: protected GEMM (abft off / detect / correct)
 *         against OpenBLAS in the same run, float and double, square and
 *         transformer shapes; GFLOP/s and paired overhead-vs-off counters.
 *
 *  Names are <type>gemm/<shape>/<variant>, e.g. sgemm/n=1024/abft_correct or
 *  dgemm/m=2048,n=768,k=3072/openblas; filter with --benchmark_filter.
 *  Timing is manual (steady clock around the one call, i.e. wall time: the
 *  library and OpenBLAS are multithreaded). detect/correct also time the off
 *  policy on the same operands, alternating which call goes first, and report
 *  vs_off = median over the iterations of (protected time / off time); correct also
 *  times OpenBLAS in each iteration (x_openblas = median of OpenBLAS time / correct
 *  time: correct's throughput relative to the peer's, paired).
 *
 *  Environment: OMP_NUM_THREADS (threads for abft and OpenBLAS alike),
 *  ABFT_BENCH_MAX_DIM (skip shapes with a dimension above it),
 *  ABFT_BENCH_WARMUP_S (untimed warm-up per variant, default 0.2 s),
 *  ABFT_BENCH_PAIRED=0 (no inline off timing: no vs_off, half the time).
 *  `abft_bench_gemm --abft_probe_openblas` only checks the peer and exits.
 */
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "abft/abft.h"
#include "bench_util.hpp"
#include "peer_openblas.hpp"

namespace {
using namespace abft_bench;

struct Shape {
  int64_t m, n, k;
  double beta;
  std::string label;
};

enum class Variant { OpenBlas, Off, Detect, Correct };

const char* variant_name(Variant v) {
  switch (v) {
    case Variant::OpenBlas: return "openblas";
    case Variant::Off: return "abft_off";
    case Variant::Detect: return "abft_detect";
    case Variant::Correct: return "abft_correct";
  }
  return "?";
}

/** One handle per policy, so each call runs with a fixed policy whatever
 *  ABFT_POLICY says; workspace stays warm between calls. */
abft_handle_t g_handle[3] = {nullptr, nullptr, nullptr};
double g_warmup_s = 0.2;
bool g_paired = true;

abft_handle_t handle_of(Variant v) {
  switch (v) {
    case Variant::Detect: return g_handle[ABFT_POLICY_DETECT];
    case Variant::Correct: return g_handle[ABFT_POLICY_CORRECT];
    default: return g_handle[ABFT_POLICY_OFF];
  }
}

abft_status xgemm(abft_handle_t h, int64_t m, int64_t n, int64_t k, float beta, const float* A,
                  const float* B, float* C) {
  return abft_sgemm(h, ABFT_POLICY_DEFAULT, ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, m, n, k,
                    1.0f, A, m, B, k, beta, C, m, nullptr);
}
abft_status xgemm(abft_handle_t h, int64_t m, int64_t n, int64_t k, double beta, const double* A,
                  const double* B, double* C) {
  return abft_dgemm(h, ABFT_POLICY_DEFAULT, ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, m, n, k,
                    1.0, A, m, B, k, beta, C, m, nullptr);
}

/** Call f() until at least min_s seconds have passed (at least once); stop
 *  at the first failure. Also lets the other library's idle threads settle. */
template <typename F>
abft_status warm_up(F&& f, double min_s) {
  double spent = 0;
  abft_status st = ABFT_STATUS_SUCCESS;
  do {
    spent += time_call([&] { st = f(); });
  } while (st == ABFT_STATUS_SUCCESS && spent < min_s);
  return st;
}

void skip(benchmark::State& state, const char* what, abft_status st) {
  std::string msg = std::string(what) + " returned " + abft_status_string(st);
  if (st == ABFT_STATUS_FAULT_DETECTED || st == ABFT_STATUS_FAULT_UNCORRECTABLE)
    msg += " on clean data (false positive)";
  state.SkipWithError(msg.c_str());
}

template <typename T>
void bench_gemm(benchmark::State& state, const Shape& s, Variant v) {
  Operands<T>& ops = operands<T>(s.m, s.n, s.k);
  if (!ops.ok()) {
    state.SkipWithError("operand allocation failed");
    return;
  }
  const T beta = T(s.beta);
  auto run = [&](Variant which) -> abft_status {
    if (which == Variant::OpenBlas) {
      peer_gemm(s.m, s.n, s.k, T(1), ops.A.data(), ops.B.data(), beta, ops.C.data());
      return ABFT_STATUS_SUCCESS;
    }
    return xgemm(handle_of(which), s.m, s.n, s.k, beta, ops.A.data(), ops.B.data(), ops.C.data());
  };
  const char* fn = sizeof(T) == 4 ? "abft_sgemm" : "abft_dgemm";
  const bool paired = g_paired && (v == Variant::Detect || v == Variant::Correct);
  // The correct row also times OpenBLAS in each iteration: x_openblas, its ratio to the peer
  // from the same minutes (the separate openblas row is measured earlier or later; on a
  // shared machine that moves it). Idle OpenBLAS workers must sleep (scripts/bench.sh sets
  // OPENBLAS_THREAD_TIMEOUT), or they take the cores from the next abft call.
  const bool with_peer = paired && v == Variant::Correct && kHaveOpenBlas;

  abft_status st = warm_up([&] { return run(v); }, g_warmup_s);
  if (st == ABFT_STATUS_SUCCESS && paired) st = warm_up([&] { return run(Variant::Off); }, g_warmup_s);
  if (st == ABFT_STATUS_SUCCESS && with_peer) st = warm_up([&] { return run(Variant::OpenBlas); }, g_warmup_s);
  if (st != ABFT_STATUS_SUCCESS) return skip(state, fn, st);

  std::vector<double> ratios;       // protected / off, one per iteration
  std::vector<double> peer_ratios;  // OpenBLAS / protected time, one per iteration
  int turn = 0;                     // which call goes first this iteration (rotates)
  for (auto _ : state) {
    abft_status s_main = ABFT_STATUS_SUCCESS, s_off = ABFT_STATUS_SUCCESS;
    double dt = 0, dt_off = 0, dt_peer = 0;
    const int calls = with_peer ? 3 : paired ? 2 : 1;
    for (int c = 0; c < calls; ++c) {
      switch ((c + turn) % calls) {
        case 0: dt = time_call([&] { s_main = run(v); }); break;
        case 1: dt_off = time_call([&] { s_off = run(Variant::Off); }); break;
        default: dt_peer = time_call([&] { run(Variant::OpenBlas); }); break;
      }
    }
    turn = (turn + 1) % calls;
    if (s_main != ABFT_STATUS_SUCCESS || s_off != ABFT_STATUS_SUCCESS) {
      skip(state, fn, s_main != ABFT_STATUS_SUCCESS ? s_main : s_off);
      break;
    }
    state.SetIterationTime(dt);
    if (paired && dt_off > 0) ratios.push_back(dt / dt_off);
    if (with_peer && dt > 0) peer_ratios.push_back(dt_peer / dt);
  }
  if (state.error_occurred()) return;

  const double gflop = 2.0 * double(s.m) * double(s.n) * double(s.k) * 1e-9;
  state.counters["GFLOP/s"] =
      benchmark::Counter(gflop * double(state.iterations()), benchmark::Counter::kIsRate);
  // Medians of the per-iteration ratios: a scheduler hiccup in one call moves one ratio,
  // not the statistic.
  if (paired && !ratios.empty()) state.counters["vs_off"] = median(ratios);
  if (!peer_ratios.empty()) state.counters["x_openblas"] = median(peer_ratios);
}

std::vector<Shape> shapes(int64_t max_dim) {
  std::vector<Shape> all;
  for (int64_t n : {256, 512, 1024, 2048, 4096})
    all.push_back({n, n, n, 0.0, "n=" + std::to_string(n)});
  all.push_back({1024, 1024, 1024, 1.0, "n=1024,beta=1"});
  all.push_back({2048, 768, 3072, 0.0, "m=2048,n=768,k=3072"});
  all.push_back({2048, 3072, 768, 0.0, "m=2048,n=3072,k=768"});
  if (max_dim > 0)
    all.erase(std::remove_if(all.begin(), all.end(),
                             [&](const Shape& s) { return std::max({s.m, s.n, s.k}) > max_dim; }),
              all.end());
  return all;
}

template <typename T>
void register_type(const char* prefix, const std::vector<Shape>& list) {
  std::vector<Variant> variants;
  if (kHaveOpenBlas) variants.push_back(Variant::OpenBlas);
  for (Variant v : {Variant::Off, Variant::Detect, Variant::Correct}) variants.push_back(v);
  for (const Shape& s : list)
    for (Variant v : variants) {
      std::string name = std::string(prefix) + "/" + s.label + "/" + variant_name(v);
      benchmark::RegisterBenchmark(name.c_str(),
                                   [s, v](benchmark::State& st) { bench_gemm<T>(st, s, v); })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
    }
}

void add_context(int threads) {
  benchmark::AddCustomContext("abft_version", abft_version());
  benchmark::AddCustomContext("abft_isa", abft_isa_name(abft_cpu_isa()));
  benchmark::AddCustomContext("abft_sgemm_kernel", abft_gemm_kernel_info(ABFT_KERNEL_SGEMM));
  benchmark::AddCustomContext("abft_dgemm_kernel", abft_gemm_kernel_info(ABFT_KERNEL_DGEMM));
  benchmark::AddCustomContext("threads", std::to_string(threads));
  benchmark::AddCustomContext("openblas_core", peer_core());
  benchmark::AddCustomContext("openblas_threads", std::to_string(peer_threads()));
  benchmark::AddCustomContext("openblas_config", peer_config());
  benchmark::AddCustomContext("openblas_coretype_env", env_string("OPENBLAS_CORETYPE", "(unset)"));
  benchmark::AddCustomContext("cpu_model", cpuinfo_field("model name"));
  benchmark::AddCustomContext("cpu_avx512f", cpu_has_flag("avx512f") ? "yes" : "no");
  benchmark::AddCustomContext("paired_off_timing", g_paired ? "yes" : "no");
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--abft_probe_openblas") == 0) return peer_probe();

  const int threads = omp_get_max_threads();
  peer_set_threads(threads);  // same thread count for the peer and for abft
  if (!kHaveOpenBlas)
    std::fprintf(stderr, "abft_bench_gemm: built without OpenBLAS: the openblas rows are absent\n");

  for (abft_policy p : {ABFT_POLICY_OFF, ABFT_POLICY_DETECT, ABFT_POLICY_CORRECT}) {
    abft_status st = abft_handle_create(&g_handle[p]);
    if (st == ABFT_STATUS_SUCCESS) st = abft_handle_set_policy(g_handle[p], p);
    if (st != ABFT_STATUS_SUCCESS) {
      std::fprintf(stderr, "abft_bench_gemm: handle setup failed: %s\n", abft_status_string(st));
      return 1;
    }
  }
  g_warmup_s = env_double("ABFT_BENCH_WARMUP_S", 0.2);
  g_paired = env_string("ABFT_BENCH_PAIRED", "1") != "0";
  const std::vector<Shape> list = shapes(int64_t(env_double("ABFT_BENCH_MAX_DIM", 0)));
  register_type<float>("sgemm", list);
  register_type<double>("dgemm", list);

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  add_context(threads);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  for (abft_handle_t h : g_handle) abft_handle_destroy(h);
  return 0;
}
