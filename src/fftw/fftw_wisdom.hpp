/** \file fftw_wisdom.hpp
 *  \brief Wisdom: the problems this process has planned (with the rigor asked for), kept
 *  so that FFTW_WISDOM_ONLY answers as FFTW's does and exported/imported as text.
 *
 *  The engine plans deterministically, so wisdom holds no timings: it records which
 *  problems were planned. Its text is an S-expression like FFTW's, under its own header
 *  ("(fftw-3.3.10-abft fftw_wisdom" / "fftwf_wisdom"), one "(abft RIGOR \"KEY\")" entry per
 *  problem. Importing FFTW's own wisdom for the same precision succeeds (returns 1) and
 *  teaches nothing, so programs that load their saved FFTW wisdom keep working; malformed
 *  text or another precision's wisdom is refused (0), as FFTW refuses it.
 */
#pragma once
#include <string>

#include "fftw/fftw_problem.hpp"

namespace abft::fftw {

void wisdom_add(const Problem& pb);                ///< a problem was planned
bool wisdom_has(const Problem& pb, int rigor);     ///< planned with at least this rigor?
void wisdom_forget(abft_precision prec);
std::string wisdom_export(abft_precision prec);
bool wisdom_import(abft_precision prec, const std::string& text);

/** Reads one S-expression (FFTW's import: up to the parenthesis closing the first one)
 *  from a character source returning EOF (-1) at its end. */
std::string read_expression(int (*next)(void*), void* data);

}  // namespace abft::fftw
