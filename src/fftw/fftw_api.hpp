/** \file fftw_api.hpp
 *  \brief The FFTW3 entry points, once for both precisions: each planner turns its
 *  arguments into a Problem (basic -> advanced -> guru64, FFTW's own layering), each
 *  executor into the Arrays of one run. fftw_symbols.cpp gives them their C names.
 */
#pragma once
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "abft/fftw3.h"
#include "fftw/fftw_plan.hpp"
#include "fftw/fftw_problem.hpp"
#include "fftw/fftw_runtime.hpp"
#include "fftw/fftw_wisdom.hpp"

namespace abft::fftw {

template <class R>
struct Api {
  static constexpr abft_precision kPrec =
      sizeof(R) == sizeof(float) ? ABFT_PRECISION_FLOAT : ABFT_PRECISION_DOUBLE;

  /** Plan a problem: WISDOM_ONLY without wisdom gives NULL quietly, an impossible
   *  problem gives NULL with a message once. */
  static PlanImpl* plan(Problem pb, const Arrays& planned, const char* entry) {
    pb.prec = kPrec;
    std::lock_guard<std::mutex> g(planner_mutex());
    if ((pb.flags & FFTW_WISDOM_ONLY) && !wisdom_has(pb, rigor_of(pb.flags))) return nullptr;
    std::string why;
    PlanImpl* p = PlanImpl::create(pb, planned, why);
    if (!p) {
      warn_once(std::string(entry) + ": no plan for this problem (" + why + "); returning NULL");
      return nullptr;
    }
    wisdom_add(pb);
    return p;
  }
  static PlanImpl* refuse(const char* entry, const char* why) {
    warn_once(std::string(entry) + ": " + why + "; returning NULL");
    return nullptr;
  }

  template <class I>
  static bool guru_dims(int rank, const I* dims, std::vector<Dim>& out) {
    if (rank < 0 || (rank > 0 && !dims)) return false;
    for (int i = 0; i < rank; ++i) out.push_back(Dim{int64_t(dims[i].n), int64_t(dims[i].is), int64_t(dims[i].os)});
    return true;
  }

  /** plan_guru(64)_dft and its r2c/c2r forms. */
  template <class I>
  static PlanImpl* guru(const char* entry, abft_fft_kind kind, int rank, const I* dims, int hrank,
                        const I* hdims, void* in, void* out, int sign, unsigned flags) {
    Problem pb;
    pb.kind = kind;
    pb.sign = kind == ABFT_FFT_C2C ? sign : kind == ABFT_FFT_R2C ? -1 : +1;
    if (kind == ABFT_FFT_C2C && sign != -1 && sign != +1) return refuse(entry, "sign must be FFTW_FORWARD or FFTW_BACKWARD");
    if (!guru_dims(rank, dims, pb.dims) || !guru_dims(hrank, hdims, pb.loops))
      return refuse(entry, "rank or howmany_rank is negative, or its dimensions are NULL");
    if (kind != ABFT_FFT_C2C && rank == 0) return refuse(entry, "a real transform needs rank >= 1");
    pb.inplace = in == out;
    pb.flags = flags;
    Arrays a;
    a.in = in;
    a.out = out;
    return plan(pb, a, entry);
  }

  /** plan_guru(64)_split_dft and its r2c/c2r forms: the arrays of the complex side(s)
   *  are (re, im) pairs; c2c is forward (FFTW: swap re and im for backward). */
  template <class I>
  static PlanImpl* guru_split(const char* entry, abft_fft_kind kind, int rank, const I* dims,
                              int hrank, const I* hdims, const Arrays& a, unsigned flags) {
    Problem pb;
    pb.kind = kind;
    pb.sign = kind == ABFT_FFT_C2R ? +1 : -1;
    pb.split = true;
    if (!guru_dims(rank, dims, pb.dims) || !guru_dims(hrank, hdims, pb.loops))
      return refuse(entry, "rank or howmany_rank is negative, or its dimensions are NULL");
    if (kind != ABFT_FFT_C2C && rank == 0) return refuse(entry, "a real transform needs rank >= 1");
    pb.inplace = a.in == a.out;
    pb.flags = flags;
    return plan(pb, a, entry);
  }

