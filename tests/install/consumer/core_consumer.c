/** \file core_consumer.c
 *  \brief Install-test consumer of the static core library: one abft_dgemm through the C
 *  API <abft/abft.h>, built against the installed tree (abft::abft or `pkg-config abft`).
 *  Exits 0 when the product is right and the call ran its checks.
 */
#include <abft/abft.h>
#include <stdio.h>

int main(void) {
  const double A[6] = {1, 2, 3, 4, 5, 6};
  const double B[6] = {7, 8, 9, 10, 11, 12};
  double C[4] = {0, 0, 0, 0};
  const double want[4] = {58, 64, 139, 154};
  abft_report rep = {0};
  abft_status st = abft_dgemm(NULL, ABFT_POLICY_CORRECT, ABFT_ROW_MAJOR, ABFT_NO_TRANS,
                              ABFT_NO_TRANS, 2, 2, 3, 1.0, A, 3, B, 2, 0.0, C, 2, &rep);
  if (st != ABFT_STATUS_SUCCESS) {
    printf("core_consumer: %s\n", abft_status_string(st));
    return 1;
  }
  for (int i = 0; i < 4; ++i)
    if (C[i] != want[i]) {
      printf("core_consumer: C[%d] = %g, expected %g\n", i, C[i], want[i]);
      return 1;
    }
  printf("core_consumer: abft_dgemm ok (%llu checks)\n", (unsigned long long)rep.checks);
  return 0;
}
