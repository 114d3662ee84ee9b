/** \file fftw_plan.cpp
 *  \brief FFTW problems onto the protected engine: plan creation, execution (split arrays
 *  through a contiguous interleaved copy), description and operation count.
 */
#include "fftw/fftw_plan.hpp"

#include <new>

#include "abft/fftw3.h"
#include "fftw/fftw_runtime.hpp"

namespace abft::fftw {
namespace {

std::vector<abft_fft_dim> engine_dims(const std::vector<Dim>& v) {
  std::vector<abft_fft_dim> out;
  for (const Dim& d : v) out.push_back(abft_fft_dim{d.n, d.is, d.os});
  return out;
}

unsigned engine_flags(const Problem& pb) {
  unsigned f = 0;
  if (pb.flags & FFTW_PRESERVE_INPUT) f |= ABFT_FFT_PRESERVE_INPUT;
  // FFTW's default for c2r is DESTROY_INPUT; for everything else PRESERVE_INPUT.
  else if ((pb.flags & FFTW_DESTROY_INPUT) || pb.kind == ABFT_FFT_C2R) f |= ABFT_FFT_DESTROY_INPUT;
  if (pb.flags & FFTW_UNALIGNED) f |= ABFT_FFT_UNALIGNED;
  return f;
}

/** Calls f(split_offset, contiguous_index) for every index of `shape` (row-major). */
template <class F>
void for_each_index(const std::vector<int64_t>& shape, const std::vector<int64_t>& stride, F f) {
  const size_t r = shape.size();
  std::vector<int64_t> idx(r, 0);
  int64_t total = 1;
  for (int64_t n : shape) total *= n;
  int64_t off = 0;
  for (int64_t lin = 0; lin < total; ++lin) {
    f(off, lin);
    for (size_t d = r; d-- > 0;) {  // odometer step
      off += stride[d];
      if (++idx[d] < shape[d]) break;
      off -= stride[d] * shape[d];
      idx[d] = 0;
    }
  }
}

}  // namespace

int stats_row(abft_precision prec, abft_fft_kind kind) {
  return (prec == ABFT_PRECISION_FLOAT ? 3 : 0) + int(kind);
}

PlanImpl* PlanImpl::create(const Problem& pb_in, const Arrays& planned, std::string& why) {
  Problem pb = pb_in;
  for (const Dim& d : pb.dims)
    if (d.n < 1) { why = "a transform dimension has length < 1"; return nullptr; }
  bool empty = false;
  for (const Dim& d : pb.loops) {
    if (d.n < 0) { why = "a howmany dimension has length < 0"; return nullptr; }
    empty = empty || d.n == 0;
  }
  // Rank 0 (FFTW: copy each element of the batch) is a length-1 transform.
  if (pb.dims.empty()) pb.dims.push_back(Dim{1, 1, 1});

  PlanImpl* p = new (std::nothrow) PlanImpl();
  if (!p) { why = "out of memory"; return nullptr; }
  p->pb_ = pb_in;
  p->planned_ = planned;
  if (empty) return p;  // nothing to compute: executions are no-ops

  const int rank = int(pb.dims.size());
  std::vector<Dim> dims = pb.dims, loops = pb.loops;
  if (pb.split) {
    // The complex side's shape, loops outermost; its contiguous interleaved strides.
    for (const Dim& d : loops) p->cshape_.push_back(d.n);
    for (const Dim& d : dims) p->cshape_.push_back(d.n);
    if (pb.kind != ABFT_FFT_C2C) p->cshape_.back() = p->cshape_.back() / 2 + 1;
    std::vector<int64_t> contig(p->cshape_.size());
    int64_t s = 1;
    for (size_t i = contig.size(); i-- > 0;) {
      contig[i] = s;
      s *= p->cshape_[i];
    }
    p->celems_ = s;
    for (const Dim& d : loops) { p->cstride_in_.push_back(d.is); p->cstride_out_.push_back(d.os); }
    for (const Dim& d : dims) { p->cstride_in_.push_back(d.is); p->cstride_out_.push_back(d.os); }
    const size_t nl = loops.size();
    for (size_t i = 0; i < contig.size(); ++i) {
      Dim& d = i < nl ? loops[i] : dims[i - nl];
      if (pb.kind != ABFT_FFT_R2C) d.is = contig[i];  // complex input read from the copy
      if (pb.kind != ABFT_FFT_C2R) d.os = contig[i];  // complex output written to the copy
    }
  }
  const std::vector<abft_fft_dim> ed = engine_dims(dims), el = engine_dims(loops);
  // The engine chooses decompositions for the thread count the plan is made for, which
  // it takes from the handle: give it this plan's (the caller holds the planner lock,
  // and every plan's executions use their own count, set below, not the handle's).
  const int nthreads = plan_threads(pb.prec);
  abft_handle_set_threads(runtime().handle(), nthreads);
  const abft_status st =
      abft_fft_plan_guru(&p->eng_, runtime().handle(), pb.prec, pb.kind, rank, ed.data(),
                         int(el.size()), el.empty() ? nullptr : el.data(),
                         pb.split ? (pb.kind == ABFT_FFT_C2R ? +1 : -1) : pb.sign,
                         engine_flags(pb));
  if (st != ABFT_STATUS_SUCCESS) {
    why = abft_status_string(st);
    p->eng_ = nullptr;
    delete p;
    return nullptr;
  }
  abft_fft_set_threads(p->eng_, nthreads);
  int64_t units = 0;
  abft_fft_flops(p->eng_, &p->flops_, &units);
  return p;
}

PlanImpl::~PlanImpl() {
  if (eng_) abft_fft_destroy(eng_);
}

template <class R>
abft_status PlanImpl::run_split(const Arrays& a, abft_report& rep) const {
  const abft_fft_kind kind = pb_.kind;
  if (!a.in || !a.out || (kind != ABFT_FFT_R2C && !a.in_im) || (kind != ABFT_FFT_C2R && !a.out_im))
    return ABFT_STATUS_NULL_POINTER;
  std::vector<R> tmp;
  try {
    tmp.resize(size_t(2 * celems_));
  } catch (const std::bad_alloc&) {
    return ABFT_STATUS_ALLOC_FAILED;
  }
  R* t = tmp.data();
  if (kind != ABFT_FFT_R2C) {
    const R* re = static_cast<const R*>(a.in);
    const R* im = static_cast<const R*>(a.in_im);
    for_each_index(cshape_, cstride_in_, [&](int64_t off, int64_t lin) {
      t[2 * lin] = re[off];
      t[2 * lin + 1] = im[off];
    });
  }
  const abft_status st = abft_fft_execute(eng_, kind == ABFT_FFT_R2C ? a.in : t,
                                          kind == ABFT_FFT_C2R ? a.out : t, &rep);
  if (st < 0 || kind == ABFT_FFT_C2R) return st;
  R* re = static_cast<R*>(a.out);
  R* im = static_cast<R*>(a.out_im);
  for_each_index(cshape_, cstride_out_, [&](int64_t off, int64_t lin) {
    re[off] = t[2 * lin];
    im[off] = t[2 * lin + 1];
  });
  return st;
}

abft_status PlanImpl::run(const Arrays& a) const {
  shim::Call call(runtime(), stats_row(pb_.prec, pb_.kind));
  abft_report rep{};
  abft_status st = ABFT_STATUS_SUCCESS;
  if (!eng_) {
    // an empty batch: nothing to do
  } else if (!pb_.split) {
    st = abft_fft_execute(eng_, a.in, a.out, &rep);
  } else {
    st = pb_.prec == ABFT_PRECISION_FLOAT ? run_split<float>(a, rep) : run_split<double>(a, rep);
  }
  call.absorb(rep, st);
  return st;
}

std::string PlanImpl::describe() const {
  std::string s = "(abft-dft " + pb_.key();
  if (eng_) {
    s += " : ";
    s += abft_fft_describe(eng_);
  } else {
    s += " : empty batch";
  }
  if (pb_.split) s += " via an interleaved copy";
  return s + ")";
}

}  // namespace abft::fftw
