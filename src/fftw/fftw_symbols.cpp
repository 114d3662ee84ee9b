/** \file fftw_symbols.cpp
 *  \brief The C symbols of FFTW3's interface, for double (fftw_) and float (fftwf_), each
 *  a one-line forward to Api<R> (fftw_api.hpp). The export maps choose which precision a
 *  library shows (fftw3.map, fftw3f.map; libabft_fftw3 shows both).
 */
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "abft/fftw3.h"
#include "fftw/fftw_api.hpp"

using abft::fftw::Api;
using abft::fftw::Arrays;
using abft::fftw::PlanImpl;

namespace {
template <class P>
const PlanImpl* impl(P p) { return reinterpret_cast<const PlanImpl*>(p); }
template <class P>
P wrap(PlanImpl* p) { return reinterpret_cast<P>(p); }
Arrays arrays(void* in, void* in_im, void* out, void* out_im) {
  Arrays a;
  a.in = in;
  a.in_im = in_im;
  a.out = out;
  a.out_im = out_im;
  return a;
}
int read_file_char(void* f) { return std::fgetc(static_cast<FILE*>(f)); }
}  // namespace

// X: name prefixer (X(plan) is fftw_plan or fftwf_plan), R: real type, C: complex type.
#define ABFT_FFTW_DEFINE(X, R, C)                                                                    \
  using A_##R = Api<R>;                                                                              \
  extern "C" {                                                                                       \
  /* Sizes as Debian's FFTW 3.3.10 has them: a program linked against it holds copies of   */    \
  /* these arrays of exactly these sizes (copy relocations).                                */    \
  const char X(version)[21] = "fftw-3.3.10-abft";                                                    \
  const char X(cc)[96] = "abft (g++ " __VERSION__ ")";                                               \
  const char X(codelet_optim)[1] = "";                                                               \
                                                                                                     \
  X(plan) X(plan_dft)(int rank, const int* n, C* in, C* out, int sign, unsigned flags) {             \
    return wrap<X(plan)>(A_##R::basic(__func__, ABFT_FFT_C2C, rank, n, in, out, sign, flags));      \
  }                                                                                                  \
  X(plan) X(plan_dft_1d)(int n, C* in, C* out, int sign, unsigned flags) {                           \
    return wrap<X(plan)>(A_##R::basic(__func__, ABFT_FFT_C2C, 1, &n, in, out, sign, flags));        \
  }                                                                                                  \
  X(plan) X(plan_dft_2d)(int n0, int n1, C* in, C* out, int sign, unsigned flags) {                  \
    const int n[2] = {n0, n1};                                                                       \
    return wrap<X(plan)>(A_##R::basic(__func__, ABFT_FFT_C2C, 2, n, in, out, sign, flags));         \
  }                                                                                                  \
  X(plan) X(plan_dft_3d)(int n0, int n1, int n2, C* in, C* out, int sign, unsigned flags) {          \
    const int n[3] = {n0, n1, n2};                                                                   \
    return wrap<X(plan)>(A_##R::basic(__func__, ABFT_FFT_C2C, 3, n, in, out, sign, flags));         \
  }                                                                                                  \
  X(plan) X(plan_many_dft)(int rank, const int* n, int howmany, C* in, const int* inembed,          \
                           int istride, int idist, C* out, const int* onembed, int ostride,         \
                           int odist, int sign, unsigned flags) {                                   \
    return wrap<X(plan)>(A_##R::many(__func__, ABFT_FFT_C2C, rank, n, howmany, in, inembed,         \
                                     istride, idist, out, onembed, ostride, odist, sign, flags));   \
  }                                                                                                  \
  X(plan) X(plan_guru_dft)(int rank, const X(iodim)* dims, int hrank, const X(iodim)* hdims,        \
                           C* in, C* out, int sign, unsigned flags) {                               \
    return wrap<X(plan)>(A_##R::guru(__func__, ABFT_FFT_C2C, rank, dims, hrank, hdims, in, out,     \
                                     sign, flags));                                                 \
  }                                                                                                  \
  X(plan) X(plan_guru64_dft)(int rank, const X(iodim64)* dims, int hrank,                           \
                             const X(iodim64)* hdims, C* in, C* out, int sign, unsigned flags) {    \
    return wrap<X(plan)>(A_##R::guru(__func__, ABFT_FFT_C2C, rank, dims, hrank, hdims, in, out,     \
                                     sign, flags));                                                 \
  }                                                                                                  \
  X(plan) X(plan_guru_split_dft)(int rank, const X(iodim)* dims, int hrank,                         \
                                 const X(iodim)* hdims, R* ri, R* ii, R* ro, R* io,                 \
                                 unsigned flags) {                                                  \
    return wrap<X(plan)>(A_##R::guru_split(__func__, ABFT_FFT_C2C, rank, dims, hrank, hdims,        \
                                           arrays(ri, ii, ro, io), flags));                         \
  }                                                                                                  \
  X(plan) X(plan_guru64_split_dft)(int rank, const X(iodim64)* dims, int hrank,                     \
                                   const X(iodim64)* hdims, R* ri, R* ii, R* ro, R* io,             \
                                   unsigned flags) {                                                \
    return wrap<X(plan)>(A_##R::guru_split(__func__, ABFT_FFT_C2C, rank, dims, hrank, hdims,        \
                                           arrays(ri, ii, ro, io), flags));                         \
  }                                                                                                  \
                                                                                                     \
  X(plan) X(plan_dft_r2c)(int rank, const int* n, R* in, C* out, unsigned flags) {                   \
    return wrap<X(plan)>(A_##R::basic(__func__, ABFT_FFT_R2C, rank, n, in, out, -1, flags));        \
  }                                                                                                  \
  X(plan) X(plan_dft_r2c_1d)(int n, R* in, C* out, unsigned flags) {                                 \
    return wrap<X(plan)>(A_##R::basic(__func__, ABFT_FFT_R2C, 1, &n, in, out, -1, flags));          \
  }                                                                                                  \
  X(plan) X(plan_dft_r2c_2d)(int n0, int n1, R* in, C* out, unsigned flags) {                        \
    const int n[2] = {n0, n1};                                                                       \
    return wrap<X(plan)>(A_##R::basic(__func__, ABFT_FFT_R2C, 2, n, in, out, -1, flags));           \
  }                                                                                                  \
  X(plan) X(plan_dft_r2c_3d)(int n0, int n1, int n2, R* in, C* out, unsigned flags) {                \
    const int n[3] = {n0, n1, n2};                                                                   \
    return wrap<X(plan)>(A_##R::basic(__func__, ABFT_FFT_R2C, 3, n, in, out, -1, flags));           \
  }                                                                                                  \
  X(plan) X(plan_many_dft_r2c)(int rank, const int* n, int howmany, R* in, const int* inembed,      \
                               int istride, int idist, C* out, const int* onembed, int ostride,     \
                               int odist, unsigned flags) {                                         \
    return wrap<X(plan)>(A_##R::many(__func__, ABFT_FFT_R2C, rank, n, howmany, in, inembed,         \
                                     istride, idist, out, onembed, ostride, odist, -1, flags));     \
  }                                                                                                  \
  X(plan) X(plan_guru_dft_r2c)(int rank, const X(iodim)* dims, int hrank,                           \
                               const X(iodim)* hdims, R* in, C* out, unsigned flags) {              \
    return wrap<X(plan)>(A_##R::guru(__func__, ABFT_FFT_R2C, rank, dims, hrank, hdims, in, out,     \
                                     -1, flags));                                                   \
  }                                                                                                  \
  X(plan) X(plan_guru64_dft_r2c)(int rank, const X(iodim64)* dims, int hrank,                       \
                                 const X(iodim64)* hdims, R* in, C* out, unsigned flags) {          \
    return wrap<X(plan)>(A_##R::guru(__func__, ABFT_FFT_R2C, rank, dims, hrank, hdims, in, out,     \
                                     -1, flags));                                                   \
  }                                                                                                  \
  X(plan) X(plan_guru_split_dft_r2c)(int rank, const X(iodim)* dims, int hrank,                     \
                                     const X(iodim)* hdims, R* in, R* ro, R* io, unsigned flags) {  \
    return wrap<X(plan)>(A_##R::guru_split(__func__, ABFT_FFT_R2C, rank, dims, hrank, hdims,        \
                                           arrays(in, nullptr, ro, io), flags));                    \
  }                                                                                                  \
  X(plan) X(plan_guru64_split_dft_r2c)(int rank, const X(iodim64)* dims, int hrank,                 \
                                       const X(iodim64)* hdims, R* in, R* ro, R* io,                \
                                       unsigned flags) {                                            \
    return wrap<X(plan)>(A_##R::guru_split(__func__, ABFT_FFT_R2C, rank, dims, hrank, hdims,        \
                                           arrays(in, nullptr, ro, io), flags));                    \
  }                                                                                                  \
                                                                                                     \
  X(plan) X(plan_dft_c2r)(int rank, const int* n, C* in, R* out, unsigned flags) {                   \
    return wrap<X(plan)>(A_##R::basic(__func__, ABFT_FFT_C2R, rank, n, in, out, +1, flags));        \
  }                                                                                                  \
  X(plan) X(plan_dft_c2r_1d)(int n, C* in, R* out, unsigned flags) {                                 \
    return wrap<X(plan)>(A_##R::basic(__func__, ABFT_FFT_C2R, 1, &n, in, out, +1, flags));          \
  }                                                                                                  \
  X(plan) X(plan_dft_c2r_2d)(int n0, int n1, C* in, R* out, unsigned flags) {                        \
    const int n[2] = {n0, n1};                                                                       \
    return wrap<X(plan)>(A_##R::basic(__func__, ABFT_FFT_C2R, 2, n, in, out, +1, flags));           \
  }                                                                                                  \
  X(plan) X(plan_dft_c2r_3d)(int n0, int n1, int n2, C* in, R* out, unsigned flags) {                \
    const int n[3] = {n0, n1, n2};                                                                   \
    return wrap<X(plan)>(A_##R::basic(__func__, ABFT_FFT_C2R, 3, n, in, out, +1, flags));           \
  }                                                                                                  \
  X(plan) X(plan_many_dft_c2r)(int rank, const int* n, int howmany, C* in, const int* inembed,      \
                               int istride, int idist, R* out, const int* onembed, int ostride,     \
                               int odist, unsigned flags) {                                         \
    return wrap<X(plan)>(A_##R::many(__func__, ABFT_FFT_C2R, rank, n, howmany, in, inembed,         \
                                     istride, idist, out, onembed, ostride, odist, +1, flags));     \
  }                                                                                                  \
  X(plan) X(plan_guru_dft_c2r)(int rank, const X(iodim)* dims, int hrank,                           \
                               const X(iodim)* hdims, C* in, R* out, unsigned flags) {              \
    return wrap<X(plan)>(A_##R::guru(__func__, ABFT_FFT_C2R, rank, dims, hrank, hdims, in, out,     \
                                     +1, flags));                                                   \
  }                                                                                                  \
  X(plan) X(plan_guru64_dft_c2r)(int rank, const X(iodim64)* dims, int hrank,                       \
                                 const X(iodim64)* hdims, C* in, R* out, unsigned flags) {          \
    return wrap<X(plan)>(A_##R::guru(__func__, ABFT_FFT_C2R, rank, dims, hrank, hdims, in, out,     \
                                     +1, flags));                                                   \
  }                                                                                                  \
  X(plan) X(plan_guru_split_dft_c2r)(int rank, const X(iodim)* dims, int hrank,                     \
                                     const X(iodim)* hdims, R* ri, R* ii, R* out, unsigned flags) { \
    return wrap<X(plan)>(A_##R::guru_split(__func__, ABFT_FFT_C2R, rank, dims, hrank, hdims,        \
                                           arrays(ri, ii, out, nullptr), flags));                   \
  }                                                                                                  \
  X(plan) X(plan_guru64_split_dft_c2r)(int rank, const X(iodim64)* dims, int hrank,                 \
                                       const X(iodim64)* hdims, R* ri, R* ii, R* out,               \
                                       unsigned flags) {                                            \
    return wrap<X(plan)>(A_##R::guru_split(__func__, ABFT_FFT_C2R, rank, dims, hrank, hdims,        \
                                           arrays(ri, ii, out, nullptr), flags));                   \
  }                                                                                                  \
                                                                                                     \
  /* Real-to-real transforms are not provided: NULL, as FFTW answers an impossible problem. */      \
  X(plan) X(plan_many_r2r)(int, const int*, int, R*, const int*, int, int, R*, const int*, int,     \
                           int, const X(r2r_kind)*, unsigned) {                                     \
    return wrap<X(plan)>(A_##R::refuse(__func__, "r2r transforms are not provided by abft"));       \
  }                                                                                                  \
  X(plan) X(plan_r2r)(int, const int*, R*, R*, const X(r2r_kind)*, unsigned) {                       \
    return wrap<X(plan)>(A_##R::refuse(__func__, "r2r transforms are not provided by abft"));       \
  }                                                                                                  \
  X(plan) X(plan_r2r_1d)(int, R*, R*, X(r2r_kind), unsigned) {                                       \
    return wrap<X(plan)>(A_##R::refuse(__func__, "r2r transforms are not provided by abft"));       \
  }                                                                                                  \
  X(plan) X(plan_r2r_2d)(int, int, R*, R*, X(r2r_kind), X(r2r_kind), unsigned) {                     \
    return wrap<X(plan)>(A_##R::refuse(__func__, "r2r transforms are not provided by abft"));       \
  }                                                                                                  \
  X(plan) X(plan_r2r_3d)(int, int, int, R*, R*, X(r2r_kind), X(r2r_kind), X(r2r_kind), unsigned) {  \
    return wrap<X(plan)>(A_##R::refuse(__func__, "r2r transforms are not provided by abft"));       \
  }                                                                                                  \
  X(plan) X(plan_guru_r2r)(int, const X(iodim)*, int, const X(iodim)*, R*, R*, const X(r2r_kind)*,  \
                           unsigned) {                                                              \
    return wrap<X(plan)>(A_##R::refuse(__func__, "r2r transforms are not provided by abft"));       \
  }                                                                                                  \
  X(plan) X(plan_guru64_r2r)(int, const X(iodim64)*, int, const X(iodim64)*, R*, R*,                \
                             const X(r2r_kind)*, unsigned) {                                        \
    return wrap<X(plan)>(A_##R::refuse(__func__, "r2r transforms are not provided by abft"));       \
  }                                                                                                  \
  void X(execute_r2r)(const X(plan), R*, R*) {                                                       \
    abft::fftw::warn_once(std::string(__func__) + ": r2r transforms are not provided; nothing done"); \
  }                                                                                                  \
                                                                                                     \
  void X(execute)(const X(plan) p) {                                                                 \
    if (p) A_##R::run(impl(p), impl(p)->planned(), __func__);                                        \
    else A_##R::run(nullptr, Arrays(), __func__);                                                    \
  }                                                                                                  \
  void X(execute_dft)(const X(plan) p, C* in, C* out) {                                              \
    A_##R::execute_interleaved(impl(p), ABFT_FFT_C2C, in, out, __func__);                            \
  }                                                                                                  \
  void X(execute_dft_r2c)(const X(plan) p, R* in, C* out) {                                          \
    A_##R::execute_interleaved(impl(p), ABFT_FFT_R2C, in, out, __func__);                            \
  }                                                                                                  \
  void X(execute_dft_c2r)(const X(plan) p, C* in, R* out) {                                          \
    A_##R::execute_interleaved(impl(p), ABFT_FFT_C2R, in, out, __func__);                            \
  }                                                                                                  \
  void X(execute_split_dft)(const X(plan) p, R* ri, R* ii, R* ro, R* io) {                           \
    A_##R::execute_split(impl(p), ABFT_FFT_C2C, arrays(ri, ii, ro, io), __func__);                   \
  }                                                                                                  \
  void X(execute_split_dft_r2c)(const X(plan) p, R* in, R* ro, R* io) {                              \
    A_##R::execute_split(impl(p), ABFT_FFT_R2C, arrays(in, nullptr, ro, io), __func__);              \
  }                                                                                                  \
  void X(execute_split_dft_c2r)(const X(plan) p, R* ri, R* ii, R* out) {                             \
    A_##R::execute_split(impl(p), ABFT_FFT_C2R, arrays(ri, ii, out, nullptr), __func__);             \
  }                                                                                                  \
  void X(destroy_plan)(X(plan) p) { delete reinterpret_cast<PlanImpl*>(p); }                         \
                                                                                                     \
  void X(forget_wisdom)(void) { abft::fftw::wisdom_forget(A_##R::kPrec); }                           \
  void X(cleanup)(void) { abft::fftw::wisdom_forget(A_##R::kPrec); }                                 \
  void X(set_timelimit)(double) {}                                                                   \
  int X(init_threads)(void) { return 1; }                                                            \
  void X(plan_with_nthreads)(int nthreads) { abft::fftw::set_plan_threads(A_##R::kPrec, nthreads); } \
  int X(planner_nthreads)(void) { return abft::fftw::planner_threads(A_##R::kPrec); }                \
  void X(cleanup_threads)(void) { abft::fftw::wisdom_forget(A_##R::kPrec); }                         \
  void X(threads_set_callback)(void (*)(void* (*)(char*), char*, size_t, int, void*), void*) {}      \
  void X(make_planner_thread_safe)(void) {}                                                          \
                                                                                                     \
  char* X(export_wisdom_to_string)(void) {                                                           \
    return A_##R::dup(abft::fftw::wisdom_export(A_##R::kPrec));                                      \
  }                                                                                                  \
  void X(export_wisdom_to_file)(FILE * f) {                                                          \
    if (f) std::fputs(abft::fftw::wisdom_export(A_##R::kPrec).c_str(), f);                           \
  }                                                                                                  \
  int X(export_wisdom_to_filename)(const char* name) {                                               \
    FILE* f = name ? std::fopen(name, "w") : nullptr;                                                \
    if (!f) return 0;                                                                                \
    const bool ok = std::fputs(abft::fftw::wisdom_export(A_##R::kPrec).c_str(), f) >= 0;             \
    return (std::fclose(f) == 0 && ok) ? 1 : 0;                                                      \
  }                                                                                                  \
  void X(export_wisdom)(X(write_char_func) write_char, void* data) {                                 \
    if (!write_char) return;                                                                         \
    for (char c : abft::fftw::wisdom_export(A_##R::kPrec)) write_char(c, data);                      \
  }                                                                                                  \
  int X(import_wisdom_from_string)(const char* s) {                                                  \
    return s && abft::fftw::wisdom_import(A_##R::kPrec, s) ? 1 : 0;                                  \
  }                                                                                                  \
  int X(import_wisdom_from_file)(FILE * f) {                                                         \
    if (!f) return 0;                                                                                \
    return abft::fftw::wisdom_import(A_##R::kPrec, abft::fftw::read_expression(read_file_char, f))   \
               ? 1 : 0;                                                                              \
  }                                                                                                  \
  int X(import_wisdom_from_filename)(const char* name) {                                             \
    FILE* f = name ? std::fopen(name, "r") : nullptr;                                                \
    if (!f) return 0;                                                                                \
    const int ok = X(import_wisdom_from_file)(f);                                                    \
    std::fclose(f);                                                                                  \
    return ok;                                                                                       \
  }                                                                                                  \
  int X(import_wisdom)(X(read_char_func) read_char, void* data) {                                    \
    if (!read_char) return 0;                                                                        \
    return abft::fftw::wisdom_import(A_##R::kPrec, abft::fftw::read_expression(read_char, data))     \
               ? 1 : 0;                                                                              \
  }                                                                                                  \
  int X(import_system_wisdom)(void) {                                                                \
    return X(import_wisdom_from_filename)(A_##R::kPrec == ABFT_PRECISION_FLOAT ? "/etc/fftw/wisdomf" \
                                                                              : "/etc/fftw/wisdom"); \
  }                                                                                                  \
                                                                                                     \
  void X(fprint_plan)(const X(plan) p, FILE * f) {                                                   \
    if (p && f) std::fputs(impl(p)->describe().c_str(), f);                                          \
  }                                                                                                  \
  void X(print_plan)(const X(plan) p) { X(fprint_plan)(p, stdout); }                                 \
  char* X(sprint_plan)(const X(plan) p) { return p ? A_##R::dup(impl(p)->describe()) : nullptr; }    \
  void X(flops)(const X(plan) p, double* add, double* mul, double* fmas) {                           \
    /* FFTW's nominal count split as a radix-2 transform splits it: 3/5 adds, 2/5 muls. */          \
    const double f = p ? impl(p)->flops() : 0.0;                                                     \
    if (add) *add = 0.6 * f;                                                                         \
    if (mul) *mul = 0.4 * f;                                                                         \
    if (fmas) *fmas = 0.0;                                                                           \
  }                                                                                                  \
  double X(estimate_cost)(const X(plan) p) { return p ? impl(p)->flops() : 0.0; }                   \
  double X(cost)(const X(plan) p) { return p ? impl(p)->flops() : 0.0; }                            \
  int X(alignment_of)(R * p) { return int(reinterpret_cast<uintptr_t>(p) % 16); }                   \
  void* X(malloc)(size_t n) { return A_##R::aligned(n); }                                            \
  R* X(alloc_real)(size_t n) { return static_cast<R*>(A_##R::array(n, sizeof(R))); }                \
  C* X(alloc_complex)(size_t n) { return static_cast<C*>(A_##R::array(n, 2 * sizeof(R))); }         \
  void X(free)(void* p) { std::free(p); }                                                            \
  } /* extern "C" */

ABFT_FFTW_DEFINE(ABFT_FFTW_D, double, fftw_complex)
ABFT_FFTW_DEFINE(ABFT_FFTW_F, float, fftwf_complex)
