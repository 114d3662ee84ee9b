/** \file fftw_runtime.cpp
 *  \brief The FFTW3 interface's runtime rows, injection sites, thread setting and messages.
 */
#include "fftw/fftw_runtime.hpp"

#include <atomic>
#include <cstdio>
#include <set>

namespace abft::fftw {
namespace {

constexpr const char* kRows[] = {"fftw_c2c", "fftw_r2c", "fftw_c2r",
                                 "fftwf_c2c", "fftwf_r2c", "fftwf_c2r"};

constexpr unsigned bit(abft_site s) { return 1u << unsigned(s); }
constexpr shim::SiteOption kSites[] = {
    {"output", bit(ABFT_SITE_OUTPUT)},
    {"stage", bit(ABFT_SITE_FFT_STAGE)},
    {"twiddle", bit(ABFT_SITE_FFT_TWIDDLE)},
    {"compute", bit(ABFT_SITE_OUTPUT) | bit(ABFT_SITE_FFT_STAGE)},
    {"any", bit(ABFT_SITE_OUTPUT) | bit(ABFT_SITE_FFT_STAGE) | bit(ABFT_SITE_FFT_TWIDDLE)}};

std::atomic<int> g_threads[2] = {{0}, {0}};  // 0: plan_with_nthreads never called

}  // namespace

shim::Runtime& runtime() {
  static const shim::Config cfg{"abft-fftw3", "FFTW transforms executed", kRows,
                                int(sizeof kRows / sizeof kRows[0]), kSites,
                                int(sizeof kSites / sizeof kSites[0]), "compute"};
  static shim::Runtime* rt = new shim::Runtime(cfg);  // never destroyed: read at exit
  return *rt;
}

// The report must be registered even when the program never executes a transform.
static const bool g_started = (runtime(), true);

int plan_threads(abft_precision prec) {
  const int t = g_threads[prec == ABFT_PRECISION_FLOAT].load(std::memory_order_relaxed);
  if (t > 0) return t;
  const int e = runtime().env_threads();
  return e > 0 ? e : 1;
}

void set_plan_threads(abft_precision prec, int nthreads) {
  g_threads[prec == ABFT_PRECISION_FLOAT].store(nthreads < 1 ? 1 : nthreads,
                                                std::memory_order_relaxed);
}

int planner_threads(abft_precision prec) {
  const int t = g_threads[prec == ABFT_PRECISION_FLOAT].load(std::memory_order_relaxed);
  return t > 0 ? t : 1;
}

void warn_once(const std::string& text) {
  static std::mutex mu;
  static auto* seen = new std::set<std::string>();
  std::lock_guard<std::mutex> g(mu);
  if (seen->insert(text).second) std::fprintf(stderr, "abft-fftw3: %s\n", text.c_str());
}

std::mutex& planner_mutex() {
  static auto* mu = new std::mutex();
  return *mu;
}

}  // namespace abft::fftw
