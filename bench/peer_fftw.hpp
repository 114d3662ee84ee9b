/** \file peer_fftw.hpp
 *  \brief The FFTW peer of the FFT benchmarks: typed "plan_many" wrappers
 *         (c2c forward, r2c, c2r) for float and double, thread setup, wisdom
 *         files and run context; stubs when built without FFTW.
 */
#pragma once
#include <string>

#ifdef ABFT_BENCH_HAVE_FFTW
#include <fftw3.h>
#endif

namespace abft_bench {

#ifdef ABFT_BENCH_HAVE_FFTW
constexpr bool kHaveFftw = true;

template <typename T>
struct Fftw;

/** Out-of-place, contiguous ("many" with NULL embeds, stride 1) plans. Arrays
 *  are passed as void*: complex data are interleaved (re, im) pairs. */
template <>
struct Fftw<double> {
  using plan = fftw_plan;
  static plan c2c(int rank, const int* n, int howmany, void* in, int idist, void* out, int odist,
                  int sign, unsigned flags) {
    return fftw_plan_many_dft(rank, n, howmany, static_cast<fftw_complex*>(in), nullptr, 1, idist,
                              static_cast<fftw_complex*>(out), nullptr, 1, odist, sign, flags);
  }
  static plan r2c(int rank, const int* n, int howmany, void* in, int idist, void* out, int odist,
                  unsigned flags) {
    return fftw_plan_many_dft_r2c(rank, n, howmany, static_cast<double*>(in), nullptr, 1, idist,
                                  static_cast<fftw_complex*>(out), nullptr, 1, odist, flags);
  }
  static plan c2r(int rank, const int* n, int howmany, void* in, int idist, void* out, int odist,
                  unsigned flags) {
    return fftw_plan_many_dft_c2r(rank, n, howmany, static_cast<fftw_complex*>(in), nullptr, 1,
                                  idist, static_cast<double*>(out), nullptr, 1, odist, flags);
  }
  static void execute(plan p) { fftw_execute(p); }
  static void destroy(plan p) { fftw_destroy_plan(p); }
};

template <>
struct Fftw<float> {
  using plan = fftwf_plan;
  static plan c2c(int rank, const int* n, int howmany, void* in, int idist, void* out, int odist,
                  int sign, unsigned flags) {
    return fftwf_plan_many_dft(rank, n, howmany, static_cast<fftwf_complex*>(in), nullptr, 1,
                               idist, static_cast<fftwf_complex*>(out), nullptr, 1, odist, sign,
                               flags);
  }
  static plan r2c(int rank, const int* n, int howmany, void* in, int idist, void* out, int odist,
                  unsigned flags) {
    return fftwf_plan_many_dft_r2c(rank, n, howmany, static_cast<float*>(in), nullptr, 1, idist,
                                   static_cast<fftwf_complex*>(out), nullptr, 1, odist, flags);
  }
  static plan c2r(int rank, const int* n, int howmany, void* in, int idist, void* out, int odist,
                  unsigned flags) {
    return fftwf_plan_many_dft_c2r(rank, n, howmany, static_cast<fftwf_complex*>(in), nullptr, 1,
                                   idist, static_cast<float*>(out), nullptr, 1, odist, flags);
  }
  static void execute(plan p) { fftwf_execute(p); }
  static void destroy(plan p) { fftwf_destroy_plan(p); }
};

constexpr unsigned kFftwMeasure = FFTW_MEASURE;
constexpr unsigned kFftwPreserveInput = FFTW_PRESERVE_INPUT;
constexpr int kFftwForward = FFTW_FORWARD;
constexpr int kFftwBackward = FFTW_BACKWARD;

/** Threads for every later plan of both precisions (FFTW's threads library). */
inline void fftw_peer_plan_threads(int threads) {
  fftw_plan_with_nthreads(threads);
  fftwf_plan_with_nthreads(threads);
}
inline bool fftw_peer_init(int threads) {
  if (!fftw_init_threads() || !fftwf_init_threads()) return false;
  fftw_peer_plan_threads(threads);
  return true;
}
/** Wisdom files: "<path>" for double, "<path>.f32" for float. Missing files are fine. */
inline void fftw_peer_import_wisdom(const std::string& path) {
  if (path.empty()) return;
  fftw_import_wisdom_from_filename(path.c_str());
  fftwf_import_wisdom_from_filename((path + ".f32").c_str());
}
inline void fftw_peer_export_wisdom(const std::string& path) {
  if (path.empty()) return;
  fftw_export_wisdom_to_filename(path.c_str());
  fftwf_export_wisdom_to_filename((path + ".f32").c_str());
}
inline std::string fftw_peer_version() { return fftw_version; }
#else
constexpr bool kHaveFftw = false;

/** Stub: never called (no fftw rows are registered without FFTW). */
template <typename T>
struct Fftw {
  using plan = void*;
  static plan c2c(int, const int*, int, void*, int, void*, int, int, unsigned) { return nullptr; }
  static plan r2c(int, const int*, int, void*, int, void*, int, unsigned) { return nullptr; }
  static plan c2r(int, const int*, int, void*, int, void*, int, unsigned) { return nullptr; }
  static void execute(plan) {}
  static void destroy(plan) {}
};
constexpr unsigned kFftwMeasure = 0;
constexpr unsigned kFftwPreserveInput = 0;
constexpr int kFftwForward = -1;
constexpr int kFftwBackward = +1;
inline void fftw_peer_plan_threads(int) {}
inline bool fftw_peer_init(int) { return false; }
inline void fftw_peer_import_wisdom(const std::string&) {}
inline void fftw_peer_export_wisdom(const std::string&) {}
inline std::string fftw_peer_version() { return "absent (built without FFTW)"; }
#endif

}  // namespace abft_bench
