/** \file blas_test_util.hpp
 *  \brief What the shim's test binaries share: our library's symbols by name (the tests link
 *  libabft_blas.so.0, and look names up in it explicitly so that a reference symbol of the
 *  same name can never be taken by mistake) and the argument-error harness (an invalid call
 *  must print the reference message and leave every buffer untouched).
 */
#pragma once
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

namespace blas_test {

/** Our shim, as the test binary loaded it. */
inline void* our_lib() {
  static void* h = dlopen("libabft_blas.so.0", RTLD_NOW | RTLD_NOLOAD);
  return h;
}

/** Our symbol `name` as a function of type F (a failure if it is missing). */
template <class F> F* ours(const char* name) {
  F* f = reinterpret_cast<F*>(dlsym(our_lib(), name));
  EXPECT_NE(f, nullptr) << name;
  return f;
}

/** Runs `call` on three buffers full of a sentinel; expects `message` on stderr and every
 *  buffer untouched. */
template <class T, class F>
void expect_rejected(const std::string& message, F call) {
  std::vector<T> a(64, T(7)), b(64, T(7)), c(64, T(7));
  testing::internal::CaptureStderr();
  call(a.data(), b.data(), c.data());
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find(message), std::string::npos) << "expected \"" << message << "\", got \"" << err << '"';
  for (const auto* v : {&a, &b, &c})
    for (const T& e : *v) ASSERT_EQ(e, T(7)) << message << ": an invalid call wrote";
}

/** The reference xerbla_ message for `name` (e.g. "DGEMM ") and position `info`. */
inline std::string f77_msg(const char* name, int info) {
  char buf[96];
  std::snprintf(buf, sizeof buf, " ** On entry to %s parameter number %2d had an illegal value", name, info);
  return buf;
}
/** The reference cblas_xerbla message. */
inline std::string cblas_msg(const char* name, int info) {
  return "Parameter " + std::to_string(info) + " to routine " + name + " was incorrect";
}

}  // namespace blas_test
