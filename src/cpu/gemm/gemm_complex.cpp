/** \file gemm_complex.cpp
 *  \brief Complex GEMM on the protected real engine (placeholder until implemented).
 */
#include "cpu/gemm/gemm_entry.hpp"

namespace abft::cpu::gemm {

template <class R>
abft_status complex_gemm_entry(abft_kernel, abft_handle_t, abft_policy, abft_layout, abft_op,
                               abft_op, int64_t, int64_t, int64_t, std::complex<R>,
                               const std::complex<R>*, int64_t, const std::complex<R>*, int64_t,
                               std::complex<R>, std::complex<R>*, int64_t, abft_report*) {
  return ABFT_STATUS_NOT_SUPPORTED;
}

template abft_status complex_gemm_entry<float>(abft_kernel, abft_handle_t, abft_policy,
                                               abft_layout, abft_op, abft_op, int64_t, int64_t,
                                               int64_t, std::complex<float>,
                                               const std::complex<float>*, int64_t,
                                               const std::complex<float>*, int64_t,
                                               std::complex<float>, std::complex<float>*,
                                               int64_t, abft_report*);
template abft_status complex_gemm_entry<double>(abft_kernel, abft_handle_t, abft_policy,
                                                abft_layout, abft_op, abft_op, int64_t, int64_t,
                                                int64_t, std::complex<double>,
                                                const std::complex<double>*, int64_t,
                                                const std::complex<double>*, int64_t,
                                                std::complex<double>, std::complex<double>*,
                                                int64_t, abft_report*);

}  // namespace abft::cpu::gemm
