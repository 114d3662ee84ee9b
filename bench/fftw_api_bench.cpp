/** \file fftw_api_bench.cpp
 *  \brief The FFTW3 shim against FFTW through the same FFTW API, in one run.
 *
 *  Both libraries export the same fftw_* / fftwf_* names, so neither is linked: each set is
 *  opened with dlopen(RTLD_NOW | RTLD_LOCAL) and its functions are looked up by name in its
 *  own handles (fftw_plan_dft_1d, fftw_plan_dft_r2c_1d, fftw_execute, fftw_destroy_plan,
 *  fftw_malloc, fftw_free, fftw_init_threads, fftw_plan_with_nthreads, fftw_cleanup and the
 *  fftwf_ twins). <fftw3.h> is included for the types and constants only.
 *
 *    peer ("fftw"): the system's libfftw3.so.3, libfftw3f.so.3 and their _threads libraries;
 *    ours ("abft"): <build>/lib/libabft_fftw3.so.0 (both precisions and the threads API). It is
 *                   opened under its own soname: a path whose soname equals an already loaded
 *                   library's would give back that library.
 *
 *  At start the file each set's fftw_plan_dft_1d really lives in is printed (dladdr); two sets
 *  resolving to the same file are refused unless --allow-same (testing the harness with FFTW as
 *  both). Both get the same planner flag (FFTW_MEASURE) and the same thread count
 *  (fftw_init_threads once, then fftw_plan_with_nthreads before every plan).
 *
 *  Cases: fftw_api/<float|double>/<c2c|r2c>/<n>/lib:<abft|fftw>, n = 2^10 ... 2^20, c2c
 *  forward, out of place, arrays from each library's own fftw_malloc, the input filled once
 *  after planning (FFTW_MEASURE overwrites the arrays) with the same random numbers for both
 *  libraries. A case's plan and arrays are made the first time it runs and kept for the later
 *  repetitions (random interleaving runs each repetition as a separate run). Counters:
 *  GFLOP/s = 5 n log2 n / t (c2c) or 2.5 n log2 n / t (r2c), FFTW's convention; for the abft
 *  rows err_vs_fftw, the largest |abft - fftw| / max |fftw| of the two outputs.
 *
 *  Options (after Google Benchmark's own; environment variable in brackets):
 *    --ours=PATH[,PATH...]   our library set   [ABFT_FFTW_BENCH_OURS]
 *                            default ABFT_BENCH_LIB_DIR/libabft_fftw3.so.0
 *    --lib-dir=DIR           look for libabft_fftw3.so.0 there [ABFT_FFTW_BENCH_LIB_DIR]
 *    --peer=PATH[,PATH...]   the FFTW set      [ABFT_FFTW_BENCH_PEER]
 *                            default the four FFTW libraries found at configure time
 *    --threads=N             threads of both (fftw_plan_with_nthreads), default 1 [ABFT_BENCH_THREADS]
 *    --planner=measure|estimate|patient  default measure           [ABFT_BENCH_FFTW_PLANNER]
 *    --min-log2=A --max-log2=B  size range, default 10 and 20
 *    --allow-same            run even when both sets are the same file (harness test)
 *    --no-compare            no err_vs_fftw (an abft-only run then plans no FFTW case)
 *  ABFT_POLICY (off | detect | correct, default correct) is read by our library itself.
 */
#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <fftw3.h>
#include <limits.h>
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "bench_util.hpp"

#ifndef ABFT_BENCH_LIB_DIR
#define ABFT_BENCH_LIB_DIR ""
#endif
#ifndef ABFT_BENCH_FFTW_PEER
#define ABFT_BENCH_FFTW_PEER "libfftw3_threads.so.3,libfftw3f_threads.so.3,libfftw3.so.3,libfftw3f.so.3"
#endif

