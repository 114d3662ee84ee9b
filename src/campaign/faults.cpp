/** \file faults.cpp
 *  \brief The campaign's fault planner and the draw of a trial's faults (faults.hpp).
 */
#include "campaign/faults.hpp"

#include <cmath>

#include "campaign/input_gen.hpp"

namespace abft::campaign {

uint64_t trial_seed(uint64_t seed, int64_t id, uint64_t what) {
  InputRng r(seed ^ (0xD1B54A32D192ED03ull * (uint64_t(id) + 1)) ^ (what << 56));
  r.next();
  return r.next();
}

namespace {

int64_t draw(InputRng& st, int64_t n) { return n > 0 ? int64_t(st.next() % uint64_t(n)) : 0; }

bool same_call(const abft_call_info& a, const abft_call_info& b) {
  return a.kernel == b.kernel && a.m == b.m && a.n == b.n && a.k == b.k && a.batch == b.batch;
}

}  // namespace

void Planner::record() {
  std::lock_guard<std::mutex> g(mu_);
  inject_ = false;
  delivered_ = false;
  seen_ = 0;
  calls_.clear();
}

void Planner::inject(int64_t call, const abft_call_info& expect, const std::vector<abft_fault>& f) {
  std::lock_guard<std::mutex> g(mu_);
  inject_ = true;
  delivered_ = false;
  seen_ = 0;
  target_ = call;
  expect_ = expect;
  faults_ = f;
}

abft_status Planner::attach(abft_handle_t h) { return abft_handle_set_inject_hook(h, &Planner::hook, this); }

int Planner::hook(void* user, const abft_call_info* call, abft_fault* out, int cap) {
  Planner* p = static_cast<Planner*>(user);
  std::lock_guard<std::mutex> g(p->mu_);
  const int64_t idx = p->seen_++;
  if (!p->inject_) {
    p->calls_.push_back(*call);
    return 0;
  }
  if (idx != p->target_ || !same_call(*call, p->expect_)) return 0;
  p->delivered_ = true;
  int n = 0;
  for (const abft_fault& f : p->faults_)
    if (n < cap) out[n++] = f;
  return n;
}

TrialFaults draw_faults(const Options& o, const std::vector<abft_site>& sites, int bits,
                        const std::vector<abft_call_info>& calls, uint64_t seed) {
  TrialFaults tf;
  InputRng st(seed);
  if (sites.empty()) return tf;
  tf.site = sites[size_t(draw(st, int64_t(sites.size())))];
  tf.model = o.random_model ? abft_fault_model(draw(st, ABFT_FAULT_MODEL_COUNT_)) : o.model;
  // The calls where the site exists; the trial's faults go to one of them.
  std::vector<int64_t> usable;
  for (size_t i = 0; i < calls.size(); ++i)
    if (abft_site_extent(&calls[i], tf.site, nullptr, nullptr, nullptr) == ABFT_STATUS_SUCCESS)
      usable.push_back(int64_t(i));
  if (usable.empty()) return tf;
  tf.call = usable[size_t(draw(st, int64_t(usable.size())))];
  int64_t rows = 0, cols = 0, kpos = 0;
  abft_site_extent(&calls[size_t(tf.call)], tf.site, &rows, &cols, &kpos);
  const int64_t shared_row = draw(st, rows), shared_col = draw(st, cols);
  for (int i = 0; i < o.faults; ++i) {
    abft_fault f{};
    f.site = tf.site;
    f.model = tf.model;
    f.bit = o.bit >= 0 ? o.bit : int32_t(draw(st, bits));
    f.row = (o.pattern == Pattern::SameRow) ? shared_row : draw(st, rows);
    f.col = (o.pattern == Pattern::SameCol) ? shared_col : draw(st, cols);
    // An accumulator fault lands after kpos of k terms: 1 <= kpos < k (a real mid-k fault).
    f.kpos = (f.site == ABFT_SITE_ACCUMULATOR && kpos > 1) ? 1 + draw(st, kpos - 1) : draw(st, kpos);
    if (f.model == ABFT_FAULT_RANDOM) {
      f.value = std::ldexp(st.symmetric(), int(draw(st, 17)) - 8);
    }
    tf.faults.push_back(f);
  }
  return tf;
}

}  // namespace abft::campaign
