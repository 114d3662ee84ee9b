/** \file real_symbols.hpp
 *  \brief How the preload library finds the real cuBLAS / cuBLASLt / cuFFT functions: the copy
 *  the program itself uses, resolved at run time (the library has no link-time dependency on
 *  them, so no second copy is ever loaded on its behalf).
 *
 *  ONE copy per vendor library. The first time a function of vendor V is needed, the library
 *  picks V's copy and keeps a handle to it; every function of V is then looked up in that handle
 *  (dlsym(handle, name)), never one function here and another there, so a cuBLAS handle created
 *  by one copy only ever meets that copy's functions. The copy is, in this order:
 *    (1) the file named by ABFT_PRELOAD_CUBLAS / ABFT_PRELOAD_CUBLASLT / ABFT_PRELOAD_CUFFT,
 *        opened with dlopen (a warning, then the next rules, when it cannot be opened);
 *    (2) the object that defines V's anchor function (cublasCreate_v2, cublasLtCreate,
 *        cufftCreate) for dlsym(RTLD_NEXT) — the global search order after this library: the copy
 *        the program's own, non-intercepted calls bind to when one is global (a program linked
 *        against cuBLAS); its handle comes from dladdr + dlopen(RTLD_NOLOAD);
 *    (3) an already loaded library whose file name starts with libcublas.so / libcublasLt.so /
 *        libcufft.so and that defines the anchor (PyTorch's pip packages, opened by dlopen with
 *        RTLD_LOCAL, are invisible to rule 2); the first in the loader's list.
 *  A definition inside this library is never returned. The scan of rule 3 only copies file names
 *  while dl_iterate_phdr holds the loader's lock; dlopen / dlsym run after it returns (a dlopen in
 *  the callback deadlocks against a concurrent dlopen / dlclose). The chosen copy stays open (its
 *  reference is never dropped). A miss (no copy loaded yet) is remembered with the loader's
 *  generation (objects added + removed) and looked up again only after that changes.
 */
#pragma once
#include <atomic>

namespace abft::preload {

enum class Vendor { Cublas = 0, CublasLt = 1, Cufft = 2 };

/** The real definition of `name` in vendor library `v` (in the copy chosen for v), or nullptr. */
void* find_real(Vendor v, const char* name);

/** The handle of the copy chosen for `v` (RTLD_NEXT when the copy was found through RTLD_NEXT
 *  but has no handle of its own), or nullptr when none is loaded yet. */
void* vendor_handle(Vendor v);

/** True when code address `addr` lies in the copy chosen for `v` (false when none is chosen or
 *  it has no handle of its own). Used to tell cuBLAS's own calls into cuBLASLt from the
 *  program's. */
bool in_vendor_library(Vendor v, const void* addr);

/** True when `addr` lies in this library (the preload library itself). */
bool in_this_library(const void* addr);

/** Tests of real_symbols.cpp only: forget the chosen copies and misses; the number of scans of
 *  the loaded libraries (rule 3) so far. */
void reset_for_tests();
unsigned long long scans_for_tests();

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