namespace {

/** The FFTW API of one precision, resolved in one library set. */
template <typename R>
struct Api;

template <>
struct Api<double> {
  static constexpr const char* prefix = "fftw_";
  using complex = fftw_complex;
  using plan = fftw_plan;
  decltype(&fftw_plan_dft_1d) plan_dft_1d = nullptr;
  decltype(&fftw_plan_dft_r2c_1d) plan_dft_r2c_1d = nullptr;
  decltype(&fftw_execute) execute = nullptr;
  decltype(&fftw_destroy_plan) destroy_plan = nullptr;
  decltype(&fftw_malloc) malloc = nullptr;
  decltype(&fftw_free) free = nullptr;
  decltype(&fftw_init_threads) init_threads = nullptr;
  decltype(&fftw_plan_with_nthreads) plan_with_nthreads = nullptr;
  decltype(&fftw_cleanup) cleanup = nullptr;
};

template <>
struct Api<float> {
  static constexpr const char* prefix = "fftwf_";
  using complex = fftwf_complex;
  using plan = fftwf_plan;
  decltype(&fftwf_plan_dft_1d) plan_dft_1d = nullptr;
  decltype(&fftwf_plan_dft_r2c_1d) plan_dft_r2c_1d = nullptr;
  decltype(&fftwf_execute) execute = nullptr;
  decltype(&fftwf_destroy_plan) destroy_plan = nullptr;
  decltype(&fftwf_malloc) malloc = nullptr;
  decltype(&fftwf_free) free = nullptr;
  decltype(&fftwf_init_threads) init_threads = nullptr;
  decltype(&fftwf_plan_with_nthreads) plan_with_nthreads = nullptr;
  decltype(&fftwf_cleanup) cleanup = nullptr;
};

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    if (comma > start) out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

/** One library set (several files), opened privately; symbols are looked up in each handle in
 *  turn (dlsym on a handle also searches that library's dependencies). */
struct LibSet {
  std::string role;                 // "abft" or "fftw"
  std::vector<std::string> paths;
  std::vector<void*> handles;
  std::string error;
  Api<double> d;
  Api<float> f;
  std::string resolved_d, resolved_f;  // files fftw_plan_dft_1d / fftwf_plan_dft_1d live in
  std::string version;                 // fftw_version, when exported
  std::string abft_version, abft_isa;  // abft_version(), abft_isa_name(abft_cpu_isa()), when exported
  int threads_ok_d = 0, threads_ok_f = 0;

  void* sym(const std::string& name) const {
    for (void* h : handles)
      if (void* p = dlsym(h, name.c_str())) return p;
    return nullptr;
  }

  template <typename R>
  bool resolve(Api<R>& a) {
    const std::string p = Api<R>::prefix;
    std::vector<std::string> missing;
    auto get = [&](auto& slot, const char* name) {
      slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(sym(p + name));
      if (!slot) missing.push_back(p + name);
    };
    get(a.plan_dft_1d, "plan_dft_1d");
    get(a.plan_dft_r2c_1d, "plan_dft_r2c_1d");
    get(a.execute, "execute");
    get(a.destroy_plan, "destroy_plan");
    get(a.malloc, "malloc");
    get(a.free, "free");
    get(a.init_threads, "init_threads");
    get(a.plan_with_nthreads, "plan_with_nthreads");
    get(a.cleanup, "cleanup");
    if (!missing.empty()) error += (error.empty() ? "" : "; ") + ("missing " + join(missing, ", "));
    return missing.empty();
  }

  static std::string file_of(void* fn) {
    Dl_info info{};
    if (!fn || !dladdr(fn, &info) || !info.dli_fname) return "?";
    char buf[PATH_MAX];
    return realpath(info.dli_fname, buf) ? std::string(buf) : std::string(info.dli_fname);
  }

  void open(const std::string& r, const std::string& list, int threads) {
    role = r;
    paths = split_list(list);
    if (paths.empty()) { error = "no library path"; return; }
    for (const auto& p : paths) {
      void* h = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!h) { error = dlerror(); return; }
      handles.push_back(h);
    }
    const bool ok_d = resolve(d), ok_f = resolve(f);
    if (!ok_d || !ok_f) return;
    resolved_d = file_of(reinterpret_cast<void*>(d.plan_dft_1d));
    resolved_f = file_of(reinterpret_cast<void*>(f.plan_dft_1d));
    if (const char* v = static_cast<const char*>(sym("fftw_version"))) version = v;
    // abft's own C API, when the shim exports it (the table's "abft <version>, ISA <isa>").
    if (auto ver = reinterpret_cast<const char* (*)()>(sym("abft_version")))
      abft_version = ver() ? ver() : "";
    auto isa = reinterpret_cast<int (*)()>(sym("abft_cpu_isa"));
    auto isa_name = reinterpret_cast<const char* (*)(int)>(sym("abft_isa_name"));
    if (isa && isa_name && isa_name(isa())) abft_isa = isa_name(isa());
    // FFTW: fftw_init_threads before any other call, then the thread count of later plans.
    threads_ok_d = d.init_threads();
    threads_ok_f = f.init_threads();
    if (!threads_ok_d || !threads_ok_f) { error = "fftw_init_threads failed"; return; }
    d.plan_with_nthreads(threads);
    f.plan_with_nthreads(threads);
  }
  bool ok() const { return error.empty() && !handles.empty(); }
  template <typename R> const Api<R>& api() const {
    if constexpr (std::is_same_v<R, double>) return d; else return f;
  }
};

