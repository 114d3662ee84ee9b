/** \file blas_bench.cpp
 *  \brief The BLAS shim against OpenBLAS through the same CBLAS interface, in one run.
 *
 *  Both libraries export the same cblas_* names, so neither is linked: each is opened with
 *  dlopen(RTLD_LOCAL | RTLD_DEEPBIND) and its cblas_* functions are looked up by name.
 *  Each case runs as `<routine>/n=<n>/abft` and `.../openblas`, separate rows in the same
 *  process, and for ?gemm also as `.../paired`: both libraries call by call (paired()), whose
 *  ratio is the robust one on a shared machine; scripts/bench_blas.sh tabulates both. The
 *  paired rows need idle workers that sleep (OpenBLAS's keep spinning for up to about 0.1 s
 *  after a call by default and would take the cores from the next abft call).
 *
 *  Routines: cblas_{s,d,c,z}gemm (NoTrans, NoTrans, beta 0), cblas_dsyrk (Lower, NoTrans),
 *  cblas_dtrsm (Left, Lower, NoTrans, NonUnit), column-major, square n.
 *  Environment: ABFT_BLAS_BENCH_LIB (default: the build's libabft_blas.so.0),
 *  ABFT_BLAS_BENCH_PEER (default: the OpenBLAS found at configure time),
 *  ABFT_BENCH_MAX_DIM (skip larger n), ABFT_POLICY (abft's policy).
 */
#include <benchmark/benchmark.h>
#include <dlfcn.h>

#include <complex>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "abft/cblas.h"
#include "bench_util.hpp"

namespace {

using gemm_s = void(CBLAS_LAYOUT, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, int, int, int, float,
                    const float*, int, const float*, int, float, float*, int);
using gemm_d = void(CBLAS_LAYOUT, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, int, int, int, double,
                    const double*, int, const double*, int, double, double*, int);
using gemm_c = void(CBLAS_LAYOUT, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, int, int, int, const void*,
                    const void*, int, const void*, int, const void*, void*, int);
using syrk_d = void(CBLAS_LAYOUT, CBLAS_UPLO, CBLAS_TRANSPOSE, int, int, double, const double*,
                    int, double, double*, int);
using trsm_d = void(CBLAS_LAYOUT, CBLAS_SIDE, CBLAS_UPLO, CBLAS_TRANSPOSE, CBLAS_DIAG, int, int,
                    double, const double*, int, double*, int);

/** One library opened privately. */
struct Lib {
  void* h = nullptr;
  std::string path, error;
  explicit Lib(const char* p) : path(p ? p : "") {
    if (path.empty()) { error = "no path"; return; }
    h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!h) error = dlerror();
  }
  template <class F> F* fn(const char* name) const {
    return h ? reinterpret_cast<F*>(dlsym(h, name)) : nullptr;
  }
};

const char* env_or(const char* name, const char* fallback) {
  const char* e = std::getenv(name);
  return (e && *e) ? e : fallback;
}

Lib& ours() {
  static Lib l(env_or("ABFT_BLAS_BENCH_LIB", ABFT_BLAS_LIB_PATH));
  return l;
}
Lib& peer() {
  static Lib l(env_or("ABFT_BLAS_BENCH_PEER", ABFT_PEER_LIB_PATH));
  return l;
}

template <class T> std::vector<T> random_matrix(size_t count, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> v(count);
  for (auto& x : v) {
    if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
      x = T(u(g), u(g));
    else
      x = T(u(g));
  }
  return v;
}

/** Time one library's call; flops per call for the counter. The call runs once untimed
 *  first (workspaces, page faults, thread pools). */
void timed(benchmark::State& state, double flops, bool use_peer,
           const std::function<void()>& mine, const std::function<void()>& theirs) {
  const std::function<void()>& f = use_peer ? theirs : mine;
  f();
  for (auto _ : state) state.SetIterationTime(abft_bench::time_call(f));
  state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9 * double(state.iterations()),
                                                 benchmark::Counter::kIsRate);
}

/** Both libraries in one benchmark, call by call: each iteration times one call of each, in
 *  alternating order, and `x_openblas` is the median over the iterations of the OpenBLAS
 *  call's time over abft's (paired: a busy stretch of the machine falls on both sides of a
 *  pair, where separate rows take their medians minutes apart). Needs idle workers that
 *  sleep: OMP_WAIT_POLICY=PASSIVE for abft and a short OPENBLAS_THREAD_TIMEOUT, which
 *  scripts/bench_blas.sh sets (a spinning pool takes the cores from the other library's
 *  next call). The manual time of an iteration is the pair's; the counters give each side. */
void paired(benchmark::State& state, double flops, const std::function<void()>& mine,
            const std::function<void()>& theirs) {
  mine();
  theirs();
  std::vector<double> ratio;
  double ta = 0, tp = 0;
  bool peer_first = false;
  for (auto _ : state) {
    double a, p;
    if (peer_first) {
      p = abft_bench::time_call(theirs);
      a = abft_bench::time_call(mine);
    } else {
      a = abft_bench::time_call(mine);
      p = abft_bench::time_call(theirs);
    }
    peer_first = !peer_first;
    ta += a;
    tp += p;
    ratio.push_back(p / a);
    state.SetIterationTime(a + p);
  }
  const double it = double(state.iterations());
  state.counters["abft_GFLOP/s"] = flops * 1e-9 * it / ta;
  state.counters["openblas_GFLOP/s"] = flops * 1e-9 * it / tp;
  state.counters["x_openblas"] = abft_bench::median(ratio);
}

