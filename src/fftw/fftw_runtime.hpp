/** \file fftw_runtime.hpp
 *  \brief Process-wide state of the FFTW3 interface: the shared drop-in runtime
 *  (environment, statistics rows fftw_c2c ... fftwf_c2r, exit report), the planner's
 *  thread setting, and messages printed once.
 *
 *  Environment: as shim/shim_runtime.hpp lists; ABFT_INJECT_SITE here is
 *  output | stage | twiddle | compute (output and stage; default) | any.
 *  ABFT_NUM_THREADS sets the threads of plans made before any plan_with_nthreads call
 *  (FFTW's default is 1).
 */
#pragma once
#include <mutex>
#include <string>

#include "abft/fft.h"
#include "shim/shim_runtime.hpp"

namespace abft::fftw {

shim::Runtime& runtime();

/** Threads a plan made now gets: plan_with_nthreads's value, else ABFT_NUM_THREADS, else 1. */
int plan_threads(abft_precision prec);
void set_plan_threads(abft_precision prec, int nthreads);  ///< plan_with_nthreads
int planner_threads(abft_precision prec);                  ///< planner_nthreads (FFTW: 1 by default)

/** "abft-fftw3: <text>" on stderr, the first time this text comes. */
void warn_once(const std::string& text);

/** Serializes planning and wisdom (FFTW's planner is not thread-safe; ours is, through this). */
std::mutex& planner_mutex();

}  // namespace abft::fftw