struct Options {
  std::string ours, peer;
  int threads = 1;
  unsigned planner = FFTW_MEASURE;
  std::string planner_name = "FFTW_MEASURE";
  int min_log2 = 10, max_log2 = 20;
  bool allow_same = false;
  bool compare = true;  // abft rows: err_vs_fftw (plans the FFTW case too)
};

Options g_opt;
LibSet g_ours, g_peer;
std::string g_setup_error;  // refuses every case when set

LibSet& lib(bool peer) { return peer ? g_peer : g_ours; }

enum class Kind { c2c, r2c };

/** One planned case of one library: plan, arrays, the flop count of a call. */
template <typename R>
struct Case {
  const Api<R>* api = nullptr;
  typename Api<R>::plan plan = nullptr;
  void* in = nullptr;
  void* out = nullptr;
  size_t out_reals = 0;  // output length in reals (interleaved re, im)
  double err = -2;       // abft rows: largest difference from FFTW's output (-2: not yet known)
  std::string error;

  Case() = default;
  Case(const Case&) = delete;
  Case& operator=(const Case&) = delete;
  ~Case() {
    // Libraries stay loaded until exit; plans and arrays are given back to their own library.
    if (api && plan) api->destroy_plan(plan);
    if (api && in) api->free(in);
    if (api && out) api->free(out);
  }
};

template <typename R>
void fill_input(R* x, size_t count, uint64_t seed) {
  abft_bench::fill_uniform(x, count, seed);
}

/** The planned cases of one precision, kept between repetitions; cleared before exit. */
template <typename R>
std::map<std::tuple<bool, int, size_t>, std::unique_ptr<Case<R>>>& case_cache() {
  static std::map<std::tuple<bool, int, size_t>, std::unique_ptr<Case<R>>> cache;
  return cache;
}

template <typename R>
Case<R>& get_case(bool peer, Kind kind, size_t n) {
  auto& cache = case_cache<R>();
  auto key = std::make_tuple(peer, int(kind), n);
  auto it = cache.find(key);
  if (it != cache.end()) return *it->second;
  auto c = std::make_unique<Case<R>>();
  const Api<R>& a = lib(peer).template api<R>();
  c->api = &a;
  using C = typename Api<R>::complex;
  const size_t in_reals = kind == Kind::c2c ? 2 * n : n;
  c->out_reals = kind == Kind::c2c ? 2 * n : 2 * (n / 2 + 1);
  c->in = a.malloc(in_reals * sizeof(R));
  c->out = a.malloc(c->out_reals * sizeof(R));
  if (!c->in || !c->out) {
    c->error = "fftw_malloc failed";
  } else {
    a.plan_with_nthreads(g_opt.threads);
    if (kind == Kind::c2c)
      c->plan = a.plan_dft_1d(int(n), static_cast<C*>(c->in), static_cast<C*>(c->out),
                              FFTW_FORWARD, g_opt.planner);
    else
      c->plan = a.plan_dft_r2c_1d(int(n), static_cast<R*>(c->in), static_cast<C*>(c->out),
                                  g_opt.planner);
    if (!c->plan) {
      c->error = "plan returned NULL";
    } else {
      // After planning (FFTW_MEASURE writes the arrays): the same numbers for both libraries.
      fill_input(static_cast<R*>(c->in), in_reals, 0x5EED0000u + n * 4 + unsigned(kind));
      std::memset(c->out, 0, c->out_reals * sizeof(R));
      a.execute(c->plan);  // warm: page faults, thread pools, twiddles
    }
  }
  return *cache.emplace(key, std::move(c)).first->second;
}

/** Largest |ours - peer| / max |peer| over the two outputs (both executed on equal input). */
template <typename R>
double error_vs_peer(const Case<R>& ours, const Case<R>& peer) {
  const R* a = static_cast<const R*>(ours.out);
  const R* b = static_cast<const R*>(peer.out);
  double diff = 0, scale = 0;
  for (size_t i = 0; i < ours.out_reals; ++i) {
    diff = std::max(diff, std::fabs(double(a[i]) - double(b[i])));
    scale = std::max(scale, std::fabs(double(b[i])));
  }
  return scale > 0 ? diff / scale : diff;
}

