/** \file fft_api.cpp
 *  \brief C API of the FFT: argument checks (one place), plan creation in the
 *  guru form, the many/dft/1d conveniences, execution and queries.
 */
#include <limits>
#include <new>

#include "cpu/fft/fft_plan.hpp"

namespace {

using abft::cpu::fft::FftPlan;

constexpr int kMaxRank = 16;

bool mul_ok(int64_t a, int64_t b, int64_t& out) {
  if (a < 0 || b < 0) return false;
  if (a != 0 && b > std::numeric_limits<int64_t>::max() / a) return false;
  out = a * b;
  return true;
}

abft_status validate(abft_fft_plan_t* out, abft_precision prec, abft_fft_kind kind, int rank,
                     const abft_fft_dim* dims, int howmany_rank, const abft_fft_dim* howmany, int sign,
                     unsigned flags) {
  if (!out) return ABFT_STATUS_NULL_POINTER;
  if (prec != ABFT_PRECISION_FLOAT && prec != ABFT_PRECISION_DOUBLE) return ABFT_STATUS_INVALID_VALUE;
  if (kind != ABFT_FFT_C2C && kind != ABFT_FFT_R2C && kind != ABFT_FFT_C2R) return ABFT_STATUS_INVALID_VALUE;
  if (flags & ~unsigned(ABFT_FFT_FLAGS_ALL_)) return ABFT_STATUS_INVALID_VALUE;
  if ((flags & ABFT_FFT_PRESERVE_INPUT) && (flags & ABFT_FFT_DESTROY_INPUT)) return ABFT_STATUS_INVALID_VALUE;
  if (kind == ABFT_FFT_C2C && sign != ABFT_FFT_FORWARD && sign != ABFT_FFT_BACKWARD) return ABFT_STATUS_INVALID_VALUE;
  if (kind == ABFT_FFT_R2C && sign != ABFT_FFT_FORWARD && sign != 0) return ABFT_STATUS_INVALID_VALUE;
  if (kind == ABFT_FFT_C2R && sign != ABFT_FFT_BACKWARD && sign != 0) return ABFT_STATUS_INVALID_VALUE;
  if (rank < 1 || rank > kMaxRank) return ABFT_STATUS_INVALID_SIZE;
  if (howmany_rank < 0 || howmany_rank > kMaxRank) return ABFT_STATUS_INVALID_SIZE;
  if (!dims) return ABFT_STATUS_NULL_POINTER;
  if (howmany_rank > 0 && !howmany) return ABFT_STATUS_NULL_POINTER;
  int64_t total = 1;
  for (int d = 0; d < rank; ++d) {
    if (dims[d].n < 1) return ABFT_STATUS_INVALID_SIZE;
    if (dims[d].n > 1 && (dims[d].is == 0 || dims[d].os == 0)) return ABFT_STATUS_INVALID_LD;
    if (!mul_ok(total, dims[d].n, total)) return ABFT_STATUS_INVALID_SIZE;
  }
  for (int d = 0; d < howmany_rank; ++d) {
    if (howmany[d].n < 0) return ABFT_STATUS_INVALID_SIZE;
    if (!mul_ok(total, howmany[d].n, total)) return ABFT_STATUS_INVALID_SIZE;
  }
  if (total > (int64_t(1) << 46)) return ABFT_STATUS_INVALID_SIZE;
  return ABFT_STATUS_SUCCESS;
}

template <class T>
abft_status create(abft_fft_plan_t* out, abft_handle_t h, abft_precision prec, abft_fft_kind kind, int rank,
                   const abft_fft_dim* dims, int howmany_rank, const abft_fft_dim* howmany, int sign,
                   unsigned flags) {
  FftPlan<T>* p = new (std::nothrow) FftPlan<T>();
  if (!p) return ABFT_STATUS_ALLOC_FAILED;
  p->h = h;
  p->prec = prec;
  p->kind = kind;
  p->sign = kind == ABFT_FFT_C2C ? sign : (kind == ABFT_FFT_R2C ? -1 : +1);
  p->flags = flags;
  p->dims.assign(dims, dims + rank);
  if (howmany_rank > 0) p->loops.assign(howmany, howmany + howmany_rank);
  abft_status s;
  try {
    s = p->build();
  } catch (const std::bad_alloc&) {
    s = ABFT_STATUS_ALLOC_FAILED;
  } catch (...) {
    s = ABFT_STATUS_INTERNAL_ERROR;
  }
  if (s != ABFT_STATUS_SUCCESS) {
    delete p;
    return s;
  }
  *out = p;
  return ABFT_STATUS_SUCCESS;
}

}  // namespace

extern "C" abft_status abft_fft_plan_guru(abft_fft_plan_t* out, abft_handle_t h, abft_precision prec,
                                          abft_fft_kind kind, int rank, const abft_fft_dim* dims,
                                          int howmany_rank, const abft_fft_dim* howmany, int sign,
                                          unsigned flags) {
  const abft_status s = validate(out, prec, kind, rank, dims, howmany_rank, howmany, sign, flags);
  if (s != ABFT_STATUS_SUCCESS) return s;
  *out = nullptr;
  return prec == ABFT_PRECISION_FLOAT
             ? create<float>(out, h, prec, kind, rank, dims, howmany_rank, howmany, sign, flags)
             : create<double>(out, h, prec, kind, rank, dims, howmany_rank, howmany, sign, flags);
}

