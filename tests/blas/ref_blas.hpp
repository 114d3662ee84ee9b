/** \file ref_blas.hpp
 *  \brief The reference BLAS as a test oracle, opened at run time.
 *
 *  The shim exports the same symbol names as any BLAS, so the oracle cannot be linked in;
 *  it is dlopen'ed with RTLD_LOCAL | RTLD_DEEPBIND from a fixed path (Debian's netlib
 *  build, else OpenBLAS) and its routines are looked up by name:
 *
 *    auto f = RefBlas::get().fn<void(const char*, const int*, ...)>("dgemv_");
 *    if (!f) GTEST_SKIP() << RefBlas::get().why();
 *
 *  Only call it with valid arguments (its own xerbla may stop the process).
 */
#pragma once
#include <dlfcn.h>

#include <string>

class RefBlas {
 public:
  static RefBlas& get() {
    static RefBlas r;
    return r;
  }
  bool ok() const { return handle_ != nullptr; }
  const std::string& why() const { return why_; }
  const std::string& path() const { return path_; }
  /** Function pointer of type F for `name`, or nullptr. */
  template <class F>
  F* fn(const char* name) const {
    return handle_ ? reinterpret_cast<F*>(dlsym(handle_, name)) : nullptr;
  }

 private:
  RefBlas() {
    const char* env = getenv("ABFT_TEST_REF_BLAS");
    const char* candidates[] = {env,
                                "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3",
                                "/usr/lib/aarch64-linux-gnu/blas/libblas.so.3",
                                "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3",
                                "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0"};
    for (const char* c : candidates) {
      if (!c || !*c) continue;
      handle_ = dlopen(c, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
      if (handle_) {
        path_ = c;
        return;
      }
    }
    why_ = "no reference BLAS found (install libblas3, or set ABFT_TEST_REF_BLAS)";
  }
  void* handle_ = nullptr;
  std::string why_, path_;
};