template <typename R>
void bench_case(benchmark::State& state, Kind kind, size_t n, bool peer) {
  if (!g_setup_error.empty()) { state.SkipWithError(g_setup_error.c_str()); return; }
  LibSet& L = lib(peer);
  if (!L.ok()) { state.SkipWithError((L.role + ": " + L.error).c_str()); return; }
  Case<R>& c = get_case<R>(peer, kind, n);
  if (!c.error.empty()) { state.SkipWithError((L.role + ": " + c.error).c_str()); return; }
  if (!peer && g_opt.compare && c.err < -1.5 && g_peer.ok()) {
    Case<R>& p = get_case<R>(true, kind, n);
    c.err = -1;
    if (p.error.empty()) {
      // Same input in both (filled once); recompute both outputs, then compare (once a case).
      c.api->execute(c.plan);
      p.api->execute(p.plan);
      c.err = error_vs_peer(c, p);
    }
  }
  const double err = c.err;
  const auto exec = c.api->execute;
  const auto plan = c.plan;
  for (auto _ : state) {
    exec(plan);
    benchmark::ClobberMemory();
  }
  const double lg = std::log2(double(n));
  const double flops = (kind == Kind::c2c ? 5.0 : 2.5) * double(n) * lg;
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  if (err >= 0) state.counters["err_vs_fftw"] = err;
}

std::string arg_value(const std::string& a, const char* name) {
  const std::string p = std::string("--") + name + "=";
  return a.compare(0, p.size(), p) == 0 ? a.substr(p.size()) : std::string("\x01");
}

void parse_options(int argc, char** argv) {
  using abft_bench::env_string;
  std::string lib_dir = env_string("ABFT_FFTW_BENCH_LIB_DIR", ABFT_BENCH_LIB_DIR);
  g_opt.ours = env_string("ABFT_FFTW_BENCH_OURS");
  g_opt.peer = env_string("ABFT_FFTW_BENCH_PEER", ABFT_BENCH_FFTW_PEER);
  std::string threads = env_string("ABFT_BENCH_THREADS", "1");
  std::string planner = env_string("ABFT_BENCH_FFTW_PLANNER", "measure");
  std::string min_l = "10", max_l = "20";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    std::string v;
    if ((v = arg_value(a, "ours")) != "\x01") g_opt.ours = v;
    else if ((v = arg_value(a, "lib-dir")) != "\x01") lib_dir = v;
    else if ((v = arg_value(a, "peer")) != "\x01") g_opt.peer = v;
    else if ((v = arg_value(a, "threads")) != "\x01") threads = v;
    else if ((v = arg_value(a, "planner")) != "\x01") planner = v;
    else if ((v = arg_value(a, "min-log2")) != "\x01") min_l = v;
    else if ((v = arg_value(a, "max-log2")) != "\x01") max_l = v;
    else if (a == "--allow-same") g_opt.allow_same = true;
    else if (a == "--no-compare") g_opt.compare = false;
    else if (a == "--help" || a == "-h") {
      std::printf("abft_bench_fftw [benchmark flags] [--ours=PATHS] [--lib-dir=DIR] [--peer=PATHS]\n"
                  "  [--threads=N] [--planner=measure|estimate|patient] [--min-log2=A]\n"
                  "  [--max-log2=B] [--allow-same] [--no-compare]   (see bench/fftw_api_bench.cpp)\n");
      std::exit(0);
    } else {
      std::fprintf(stderr, "abft_bench_fftw: unknown option %s\n", a.c_str());
      std::exit(2);
    }
  }
  if (g_opt.ours.empty()) g_opt.ours = (lib_dir.empty() ? "" : lib_dir + "/") + "libabft_fftw3.so.0";
  g_opt.threads = std::max(1, std::atoi(threads.c_str()));
  g_opt.min_log2 = std::max(1, std::atoi(min_l.c_str()));
  g_opt.max_log2 = std::min(28, std::atoi(max_l.c_str()));
  if (planner == "estimate") g_opt.planner = FFTW_ESTIMATE, g_opt.planner_name = "FFTW_ESTIMATE";
  else if (planner == "patient") g_opt.planner = FFTW_PATIENT, g_opt.planner_name = "FFTW_PATIENT";
  else if (planner == "measure") g_opt.planner = FFTW_MEASURE, g_opt.planner_name = "FFTW_MEASURE";
  else {
    std::fprintf(stderr, "abft_bench_fftw: unknown planner %s\n", planner.c_str());
    std::exit(2);
  }
}

