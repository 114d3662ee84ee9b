/** \file trainer.cpp
 *  \brief Training loop pieces (train.hpp): the random-window token loader, the shipped
 *  corpus and Trainer::step (gradient accumulation, AdamW, the step's statistics).
 */
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "abft/transformer/error.hpp"
#include "buffer.hpp"
#include "ops_gpu.hpp"
#include "ops_resident.hpp"
#include "rng.hpp"
#include "abft/transformer/train.hpp"

namespace abft::transformer {

namespace {

/** A uniform integer in [0, n) (n > 0): the high half of a 64 x 64-bit product. */
uint64_t below(uint64_t& state, uint64_t n) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(splitmix64(state)) * n) >> 64);
}

uint64_t sub_sat(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

/** after - before, row by row (counters saturate at 0 should `before` be ahead). */
RunStats difference(const RunStats& after, const RunStats& before) {
  if (after.layers() != before.layers()) return after;
  RunStats d(after.layers());
  for (int l = -1; l < after.layers(); ++l)
    for (int o = 0; o < static_cast<int>(OpKind::Count_); ++o)
      for (int p = 0; p < static_cast<int>(Pass::Count_); ++p) {
        const OpKind op = static_cast<OpKind>(o);
        const Pass pass = static_cast<Pass>(p);
        const OpCounters& a = after.at(l, op, pass);
        const OpCounters& b = before.at(l, op, pass);
        OpCounters& r = d.at(l, op, pass);
        r.calls = sub_sat(a.calls, b.calls);
        r.checks = sub_sat(a.checks, b.checks);
        r.detected = sub_sat(a.detected, b.detected);
        r.corrected = sub_sat(a.corrected, b.corrected);
        r.recomputed = sub_sat(a.recomputed, b.recomputed);
        r.uncorrectable = sub_sat(a.uncorrectable, b.uncorrectable);
        r.skipped = sub_sat(a.skipped, b.skipped);
        r.injected = sub_sat(a.injected, b.injected);
        r.timing_samples = sub_sat(a.timing_samples, b.timing_samples);
        r.seconds = std::max(0.0, a.seconds - b.seconds);
        r.check_seconds = std::max(0.0, a.check_seconds - b.check_seconds);
      }
  return d;
}

}  // namespace

TokenLoader::TokenLoader(std::vector<int32_t> stream, uint64_t seed)
    : stream_(std::move(stream)), state_(seed ^ 0x5851F42D4C957F2Dull) {}

void TokenLoader::next(int64_t B, int64_t T, std::vector<int32_t>& tokens,
                       std::vector<int32_t>& targets) {
  if (B <= 0 || T <= 0)
    throw Error(ABFT_STATUS_INVALID_SIZE, "TokenLoader: batch " + std::to_string(B) +
                                              " and sequence " + std::to_string(T) +
                                              " must be positive");
  if (stream_.size() < static_cast<size_t>(T) + 1)
    throw Error(ABFT_STATUS_INVALID_SIZE,
                "TokenLoader: the token stream has " + std::to_string(stream_.size()) +
                    " tokens, a window of sequence " + std::to_string(T) + " needs " +
                    std::to_string(T + 1));
  tokens.resize(size_t(B * T));
  targets.resize(size_t(B * T));
  // Window starts uniform over [0, size - T - 1].
  const uint64_t starts = stream_.size() - static_cast<uint64_t>(T);
  for (int64_t b = 0; b < B; ++b) {
    const size_t s = static_cast<size_t>(below(state_, starts));
    std::copy(stream_.begin() + s, stream_.begin() + s + T, tokens.begin() + b * T);
    std::copy(stream_.begin() + s + 1, stream_.begin() + s + T + 1, targets.begin() + b * T);
  }
}

