/** \file real_symbols.hpp
 *  \brief How the preload library finds the real cuBLAS / cuBLASLt / cuFFT functions: the copy
 *  the program itself uses, resolved at run time (the library has no link-time dependency on
 *  them, so no second copy is ever loaded on its behalf).
 *
 *  Order, per vendor library: (1) the file named by ABFT_PRELOAD_CUBLAS / ABFT_PRELOAD_CUBLASLT /
 *  ABFT_PRELOAD_CUFFT, opened with dlopen (a warning, then the next rules, when it cannot be
 *  opened or lacks the symbol); (2) dlsym(RTLD_NEXT), the next definition after this library in
 *  the global search order (a program linked against the library); (3) a library already loaded
 *  whose file name starts with libcublas.so / libcublasLt.so / libcufft.so (PyTorch's pip
 *  packages, opened by dlopen with RTLD_LOCAL, are invisible to rule 2). A definition inside
 *  this library is never returned. Found addresses are cached; a miss is not (the library may
 *  be loaded later).
 */
#pragma once
#include <atomic>

namespace abft::preload {

enum class Vendor { Cublas = 0, CublasLt = 1, Cufft = 2 };

/** The real definition of `name` in vendor library `v`, or nullptr. */
void* find_real(Vendor v, const char* name);

/** True when `addr` lies in this library (the preload library itself). */
bool in_this_library(const void* addr);

template <class F>
F real_function(Vendor v, const char* name, std::atomic<void*>& slot) {
  void* p = slot.load(std::memory_order_acquire);
  if (!p) {
    p = find_real(v, name);
    if (p) slot.store(p, std::memory_order_release);
  }
  return reinterpret_cast<F>(p);
}

}  // namespace abft::preload

/** The real function `fn` (its exact C name, e.g. cublasSgemm_v2) of vendor library `vendor`,
 *  typed as `type`; nullptr when it cannot be found. */
#define ABFT_REAL_AS(type, vendor, fn)                                            \
  ([]() -> type {                                                                 \
    static std::atomic<void*> slot{nullptr};                                      \
    return ::abft::preload::real_function<type>(::abft::preload::Vendor::vendor, #fn, slot); \
  }())
/** Same, typed from the function's declaration (functions without C++ overloads). */
#define ABFT_REAL(vendor, fn) ABFT_REAL_AS(decltype(&::fn), vendor, fn)
