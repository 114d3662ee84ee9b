/** \file ops_norm.cpp
 *  \brief LayerNorm and RMSNorm, forward and backward. Not checksummed; the forward verifies an
 *  invariant of every row — the normalized values are finite and bounded by sqrt(d) in
 *  magnitude (their mean square is at most 1) — and recomputes the op once when it fails.
 */
#include <algorithm>
#include <cmath>
#include <vector>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "ops.hpp"
#include "ops_resident.hpp"

namespace abft::transformer::ops {

namespace {

/** One pass over the rows; returns true when every row met the invariant. */
bool norm_rows(int64_t N, int64_t d, const float* x, const float* w, const float* b, double eps,
               float* y, float* mean, float* rstd, int threads) {
  const double bound = std::sqrt(double(d)) * (1.0 + 1e-3);
  int bad = 0;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(| : bad)
  for (int64_t i = 0; i < N; ++i) {
    const float* xr = x + i * d;
    float* yr = y + i * d;
    double mu = 0.0;
    if (b) {
      for (int64_t j = 0; j < d; ++j) mu += xr[j];
      mu /= double(d);
    }
    double ss = 0.0;
    for (int64_t j = 0; j < d; ++j) {
      const double c = double(xr[j]) - mu;
      ss += c * c;
    }
    const float r = float(1.0 / std::sqrt(ss / double(d) + eps));
    const float m = float(mu);
    float amax = 0.0f;
    for (int64_t j = 0; j < d; ++j) {
      const float n = (xr[j] - m) * r;
      amax = std::max(amax, std::fabs(n));
      yr[j] = b ? n * w[j] + b[j] : n * w[j];
    }
    if (mean) mean[i] = m;
    rstd[i] = r;
    // NaN fails the comparison too.
    if (!(double(amax) <= bound) || !std::isfinite(r)) bad |= 1;
  }
  return bad == 0;
}

}  // namespace

void norm_fwd(OpContext& cx, int layer, int64_t N, int64_t d, const float* x, const float* w,
              const float* b, double eps, float* y, float* mean, float* rstd) {
  if (cx.resident) return resident::norm_fwd(cx, layer, N, d, x, w, b, eps, y, mean, rstd);
  const Clock::time_point t0 = Clock::now();
  bool ok = norm_rows(N, d, x, w, b, eps, y, mean, rstd, cx.threads);
  bool ok2 = ok;
  if (!ok && cx.opt && cx.opt->invariant_checks) ok2 = norm_rows(N, d, x, w, b, eps, y, mean, rstd, cx.threads);
  cx.record_invariant(layer, OpKind::Norm, Pass::Forward, ok, ok2, seconds_since(t0));
}

void norm_bwd(OpContext& cx, int layer, int64_t N, int64_t d, const float* x, const float* w,
              bool layernorm, const float* mean, const float* rstd, const float* dy, float* dx,
              float* dw, float* db) {
  if (cx.resident) return resident::norm_bwd(cx, layer, N, d, x, w, layernorm, mean, rstd, dy, dx, dw, db);
  const Clock::time_point t0 = Clock::now();
  const int nt = std::max(1, cx.threads);
  std::vector<double> part(size_t(nt) * size_t(2 * d), 0.0);
  int bad = 0;
#pragma omp parallel num_threads(nt) reduction(| : bad)
  {
#ifdef _OPENMP
    const int tid = omp_get_thread_num();
#else
    const int tid = 0;
#endif
    double* pw = part.data() + size_t(tid) * size_t(2 * d);
    double* pb = pw + d;
#pragma omp for schedule(static)
    for (int64_t i = 0; i < N; ++i) {
      const float* xr = x + i * d;
      const float* g = dy + i * d;
      float* o = dx + i * d;
      const float m = layernorm ? mean[i] : 0.0f, r = rstd[i];
      double s1 = 0.0, s2 = 0.0;  // sum of dyhat, sum of dyhat * xhat
      for (int64_t j = 0; j < d; ++j) {
        const float xh = (xr[j] - m) * r;
        const float dh = g[j] * w[j];
        s1 += dh;
        s2 += double(dh) * xh;
        pw[j] += double(g[j]) * xh;
        pb[j] += g[j];
      }
      const float a = layernorm ? float(s1 / double(d)) : 0.0f;
      const float c = float(s2 / double(d));
      float sum = 0.0f;
      for (int64_t j = 0; j < d; ++j) {
        const float xh = (xr[j] - m) * r;
        const float v = r * (g[j] * w[j] - a - xh * c);
        o[j] += v;
        sum += v;
      }
      if (!std::isfinite(sum)) bad |= 1;
    }
  }
  for (int t = 0; t < nt; ++t) {
    const double* pw = part.data() + size_t(t) * size_t(2 * d);
    for (int64_t j = 0; j < d; ++j) {
      dw[j] += float(pw[j]);
      if (db) db[j] += float(pw[d + j]);
    }
  }
  // The backward accumulates into dx, so a failed check cannot be recomputed in place.
  cx.record_invariant(layer, OpKind::Norm, Pass::Backward, bad == 0, false, seconds_since(t0));
}

}  // namespace abft::transformer::ops