std::string read_corpus(const std::string& root) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  std::error_code ec;
  const fs::path base(root);
  if (fs::is_regular_file(base / "README.md", ec)) files.push_back(base / "README.md");
  std::vector<fs::path> docs;
  const fs::path dir = base / "docs";
  if (fs::is_directory(dir, ec)) {
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const fs::path& p = it->path();
      std::error_code ec2;
      if (p.extension() == ".md" && fs::is_regular_file(p, ec2)) docs.push_back(p);
    }
  }
  std::sort(docs.begin(), docs.end(),
            [](const fs::path& a, const fs::path& b) { return a.filename() < b.filename(); });
  files.insert(files.end(), docs.begin(), docs.end());

  std::string text;
  size_t read = 0;
  for (const fs::path& p : files) {
    std::ifstream in(p, std::ios::binary);
    if (!in) continue;
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) continue;
    std::string s = ss.str();
    if (!text.empty() && text.back() != '\n') text += '\n';
    text += s;
    ++read;
  }
  if (read == 0)
    throw Error(ABFT_STATUS_INVALID_VALUE,
                "read_corpus: no README.md or docs/*.md readable under '" + root + "'");
  return text;
}

struct Trainer::DeviceGrads {
  Buf<float> g{true};
};
void Trainer::DeviceGradsFree::operator()(DeviceGrads* d) const { delete d; }
Trainer::~Trainer() = default;

Trainer::Trainer(Model& model, TokenLoader& loader, const TrainOptions& opt)
    : model_(model), loader_(loader), opt_(opt),
      adamw_(std::as_const(model).weights().layout(), opt.adamw) {
  if (opt.batch <= 0 || opt.seq <= 0 || opt.accum <= 0)
    throw Error(ABFT_STATUS_INVALID_VALUE,
                "Trainer: batch, seq and accum must be positive (got " +
                    std::to_string(opt.batch) + ", " + std::to_string(opt.seq) + ", " +
                    std::to_string(opt.accum) + ")");
  if (opt.seq > model.config().context)
    throw Error(ABFT_STATUS_INVALID_VALUE,
                "Trainer: sequence " + std::to_string(opt.seq) + " exceeds the context of " +
                    std::to_string(model.config().context));
  if (model.options().engine != Engine::Gpu) {
    grads_.assign(std::as_const(model).weights().size(), 0.0f);
    return;
  }
  held_ = model.hold_weights_on_device();
  dgrads_.reset(new DeviceGrads);
  dgrads_->g.fit(std::max<size_t>(std::as_const(model).weights().size(), 1));
}

StepResult Trainer::step_gpu() {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const RunStats before = model_.stats();
  StepResult r;
  r.step = adamw_.steps() + 1;
  const float scale = 1.0f / static_cast<float>(opt_.accum);
  float* g = dgrads_->g.data();
  double loss = 0.0;
  for (int64_t a = 0; a < opt_.accum; ++a) {
    loader_.next(opt_.batch, opt_.seq, tok_, tgt_);
    // The first micro-batch's gradient is written over the buffer (zeroed), the others added.
    loss += model_.loss_impl(tok_.data(), tgt_.data(), opt_.batch, opt_.seq, g, scale, a == 0, true);
  }
  r.loss = loss / double(opt_.accum);
  r.tokens = opt_.batch * opt_.seq * opt_.accum;
  // The update on the device copy the passes read, which becomes the weights (Model::weights()
  // brings them back to the host).
  float* w = model_.resident_weights();
  r.grad_norm = adamw_.step_device(w, g);
  ops::gpu_weights_written(model_.handle().get());
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  r.stats = difference(model_.stats(), before);
  return r;
}

StepResult Trainer::step() {
  if (dgrads_) return step_gpu();
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const RunStats before = model_.stats();
  StepResult r;
  r.step = adamw_.steps() + 1;
  std::fill(grads_.begin(), grads_.end(), 0.0f);
  const float scale = 1.0f / static_cast<float>(opt_.accum);
  double loss = 0.0;
  for (int64_t a = 0; a < opt_.accum; ++a) {
    loader_.next(opt_.batch, opt_.seq, tok_, tgt_);
    // The first micro-batch finds the buffer zeroed: its weight gradients are written.
    loss += model_.loss(tok_.data(), tgt_.data(), opt_.batch, opt_.seq, grads_.data(), scale, a == 0);
  }
  r.loss = loss / double(opt_.accum);
  r.tokens = opt_.batch * opt_.seq * opt_.accum;
  r.grad_norm = adamw_.step(model_.weights().data(), grads_.data());
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  r.stats = difference(model_.stats(), before);
  return r;
}

}  // namespace abft::transformer
