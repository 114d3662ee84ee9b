/** \file fftw_plan.hpp
 *  \brief What an fftw_plan / fftwf_plan points to: the problem, the protected engine's
 *  plan that computes it, and the arrays it was planned with.
 *
 *  Interleaved problems map straight onto one engine plan (abft_fft_plan_guru), strides
 *  and all. Split problems (separate real and imaginary arrays) run the engine on a
 *  contiguous interleaved copy of their complex side: gathered before, scattered after.
 */
#pragma once
#include <string>
#include <vector>

#include "abft/fft.h"
#include "fftw/fftw_problem.hpp"

namespace abft::fftw {

/** The arrays of one execution. Interleaved: in, out. Split: re/im of the complex
 *  side(s): c2c (in, in_im) -> (out, out_im); r2c in -> (out, out_im); c2r (in, in_im) -> out. */
struct Arrays {
  void* in = nullptr;
  void* in_im = nullptr;
  void* out = nullptr;
  void* out_im = nullptr;
};

class PlanImpl {
 public:
  /** The plan for `pb`, or nullptr with the reason in `why` (FFTW's "no plan"). */
  static PlanImpl* create(const Problem& pb, const Arrays& planned, std::string& why);
  ~PlanImpl();
  PlanImpl(const PlanImpl&) = delete;
  PlanImpl& operator=(const PlanImpl&) = delete;

  /** One execution on `a` (laid out as the plan's problem says). Records the call in the
   *  FFTW runtime's statistics; a negative status means nothing was written. */
  abft_status run(const Arrays& a) const;

  const Problem& problem() const { return pb_; }
  const Arrays& planned() const { return planned_; }
  /** FFTW-style one-line description: "(abft-dft <problem> : <engine decomposition>)". */
  std::string describe() const;
  /** Nominal real operations of one execution (FFTW's 5 n log2 n convention). */
  double flops() const { return flops_; }

 private:
  PlanImpl() = default;
  template <class R>
  abft_status run_split(const Arrays& a, abft_report& rep) const;

  Problem pb_;
  Arrays planned_;
  abft_fft_plan_t eng_ = nullptr;  ///< nullptr: an empty batch (nothing to compute)
  double flops_ = 0.0;
  // Split problems: the complex side's shape (loops then dims), the split arrays'
  // strides over it, and the contiguous interleaved copy's size in complex elements.
  std::vector<int64_t> cshape_, cstride_in_, cstride_out_;
  int64_t celems_ = 0;
};

/** Statistics row of a problem: fftw_c2c, fftw_r2c, fftw_c2r, then the fftwf_ ones. */
int stats_row(abft_precision prec, abft_fft_kind kind);

}  // namespace abft::fftw
