/** \file fftw_fortran.cpp
 *  \brief FFTW's legacy Fortran-77 interface (FFTW manual, "Calling FFTW from Legacy
 *  Fortran"): dfftw_* for double, sfftw_* for float, each exported in both of FFTW's
 *  manglings (name_ and g77's name__), as Debian's libfftw3{,f}.so.3 and
 *  libfftw3{,f}_threads.so.3 export them. Every wrapper forwards to the C entry point of
 *  fftw_symbols.cpp, so both interfaces behave alike (r2r planners give a 0 plan there).
 *
 *  The conventions, as FFTW 3.3.10 implements them:
 *   - every argument is passed by reference; a plan is an integer*8 holding the C
 *     pointer, returned through the first argument;
 *   - a C function's return value comes back through an extra argument: the first one
 *     (init_threads(iret), import_system_wisdom(isuccess), import_wisdom(isuccess, ...),
 *     planner_nthreads(n), estimate_cost(cost, p), cost(cost, p)); flops(p, add, mul, fma);
 *   - sizes of the basic and advanced planners (n, inembed, onembed, and the r2r kinds)
 *     are in Fortran's column-major order and are reversed for C; the 2d/3d planners take
 *     (nx, ny[, nz]) and call C with (.., ny, nx);
 *   - the guru planners take parallel arrays n(:), is(:), os(:) (and h_n, h_is, h_os),
 *     copied into iodims in the order given, NOT reversed (FFTW's own make_dims does not
 *     reverse them; the strides are explicit, so only r2c/c2r notice: the last entry is
 *     the halved dimension);
 *   - export_wisdom(write_char, data) calls the Fortran subroutine write_char(c, data)
 *     per character (c a character); import_wisdom(isuccess, read_char, data) calls
 *     read_char(ic, data), ic an integer, < 0 at the end;
 *   - print_plan prints on C's stdout and flushes it.
 *  The export maps put dfftw_* in libfftw3.so.3, sfftw_* in libfftw3f.so.3, both in
 *  libabft_fftw3.so.0 (abft's libfftw3{,f}_threads.so.3 stand-ins name the main library,
 *  so the threads routines are found there).
 */
#include <cstdint>
#include <cstdio>
#include <utility>
#include <vector>

#include "abft/fftw3.h"

namespace {

/** Fortran's integer*8 plan handle. */
using F77Plan = std::int64_t;

template <class P>
P plan_of(const F77Plan* p) {
  return p ? reinterpret_cast<P>(static_cast<std::intptr_t>(*p)) : nullptr;
}
template <class P>
void set_plan(F77Plan* p, P plan) {
  if (p) *p = static_cast<F77Plan>(reinterpret_cast<std::intptr_t>(plan));
}

/** A Fortran (column-major) list of `rank` ints, reversed into C's row-major order.
 *  An absent list stays absent (nullptr). */
class Reversed {
 public:
  Reversed(int rank, const int* v) : absent_(v == nullptr) {
    if (v && rank > 0) v_.assign(v, v + rank);
    for (std::size_t i = 0, j = v_.size(); i + 1 < j; ++i, --j) std::swap(v_[i], v_[j - 1]);
  }
  const int* get() const { return absent_ ? nullptr : v_.data(); }

