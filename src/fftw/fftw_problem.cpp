/** \file fftw_problem.cpp
 *  \brief Problem keys, planner rigor and the advanced interface's layout rule.
 */
#include "fftw/fftw_problem.hpp"

#include <cstdio>

#include "abft/fftw3.h"

namespace abft::fftw {

std::string Problem::key() const {
  static const char* kinds[] = {"c2c", "r2c", "c2r"};
  std::string s = prec == ABFT_PRECISION_FLOAT ? "float " : "double ";
  s += kinds[int(kind)];
  s += sign < 0 ? " fwd" : " bwd";
  char buf[96];
  auto dims_text = [&](const std::vector<Dim>& v) {
    s += " [";
    for (size_t i = 0; i < v.size(); ++i) {
      std::snprintf(buf, sizeof buf, "%s%lld:%lld:%lld", i ? " " : "", (long long)v[i].n,
                    (long long)v[i].is, (long long)v[i].os);
      s += buf;
    }
    s += "]";
  };
  dims_text(dims);
  dims_text(loops);
  if (split) s += " split";
  if (inplace) s += " in-place";
  if (flags & FFTW_DESTROY_INPUT) s += " destroy-input";
  if (flags & FFTW_PRESERVE_INPUT) s += " preserve-input";
  return s;
}

int rigor_of(unsigned flags) {
  if (flags & FFTW_EXHAUSTIVE) return 3;
  if (flags & FFTW_PATIENT) return 2;
  if (flags & FFTW_ESTIMATE) return 0;
  return 1;  // FFTW_MEASURE is 0: the default
}

void strides_from_embed(int rank, const int* n, const int* embed, int64_t stride, Side side,
                        std::vector<int64_t>& strides) {
  strides.assign(size_t(rank), 0);
  if (rank <= 0) return;
  std::vector<int64_t> shape(n, n + rank);
  if (side == Side::HalfComplex) shape.back() = shape.back() / 2 + 1;
  if (side == Side::PaddedReal) shape.back() = 2 * (shape.back() / 2 + 1);
  if (embed)  // as in FFTW, embed[0] bounds nothing and the embed only sets strides
    for (int i = 1; i < rank; ++i) shape[size_t(i)] = embed[i];
  int64_t s = stride;
  for (int i = rank - 1; i >= 0; --i) {
    strides[size_t(i)] = s;
    s *= shape[size_t(i)];
  }
}

}  // namespace abft::fftw
