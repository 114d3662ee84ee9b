/** \file ops_loss.cpp
 *  \brief Softmax cross-entropy over the logits, with its gradient. Not checksummed; checks
 *  that every row's loss is finite and non-negative (log-sum-exp >= the target's logit) and
 *  recomputes once when one is not.
 */
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "abft/transformer/error.hpp"
#include "fast_math.hpp"
#include "ops.hpp"
#include "ops_resident.hpp"

namespace abft::transformer::ops {

double cross_entropy(OpContext& cx, int64_t N, int64_t V, float* logits, const int32_t* targets,
                     float* dlogits, float scale) {
  const Clock::time_point t0 = Clock::now();
  int64_t count = 0;
  for (int64_t i = 0; i < N; ++i) {
    // An out-of-range target is the caller's error, found before anything is written.
    if (targets[i] >= V)
      throw Error(ABFT_STATUS_INVALID_VALUE, "target " + std::to_string(targets[i]) + " at index " +
                                                 std::to_string(i) + " is outside the vocabulary [0, " +
                                                 std::to_string(V) + ")");
    count += targets[i] >= 0 ? 1 : 0;
  }
  const float g = count ? scale / float(count) : 0.0f;
  if (cx.resident) {  // the loss arrives with the pass's end (resident::pass_loss): no wait here
    resident::cross_entropy(cx, N, V, logits, targets, dlogits, g, count);
    return 0.0;
  }
  // Per-row losses, added in row order after the parallel loop: an OpenMP sum reduction
  // combines the threads' partial sums in whatever order they finish, which made the loss
  // differ in its last bits from run to run with more than two threads.
  std::vector<double> row_loss(size_t(N), 0.0);
  auto run = [&](double& total) {
    int bad = 0;
#pragma omp parallel for num_threads(cx.threads) schedule(static) reduction(| : bad)
    for (int64_t i = 0; i < N; ++i) {
      float* z = logits + i * V;
      const int32_t t = targets[i];
      float mx = z[0];
#pragma omp simd reduction(max : mx)
      for (int64_t j = 1; j < V; ++j) mx = std::max(mx, z[j]);
      float se = 0.0f;
#pragma omp simd reduction(+ : se)
      for (int64_t j = 0; j < V; ++j) se += fastm::exp(z[j] - mx);
      const double lse = double(mx) + std::log(double(se));
      if (t >= 0) {
        const double l = lse - double(z[t]);
        // l >= 0 up to the rounding of a float sum of V terms (one of them exp(z[t] - mx)).
        if (!(l >= -double(V) * 0x1p-23) || !std::isfinite(l)) bad |= 1;
        row_loss[size_t(i)] = l;
      }
      if (dlogits) {
        float* d = dlogits + i * V;
        const float gi = t >= 0 ? g : 0.0f;
        const float flse = float(lse);
#pragma omp simd
        for (int64_t j = 0; j < V; ++j) d[j] = gi * fastm::exp(z[j] - flse);
        if (t >= 0) d[t] -= gi;
      }
    }
    double sum = 0.0;
    for (int64_t i = 0; i < N; ++i) sum += row_loss[size_t(i)];
    total = sum;
    return bad == 0;
  };
  double total = 0.0;
  bool ok = true, ok2 = true;
  if (dlogits == logits) {
    // In place: the logits are gone after the pass, so no recomputation.
    ok = ok2 = run(total);
  } else {
    ok = run(total);
    ok2 = ok;
    if (!ok && cx.opt && cx.opt->invariant_checks) ok2 = run(total);
  }
  cx.record_invariant(-1, OpKind::Loss, Pass::Forward, ok, ok2, seconds_since(t0));
  return count ? total / double(count) : 0.0;
}

}  // namespace abft::transformer::ops
