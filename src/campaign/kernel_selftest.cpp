/** \file kernel_selftest.cpp
 *  \brief A kernel that misbehaves on purpose, to test the campaign's watchdog (hidden from
 *  `abft campaign --list`): a small protected sgemm, except that trial t crashes the worker
 *  (SIGSEGV) when t % crash == crash - 1 and hangs (sleeps past any timeout) when
 *  t % hang == hang - 1. --sizes crash,hang (default 7,11; 0 disables either).
 */
#include <signal.h>
#include <unistd.h>

#include "campaign/kernel.hpp"

namespace abft::campaign {

namespace {

class SelftestKernel final : public Kernel {
 public:
  SelftestKernel(std::unique_ptr<Kernel> inner, int64_t crash, int64_t hang)
      : inner_(std::move(inner)), crash_(crash), hang_(hang) {}
  std::string describe() const override {
    return "selftest (" + inner_->describe() + "; crash every " + std::to_string(crash_) + ", hang every " +
           std::to_string(hang_) + ")";
  }
  std::vector<abft_site> sites() const override { return inner_->sites(); }
  void prepare(uint64_t trial, uint64_t seed) override {
    trial_ = trial;
    inner_->prepare(trial, seed);
  }
  RunResult run(abft_handle_t h, abft_policy p) override {
    if (crash_ > 0 && int64_t(trial_ % uint64_t(crash_)) == crash_ - 1) ::raise(SIGSEGV);
    if (hang_ > 0 && int64_t(trial_ % uint64_t(hang_)) == hang_ - 1)
      for (;;) ::pause();
    return inner_->run(h, p);
  }
  const std::vector<double>& limits() const override { return inner_->limits(); }

 private:
  std::unique_ptr<Kernel> inner_;
  int64_t crash_, hang_;
  uint64_t trial_ = 0;
};

}  // namespace

std::unique_ptr<Kernel> make_selftest_kernel(const KernelOptions& o, std::string* error) {
  const std::vector<int64_t> s = o.sizes.empty() ? std::vector<int64_t>{7, 11} : o.sizes;
  if (s.size() != 2 || s[0] < 0 || s[1] < 0) {
    *error = "--sizes for selftest needs crash,hang (periods, 0 = never)";
    return nullptr;
  }
  KernelOptions g = o;
  g.kernel = "gemm";
  g.sizes = {24, 20, 16};
  g.variant.clear();
  std::unique_ptr<Kernel> inner = make_gemm_kernel(g, error);
  if (!inner) return nullptr;
  return std::make_unique<SelftestKernel>(std::move(inner), s[0], s[1]);
}

}  // namespace abft::campaign