enum { kOurs = 0, kPeer = 1, kPaired = 2 };

bool ready(benchmark::State& state, const void* a, const void* b) {
  if (!ours().h) { state.SkipWithError(("abft BLAS: " + ours().error).c_str()); return false; }
  if (!peer().h) { state.SkipWithError(("peer BLAS: " + peer().error).c_str()); return false; }
  if (!a || !b) { state.SkipWithError("symbol missing"); return false; }
  return true;
}

template <class T, class F>
void bench_gemm(benchmark::State& state, const char* name, int n, int who) {
  F* a = ours().fn<F>(name);
  F* b = peer().fn<F>(name);
  if (!ready(state, (void*)a, (void*)b)) return;
  const size_t nn = size_t(n) * size_t(n);
  auto A = random_matrix<T>(nn, 1), B = random_matrix<T>(nn, 2), C = random_matrix<T>(nn, 3);
  const double flops = (std::is_same_v<T, float> || std::is_same_v<T, double> ? 2.0 : 8.0) * n * double(n) * n;
  auto call = [&](F* f) {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      f(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, T(1), A.data(), n, B.data(), n, T(0), C.data(), n);
    } else {
      const T one(1), zero(0);
      f(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, &one, A.data(), n, B.data(), n, &zero, C.data(), n);
    }
  };
  if (who == kPaired) paired(state, flops, [&] { call(a); }, [&] { call(b); });
  else timed(state, flops, who == kPeer, [&] { call(a); }, [&] { call(b); });
}

void bench_dsyrk(benchmark::State& state, int n, bool use_peer) {
  syrk_d* a = ours().fn<syrk_d>("cblas_dsyrk");
  syrk_d* b = peer().fn<syrk_d>("cblas_dsyrk");
  if (!ready(state, (void*)a, (void*)b)) return;
  auto A = random_matrix<double>(size_t(n) * n, 1), C = random_matrix<double>(size_t(n) * n, 3);
  timed(state, double(n) * n * n, use_peer,  // n^2 k flops (one triangle)
         [&] { a(CblasColMajor, CblasLower, CblasNoTrans, n, n, 1.0, A.data(), n, 0.0, C.data(), n); },
         [&] { b(CblasColMajor, CblasLower, CblasNoTrans, n, n, 1.0, A.data(), n, 0.0, C.data(), n); });
}

void bench_dtrsm(benchmark::State& state, int n, bool use_peer) {
  trsm_d* a = ours().fn<trsm_d>("cblas_dtrsm");
  trsm_d* b = peer().fn<trsm_d>("cblas_dtrsm");
  if (!ready(state, (void*)a, (void*)b)) return;
  // Well-conditioned lower triangle: unit-sized off-diagonal entries / n, diagonal 1..2.
  auto A = random_matrix<double>(size_t(n) * n, 1);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) A[size_t(i) + size_t(j) * n] = i == j ? 1.5 + 0.5 * A[size_t(i) + size_t(j) * n] : A[size_t(i) + size_t(j) * n] / n;
  const auto B0 = random_matrix<double>(size_t(n) * n, 2);
  auto B = B0;
  // Each call solves in place; the right-hand side drifts but stays bounded (A ~ I).
  timed(state, double(n) * n * n, use_peer,
         [&] { a(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, n, n, 1.0, A.data(), n, B.data(), n); },
         [&] { b(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, n, n, 1.0, A.data(), n, B.data(), n); });
}

}  // namespace

int main(int argc, char** argv) {
  const int max_dim = std::atoi(env_or("ABFT_BENCH_MAX_DIM", "2048"));
  for (int n : {256, 512, 1024, 2048}) {
    if (n > max_dim) continue;
    const std::string s = "/n=" + std::to_string(n);
    auto reg = [&](const std::string& name, int w, std::function<void(benchmark::State&)> f) {
      const char* tag = w == kPaired ? "/paired" : w == kPeer ? "/openblas" : "/abft";
      benchmark::RegisterBenchmark((name + s + tag).c_str(), f)->UseManualTime()->Unit(benchmark::kMillisecond);
    };
    for (int w : {kOurs, kPeer, kPaired})
      reg("cblas_sgemm", w, [n, w](benchmark::State& st) { bench_gemm<float, gemm_s>(st, "cblas_sgemm", n, w); });
    for (int w : {kOurs, kPeer, kPaired})
      reg("cblas_dgemm", w, [n, w](benchmark::State& st) { bench_gemm<double, gemm_d>(st, "cblas_dgemm", n, w); });
    for (int w : {kOurs, kPeer, kPaired})
      reg("cblas_cgemm", w, [n, w](benchmark::State& st) { bench_gemm<std::complex<float>, gemm_c>(st, "cblas_cgemm", n, w); });
    for (int w : {kOurs, kPeer, kPaired})
      reg("cblas_zgemm", w, [n, w](benchmark::State& st) { bench_gemm<std::complex<double>, gemm_c>(st, "cblas_zgemm", n, w); });
    for (int w : {kOurs, kPeer})
      reg("cblas_dsyrk", w, [n, w](benchmark::State& st) { bench_dsyrk(st, n, w == kPeer); });
    for (int w : {kOurs, kPeer})
      reg("cblas_dtrsm", w, [n, w](benchmark::State& st) { bench_dtrsm(st, n, w == kPeer); });
  }
  benchmark::AddCustomContext("abft_blas_lib", ours().path + (ours().h ? "" : " (" + ours().error + ")"));
  benchmark::AddCustomContext("peer_lib", peer().path + (peer().h ? "" : " (" + peer().error + ")"));
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
