/** \file peer_openblas.hpp
 *  \brief The OpenBLAS peer: typed cblas GEMM wrappers, thread setup, a
 *         self-check probe and run context; stubs when built without OpenBLAS.
 */
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#ifdef ABFT_BENCH_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace abft_bench {

#ifdef ABFT_BENCH_HAVE_OPENBLAS
constexpr bool kHaveOpenBlas = true;

/** Column-major, no-transpose C <- alpha*A*B + beta*C. */
inline void peer_gemm(int64_t m, int64_t n, int64_t k, float alpha, const float* A,
                      const float* B, float beta, float* C) {
  cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, blasint(m), blasint(n), blasint(k),
              alpha, A, blasint(m), B, blasint(k), beta, C, blasint(m));
}
inline void peer_gemm(int64_t m, int64_t n, int64_t k, double alpha, const double* A,
                      const double* B, double beta, double* C) {
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, blasint(m), blasint(n), blasint(k),
              alpha, A, blasint(m), B, blasint(k), beta, C, blasint(m));
}

inline void peer_set_threads(int n) { openblas_set_num_threads(n); }
inline int peer_threads() { return openblas_get_num_threads(); }
inline std::string peer_core() { return openblas_get_corename(); }
inline std::string peer_config() { return openblas_get_config(); }
#else
constexpr bool kHaveOpenBlas = false;
template <typename T>
inline void peer_gemm(int64_t, int64_t, int64_t, T, const T*, const T*, T, T*) {}
inline void peer_set_threads(int) {}
inline int peer_threads() { return 0; }
inline std::string peer_core() { return "absent"; }
inline std::string peer_config() { return "absent (built without OpenBLAS)"; }
#endif

/** One small sgemm and dgemm through the peer, checked against a plain loop.
 *  Run by scripts/bench.sh under OPENBLAS_CORETYPE=SkylakeX before the suite:
 *  a core the CPU cannot execute dies here (SIGILL), not mid-suite. */
template <typename T>
bool peer_selfcheck_one() {
  const int64_t n = 67;  // odd size: edge paths of the kernel too
  std::vector<T> A(n * n), B(n * n), C(n * n, T(0));
  for (int64_t i = 0; i < n * n; ++i) {
    A[i] = T((i * 7) % 13) - T(6);
    B[i] = T((i * 5) % 11) - T(5);
  }
  peer_gemm(n, n, n, T(1), A.data(), B.data(), T(0), C.data());
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < n; ++i) {
      T ref = 0;  // small integers: exact in either precision
      for (int64_t p = 0; p < n; ++p) ref += A[i + p * n] * B[p + j * n];
      if (C[i + j * n] != ref) return false;
    }
  return true;
}

/** Exit status of `abft_bench_gemm --abft_probe_openblas`: 0 ok, 1 wrong
 *  results, 3 built without OpenBLAS. Prints one line describing the peer. */
inline int peer_probe() {
  if (!kHaveOpenBlas) {
    std::printf("openblas: absent (built without OpenBLAS)\n");
    return 3;
  }
  bool ok = peer_selfcheck_one<float>() && peer_selfcheck_one<double>();
  std::printf("openblas: core=%s threads=%d selfcheck=%s config=\"%s\"\n", peer_core().c_str(),
              peer_threads(), ok ? "ok" : "WRONG", peer_config().c_str());
  return ok ? 0 : 1;
}

}  // namespace abft_bench
