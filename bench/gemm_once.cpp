/** \file gemm_once.cpp
 *  \brief One protected GEMM call, for instruction counting under callgrind (repeatable where
 *  wall time on a shared machine is not):
 *    OMP_NUM_THREADS=1 valgrind --tool=callgrind build/bench/abft_gemm_once s 2048 768 1536 correct
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "abft/abft.h"

int main(int argc, char** argv) {
  if (argc != 6 || (argv[1][0] != 's' && argv[1][0] != 'd')) {
    std::fprintf(stderr, "usage: %s s|d m n k off|detect|correct\n", argv[0]);
    return 2;
  }
  const int64_t m = std::atoll(argv[2]), n = std::atoll(argv[3]), k = std::atoll(argv[4]);
  const abft_policy pol = !std::strcmp(argv[5], "off")      ? ABFT_POLICY_OFF
                          : !std::strcmp(argv[5], "detect") ? ABFT_POLICY_DETECT
                                                            : ABFT_POLICY_CORRECT;
  if (m <= 0 || n <= 0 || k <= 0) return 2;
  abft_status st;
  if (argv[1][0] == 's') {
    std::vector<float> A(size_t(m * k), 0.5f), B(size_t(k * n), 0.25f), C(size_t(m * n));
    st = abft_sgemm(nullptr, pol, ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, m, n, k, 1.0f,
                    A.data(), m, B.data(), k, 0.0f, C.data(), m, nullptr);
  } else {
    std::vector<double> A(size_t(m * k), 0.5), B(size_t(k * n), 0.25), C(size_t(m * n));
    st = abft_dgemm(nullptr, pol, ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, m, n, k, 1.0,
                    A.data(), m, B.data(), k, 0.0, C.data(), m, nullptr);
  }
  std::printf("%s\n", abft_status_string(st));
  return st == ABFT_STATUS_SUCCESS ? 0 : 1;
}
