/** \file fft_concurrency_test.cpp
 *  \brief One plan executed by several threads at once (FFTW's rule: execution is
 *  thread-safe), while the handle injects faults into the plan's shared twiddle tables:
 *  a table fault belongs to the call that drew it (abft/fft.h), so every other
 *  execution must still return the clean transform, and the faulted one its repair.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <thread>
#include <vector>

#include "abft/abft.h"
#include "abft/fft.h"
#include "fault_util.hpp"

namespace {

std::vector<double> input(int n, int seed) {
  std::vector<double> x(2 * size_t(n));
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37 * double(i) + seed) + 0.25 * std::cos(1.7 * double(i * i % 97));
  return x;
}

void run_concurrent(abft_fault_model model, abft_site site) {
  const int n = 256, threads = 4, iters = 200;
  abft_fft_plan_t clean = nullptr, faulty = nullptr;
  ASSERT_EQ(abft_fft_plan_1d(&clean, nullptr, ABFT_PRECISION_DOUBLE, ABFT_FFT_C2C, n, ABFT_FFT_FORWARD, 0),
            ABFT_STATUS_SUCCESS);
  abft_handle_t h = nullptr;
  abft_injector_t inj = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_injector_create(7, &inj), ABFT_STATUS_SUCCESS);
  const abft_fault f = abft_test::make_spec(site, model, -1, -1, -1, -1);  // coordinates drawn per call
  ASSERT_EQ(abft_injector_add(inj, &f), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_injector_set_rate(inj, 0.5), ABFT_STATUS_SUCCESS);  // faulted and clean calls interleave
  ASSERT_EQ(abft_handle_set_injector(h, inj), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_fft_plan_1d(&faulty, h, ABFT_PRECISION_DOUBLE, ABFT_FFT_C2C, n, ABFT_FFT_FORWARD, 0),
            ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_fft_set_threads(faulty, 1), ABFT_STATUS_SUCCESS);

  std::vector<int> bad(threads, 0);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (int it = 0; it < iters; ++it) {
        const std::vector<double> x = input(n, t * 1000 + it);
        std::vector<double> want(x.size()), got(x.size());
        abft_fft_execute(clean, x.data(), want.data(), nullptr);
        const abft_status st = abft_fft_execute(faulty, x.data(), got.data(), nullptr);
        double err = 0, mag = 0;
        for (size_t i = 0; i < x.size(); ++i) {
          err = std::fmax(err, std::fabs(got[i] - want[i]));
          mag = std::fmax(mag, std::fabs(want[i]));
        }
        if (st != ABFT_STATUS_SUCCESS || !(err <= 1e-12 * mag)) ++bad[size_t(t)];
      }
    });
  for (auto& th : pool) th.join();
  for (int t = 0; t < threads; ++t) EXPECT_EQ(bad[size_t(t)], 0) << "thread " << t;
  abft_fft_destroy(faulty);
  abft_fft_destroy(clean);
  abft_handle_destroy(h);
  abft_injector_destroy(inj);
}

TEST(FftConcurrency, TwiddleFaultsStayWithTheirCall) { run_concurrent(ABFT_FAULT_NAN, ABFT_SITE_FFT_TWIDDLE); }
TEST(FftConcurrency, StageFaultsStayWithTheirCall) { run_concurrent(ABFT_FAULT_POS_INF, ABFT_SITE_FFT_STAGE); }

}  // namespace
