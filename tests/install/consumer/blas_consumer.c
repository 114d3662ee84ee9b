/** \file blas_consumer.c
 *  \brief Install-test consumer of the BLAS shim: one cblas_dgemm through <abft/cblas.h>,
 *  built against the *installed* tree (find_package(abft) -> abft::blas, or
 *  `pkg-config --cflags --libs abft-blas`). Exits 0 when the product is right.
 */
#include <abft/cblas.h>
#include <stdio.h>

int main(void) {
  /* Row-major 2x3 times 3x2: integers, so the result is exact in any summation order. */
  const double A[6] = {1, 2, 3, 4, 5, 6};
  const double B[6] = {7, 8, 9, 10, 11, 12};
  double C[4] = {1, 1, 1, 1};
  const double want[4] = {58 + 2, 64 + 2, 139 + 2, 154 + 2};  /* A B + 2 C */
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 3, 1.0, A, 3, B, 2, 2.0, C, 2);
  for (int i = 0; i < 4; ++i)
    if (C[i] != want[i]) {
      printf("blas_consumer: C[%d] = %g, expected %g\n", i, C[i], want[i]);
      return 1;
    }
  printf("blas_consumer: cblas_dgemm ok\n");
  return 0;
}
