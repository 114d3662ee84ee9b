/** \file fft_bench.cpp
 *  \brief Google Benchmark suite: protected FFT (abft off / detect / correct)
 *         against FFTW (FFTW_MEASURE, same thread count) in the same run, float
 *         and double: c2c single transforms 2^6 ... 2^22, non-powers of two,
 *         a contiguous batch, a 2D transform, r2c and c2r; GFLOP/s and paired
 *         overhead / peer-ratio counters.
 *
 *  Names are <kind>/<precision>/<size>/<variant>, e.g. c2c/f64/n:1024/abft_correct,
 *  c2c/f32/n:1024,batch:1024/fftw, c2c/f64/n:1024x1024/abft_off (2D),
 *  r2c/f32/n:65536/abft_detect; filter with --benchmark_filter. Variants:
 *  abft_off, abft_detect, abft_correct (one plan each, abft_fft_set_policy),
 *  fftw (planned with the benchmark's thread count, fftw_plan_with_nthreads)
 *  and, when that count is above one, fftw_1t (planned with one thread): with
 *  several threads FFTW_MEASURE can settle on a threaded plan that is several
 *  times slower than its serial one for small sizes (seen on the 2-core dev
 *  VM: 2^10 c2c double 39 us with 2 threads, 5 us with 1), so the peer of the
 *  ratios is the faster of the two. c2c is forward (sign -1), r2c forward,
 *  c2r backward; all out-of-place on 64-byte aligned arrays of uniform random
 *  data in [-1, 1) (the c2r input is a valid half-complex spectrum: zero
 *  imaginary parts at DC and Nyquist). Every plan
 *  (abft and FFTW) is made once per case, outside the timing loop, and kept
 *  while the case's variants run. No variant writes its input (FFTW's c2r is
 *  planned with FFTW_PRESERVE_INPUT, as abft's rank-1 c2r never writes it), so
 *  every call transforms the same numbers.
 *
 *  Timing is manual (steady clock, wall time: both libraries are
 *  multithreaded). One iteration is a chunk of `calls` back-to-back transforms,
 *  sized in the warm-up to last about ABFT_BENCH_CHUNK_S, so that small
 *  transforms are not timed one clock read at a time: the Time column is per
 *  chunk, "time/call" (seconds) and GFLOP/s are per transform. GFLOP/s
 *  follows FFTW's convention: 5 N log2 N flops per complex transform of N
 *  points, 2.5 N log2 N per real one (N = product of the dimensions), times
 *  the batch.
 *
 *  Paired counters (ABFT_BENCH_PAIRED=0 turns them off): abft_detect and
 *  abft_correct also time abft_off on the same arrays inside each iteration,
 *  and abft_correct also the FFTW plan (fftw or fftw_1t) that was faster in
 *  its warm-up, rotating which call goes first; then
 *    vs_off = median over iterations of (protected time / off time)
 *             (overhead = vs_off - 1),
 *    x_fftw = median over iterations of (FFTW time / abft time)
 *             (throughput of abft correct relative to FFTW; the bar is >= 0.8),
 *    fftw_threads = threads of the FFTW plan x_fftw was paired with.
 *  Other counters: calls (transforms per iteration), checks (checksum
 *  verifications of one call, from its abft_report), plan_ms (planning time of
 *  the row's variant, FFTW_MEASURE included), err_vs_fftw (abft rows, when
 *  an FFTW plan exists: max |abft - FFTW| / max |FFTW| over the output of one
 *  call, checked once per case: fast garbage would show here). abft rows are labelled with
 *  abft_fft_describe() of their plan.
 *
 *  Environment:
 *    ABFT_BENCH_THREADS   threads for abft and FFTW alike (default: OpenMP's
 *                         default, omp_get_max_threads(), i.e. OMP_NUM_THREADS)
 *    ABFT_BENCH_QUICK=1   fewer cases (c2c 2^10, 2^13, 2^16, 2^20, 1000, 1009,
 *                         the batch, r2c/c2r 2^16)
 *    ABFT_BENCH_MAX_N     skip cases with more than this many points per call
 *    ABFT_BENCH_WARMUP_S  untimed warm-up the first time a variant runs in a
 *                         case (default 0.2 s)
 *    ABFT_BENCH_CHUNK_S   target duration of one timed chunk (default 2e-4 s)
 *    ABFT_BENCH_PAIRED=0  no paired timing (no vs_off / x_fftw; faster)
 *    ABFT_BENCH_FFTW_1T=0 no fftw_1t rows (FFTW strictly at the same thread count)
 *    ABFT_BENCH_FFTW_PLANNER  estimate | measure (default) | patient
 *    ABFT_BENCH_FFTW_WISDOM   file to import FFTW wisdom from at start and
 *                         export it to at exit (float: the same name + ".f32")
 */
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "abft/abft.h"
#include "abft/fft.h"
#include "bench_util.hpp"
#include "peer_fftw.hpp"

