/** \file real_symbols_test.cpp
 *  \brief real_symbols.cpp (the preload library's way to the real vendor functions) compiled into
 *  a plain test binary, no LD_PRELOAD: a copy of "cuBLAS" opened with RTLD_LOCAL (the stub named
 *  libcublas.so, ABFT_TEST_SCAN_CUBLAS) is found by the scan of the loaded libraries; every
 *  function comes from that one copy; a miss is looked up again only after the set of loaded
 *  libraries changed; and the scan survives another thread that dlopens / dlcloses a library
 *  (ABFT_TEST_OTHER_LIB) all the time — it once called dlopen inside dl_iterate_phdr's callback,
 *  which deadlocks against that. A watchdog ends the process if the loop hangs (ctest also has a
 *  TIMEOUT).
 */
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "real_symbols.hpp"

using abft::preload::find_real;
using abft::preload::Vendor;

namespace {

const char* need_env(const char* name) {
  const char* e = std::getenv(name);
  return e && *e ? e : nullptr;
}

class RealSymbols : public ::testing::Test {
 protected:
  void* lib = nullptr;
  void SetUp() override {
    const char* path = need_env("ABFT_TEST_SCAN_CUBLAS");
    ASSERT_NE(path, nullptr) << "run through ctest";
    lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(lib, nullptr) << dlerror();
    abft::preload::reset_for_tests();
  }
  void TearDown() override {
    abft::preload::reset_for_tests();
    if (lib) dlclose(lib);
  }
};

}  // namespace

TEST_F(RealSymbols, TheScanFindsTheLocallyOpenedCopyAndEveryFunctionComesFromIt) {
  ASSERT_EQ(dlsym(RTLD_DEFAULT, "cublasSgemm_v2"), nullptr) << "the copy must be invisible to the global lookup";
  void* h = abft::preload::vendor_handle(Vendor::Cublas);
  ASSERT_NE(h, nullptr);
  for (const char* name : {"cublasSgemm_v2", "cublasCreate_v2", "cublasGetStream_v2", "cublasGemmEx"})
    EXPECT_EQ(find_real(Vendor::Cublas, name), dlsym(lib, name)) << name;
  EXPECT_EQ(find_real(Vendor::Cublas, "cublasNoSuchFunction"), nullptr);
  EXPECT_EQ(abft::preload::vendor_handle(Vendor::Cublas), h) << "one copy, chosen once";
  // Another vendor's prefix does not match (libcublas.so is not libcublasLt.so).
  EXPECT_EQ(find_real(Vendor::CublasLt, "cublasLtMatmul"), nullptr);
}

TEST_F(RealSymbols, AMissIsLookedUpAgainOnlyAfterTheLoadedLibrariesChanged) {
  const unsigned long long s0 = abft::preload::scans_for_tests();
  EXPECT_EQ(find_real(Vendor::Cufft, "cufftExecC2C"), nullptr);
  const unsigned long long s1 = abft::preload::scans_for_tests();
  EXPECT_EQ(s1, s0 + 1);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(find_real(Vendor::Cufft, "cufftExecC2C"), nullptr);
  EXPECT_EQ(abft::preload::scans_for_tests(), s1) << "misses must not rescan";
  const char* other = need_env("ABFT_TEST_OTHER_LIB");
  ASSERT_NE(other, nullptr);
  void* h = dlopen(other, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(h, nullptr) << dlerror();
  EXPECT_EQ(find_real(Vendor::Cufft, "cufftExecC2C"), nullptr);
  EXPECT_EQ(abft::preload::scans_for_tests(), s1 + 1) << "a library was loaded: look again";
  dlclose(h);
}

TEST_F(RealSymbols, TheScanDoesNotDeadlockAgainstAConcurrentDlopenAndDlclose) {
  const char* other = need_env("ABFT_TEST_OTHER_LIB");
  ASSERT_NE(other, nullptr);
  void* expected = dlsym(lib, "cublasSgemm_v2");
  ASSERT_NE(expected, nullptr);

  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::thread watchdog([&] {
    std::unique_lock<std::mutex> g(mu);
    if (!cv.wait_for(g, std::chrono::seconds(30), [&] { return done; })) {
      std::fprintf(stderr, "RealSymbols: the scan hung for 30 s under a concurrent dlopen/dlclose (deadlock)\n");
      std::fflush(stderr);
      _exit(3);
    }
  });
  std::atomic<bool> stop{false};
  std::atomic<long> cycles{0};
  std::thread loader([&] {
    while (!stop.load()) {
      if (void* h = dlopen(other, RTLD_NOW | RTLD_LOCAL)) dlclose(h);
      cycles.fetch_add(1);
    }
  });
  long scans = 0, wrong = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
  while (std::chrono::steady_clock::now() < until || scans < 200) {
    abft::preload::reset_for_tests();  // every lookup scans again (and dlopens what it found)
    if (find_real(Vendor::Cublas, "cublasSgemm_v2") != expected) ++wrong;
    find_real(Vendor::Cufft, "cufftExecC2C");  // misses, rescanned as the loader thread changes the set
    ++scans;
  }
  stop = true;
  loader.join();
  {
    std::lock_guard<std::mutex> g(mu);
    done = true;
  }
  cv.notify_all();
  watchdog.join();
  EXPECT_EQ(wrong, 0);
  EXPECT_GT(cycles.load(), 0);
  std::printf("%ld scans against %ld dlopen/dlclose cycles\n", scans, cycles.load());
}