extern "C" abft_status abft_fft_plan_many(abft_fft_plan_t* out, abft_handle_t h, abft_precision prec,
                                          abft_fft_kind kind, int rank, const int64_t* n, int64_t howmany,
                                          const int64_t* inembed, int64_t istride, int64_t idist,
                                          const int64_t* onembed, int64_t ostride, int64_t odist, int sign,
                                          unsigned flags) {
  if (!out) return ABFT_STATUS_NULL_POINTER;
  if (rank < 1 || rank > kMaxRank) return ABFT_STATUS_INVALID_SIZE;
  if (!n) return ABFT_STATUS_NULL_POINTER;
  if (howmany < 0) return ABFT_STATUS_INVALID_SIZE;
  for (int d = 0; d < rank; ++d)
    if (n[d] < 1) return ABFT_STATUS_INVALID_SIZE;
  if (istride == 0 || ostride == 0) return ABFT_STATUS_INVALID_LD;
  // Logical extents of each side: the complex side of R2C/C2R has n/2+1 in
  // the last dimension. Embeds must hold them (FFTW ignores inembed[0]).
  const int64_t h1 = n[rank - 1] / 2 + 1;
  auto extent = [&](int d, bool complex_side) {
    return (d == rank - 1 && kind != ABFT_FFT_C2C && complex_side) ? h1 : n[d];
  };
  const bool in_cplx = kind != ABFT_FFT_R2C, out_cplx = kind != ABFT_FFT_C2R;
  abft_fft_dim dims[kMaxRank];
  int64_t si = istride, so = ostride;
  for (int d = rank - 1; d >= 0; --d) {
    dims[d].n = n[d];
    dims[d].is = si;
    dims[d].os = so;
    const int64_t ei = inembed ? inembed[d] : extent(d, in_cplx);
    const int64_t eo = onembed ? onembed[d] : extent(d, out_cplx);
    if (d > 0 && (ei < extent(d, in_cplx) || eo < extent(d, out_cplx))) return ABFT_STATUS_INVALID_LD;
    if (!mul_ok(std::abs(si), ei, si) && ei > 0) return ABFT_STATUS_INVALID_SIZE;
    if (!mul_ok(std::abs(so), eo, so) && eo > 0) return ABFT_STATUS_INVALID_SIZE;
    si = dims[d].is < 0 ? -si : si;
    so = dims[d].os < 0 ? -so : so;
  }
  abft_fft_dim hm{howmany, idist, odist};
  return abft_fft_plan_guru(out, h, prec, kind, rank, dims, 1, &hm, sign, flags);
}

extern "C" abft_status abft_fft_plan_dft(abft_fft_plan_t* out, abft_handle_t h, abft_precision prec,
                                         abft_fft_kind kind, int rank, const int64_t* n, int sign,
                                         unsigned flags) {
  return abft_fft_plan_many(out, h, prec, kind, rank, n, 1, nullptr, 1, 0, nullptr, 1, 0, sign, flags);
}

extern "C" abft_status abft_fft_plan_1d(abft_fft_plan_t* out, abft_handle_t h, abft_precision prec,
                                        abft_fft_kind kind, int64_t n, int sign, unsigned flags) {
  return abft_fft_plan_dft(out, h, prec, kind, 1, &n, sign, flags);
}

extern "C" abft_status abft_fft_destroy(abft_fft_plan_t p) {
  delete p;
  return ABFT_STATUS_SUCCESS;
}

extern "C" abft_status abft_fft_execute(abft_fft_plan_t p, const void* in, void* out, abft_report* report) {
  if (!p) return ABFT_STATUS_NULL_POINTER;
  try {
    return p->execute(in, out, report);
  } catch (const std::bad_alloc&) {
    return ABFT_STATUS_ALLOC_FAILED;
  } catch (...) {
    return ABFT_STATUS_INTERNAL_ERROR;
  }
}

extern "C" abft_status abft_fft_set_policy(abft_fft_plan_t p, abft_policy policy) {
  if (!p) return ABFT_STATUS_NULL_POINTER;
  if (policy != ABFT_POLICY_DEFAULT && policy != ABFT_POLICY_OFF && policy != ABFT_POLICY_DETECT &&
      policy != ABFT_POLICY_CORRECT)
    return ABFT_STATUS_INVALID_VALUE;
  p->policy = policy;
  return ABFT_STATUS_SUCCESS;
}

extern "C" abft_status abft_fft_set_threads(abft_fft_plan_t p, int nthreads) {
  if (!p) return ABFT_STATUS_NULL_POINTER;
  if (nthreads < 0) return ABFT_STATUS_INVALID_VALUE;
  p->threads = nthreads;
  return ABFT_STATUS_SUCCESS;
}

extern "C" const char* abft_fft_describe(abft_fft_plan_t p) { return p ? p->desc.c_str() : "(null plan)"; }

extern "C" abft_status abft_fft_flops(abft_fft_plan_t p, double* flops, int64_t* units) {
  if (!p) return ABFT_STATUS_NULL_POINTER;
  if (flops) *flops = p->flops;
  if (units) *units = p->units;
  return ABFT_STATUS_SUCCESS;
}

extern "C" abft_status abft_fft_array_sizes(abft_fft_plan_t p, int64_t* in_scalars, int64_t* out_scalars) {
  if (!p) return ABFT_STATUS_NULL_POINTER;
  if (in_scalars) *in_scalars = p->in_span;
  if (out_scalars) *out_scalars = p->out_span;
  return ABFT_STATUS_SUCCESS;
}
