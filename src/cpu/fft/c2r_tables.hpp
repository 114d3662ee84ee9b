/** \file c2r_tables.hpp
 *  \brief The C2R check's tables of a shape (abft/checksum/fft_c2r_weights.hpp, fft_c2r_tables)
 *  with the library's own CPU FFT in double as the DFT of each dimension: the GPU engine's plans
 *  (cuda/fft_protected.cu) and the campaign's bounds (src/campaign/kernel_cuda_fft.cpp) build
 *  the same tables through this one function.
 */
#pragma once
#include "abft/checksum/fft_c2r_weights.hpp"

namespace abft::fft::detail {

/** Fills t for sh (kind 2, rank 1..3); false when the CPU FFT cannot plan a length. */
bool c2r_tables(const abft::checksum::FftLibraryShape& sh, abft::checksum::FftC2RTables& t);

}  // namespace abft::fft::detail