 private:
  bool absent_;
  std::vector<int> v_;
};

/** Reversed r2r kinds (FFTW reverses them with n). */
std::vector<fftw_r2r_kind_do_not_use_me> kinds_reversed(int rank, const int* k) {
  std::vector<fftw_r2r_kind_do_not_use_me> out;
  if (!k) return out;
  for (int i = rank - 1; i >= 0; --i) out.push_back(static_cast<fftw_r2r_kind_do_not_use_me>(k[i]));
  return out;
}
template <class K>
const K* data_or_null(const std::vector<K>& v) { return v.empty() ? nullptr : v.data(); }

/** Guru dimensions from parallel arrays, in the order given (as FFTW's make_dims). */
std::vector<fftw_iodim_do_not_use_me> iodims(int rank, const int* n, const int* is, const int* os) {
  std::vector<fftw_iodim_do_not_use_me> d;
  if (rank <= 0 || !n || !is || !os) return d;
  d.resize(static_cast<std::size_t>(rank));
  for (int i = 0; i < rank; ++i) d[std::size_t(i)] = {n[i], is[i], os[i]};
  return d;
}

/** Wisdom through Fortran subroutines: write_char(c, data), read_char(ic, data). */
using F77WriteChar = void (*)(char*, void*);
using F77ReadChar = void (*)(int*, void*);
struct WriteSink {
  F77WriteChar f;
  void* data;
};
struct ReadSource {
  F77ReadChar f;
  void* data;
};
void write_to_fortran(char c, void* d) {
  const WriteSink* s = static_cast<const WriteSink*>(d);
  s->f(&c, s->data);
}
int read_from_fortran(void* d) {
  const ReadSource* s = static_cast<const ReadSource*>(d);
  int c = -1;
  s->f(&c, s->data);
  return c < 0 ? EOF : c;
}

}  // namespace

