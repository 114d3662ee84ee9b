/** \file reentry_guard.hpp
 *  \brief The recursion guard of the preload library: a call that arrives while this thread is
 *  already inside an intercepted call goes straight to the real function.
 *
 *  Two kinds of calls arrive that way: the engine's own cuBLAS / cuFFT calls (the protected
 *  GEMM's product, the shadow FFT plan's creation and execution), which in a preloaded library
 *  bind to its own exported entry points; and calls a vendor library makes to its own exported
 *  functions while the interposer forwards a call to it (cuBLAS calling cuBLASLt, say). Both must
 *  be neither counted twice nor protected twice.
 */
#pragma once

namespace abft::preload {

class ReentryGuard {
 public:
  ReentryGuard() { ++depth(); }
  ~ReentryGuard() { --depth(); }
  ReentryGuard(const ReentryGuard&) = delete;
  ReentryGuard& operator=(const ReentryGuard&) = delete;
  /** True when this thread is inside an intercepted call. */
  static bool inside() { return depth() > 0; }

 private:
  static int& depth() {
    static thread_local int d = 0;
    return d;
  }
};

}  // namespace abft::preload
