/* libfftw3_threads.so.3, libfftw3_omp.so.3 (and the fftw3f ones): FFTW ships its threads
 * API in separate libraries; abft's main libraries define it themselves. These stand-ins
 * hold no code of their own: they only name the main library as needed, so a program
 * linked with -lfftw3_threads -lfftw3 finds fftw_init_threads & co. there when
 * LD_LIBRARY_PATH swaps abft's libraries in (without them, the system's threads library
 * would load and look for FFTW's internals). */
typedef int abft_fftw_threads_stub_unused;