  /** The advanced interface (plan_many_dft, _r2c, _c2r); the basic one calls it with
   *  howmany 1, NULL embeds, unit strides. */
  static PlanImpl* many(const char* entry, abft_fft_kind kind, int rank, const int* n,
                        int howmany, void* in, const int* inembed, int istride, int idist,
                        void* out, const int* onembed, int ostride, int odist, int sign,
                        unsigned flags) {
    if (rank < 0 || (rank > 0 && !n) || howmany < 0)
      return refuse(entry, "rank or howmany is negative, or n is NULL");
    for (int i = 0; i < rank; ++i)
      if (n[i] < 1) return refuse(entry, "a transform length is < 1");
    const bool inplace = in == out;
    Side in_side = Side::Complex, out_side = Side::Complex;
    if (kind == ABFT_FFT_R2C) {
      in_side = (inplace && !inembed) ? Side::PaddedReal : Side::Real;
      out_side = Side::HalfComplex;
    } else if (kind == ABFT_FFT_C2R) {
      in_side = Side::HalfComplex;
      out_side = (inplace && !onembed) ? Side::PaddedReal : Side::Real;
    }
    std::vector<int64_t> is, os;
    strides_from_embed(rank, n, inembed, istride, in_side, is);
    strides_from_embed(rank, n, onembed, ostride, out_side, os);
    std::vector<fftw_iodim64_like> dims(static_cast<size_t>(rank)), loop(1);
    for (int i = 0; i < rank; ++i) dims[size_t(i)] = {n[i], is[size_t(i)], os[size_t(i)]};
    loop[0] = {howmany, idist, odist};
    return guru(entry, kind, rank, dims.data(), 1, loop.data(), in, out, sign, flags);
  }
  struct fftw_iodim64_like {
    int64_t n, is, os;
  };

  /** The basic interface: contiguous rank-d arrays, FFTW's in-place padding for r2c/c2r. */
  static PlanImpl* basic(const char* entry, abft_fft_kind kind, int rank, const int* n, void* in,
                         void* out, int sign, unsigned flags) {
    return many(entry, kind, rank, n, 1, in, nullptr, 1, 0, out, nullptr, 1, 0, sign, flags);
  }

  /** One execution; a refused one (bad arrays) says why once and writes nothing. */
  static void run(const PlanImpl* p, const Arrays& a, const char* entry) {
    if (!p) {
      warn_once(std::string(entry) + ": NULL plan; nothing done");
      return;
    }
    const abft_status st = p->run(a);
    if (st < 0)
      warn_once(std::string(entry) + ": " + abft_status_string(st) + "; nothing was written");
    else if (st == ABFT_STATUS_FAULT_UNCORRECTABLE)
      warn_once(std::string(entry) + ": a fault could not be corrected (ABFT_REPORT counts them)");
  }
  static bool kind_is(const PlanImpl* p, abft_fft_kind k, const char* entry) {
    if (p && p->problem().kind != k) {
      warn_once(std::string(entry) + ": the plan is of another kind (c2c/r2c/c2r); nothing done");
      return false;
    }
    return true;
  }
  /** New interleaved arrays for a plan (a split plan reads them as re at p, im at p + 1). */
  static void execute_interleaved(const PlanImpl* p, abft_fft_kind k, void* in, void* out,
                                  const char* entry) {
    if (!kind_is(p, k, entry)) return;
    Arrays a;
    a.in = in;
    a.out = out;
    if (p && p->problem().split) {
      if (k != ABFT_FFT_R2C) a.in_im = in ? static_cast<R*>(in) + 1 : nullptr;
      if (k != ABFT_FFT_C2R) a.out_im = out ? static_cast<R*>(out) + 1 : nullptr;
    }
    run(p, a, entry);
  }
  /** New split arrays for a plan (an interleaved plan takes them when im == re + 1). */
  static void execute_split(const PlanImpl* p, abft_fft_kind k, const Arrays& a, const char* entry) {
    if (!kind_is(p, k, entry)) return;
    if (p && !p->problem().split) {
      const bool in_ok = k == ABFT_FFT_R2C || static_cast<R*>(a.in_im) == static_cast<R*>(a.in) + 1;
      const bool out_ok = k == ABFT_FFT_C2R || static_cast<R*>(a.out_im) == static_cast<R*>(a.out) + 1;
      if (!in_ok || !out_ok) {
        warn_once(std::string(entry) + ": split arrays on an interleaved plan need im == re + 1; nothing done");
        return;
      }
      Arrays b;
      b.in = a.in;
      b.out = a.out;
      run(p, b, entry);
      return;
    }
    run(p, a, entry);
  }

  static char* dup(const std::string& s) {
    char* c = static_cast<char*>(std::malloc(s.size() + 1));
    if (c) std::memcpy(c, s.c_str(), s.size() + 1);
    return c;
  }
  static void* aligned(size_t bytes) {
    void* p = nullptr;
    if (posix_memalign(&p, 64, bytes ? bytes : 1) != 0) return nullptr;
    return p;
  }
  static void* array(size_t n, size_t elem) {
    if (n && elem > SIZE_MAX / n) return nullptr;
    return aligned(n * elem);
  }
};

}  // namespace abft::fftw
