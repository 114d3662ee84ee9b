/** \file gemm_driver.hpp
 *  \brief Entry of the blocked, checksum-protected CPU GEMM engine (internal problem form).
 */
#pragma once
#include "cpu/gemm/gemm_problem.hpp"

namespace abft::cpu::gemm {

/** Run P with kernel set ks; fills rep; returns SUCCESS, FAULT_DETECTED,
 *  FAULT_UNCORRECTABLE or ALLOC_FAILED. Never throws. */
template <class T>
abft_status run_gemm(Problem<T>& P, const KernelSet<T>& ks, abft_report& rep);

}  // namespace abft::cpu::gemm
