/** \file fftw_consumer.c
 *  \brief Install-test consumer of the FFTW3 interface: `#include <fftw3.h>` resolves to
 *  abft's header (find_package(abft) -> abft::fftw3, or `pkg-config abft-fftw3`), one
 *  double and one float transform of a unit impulse, whose spectrum is known exactly.
 */
#include <fftw3.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  enum { N = 12 };
  fftw_complex in[N], out[N];
  fftwf_complex inf_[N], outf[N];
  memset(in, 0, sizeof in);
  memset(inf_, 0, sizeof inf_);
  in[0][0] = 1.0; /* DFT of an impulse at 0: all ones */
  inf_[0][0] = 1.0f;
  fftw_plan p = fftw_plan_dft_1d(N, in, out, FFTW_FORWARD, FFTW_ESTIMATE);
  fftwf_plan pf = fftwf_plan_dft_1d(N, inf_, outf, FFTW_FORWARD, FFTW_ESTIMATE);
  if (!p || !pf) {
    printf("fftw_consumer: no plan\n");
    return 1;
  }
  fftw_execute(p);
  fftwf_execute(pf);
  for (int k = 0; k < N; ++k)
    if (out[k][0] != 1.0 || out[k][1] != 0.0 || outf[k][0] != 1.0f || outf[k][1] != 0.0f) {
      printf("fftw_consumer: bin %d = (%g, %g) / (%g, %g), expected (1, 0)\n", k, out[k][0],
             out[k][1], outf[k][0], outf[k][1]);
      return 1;
    }
  if (strncmp(fftw_version, "fftw-3.3.10-abft", 16) != 0) {
    printf("fftw_consumer: linked against %s, not abft's FFTW3 interface\n", fftw_version);
    return 1;
  }
  fftw_destroy_plan(p);
  fftwf_destroy_plan(pf);
  printf("fftw_consumer: %s ok\n", fftw_version);
  return 0;
}
