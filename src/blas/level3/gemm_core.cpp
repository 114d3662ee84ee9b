/** \file gemm_core.cpp
 *  \brief gemm_core: the shim's door to the protected engine (real and complex).
 */
#include "blas/level3/gemm_core.hpp"

#include "cpu/gemm/gemm_entry.hpp"

namespace abft::blas {
namespace {

abft_op to_abft(Op o) {
  switch (o) {
    case Op::T: return ABFT_TRANS;
    case Op::C: return ABFT_CONJ_TRANS;
    default: return ABFT_NO_TRANS;
  }
}

template <class T> constexpr abft_kernel kernel_of() {
  if constexpr (std::is_same_v<T, float>) return ABFT_KERNEL_SGEMM;
  else if constexpr (std::is_same_v<T, double>) return ABFT_KERNEL_DGEMM;
  else if constexpr (std::is_same_v<T, cfloat>) return ABFT_KERNEL_CGEMM;
  else return ABFT_KERNEL_ZGEMM;
}

}  // namespace

template <class T>
void gemm_core(ProtectedCall& pc, Op ta, Op tb, blas_int m, blas_int n, blas_int k, T alpha,
               const T* A, blas_int lda, const T* B, blas_int ldb, T beta, T* C, blas_int ldc) {
  abft_report rep{};
  abft_status st;
  if constexpr (is_complex_v<T>) {
    st = cpu::gemm::complex_gemm_entry<real_t<T>>(
        kernel_of<T>(), shim_handle(), ABFT_POLICY_DEFAULT, ABFT_COL_MAJOR, to_abft(ta),
        to_abft(tb), m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, &rep);
  } else {
    st = cpu::gemm::gemm_entry<T>(kernel_of<T>(), shim_handle(), ABFT_POLICY_DEFAULT,
                                  ABFT_COL_MAJOR, to_abft(ta), to_abft(tb), m, n, k, alpha, A,
                                  lda, B, ldb, beta, C, ldc, &rep);
  }
  pc.absorb(rep, st);
}

template void gemm_core<float>(ProtectedCall&, Op, Op, blas_int, blas_int, blas_int, float,
                               const float*, blas_int, const float*, blas_int, float, float*,
                               blas_int);
template void gemm_core<double>(ProtectedCall&, Op, Op, blas_int, blas_int, blas_int, double,
                                const double*, blas_int, const double*, blas_int, double,
                                double*, blas_int);
template void gemm_core<cfloat>(ProtectedCall&, Op, Op, blas_int, blas_int, blas_int, cfloat,
                                const cfloat*, blas_int, const cfloat*, blas_int, cfloat,
                                cfloat*, blas_int);
template void gemm_core<cdouble>(ProtectedCall&, Op, Op, blas_int, blas_int, blas_int, cdouble,
                                 const cdouble*, blas_int, const cdouble*, blas_int, cdouble,
                                 cdouble*, blas_int);

}  // namespace abft::blas