#define ABFT_F77_STR2(s) #s
#define ABFT_F77_STR(s) ABFT_F77_STR2(s)
/* One Fortran routine under both manglings: F(name_) defined here, F(name__) an alias. */
#define ABFT_F77(F, name, params)                                                 \
  void F(name##__) params __attribute__((alias(ABFT_F77_STR(F(name##_)))));       \
  void F(name##_) params

// X: C name prefixer (fftw_/fftwf_), F: Fortran name prefixer (dfftw_/sfftw_),
// R: real type, C: complex type.
#define ABFT_FFTW_F77_DEFINE(X, F, R, C)                                                           \
  extern "C" {                                                                                     \
  ABFT_F77(F, execute, (const F77Plan* p)) { X(execute)(plan_of<X(plan)>(p)); }                    \
  ABFT_F77(F, destroy_plan, (F77Plan* p)) { X(destroy_plan)(plan_of<X(plan)>(p)); }                \
  ABFT_F77(F, cleanup, (void)) { X(cleanup)(); }                                                   \
  ABFT_F77(F, forget_wisdom, (void)) { X(forget_wisdom)(); }                                       \
  ABFT_F77(F, set_timelimit, (const double* t)) { X(set_timelimit)(*t); }                          \
  ABFT_F77(F, export_wisdom, (F77WriteChar write_char, void* data)) {                              \
    if (!write_char) return;                                                                       \
    WriteSink s{write_char, data};                                                                 \
    X(export_wisdom)(write_to_fortran, &s);                                                        \
  }                                                                                                \
  ABFT_F77(F, import_wisdom, (int* isuccess, F77ReadChar read_char, void* data)) {                 \
    int ok = 0;                                                                                    \
    if (read_char) {                                                                               \
      ReadSource s{read_char, data};                                                               \
      ok = X(import_wisdom)(read_from_fortran, &s);                                                \
    }                                                                                              \
    if (isuccess) *isuccess = ok;                                                                  \
  }                                                                                                \
  ABFT_F77(F, import_system_wisdom, (int* isuccess)) { *isuccess = X(import_system_wisdom)(); }    \
  ABFT_F77(F, print_plan, (const F77Plan* p)) {                                                    \
    X(print_plan)(plan_of<X(plan)>(p));                                                            \
    std::fflush(stdout);                                                                           \
  }                                                                                                \
  ABFT_F77(F, flops, (const F77Plan* p, double* add, double* mul, double* fma)) {                  \
    X(flops)(plan_of<X(plan)>(p), add, mul, fma);                                                  \
  }                                                                                                \
  ABFT_F77(F, estimate_cost, (double* cost, const F77Plan* p)) {                                   \
    *cost = X(estimate_cost)(plan_of<X(plan)>(p));                                                 \
  }                                                                                                \
  ABFT_F77(F, cost, (double* cost, const F77Plan* p)) { *cost = X(cost)(plan_of<X(plan)>(p)); }    \
                                                                                                   \
  /* Threads (FFTW: libfftw3{,f}_threads). */                                                      \
  ABFT_F77(F, init_threads, (int* iret)) { *iret = X(init_threads)(); }                            \
  ABFT_F77(F, plan_with_nthreads, (const int* nthreads)) { X(plan_with_nthreads)(*nthreads); }     \
  ABFT_F77(F, planner_nthreads, (int* nthreads)) { *nthreads = X(planner_nthreads)(); }            \
  ABFT_F77(F, cleanup_threads, (void)) { X(cleanup_threads)(); }                                   \
                                                                                                   \
  /* Complex DFTs. */                                                                              \
  ABFT_F77(F, plan_dft, (F77Plan* p, const int* rank, const int* n, C* in, C* out,                 \
                         const int* sign, const int* flags)) {                                     \
    const Reversed nr(*rank, n);                                                                   \
    set_plan(p, X(plan_dft)(*rank, nr.get(), in, out, *sign, unsigned(*flags)));                   \
  }                                                                                                \
  ABFT_F77(F, plan_dft_1d, (F77Plan* p, const int* n, C* in, C* out, const int* sign,              \
                            const int* flags)) {                                                   \
    set_plan(p, X(plan_dft_1d)(*n, in, out, *sign, unsigned(*flags)));                             \
  }                                                                                                \
  ABFT_F77(F, plan_dft_2d, (F77Plan* p, const int* nx, const int* ny, C* in, C* out,               \
                            const int* sign, const int* flags)) {                                  \
    set_plan(p, X(plan_dft_2d)(*ny, *nx, in, out, *sign, unsigned(*flags)));                       \
  }                                                                                                \
  ABFT_F77(F, plan_dft_3d, (F77Plan* p, const int* nx, const int* ny, const int* nz, C* in,        \
                            C* out, const int* sign, const int* flags)) {                          \
    set_plan(p, X(plan_dft_3d)(*nz, *ny, *nx, in, out, *sign, unsigned(*flags)));                  \
  }                                                                                                \
  ABFT_F77(F, plan_many_dft, (F77Plan* p, const int* rank, const int* n, const int* howmany,       \
                              C* in, const int* inembed, const int* istride, const int* idist,     \
                              C* out, const int* onembed, const int* ostride, const int* odist,    \
                              const int* sign, const int* flags)) {                                \
    const Reversed nr(*rank, n), ie(*rank, inembed), oe(*rank, onembed);                           \
    set_plan(p, X(plan_many_dft)(*rank, nr.get(), *howmany, in, ie.get(), *istride, *idist, out,   \
                                 oe.get(), *ostride, *odist, *sign, unsigned(*flags)));            \
  }                                                                                                \
  ABFT_F77(F, plan_guru_dft, (F77Plan* p, const int* rank, const int* n, const int* is,            \
                              const int* os, const int* hrank, const int* hn, const int* his,      \
                              const int* hos, C* in, C* out, const int* sign, const int* flags)) { \
    const auto d = iodims(*rank, n, is, os), h = iodims(*hrank, hn, his, hos);                     \
    set_plan(p, X(plan_guru_dft)(*rank, data_or_null(d), *hrank, data_or_null(h), in, out, *sign,  \
                                 unsigned(*flags)));                                               \
  }                                                                                                \
  ABFT_F77(F, plan_guru_split_dft, (F77Plan* p, const int* rank, const int* n, const int* is,      \
                                    const int* os, const int* hrank, const int* hn,                \
                                    const int* his, const int* hos, R* ri, R* ii, R* ro, R* io,    \
                                    const int* flags)) {                                           \
    const auto d = iodims(*rank, n, is, os), h = iodims(*hrank, hn, his, hos);                     \
    set_plan(p, X(plan_guru_split_dft)(*rank, data_or_null(d), *hrank, data_or_null(h), ri, ii,   \
                                       ro, io, unsigned(*flags)));                                 \
  }                                                                                                \
  ABFT_F77(F, execute_dft, (const F77Plan* p, C* in, C* out)) {                                    \
    X(execute_dft)(plan_of<X(plan)>(p), in, out);                                                  \
  }                                                                                                \
  ABFT_F77(F, execute_split_dft, (const F77Plan* p, R* ri, R* ii, R* ro, R* io)) {                 \
    X(execute_split_dft)(plan_of<X(plan)>(p), ri, ii, ro, io);                                     \
  }                                                                                                \
                                                                                                   \
  /* Real-to-complex DFTs. */                                                                      \
  ABFT_F77(F, plan_dft_r2c, (F77Plan* p, const int* rank, const int* n, R* in, C* out,             \
                             const int* flags)) {                                                  \
    const Reversed nr(*rank, n);                                                                   \
    set_plan(p, X(plan_dft_r2c)(*rank, nr.get(), in, out, unsigned(*flags)));                      \
  }                                                                                                \
  ABFT_F77(F, plan_dft_r2c_1d, (F77Plan* p, const int* n, R* in, C* out, const int* flags)) {      \
    set_plan(p, X(plan_dft_r2c_1d)(*n, in, out, unsigned(*flags)));                                \
  }                                                                                                \
  ABFT_F77(F, plan_dft_r2c_2d, (F77Plan* p, const int* nx, const int* ny, R* in, C* out,           \
                                const int* flags)) {                                               \
    set_plan(p, X(plan_dft_r2c_2d)(*ny, *nx, in, out, unsigned(*flags)));                          \
  }                                                                                                \
  ABFT_F77(F, plan_dft_r2c_3d, (F77Plan* p, const int* nx, const int* ny, const int* nz, R* in,    \
                                C* out, const int* flags)) {                                       \
    set_plan(p, X(plan_dft_r2c_3d)(*nz, *ny, *nx, in, out, unsigned(*flags)));                     \
  }                                                                                                \
  ABFT_F77(F, plan_many_dft_r2c, (F77Plan* p, const int* rank, const int* n, const int* howmany,   \
                                  R* in, const int* inembed, const int* istride,                   \
                                  const int* idist, C* out, const int* onembed,                    \
                                  const int* ostride, const int* odist, const int* flags)) {       \
    const Reversed nr(*rank, n), ie(*rank, inembed), oe(*rank, onembed);                           \
    set_plan(p, X(plan_many_dft_r2c)(*rank, nr.get(), *howmany, in, ie.get(), *istride, *idist,    \
                                     out, oe.get(), *ostride, *odist, unsigned(*flags)));          \
  }                                                                                                \
  ABFT_F77(F, plan_guru_dft_r2c, (F77Plan* p, const int* rank, const int* n, const int* is,        \
                                  const int* os, const int* hrank, const int* hn,                  \
                                  const int* his, const int* hos, R* in, C* out,                   \
                                  const int* flags)) {                                             \
    const auto d = iodims(*rank, n, is, os), h = iodims(*hrank, hn, his, hos);                     \
    set_plan(p, X(plan_guru_dft_r2c)(*rank, data_or_null(d), *hrank, data_or_null(h), in, out,     \
                                     unsigned(*flags)));                                           \
  }                                                                                                \
  ABFT_F77(F, plan_guru_split_dft_r2c, (F77Plan* p, const int* rank, const int* n,                 \
                                        const int* is, const int* os, const int* hrank,            \
                                        const int* hn, const int* his, const int* hos, R* in,      \
                                        R* ro, R* io, const int* flags)) {                         \
    const auto d = iodims(*rank, n, is, os), h = iodims(*hrank, hn, his, hos);                     \
    set_plan(p, X(plan_guru_split_dft_r2c)(*rank, data_or_null(d), *hrank, data_or_null(h), in,   \
                                           ro, io, unsigned(*flags)));                             \
  }                                                                                                \
  ABFT_F77(F, execute_dft_r2c, (const F77Plan* p, R* in, C* out)) {                                \
    X(execute_dft_r2c)(plan_of<X(plan)>(p), in, out);                                              \
  }                                                                                                \
  ABFT_F77(F, execute_split_dft_r2c, (const F77Plan* p, R* in, R* ro, R* io)) {                    \
    X(execute_split_dft_r2c)(plan_of<X(plan)>(p), in, ro, io);                                     \
  }                                                                                                \
                                                                                                   \
  /* Complex-to-real DFTs. */                                                                      \
  ABFT_F77(F, plan_dft_c2r, (F77Plan* p, const int* rank, const int* n, C* in, R* out,             \
                             const int* flags)) {                                                  \
    const Reversed nr(*rank, n);                                                                   \
    set_plan(p, X(plan_dft_c2r)(*rank, nr.get(), in, out, unsigned(*flags)));                      \
  }                                                                                                \
  ABFT_F77(F, plan_dft_c2r_1d, (F77Plan* p, const int* n, C* in, R* out, const int* flags)) {      \
    set_plan(p, X(plan_dft_c2r_1d)(*n, in, out, unsigned(*flags)));                                \
  }                                                                                                \
  ABFT_F77(F, plan_dft_c2r_2d, (F77Plan* p, const int* nx, const int* ny, C* in, R* out,           \
                                const int* flags)) {                                               \
    set_plan(p, X(plan_dft_c2r_2d)(*ny, *nx, in, out, unsigned(*flags)));                          \
  }                                                                                                \
  ABFT_F77(F, plan_dft_c2r_3d, (F77Plan* p, const int* nx, const int* ny, const int* nz, C* in,    \
                                R* out, const int* flags)) {                                       \
    set_plan(p, X(plan_dft_c2r_3d)(*nz, *ny, *nx, in, out, unsigned(*flags)));                     \
  }                                                                                                \
  ABFT_F77(F, plan_many_dft_c2r, (F77Plan* p, const int* rank, const int* n, const int* howmany,   \
                                  C* in, const int* inembed, const int* istride,                   \
                                  const int* idist, R* out, const int* onembed,                    \
                                  const int* ostride, const int* odist, const int* flags)) {       \
    const Reversed nr(*rank, n), ie(*rank, inembed), oe(*rank, onembed);                           \
    set_plan(p, X(plan_many_dft_c2r)(*rank, nr.get(), *howmany, in, ie.get(), *istride, *idist,    \
                                     out, oe.get(), *ostride, *odist, unsigned(*flags)));          \
  }                                                                                                \
  ABFT_F77(F, plan_guru_dft_c2r, (F77Plan* p, const int* rank, const int* n, const int* is,        \
                                  const int* os, const int* hrank, const int* hn,                  \
                                  const int* his, const int* hos, C* in, R* out,                   \
                                  const int* flags)) {                                             \
    const auto d = iodims(*rank, n, is, os), h = iodims(*hrank, hn, his, hos);                     \
    set_plan(p, X(plan_guru_dft_c2r)(*rank, data_or_null(d), *hrank, data_or_null(h), in, out,     \
                                     unsigned(*flags)));                                           \
  }                                                                                                \
  ABFT_F77(F, plan_guru_split_dft_c2r, (F77Plan* p, const int* rank, const int* n,                 \
                                        const int* is, const int* os, const int* hrank,            \
                                        const int* hn, const int* his, const int* hos, R* ri,      \
                                        R* ii, R* out, const int* flags)) {                        \
    const auto d = iodims(*rank, n, is, os), h = iodims(*hrank, hn, his, hos);                     \
    set_plan(p, X(plan_guru_split_dft_c2r)(*rank, data_or_null(d), *hrank, data_or_null(h), ri,    \
                                           ii, out, unsigned(*flags)));                            \
  }                                                                                                \
  ABFT_F77(F, execute_dft_c2r, (const F77Plan* p, C* in, R* out)) {                                \
    X(execute_dft_c2r)(plan_of<X(plan)>(p), in, out);                                              \
  }                                                                                                \
  ABFT_F77(F, execute_split_dft_c2r, (const F77Plan* p, R* ri, R* ii, R* out)) {                   \
    X(execute_split_dft_c2r)(plan_of<X(plan)>(p), ri, ii, out);                                    \
  }                                                                                                \
                                                                                                   \
  /* Real-to-real transforms: forwarded (the C planners refuse them: a 0 plan). */                 \
  ABFT_F77(F, plan_r2r, (F77Plan* p, const int* rank, const int* n, R* in, R* out,                 \
                         const int* kind, const int* flags)) {                                     \
    const Reversed nr(*rank, n);                                                                   \
    const auto k = kinds_reversed(*rank, kind);                                                    \
    set_plan(p, X(plan_r2r)(*rank, nr.get(), in, out, data_or_null(k), unsigned(*flags)));         \
  }                                                                                                \
  ABFT_F77(F, plan_r2r_1d, (F77Plan* p, const int* n, R* in, R* out, const int* kind,              \
                            const int* flags)) {                                                   \
    set_plan(p, X(plan_r2r_1d)(*n, in, out, X(r2r_kind)(*kind), unsigned(*flags)));                \
  }                                                                                                \
  ABFT_F77(F, plan_r2r_2d, (F77Plan* p, const int* nx, const int* ny, R* in, R* out,               \
                            const int* kindx, const int* kindy, const int* flags)) {               \
    set_plan(p, X(plan_r2r_2d)(*ny, *nx, in, out, X(r2r_kind)(*kindy), X(r2r_kind)(*kindx),        \
                               unsigned(*flags)));                                                 \
  }                                                                                                \
  ABFT_F77(F, plan_r2r_3d, (F77Plan* p, const int* nx, const int* ny, const int* nz, R* in,        \
                            R* out, const int* kindx, const int* kindy, const int* kindz,          \
                            const int* flags)) {                                                   \
    set_plan(p, X(plan_r2r_3d)(*nz, *ny, *nx, in, out, X(r2r_kind)(*kindz), X(r2r_kind)(*kindy),   \
                               X(r2r_kind)(*kindx), unsigned(*flags)));                            \
  }                                                                                                \
  ABFT_F77(F, plan_many_r2r, (F77Plan* p, const int* rank, const int* n, const int* howmany,       \
                              R* in, const int* inembed, const int* istride, const int* idist,     \
                              R* out, const int* onembed, const int* ostride, const int* odist,    \
                              const int* kind, const int* flags)) {                                \
    const Reversed nr(*rank, n), ie(*rank, inembed), oe(*rank, onembed);                           \
    const auto k = kinds_reversed(*rank, kind);                                                    \
    set_plan(p, X(plan_many_r2r)(*rank, nr.get(), *howmany, in, ie.get(), *istride, *idist, out,   \
                                 oe.get(), *ostride, *odist, data_or_null(k), unsigned(*flags)));  \
  }                                                                                                \
  ABFT_F77(F, plan_guru_r2r, (F77Plan* p, const int* rank, const int* n, const int* is,            \
                              const int* os, const int* hrank, const int* hn, const int* his,      \
                              const int* hos, R* in, R* out, const int* kind, const int* flags)) { \
    const auto d = iodims(*rank, n, is, os), h = iodims(*hrank, hn, his, hos);                     \
    const auto k = kinds_reversed(*rank, kind);                                                    \
    set_plan(p, X(plan_guru_r2r)(*rank, data_or_null(d), *hrank, data_or_null(h), in, out,         \
                                 data_or_null(k), unsigned(*flags)));                              \
  }                                                                                                \
  ABFT_F77(F, execute_r2r, (const F77Plan* p, R* in, R* out)) {                                    \
    X(execute_r2r)(plan_of<X(plan)>(p), in, out);                                                  \
  }                                                                                                \
  } /* extern "C" */

#define ABFT_F77_D(name) dfftw_##name
#define ABFT_F77_S(name) sfftw_##name

ABFT_FFTW_F77_DEFINE(ABFT_FFTW_D, ABFT_F77_D, double, fftw_complex)
ABFT_FFTW_F77_DEFINE(ABFT_FFTW_F, ABFT_F77_S, float, fftwf_complex)
