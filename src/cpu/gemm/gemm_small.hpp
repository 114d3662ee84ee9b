/** \file gemm_small.hpp
 *  \brief The small-M GEMM path (gemm_small.cpp): entry from the driver.
 */
#pragma once
#include "cpu/gemm/gemm_kernels.hpp"
#include "cpu/gemm/gemm_problem.hpp"

namespace abft::cpu::gemm {

/** True when P has at most kSmallMaxRows rows of C and a B with unit row or column stride. */
template <class T>
bool small_gemm_applies(const Problem<T>& P, const KernelSet<T>& ks);

/** Run P on the small-M path (alpha != 0, K >= 1); same contract as run_gemm. */
template <class T>
abft_status run_small_gemm(Problem<T>& P, const KernelSet<T>& ks, abft_report& rep);

}  // namespace abft::cpu::gemm
