/** \file fftw_problem.hpp
 *  \brief One FFTW planning request in a single form (FFTW's guru64 tensor), whatever
 *  interface it came through, and the rules that turn the basic and advanced ("many")
 *  interfaces into it.
 */
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "abft/fft.h"

namespace abft::fftw {

/** Length and strides of one dimension, in elements of the array each stride indexes
 *  (reals for a real or split array, complex pairs for an interleaved complex one). */
struct Dim {
  int64_t n, is, os;
};

struct Problem {
  abft_precision prec = ABFT_PRECISION_DOUBLE;
  abft_fft_kind kind = ABFT_FFT_C2C;
  int sign = -1;          ///< C2C: -1/+1; R2C -1; C2R +1
  std::vector<Dim> dims;  ///< transform dimensions; for R2C/C2R the last n is the real length
  std::vector<Dim> loops; ///< howmany (batch) dimensions
  bool split = false;     ///< the complex side(s) are separate real/imaginary arrays
  bool inplace = false;   ///< input and output were the same memory at plan time
  unsigned flags = 0;     ///< FFTW planner flags as given

  /** Canonical text of the problem: the wisdom key and the plan description's head. */
  std::string key() const;
};

/** Planning rigor FFTW's flags ask for: 0 estimate, 1 measure, 2 patient, 3 exhaustive. */
int rigor_of(unsigned flags);

/** The advanced interface's layout rule: dimensions of the array an embed describes
 *  (NULL: the logical shape), row-major strides from it, the innermost stride `stride`.
 *  `real_side`/`complex_side` apply FFTW's r2c/c2r shapes: the complex side's last
 *  dimension has n/2+1 elements, and with a NULL embed an in-place real side is padded
 *  to 2*(n/2+1). */
enum class Side { Complex, HalfComplex, Real, PaddedReal };
void strides_from_embed(int rank, const int* n, const int* embed, int64_t stride, Side side,
                        std::vector<int64_t>& strides);

}  // namespace abft::fftw