namespace {
using namespace abft_bench;

/** fftw: FFTW planned with the benchmark's thread count; fftw_1t: planned
 *  with one thread (registered when that count is above one). */
enum class Variant { Fftw = 0, Fftw1 = 1, Off = 2, Detect = 3, Correct = 4 };
constexpr int kVariants = 5;

bool is_fftw(Variant v) { return v == Variant::Fftw || v == Variant::Fftw1; }

const char* variant_name(Variant v) {
  switch (v) {
    case Variant::Fftw: return "fftw";
    case Variant::Fftw1: return "fftw_1t";
    case Variant::Off: return "abft_off";
    case Variant::Detect: return "abft_detect";
    case Variant::Correct: return "abft_correct";
  }
  return "?";
}

abft_policy policy_of(Variant v) {
  switch (v) {
    case Variant::Detect: return ABFT_POLICY_DETECT;
    case Variant::Correct: return ABFT_POLICY_CORRECT;
    default: return ABFT_POLICY_OFF;
  }
}

/** One benchmarked transform: kind, dimensions (row-major), batch. */
struct Case {
  abft_fft_kind kind;
  std::vector<int64_t> n;
  int64_t batch;
  std::string label;  // size part of the name: n:1024, n:1024x1024, n:1024,batch:1024

  int64_t points() const {
    int64_t p = 1;
    for (int64_t d : n) p *= d;
    return p;
  }
  /** Points along the complex side: the last dimension is n/2+1 for real transforms. */
  int64_t complex_points() const {
    if (kind == ABFT_FFT_C2C) return points();
    return points() / n.back() * (n.back() / 2 + 1);
  }
  /** Elements (real or complex, as the array holds) of one transform's input / output. */
  int64_t in_dist() const { return kind == ABFT_FFT_C2R ? complex_points() : points(); }
  int64_t out_dist() const { return kind == ABFT_FFT_R2C ? complex_points() : points(); }
  /** Scalars of the input / output arrays (complex elements count two). */
  int64_t in_scalars() const { return in_dist() * batch * (kind == ABFT_FFT_R2C ? 1 : 2); }
  int64_t out_scalars() const { return out_dist() * batch * (kind == ABFT_FFT_C2R ? 1 : 2); }
  int sign() const { return kind == ABFT_FFT_C2R ? ABFT_FFT_BACKWARD : ABFT_FFT_FORWARD; }
  /** FFTW's flop convention, per call. */
  double flops() const {
    const double N = double(points());
    return (kind == ABFT_FFT_C2C ? 5.0 : 2.5) * N * std::log2(N) * double(batch);
  }
};

const char* kind_name(abft_fft_kind k) {
  switch (k) {
    case ABFT_FFT_C2C: return "c2c";
    case ABFT_FFT_R2C: return "r2c";
    case ABFT_FFT_C2R: return "c2r";
  }
  return "?";
}

abft_handle_t g_handle = nullptr;
int g_threads = 1;
bool g_fftw_1t = false;  // register the one-thread FFTW rows
double g_warmup_s = 0.2;
double g_chunk_s = 2e-4;
bool g_paired = true;
unsigned g_fftw_planner = kFftwMeasure;

/** Arrays and plans of the case now running, shared by its variants. Only the
 *  last case is kept (of either precision), so the largest sizes don't pile up. */
template <typename T>
struct CaseData {
  std::string key;
  Case c{};
  AlignedBuffer<T> in, out;
  abft_fft_plan_t plan[3] = {nullptr, nullptr, nullptr};  // by abft_policy (off, detect, correct)
  typename Fftw<T>::plan fftw[2] = {nullptr, nullptr};  // g_threads threads, one thread
  double plan_ms[kVariants] = {};
  bool warmed[kVariants] = {};
  int64_t calls[kVariants] = {};     // chunk length chosen when the variant first ran
  double per_call[kVariants] = {};   // seconds per call measured in that first warm-up
  double rel_err[kVariants] = {};    // max |abft - FFTW| / max |FFTW| of the output, or -1

