/** \file scoped_env.hpp
 *  \brief One environment variable set (a value) or unset (nullptr) for a scope, the enclosing
 *  setting restored at its end (scopes nest). Shared by the tests and the benchmarks that pick
 *  an engine variant read when a plan or a handle's device state is made (ABFT_CUDA_GEMM_OVERLAP,
 *  ABFT_CUDA_FFT_SUMS, ABFT_CUDA_ATTN_TC, ABFT_CUDA_ATTN_KEY_SUMS, ...).
 */
#pragma once
#include <cstdlib>
#include <string>

namespace abft_test {

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* was = std::getenv(name);
    had_ = was != nullptr;
    if (had_) was_ = was;
    set(value);
  }
  ~ScopedEnv() { set(had_ ? was_.c_str() : nullptr); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  void set(const char* value) {
    if (value) setenv(name_.c_str(), value, 1);
    else unsetenv(name_.c_str());
  }
  std::string name_;
  bool had_ = false;
  std::string was_;
};

}  // namespace abft_test
