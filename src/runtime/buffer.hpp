/** \file buffer.hpp
 *  \brief Buf<T>: a buffer of a pass's workspace, in host memory (the CPU engine, decoding) or
 *  in device memory (the GPU engine's resident pass, ops_resident.hpp), behind one interface so
 *  that the pass's code (model_forward.cpp, model_backward.cpp) is the same for both.
 */
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "abft/transformer/error.hpp"
#include "ops_gpu.hpp"

namespace abft::transformer {

template <class T>
class Buf {
 public:
  Buf() = default;
  explicit Buf(bool device) : device_(device) {}
  Buf(const Buf&) = delete;
  Buf& operator=(const Buf&) = delete;
  ~Buf() { ops::gpu_free(dev_); }

  bool on_device() const { return device_; }
  T* data() { return device_ ? dev_ : host_.data(); }
  const T* data() const { return device_ ? dev_ : host_.data(); }
  size_t size() const { return device_ ? n_ : host_.size(); }
  /** At least n elements. Host: resized (contents kept, new elements zero). Device: allocated
   *  anew when it grows (contents not kept); throws Error(ALLOC_FAILED) without device memory. */
  void fit(size_t n) {
    if (!device_) {
      if (host_.size() < n) host_.resize(n);
      return;
    }
    if (n <= n_) return;
    ops::gpu_free(dev_);
    dev_ = nullptr;
    n_ = 0;
    dev_ = static_cast<T*>(ops::gpu_malloc(n * sizeof(T)));
    if (!dev_)
      throw Error(ABFT_STATUS_ALLOC_FAILED,
                  "GPU engine: cannot allocate " + std::to_string(n * sizeof(T)) + " bytes of device memory");
    n_ = n;
  }

 private:
  bool device_ = false;
  std::vector<T> host_;
  T* dev_ = nullptr;
  size_t n_ = 0;
};

/** Page-locked host bytes (the resident pass's staging for the copies it makes without a wait):
 *  grown on demand, contents not kept; throws Error(ALLOC_FAILED) without memory. Whoever grows
 *  it makes sure no copy from or to it is still running. */
class PinnedBytes {
 public:
  PinnedBytes() = default;
  PinnedBytes(const PinnedBytes&) = delete;
  PinnedBytes& operator=(const PinnedBytes&) = delete;
  ~PinnedBytes() { ops::gpu_host_free(p_); }
  unsigned char* data() { return p_; }
  size_t size() const { return n_; }
  void fit(size_t n) {
    if (n <= n_) return;
    ops::gpu_host_free(p_);
    n_ = 0;
    p_ = static_cast<unsigned char*>(ops::gpu_host_malloc(n));
    if (!p_)
      throw Error(ABFT_STATUS_ALLOC_FAILED, "GPU engine: cannot allocate " + std::to_string(n) +
                                                " bytes of page-locked host memory");
    n_ = n;
  }

 private:
  unsigned char* p_ = nullptr;
  size_t n_ = 0;
};

}  // namespace abft::transformer
