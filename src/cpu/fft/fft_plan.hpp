/** \file fft_plan.hpp
 *  \brief The FFT plan: passes of checked units over strided arrays (batches,
 *  the dimensions of an nD transform), their execution with checks, repair,
 *  injection and statistics.
 */
#pragma once
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "abft/fft.h"
#include "core/internal.hpp"
#include "cpu/fft/fft_line.hpp"

struct abft_fft_plan_s {
  virtual ~abft_fft_plan_s() = default;
  abft_handle_t h = nullptr;
  abft_policy policy = ABFT_POLICY_DEFAULT;
  int threads = 0;
  abft_precision prec = ABFT_PRECISION_DOUBLE;
  abft_fft_kind kind = ABFT_FFT_C2C;
  int sign = -1;
  unsigned flags = 0;
  std::vector<abft_fft_dim> dims, loops;  // transform dims, howmany dims
  std::string desc;
  double flops = 0;
  int64_t units = 0;
  int64_t in_span = 0, out_span = 0;  // scalars
  virtual abft_status execute(const void* in, void* out, abft_report* report) = 0;
};

namespace abft::cpu::fft {

/** One loop dimension of a pass, strides in scalars of the arrays. */
struct LoopDim {
  int64_t n, is, os;
};

template <class T>
struct Pass {
  LinePlan<T>* line = nullptr;
  std::vector<LoopDim> loops;
  int64_t line_is = 0, line_os = 0;  // scalars between consecutive line elements
  int64_t nlines = 0, unit_base = 0;
  int src = 0, dst = 1;  // 0 user input, 1 user output, 2 temporary
};

template <class T>
class FftPlan final : public abft_fft_plan_s {
 public:
  /** Builds lines and passes; dims/loops validated by the caller. */
  abft_status build();
  abft_status execute(const void* in, void* out, abft_report* report) override;

 private:
  LinePlan<T>* line_for(abft_fft_kind k, int64_t n, int sign);
  abft_status check_in_place() const;

  std::vector<std::unique_ptr<LinePlan<T>>> lines_;
  std::vector<Pass<T>> passes_;
  // C2R of rank >= 2 works on a contiguous copy of its input (never writes the input).
  std::vector<LoopDim> temp_copy_;  // loops of the copy, is in input scalars, os in temp scalars
  int64_t temp_scalars_ = 0;
  int64_t lines_total_ = 0;
  int64_t in_lo_ = 0, in_hi_ = 0, out_lo_ = 0, out_hi_ = 0;  // array extents, scalars  // lines over all passes (the injector's unit index range)
  std::mutex repair_mu_;
  /** Executions under injection share it; one that corrupts a table holds it alone. */
  std::shared_mutex tables_mu_;
};

}  // namespace abft::cpu::fft
