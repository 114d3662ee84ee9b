/** \file stub_log.hpp
 *  \brief The call log of the stub vendor libraries (stub_cublas.cpp, stub_cublaslt.cpp,
 *  stub_cufft.cpp) and the one formatting of a call both the stubs and the test use: a call is
 *  recorded as "name arg1 arg2 ...", pointers as addresses, enums and integers as numbers, so a
 *  forwarded call can be compared with the call the test made, argument for argument.
 */
#pragma once
#include <cstddef>
#include <mutex>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace stub {

template <class T>
void put(std::ostringstream& o, const T& v) {
  if constexpr (std::is_pointer<T>::value) {
    o << ' ' << static_cast<const void*>(v);
  } else if constexpr (std::is_enum<T>::value) {
    o << ' ' << static_cast<long long>(v);
  } else if constexpr (std::is_floating_point<T>::value) {
    o << ' ' << static_cast<double>(v);
  } else {
    o << ' ' << static_cast<long long>(v);
  }
}

/** "name a b c": the record of one call. */
template <class... Args>
std::string describe(const char* name, const Args&... args) {
  std::ostringstream o;
  o << name;
  (put(o, args), ...);
  return o.str();
}

/** One library's log (each stub library has its own). */
struct Log {
  std::mutex mu;
  std::vector<std::string> entries;
  void add(std::string s) {
    std::lock_guard<std::mutex> g(mu);
    entries.push_back(std::move(s));
  }
};

}  // namespace stub

/** Declares the log's C accessors of one stub library: <prefix>_log_count, _log_entry (the
 *  i-th record, "" past the end), _log_clear, _identity (STUB_IDENTITY at build time). */
#define STUB_DEFINE_LOG(prefix)                                                            \
  static stub::Log& prefix##_log() {                                                       \
    static auto* l = new stub::Log();                                                      \
    return *l;                                                                             \
  }                                                                                        \
  extern "C" __attribute__((visibility("default"))) size_t prefix##_log_count(void) {      \
    std::lock_guard<std::mutex> g(prefix##_log().mu);                                      \
    return prefix##_log().entries.size();                                                  \
  }                                                                                        \
  extern "C" __attribute__((visibility("default"))) const char* prefix##_log_entry(size_t i) { \
    std::lock_guard<std::mutex> g(prefix##_log().mu);                                      \
    static thread_local std::string copy;                                                  \
    copy = i < prefix##_log().entries.size() ? prefix##_log().entries[i] : std::string();  \
    return copy.c_str();                                                                   \
  }                                                                                        \
  extern "C" __attribute__((visibility("default"))) void prefix##_log_clear(void) {        \
    std::lock_guard<std::mutex> g(prefix##_log().mu);                                      \
    prefix##_log().entries.clear();                                                        \
  }                                                                                        \
  extern "C" __attribute__((visibility("default"))) const char* prefix##_identity(void) { return STUB_IDENTITY; }