void describe(const LibSet& L) {
  std::fprintf(stderr, "abft_bench_fftw: %s: opened %s\n", L.role.c_str(), join(L.paths, ", ").c_str());
  if (!L.ok()) {
    std::fprintf(stderr, "abft_bench_fftw: %s: ERROR %s\n", L.role.c_str(), L.error.c_str());
    return;
  }
  std::fprintf(stderr, "abft_bench_fftw: %s: fftw_plan_dft_1d in %s, fftwf_plan_dft_1d in %s%s%s\n",
               L.role.c_str(), L.resolved_d.c_str(), L.resolved_f.c_str(),
               L.version.empty() ? "" : "; fftw_version ", L.version.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);  // takes its own --benchmark_* flags out of argv
  parse_options(argc, argv);

  // Peer first, then ours; each set in its own local scope.
  g_peer.open("fftw", g_opt.peer, g_opt.threads);
  g_ours.open("abft", g_opt.ours, g_opt.threads);
  describe(g_peer);
  describe(g_ours);
  if (g_peer.ok() && g_ours.ok() &&
      (g_peer.resolved_d == g_ours.resolved_d || g_peer.resolved_f == g_ours.resolved_f)) {
    if (g_opt.allow_same) {
      std::fprintf(stderr, "abft_bench_fftw: WARNING: both sets resolve to the same library "
                           "(--allow-same: a harness test, not a comparison)\n");
    } else {
      g_setup_error = "both library sets resolve to the same file (" + g_ours.resolved_d +
                      "); pass --allow-same to test the harness";
      std::fprintf(stderr, "abft_bench_fftw: ERROR: %s\n", g_setup_error.c_str());
    }
  }
  const char* policy = std::getenv("ABFT_POLICY");
  std::fprintf(stderr, "abft_bench_fftw: threads %d, planner %s, n = 2^%d ... 2^%d, ABFT_POLICY=%s\n",
               g_opt.threads, g_opt.planner_name.c_str(), g_opt.min_log2, g_opt.max_log2,
               policy && *policy ? policy : "(unset: correct)");

  for (const char* prec : {"double", "float"}) {
    const bool dbl = std::strcmp(prec, "double") == 0;
    for (Kind kind : {Kind::c2c, Kind::r2c}) {
      for (int e = g_opt.min_log2; e <= g_opt.max_log2; ++e) {
        const size_t n = size_t(1) << e;
        for (bool peer : {false, true}) {
          const std::string name = std::string("fftw_api/") + prec + "/" +
                                   (kind == Kind::c2c ? "c2c" : "r2c") + "/" + std::to_string(n) +
                                   "/lib:" + (peer ? "fftw" : "abft");
          auto* b = benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& st) {
            if (dbl) bench_case<double>(st, kind, n, peer);
            else bench_case<float>(st, kind, n, peer);
          });
          b->UseRealTime()->Unit(benchmark::kMicrosecond);
        }
      }
    }
  }

  benchmark::AddCustomContext("abft_lib", join(g_ours.paths, ","));
  benchmark::AddCustomContext("abft_lib_resolved", g_ours.ok() ? g_ours.resolved_d + "," + g_ours.resolved_f : "ERROR " + g_ours.error);
  benchmark::AddCustomContext("abft_version", g_ours.abft_version.empty() ? "? (not exported)" : g_ours.abft_version);
  benchmark::AddCustomContext("abft_isa", g_ours.abft_isa.empty() ? "? (not exported)" : g_ours.abft_isa);
  benchmark::AddCustomContext("abft_fftw_version", g_ours.version.empty() ? "?" : g_ours.version);
  benchmark::AddCustomContext("peer_lib", join(g_peer.paths, ","));
  benchmark::AddCustomContext("peer_lib_resolved", g_peer.ok() ? g_peer.resolved_d + "," + g_peer.resolved_f : "ERROR " + g_peer.error);
  benchmark::AddCustomContext("fftw_version", g_peer.version.empty() ? "?" : g_peer.version);
  benchmark::AddCustomContext("same_library", g_peer.ok() && g_ours.ok() && g_peer.resolved_d == g_ours.resolved_d ? "yes" : "no");
  benchmark::AddCustomContext("threads", std::to_string(g_opt.threads));
  benchmark::AddCustomContext("fftw_threads", std::to_string(g_opt.threads));
  benchmark::AddCustomContext("fftw_planner", g_opt.planner_name);
  benchmark::AddCustomContext("abft_policy", policy && *policy ? policy : "correct (default)");
  benchmark::AddCustomContext("omp_num_threads", abft_bench::env_string("OMP_NUM_THREADS", "(unset)"));
  benchmark::AddCustomContext("cpu_model", abft_bench::cpuinfo_field("model name"));
  benchmark::AddCustomContext("cpu_avx512f", abft_bench::cpu_has_flag("avx512f") ? "yes" : "no");
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  // Plans and arrays go back to their own library, then each library's planner state.
  case_cache<double>().clear();
  case_cache<float>().clear();
  for (LibSet* L : {&g_ours, &g_peer})
    if (L->ok()) L->d.cleanup(), L->f.cleanup();
  return 0;
}