  void release() {
    for (abft_fft_plan_t& p : plan)
      if (p) abft_fft_destroy(p), p = nullptr;
    for (auto& f : fftw)
      if (f) Fftw<T>::destroy(f), f = nullptr;
    in.reset(0), out.reset(0);
    key.clear();
    std::fill(std::begin(plan_ms), std::end(plan_ms), 0.0);
    std::fill(std::begin(warmed), std::end(warmed), false);
    std::fill(std::begin(calls), std::end(calls), int64_t(0));
    std::fill(std::begin(per_call), std::end(per_call), 0.0);
    std::fill(std::begin(rel_err), std::end(rel_err), 0.0);
  }
  ~CaseData() { release(); }
};

template <typename T>
CaseData<T>& cache() {
  static CaseData<T> d;
  return d;
}

/** Random input; for c2r a valid half-complex spectrum (real DC and Nyquist). */
template <typename T>
void fill_input(CaseData<T>& d) {
  fill_uniform(d.in.data(), d.in.count, 0xF0F0u + uint64_t(d.c.points()));
  if (d.c.kind == ABFT_FFT_C2R && d.c.n.size() == 1) {
    const int64_t n = d.c.n[0], h = n / 2 + 1;
    for (int64_t b = 0; b < d.c.batch; ++b) {
      T* x = d.in.data() + 2 * b * h;
      x[1] = T(0);
      if (n % 2 == 0) x[2 * (h - 1) + 1] = T(0);
    }
  }
}

/** The arrays of case c (allocated and filled when the case changes). */
template <typename T>
CaseData<T>* case_data(const Case& c, const std::string& key) {
  CaseData<T>& d = cache<T>();
  if (d.key == key && d.in.ok() && d.out.ok()) return &d;
  cache<float>().release();  // free the previous case before allocating
  cache<double>().release();
  d.in.reset(size_t(c.in_scalars()));
  d.out.reset(size_t(c.out_scalars()));
  if (!d.in.ok() || !d.out.ok() || !d.in.data() || !d.out.data()) {
    d.release();
    return nullptr;
  }
  d.c = c;
  d.key = key;
  fill_input(d);
  std::memset(d.out.data(), 0, d.out.count * sizeof(T));
  return &d;
}

/** Make variant w's plan if missing; "" or what failed. */
template <typename T>
std::string ensure_plan(CaseData<T>& d, Variant w) {
  const Case& c = d.c;
  if (is_fftw(w)) {
    auto& f = d.fftw[w == Variant::Fftw1];
    if (f) return "";
    std::vector<int> n(c.n.begin(), c.n.end());
    const int rank = int(n.size()), howmany = int(c.batch);
    const int idist = int(c.in_dist()), odist = int(c.out_dist());
    fftw_peer_plan_threads(w == Variant::Fftw1 ? 1 : g_threads);
    double s = time_call([&] {
      if (c.kind == ABFT_FFT_C2C)
        f = Fftw<T>::c2c(rank, n.data(), howmany, d.in.data(), idist, d.out.data(), odist,
                         kFftwForward, g_fftw_planner);
      else if (c.kind == ABFT_FFT_R2C)
        f = Fftw<T>::r2c(rank, n.data(), howmany, d.in.data(), idist, d.out.data(), odist,
                         g_fftw_planner);
      else
        f = Fftw<T>::c2r(rank, n.data(), howmany, d.in.data(), idist, d.out.data(), odist,
                         g_fftw_planner | kFftwPreserveInput);
    });
    fftw_peer_plan_threads(g_threads);
    if (!f) return "the FFTW planner returned NULL";
    d.plan_ms[int(w)] = s * 1e3;
    fill_input(d);  // FFTW_MEASURE / PATIENT overwrite the arrays while planning
    return "";
  }
  const abft_policy pol = policy_of(w);
  if (d.plan[pol]) return "";
  const abft_precision prec = sizeof(T) == 4 ? ABFT_PRECISION_FLOAT : ABFT_PRECISION_DOUBLE;
  abft_status st = ABFT_STATUS_SUCCESS;
  abft_fft_plan_t p = nullptr;
  double s = time_call([&] {
    st = abft_fft_plan_many(&p, g_handle, prec, c.kind, int(c.n.size()), c.n.data(), c.batch,
                            nullptr, 1, c.in_dist(), nullptr, 1, c.out_dist(), c.sign(), 0u);
  });
  if (st != ABFT_STATUS_SUCCESS || !p)
    return std::string("abft_fft_plan_many returned ") + abft_status_string(st);
  st = abft_fft_set_policy(p, pol);
  if (st != ABFT_STATUS_SUCCESS) {
    abft_fft_destroy(p);
    return std::string("abft_fft_set_policy returned ") + abft_status_string(st);
  }
  int64_t in_s = 0, out_s = 0;
  if (abft_fft_array_sizes(p, &in_s, &out_s) == ABFT_STATUS_SUCCESS &&
      (in_s > c.in_scalars() || out_s > c.out_scalars())) {
    abft_fft_destroy(p);
    return "abft_fft_array_sizes wants " + std::to_string(in_s) + "/" + std::to_string(out_s) +
           " scalars, the case has " + std::to_string(c.in_scalars()) + "/" +
           std::to_string(c.out_scalars());
  }
  d.plan[pol] = p;
  d.plan_ms[int(w)] = s * 1e3;
  return "";
}

/** Once per abft variant and case, with d.out holding that variant's result:
 *  its distance to FFTW's (a fast engine returning garbage shows here). The
 *  first FFTW plan that exists computes the reference; -1 when there is none. */
template <typename T>
double error_vs_fftw(CaseData<T>& d) {
  auto f = d.fftw[0] ? d.fftw[0] : d.fftw[1];
  if (!f) return -1.0;
  std::vector<T> mine(d.out.data(), d.out.data() + d.out.count);
  Fftw<T>::execute(f);
  double diff = 0, ref = 0;
  for (size_t i = 0; i < d.out.count; ++i) {
    diff = std::max(diff, std::fabs(double(mine[i]) - double(d.out.data()[i])));
    ref = std::max(ref, std::fabs(double(d.out.data()[i])));
  }
  return ref > 0 ? diff / ref : diff;
}

std::string status_message(const char* who, abft_status st) {
  std::string msg = std::string(who) + " returned " + abft_status_string(st);
  if (st == ABFT_STATUS_FAULT_DETECTED || st == ABFT_STATUS_FAULT_UNCORRECTABLE)
    msg += " on clean data (false positive)";
  return msg;
}

template <typename T>
void bench_fft(benchmark::State& state, const Case& c, const std::string& key, Variant v) {
  CaseData<T>* dp = case_data<T>(c, key);
  if (!dp) {
    state.SkipWithError("array allocation failed");
    return;
  }
  CaseData<T>& d = *dp;

  // The row's variant first, then its paired companions: abft off, and for
  // abft_correct the faster of the FFTW plans (decided after their warm-up).
  std::vector<Variant> order{v};
  if (g_paired && (v == Variant::Detect || v == Variant::Correct)) order.push_back(Variant::Off);
  std::vector<Variant> peers;
  if (g_paired && kHaveFftw && v == Variant::Correct) {
    peers.push_back(Variant::Fftw);
    if (g_fftw_1t) peers.push_back(Variant::Fftw1);
  }
  std::vector<Variant> setup = order;
  setup.insert(setup.end(), peers.begin(), peers.end());
  for (Variant w : setup) {
    std::string err = ensure_plan(d, w);
    if (!err.empty()) {
      state.SkipWithError((std::string(variant_name(w)) + ": " + err).c_str());
      return;
    }
  }

  auto call = [&](Variant w) -> abft_status {
    if (is_fftw(w)) {
      Fftw<T>::execute(d.fftw[w == Variant::Fftw1]);
      return ABFT_STATUS_SUCCESS;
    }
    return abft_fft_execute(d.plan[policy_of(w)], d.in.data(), d.out.data(), nullptr);
  };
  abft_status st = ABFT_STATUS_SUCCESS;
  Variant failed = v;
  auto chunk = [&](Variant w, int64_t calls) -> double {
    return time_call([&] {
      for (int64_t r = 0; r < calls; ++r) {
        abft_status s = call(w);
        if (s != ABFT_STATUS_SUCCESS) {
          st = s, failed = w;
          break;
        }
      }
    });
  };
  auto fail = [&] {
    state.SkipWithError(status_message(variant_name(failed), st).c_str());
  };

  // Warm-up: the first time a variant runs in this case, for g_warmup_s (and
  // the chunk length comes from it); later (the next repetition) one chunk.
  for (Variant w : setup) {
    const int i = int(w);
    if (!d.warmed[i]) {
      double spent = 0;
      int64_t n = 0;
      do {
        spent += chunk(w, 1);
        ++n;
      } while (st == ABFT_STATUS_SUCCESS && (spent < g_warmup_s || n < 2));
      if (st != ABFT_STATUS_SUCCESS) return fail();
      d.per_call[i] = std::max(spent / double(n), 1e-9);
      d.calls[i] = std::max<int64_t>(1, int64_t(std::llround(g_chunk_s / d.per_call[i])));
      d.warmed[i] = true;
    } else {
      chunk(w, d.calls[i]);
      if (st != ABFT_STATUS_SUCCESS) return fail();
    }
  }
  const int64_t calls = d.calls[int(v)];
  if (!peers.empty()) {
    Variant best = peers[0];
    for (Variant w : peers)
      if (d.per_call[int(w)] < d.per_call[int(best)]) best = w;
    order.push_back(best);
    state.counters["fftw_threads"] = best == Variant::Fftw1 ? 1.0 : double(g_threads);
  }

  // One reported call: how many checks the protected path really makes.
  if (!is_fftw(v)) {
    abft_report rep{};
    st = abft_fft_execute(d.plan[policy_of(v)], d.in.data(), d.out.data(), &rep);
    if (st != ABFT_STATUS_SUCCESS) return fail();
    state.counters["checks"] = double(rep.checks);
    if (rep.skipped) state.counters["skipped"] = double(rep.skipped);
    if (d.rel_err[int(v)] == 0.0) d.rel_err[int(v)] = error_vs_fftw(d);
    if (d.rel_err[int(v)] >= 0.0) state.counters["err_vs_fftw"] = d.rel_err[int(v)];
    state.SetLabel(abft_fft_describe(d.plan[policy_of(v)]));
  }

  std::vector<double> vs_off, x_fftw;
  const size_t m = order.size();
  size_t first = 0;  // rotates: each variant goes first in turn
  for (auto _ : state) {
    double dt[kVariants] = {};
    for (size_t k = 0; k < m && st == ABFT_STATUS_SUCCESS; ++k) {
      const Variant w = order[(first + k) % m];
      dt[int(w)] = chunk(w, calls);
    }
    first = (first + 1) % m;
    if (st != ABFT_STATUS_SUCCESS) {
      fail();
      break;
    }
    state.SetIterationTime(dt[int(v)]);
    if (m > 1 && dt[int(Variant::Off)] > 0) vs_off.push_back(dt[int(v)] / dt[int(Variant::Off)]);
    if (m > 2 && dt[int(v)] > 0) x_fftw.push_back(dt[int(order[2])] / dt[int(v)]);
  }
  if (state.error_occurred()) return;

  const double done = double(state.iterations()) * double(calls);
  state.counters["GFLOP/s"] = benchmark::Counter(c.flops() * 1e-9 * done, benchmark::Counter::kIsRate);
  state.counters["time/call"] =  // seconds per transform (the console shows e.g. 12.3us)
      benchmark::Counter(done, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["calls"] = double(calls);
  state.counters["plan_ms"] = d.plan_ms[int(v)];
  if (!vs_off.empty()) state.counters["vs_off"] = median(vs_off);
  if (!x_fftw.empty()) state.counters["x_fftw"] = median(x_fftw);
}

Case case_1d(abft_fft_kind kind, int64_t n) {
  return {kind, {n}, 1, "n:" + std::to_string(n)};
}

std::vector<Case> cases(bool quick, int64_t max_n) {
  std::vector<Case> all;
  if (quick) {
    for (int64_t n : {1 << 10, 1 << 13, 1 << 16, 1 << 20, 1000, 1009})
      all.push_back(case_1d(ABFT_FFT_C2C, n));
  } else {
    for (int e = 6; e <= 22; ++e) all.push_back(case_1d(ABFT_FFT_C2C, int64_t(1) << e));
    // Non-powers of two: 2^3 5^3, 3^7, 5^5, and primes (Rader / Bluestein territory).
    for (int64_t n : {1000, 2187, 3125, 1009, 65537}) all.push_back(case_1d(ABFT_FFT_C2C, n));
  }
  all.push_back({ABFT_FFT_C2C, {1024}, 1024, "n:1024,batch:1024"});
  if (!quick) all.push_back({ABFT_FFT_C2C, {1024, 1024}, 1, "n:1024x1024"});
  std::vector<int64_t> real_sizes = quick ? std::vector<int64_t>{1 << 16}
                                          : std::vector<int64_t>{1 << 10, 1 << 16, 1 << 20};
  for (abft_fft_kind k : {ABFT_FFT_R2C, ABFT_FFT_C2R})
    for (int64_t n : real_sizes) all.push_back(case_1d(k, n));
  if (max_n > 0)
    all.erase(std::remove_if(all.begin(), all.end(),
                             [&](const Case& c) { return c.points() * c.batch > max_n; }),
              all.end());
  return all;
}

template <typename T>
void register_precision(const char* prec, const std::vector<Case>& list) {
  std::vector<Variant> variants;
  if (kHaveFftw) variants.push_back(Variant::Fftw);
  if (kHaveFftw && g_fftw_1t) variants.push_back(Variant::Fftw1);
  for (Variant v : {Variant::Off, Variant::Detect, Variant::Correct}) variants.push_back(v);
  for (const Case& c : list) {
    const std::string key = std::string(kind_name(c.kind)) + "/" + prec + "/" + c.label;
    for (Variant v : variants) {
      const std::string name = key + "/" + variant_name(v);
      benchmark::RegisterBenchmark(name.c_str(),
                                   [c, key, v](benchmark::State& st) { bench_fft<T>(st, c, key, v); })
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
    }
  }
}

const char* planner_name(unsigned flags) {
#ifdef ABFT_BENCH_HAVE_FFTW
  if (flags == FFTW_ESTIMATE) return "FFTW_ESTIMATE";
  if (flags == FFTW_PATIENT) return "FFTW_PATIENT";
  if (flags == FFTW_MEASURE) return "FFTW_MEASURE";
#endif
  (void)flags;
  return "-";
}

void add_context(int threads, bool quick) {
  benchmark::AddCustomContext("abft_version", abft_version());
  benchmark::AddCustomContext("abft_isa", abft_isa_name(abft_cpu_isa()));
  benchmark::AddCustomContext("threads", std::to_string(threads));
  benchmark::AddCustomContext("fftw_version", fftw_peer_version());
  benchmark::AddCustomContext("fftw_planner", kHaveFftw ? planner_name(g_fftw_planner) : "-");
  benchmark::AddCustomContext("fftw_threads", kHaveFftw ? std::to_string(threads) : "-");
  benchmark::AddCustomContext("fftw_1t_rows", g_fftw_1t ? "yes" : "no");
  benchmark::AddCustomContext("cpu_model", cpuinfo_field("model name"));
  benchmark::AddCustomContext("cpu_avx512f", cpu_has_flag("avx512f") ? "yes" : "no");
  benchmark::AddCustomContext("paired_timing", g_paired ? "yes" : "no");
  benchmark::AddCustomContext("chunk_s", std::to_string(g_chunk_s));
  benchmark::AddCustomContext("case_set", quick ? "quick" : "full");
}

}  // namespace

int main(int argc, char** argv) {
  int threads = int(env_double("ABFT_BENCH_THREADS", 0));
  if (threads <= 0) threads = omp_get_max_threads();
  g_threads = threads;
  g_fftw_1t = kHaveFftw && threads > 1 && env_string("ABFT_BENCH_FFTW_1T", "1") != "0";

  abft_status st = abft_handle_create(&g_handle);
  if (st == ABFT_STATUS_SUCCESS) st = abft_handle_set_threads(g_handle, threads);
  if (st != ABFT_STATUS_SUCCESS) {
    std::fprintf(stderr, "abft_bench_fft: handle setup failed: %s\n", abft_status_string(st));
    return 1;
  }
  const std::string planner = env_string("ABFT_BENCH_FFTW_PLANNER", "measure");
#ifdef ABFT_BENCH_HAVE_FFTW
  if (planner == "estimate") g_fftw_planner = FFTW_ESTIMATE;
  else if (planner == "patient") g_fftw_planner = FFTW_PATIENT;
  else if (planner != "measure")
    std::fprintf(stderr, "abft_bench_fft: ABFT_BENCH_FFTW_PLANNER=%s unknown, using measure\n",
                 planner.c_str());
#endif
  const std::string wisdom = env_string("ABFT_BENCH_FFTW_WISDOM");
  if (kHaveFftw) {
    if (!fftw_peer_init(threads)) {
      std::fprintf(stderr, "abft_bench_fft: FFTW's threads library failed to initialise\n");
      return 1;
    }
    fftw_peer_import_wisdom(wisdom);
  } else {
    std::fprintf(stderr, "abft_bench_fft: built without FFTW: the fftw rows are absent\n");
  }

  g_warmup_s = env_double("ABFT_BENCH_WARMUP_S", 0.2);
  g_chunk_s = env_double("ABFT_BENCH_CHUNK_S", 2e-4);
  g_paired = env_string("ABFT_BENCH_PAIRED", "1") != "0";
  const bool quick = env_string("ABFT_BENCH_QUICK", "0") == "1";
  const std::vector<Case> list = cases(quick, int64_t(env_double("ABFT_BENCH_MAX_N", 0)));
  register_precision<float>("f32", list);
  register_precision<double>("f64", list);

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  add_context(threads, quick);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();

  cache<float>().release();
  cache<double>().release();
  if (kHaveFftw) fftw_peer_export_wisdom(wisdom);
  abft_handle_destroy(g_handle);
  return 0;
}
