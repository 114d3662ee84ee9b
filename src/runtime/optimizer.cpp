/** \file optimizer.cpp
 *  \brief AdamW (train.hpp): decoupled weight decay on the parameters ParamInfo::decay marks,
 *  bias-corrected moments, linear warmup and clipping by the global L2 norm.
 *
 *  One step at update t (1-based), with lr_t = lr * min(1, t / warmup):
 *    norm = ||g||_2 (in double); g *= clip / norm when clip > 0 and norm > clip
 *    w   *= 1 - lr_t * weight_decay                 (decayed parameters only)
 *    m    = beta1 m + (1 - beta1) g,   v = beta2 v + (1 - beta2) g^2
 *    w   -= lr_t * (m / (1 - beta1^t)) / (sqrt(v / (1 - beta2^t)) + eps)
 *  The norm is summed over fixed blocks in a fixed order, so it (and the whole update) is the
 *  same for any thread count. The element loops cannot throw. step_device runs the same on
 *  device memory (cuda/runtime_ops.cu's sum_squares_blocks and adamw_update).
 */
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "abft/transformer/error.hpp"
#include "abft/transformer/train.hpp"
#include "adamw_element.hpp"
#include "buffer.hpp"
#include "ops_resident.hpp"

namespace abft::transformer {

namespace {
constexpr int64_t kNormBlock = int64_t(1) << 14;
}

AdamW::AdamW(const ParamLayout& layout, const AdamWOptions& opt)
    : opt_(opt), m_(layout.size(), 0.0f), v_(layout.size(), 0.0f), decay_(layout.size(), 0) {
  auto bad = [](const std::string& what) {
    throw Error(ABFT_STATUS_INVALID_VALUE, "AdamW: " + what);
  };
  if (!std::isfinite(opt.lr) || opt.lr < 0.0) bad("lr must be finite and >= 0");
  if (!(opt.beta1 >= 0.0 && opt.beta1 < 1.0)) bad("beta1 must be in [0, 1)");
  if (!(opt.beta2 >= 0.0 && opt.beta2 < 1.0)) bad("beta2 must be in [0, 1)");
  if (!std::isfinite(opt.eps) || opt.eps < 0.0) bad("eps must be finite and >= 0");
  if (!std::isfinite(opt.weight_decay) || opt.weight_decay < 0.0)
    bad("weight_decay must be finite and >= 0");
  if (std::isnan(opt.clip)) bad("clip must not be NaN");
  if (opt.warmup < 0) bad("warmup must be >= 0");
  for (const ParamInfo& p : layout.params()) {
    if (!p.decay) continue;
    for (size_t i = p.offset; i < p.offset + p.numel && i < decay_.size(); ++i) decay_[i] = 1;
  }
}

struct AdamW::Device {
  Buf<float> m{true}, v{true};
  Buf<uint8_t> decay{true};
  Buf<double> partial{true};
};
void AdamW::DeviceFree::operator()(Device* d) const { delete d; }
AdamW::~AdamW() = default;
AdamW::AdamW(AdamW&&) noexcept = default;
AdamW& AdamW::operator=(AdamW&&) noexcept = default;

AdamW::Scalars AdamW::scalars() const {
  const double t = double(t_);
  const double warm = (opt_.warmup > 0 && t_ < opt_.warmup) ? t / double(opt_.warmup) : 1.0;
  const double lr = opt_.lr * warm;
  const double b1 = opt_.beta1, b2 = opt_.beta2;
  const double bc1 = 1.0 - std::pow(b1, t), bc2 = 1.0 - std::pow(b2, t);
  return Scalars{b1, b2, lr / bc1, 1.0 / std::sqrt(bc2), 1.0 - lr * opt_.weight_decay, opt_.eps};
}

double AdamW::norm_of(const std::vector<double>& partial) const {
  double sq = 0.0;
  for (double s : partial) sq += s;
  const double norm = std::sqrt(sq);
  if (!std::isfinite(norm))
    throw Error(ABFT_STATUS_INVALID_VALUE, "AdamW: non-finite gradient norm at step " +
                                               std::to_string(t_ + 1) + " (no update)");
  return norm;
}

void AdamW::moments_to_host() {
  if (!dev_ || !dev_newer_) return;
  ops::resident::download(m_.data(), dev_->m.data(), m_.size() * sizeof(float));
  ops::resident::download(v_.data(), dev_->v.data(), v_.size() * sizeof(float));
  dev_newer_ = false;
}

double AdamW::step_device(float* w, float* g) {
  const int64_t n = static_cast<int64_t>(m_.size());
  if (n > 0 && (!w || !g)) throw Error(ABFT_STATUS_NULL_POINTER, "AdamW::step_device: null buffer");
  const size_t un = size_t(std::max<int64_t>(n, 1));
  const int64_t blocks = (n + kNormBlock - 1) / kNormBlock;
  if (!dev_) {
    std::unique_ptr<Device, DeviceFree> d(new Device);
    d->m.fit(un);
    d->v.fit(un);
    d->decay.fit(un);
    d->partial.fit(size_t(std::max<int64_t>(blocks, 1)));
    ops::resident::upload(d->decay.data(), decay_.data(), decay_.size());
    dev_ = std::move(d);
    dev_newer_ = false;
  }
  if (!dev_newer_) {
    ops::resident::upload(dev_->m.data(), m_.data(), m_.size() * sizeof(float));
    ops::resident::upload(dev_->v.data(), v_.data(), v_.size() * sizeof(float));
    dev_newer_ = true;
  }
  // Global norm: the blocks' sums on the device, added in block order here.
  std::vector<double> partial(size_t(blocks), 0.0);
  ops::resident::sum_squares_blocks(n, g, kNormBlock, dev_->partial.data());
  ops::resident::download(partial.data(), dev_->partial.data(), partial.size() * sizeof(double));
  const double norm = norm_of(partial);
  const float clip_scale = (opt_.clip > 0.0 && norm > opt_.clip) ? static_cast<float>(opt_.clip / norm) : 1.0f;
  ++t_;
  const Scalars c = scalars();
  ops::resident::adamw_update(n, w, g, dev_->m.data(), dev_->v.data(), dev_->decay.data(), clip_scale, c.b1, c.b2,
                              c.step_size, c.inv_sqrt_bc2, c.shrink, c.eps);
  return norm;
}

double AdamW::step(float* w, float* g) {
  const int64_t n = static_cast<int64_t>(m_.size());
  if (n > 0 && (!w || !g)) throw Error(ABFT_STATUS_NULL_POINTER, "AdamW::step: null buffer");
  moments_to_host();

  // Global norm: per-block partial sums (parallel), added in block order.
  const int64_t blocks = (n + kNormBlock - 1) / kNormBlock;
  std::vector<double> partial(static_cast<size_t>(blocks), 0.0);
#pragma omp parallel for schedule(static)
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t lo = b * kNormBlock, hi = std::min(n, lo + kNormBlock);
    double s = 0.0;
    for (int64_t i = lo; i < hi; ++i) s += double(g[i]) * double(g[i]);
    partial[size_t(b)] = s;
  }
  const double norm = norm_of(partial);

  if (opt_.clip > 0.0 && norm > opt_.clip) {
    const float scale = static_cast<float>(opt_.clip / norm);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) g[i] *= scale;
  }

  ++t_;
  const Scalars c = scalars();
  const double b1 = c.b1, b2 = c.b2, step_size = c.step_size, inv_sqrt_bc2 = c.inv_sqrt_bc2, shrink = c.shrink,
               eps = c.eps;
  float* m = m_.data();
  float* v = v_.data();
  const uint8_t* decay = decay_.data();
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i)
    adamw_element(w[i], g[i], m[i], v[i], decay[i] != 0, b1, b2, step_size, inv_sqrt_bc2, shrink, eps);
  return norm;
}

}  // namespace abft::transformer
