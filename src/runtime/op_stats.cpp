/** \file op_stats.cpp
 *  \brief Error statistics of the transformer runtime (stats.hpp): op and pass names, the
 *  counters of one (layer, op, pass) row, the table, the JSON report and the one-line summary.
 */
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "abft/transformer/error.hpp"
#include "abft/transformer/stats.hpp"
#include "json.hpp"

namespace abft::transformer {

namespace {

constexpr int kOps = static_cast<int>(OpKind::Count_);
constexpr int kPasses = static_cast<int>(Pass::Count_);

/** Whether a row has anything to show: a call, or any event (an event without a call would
 *  only come from a caller filling counters by hand, but a detection is never hidden). */
bool touched(const OpCounters& c) {
  return c.calls || c.checks || c.detected || c.corrected || c.recomputed || c.uncorrectable ||
         c.skipped || c.injected || c.timing_samples;
}

std::string u64(uint64_t v) { return std::to_string(static_cast<unsigned long long>(v)); }

std::string fixed(double v, int decimals) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}

/** The counters of one row as JSON members (no braces). */
std::string counters_json(const OpCounters& c) {
  std::string s;
  s += "\"calls\": " + u64(c.calls);
  s += ", \"checks\": " + u64(c.checks);
  s += ", \"detected\": " + u64(c.detected);
  s += ", \"corrected\": " + u64(c.corrected);
  s += ", \"recomputed\": " + u64(c.recomputed);
  s += ", \"uncorrectable\": " + u64(c.uncorrectable);
  s += ", \"skipped\": " + u64(c.skipped);
  s += ", \"injected\": " + u64(c.injected);
  s += ", \"seconds\": " + json::number(c.seconds);
  s += ", \"check_seconds\": " + json::number(c.check_seconds);
  s += ", \"timing_samples\": " + u64(c.timing_samples);
  return s;
}

}  // namespace

const char* op_name(OpKind k) {
  switch (k) {
    case OpKind::QKV: return "qkv";
    case OpKind::Attention: return "attention";
    case OpKind::OutProj: return "out_proj";
    case OpKind::MlpUp: return "mlp_up";
    case OpKind::MlpGate: return "mlp_gate";
    case OpKind::MlpDown: return "mlp_down";
    case OpKind::LmHead: return "lm_head";
    case OpKind::Embedding: return "embedding";
    case OpKind::Norm: return "norm";
    case OpKind::Activation: return "activation";
    case OpKind::Rope: return "rope";
    case OpKind::Loss: return "loss";
    default: return "unknown";
  }
}

bool op_is_abft(OpKind k) {
  return static_cast<int>(k) >= 0 && static_cast<int>(k) <= static_cast<int>(OpKind::LmHead);
}

const char* pass_name(Pass p) {
  switch (p) {
    case Pass::Forward: return "fwd";
    case Pass::Backward: return "bwd";
    case Pass::Weight: return "dW";
    default: return "unknown";
  }
}

void OpCounters::add(const OpCounters& o) {
  calls += o.calls;
  checks += o.checks;
  detected += o.detected;
  corrected += o.corrected;
  recomputed += o.recomputed;
  uncorrectable += o.uncorrectable;
  skipped += o.skipped;
  injected += o.injected;
  seconds += o.seconds;
  check_seconds += o.check_seconds;
  timing_samples += o.timing_samples;
}

void OpCounters::add_report(const abft_report& r) {
  checks += r.checks;
  detected += r.detected;
  corrected += r.corrected;
  recomputed += r.recomputed;
  uncorrectable += r.uncorrectable;
  skipped += r.skipped;
}

RunStats::RunStats(int layers) { resize(layers); }

void RunStats::resize(int layers) {
  if (layers < 0)
    throw Error(ABFT_STATUS_INVALID_VALUE,
                "RunStats: negative layer count " + std::to_string(layers));
  layers_ = layers;
  rows_.assign(static_cast<size_t>(layers + 1) * kOps * kPasses, OpCounters{});
}

namespace {
size_t row_index(int layers, int layer, OpKind op, Pass pass) {
  const int o = static_cast<int>(op), p = static_cast<int>(pass);
  if (layer < -1 || layer >= layers)
    throw Error(ABFT_STATUS_INVALID_VALUE,
                "RunStats: layer " + std::to_string(layer) + " outside [-1, " +
                    std::to_string(layers) + ")");
  if (o < 0 || o >= kOps)
    throw Error(ABFT_STATUS_INVALID_VALUE, "RunStats: op " + std::to_string(o) + " out of range");
  if (p < 0 || p >= kPasses)
    throw Error(ABFT_STATUS_INVALID_VALUE,
                "RunStats: pass " + std::to_string(p) + " out of range");
  return static_cast<size_t>(layer + 1) * kOps * kPasses + static_cast<size_t>(o) * kPasses +
         static_cast<size_t>(p);
}
}  // namespace

OpCounters& RunStats::at(int layer, OpKind op, Pass pass) {
  return rows_[row_index(layers_, layer, op, pass)];
}

const OpCounters& RunStats::at(int layer, OpKind op, Pass pass) const {
  return rows_[row_index(layers_, layer, op, pass)];
}

OpCounters RunStats::total() const {
  OpCounters t;
  for (const OpCounters& c : rows_) t.add(c);
  return t;
}

OpCounters RunStats::total(OpKind op, Pass pass) const {
  OpCounters t;
  for (int l = -1; l < layers_; ++l) t.add(at(l, op, pass));
  return t;
}

void RunStats::reset() { std::fill(rows_.begin(), rows_.end(), OpCounters{}); }

void RunStats::add(const RunStats& other) {
  if (other.layers_ != layers_)
    throw Error(ABFT_STATUS_INVALID_VALUE, "RunStats::add: layer counts differ (" +
                                               std::to_string(layers_) + " and " +
                                               std::to_string(other.layers_) + ")");
  for (size_t i = 0; i < rows_.size(); ++i) rows_[i].add(other.rows_[i]);
}

std::string RunStats::table(bool per_layer) const {
  struct Line {
    std::string layer;
    int op, pass;
    OpCounters c;
  };
  std::vector<Line> lines;
  if (per_layer) {
    for (int l = -1; l < layers_; ++l)
      for (int o = 0; o < kOps; ++o)
        for (int p = 0; p < kPasses; ++p) {
          const OpCounters& c = at(l, static_cast<OpKind>(o), static_cast<Pass>(p));
          if (touched(c)) lines.push_back({l < 0 ? "-" : std::to_string(l), o, p, c});
        }
  } else {
    for (int o = 0; o < kOps; ++o)
      for (int p = 0; p < kPasses; ++p) {
        const OpCounters c = total(static_cast<OpKind>(o), static_cast<Pass>(p));
        if (touched(c)) lines.push_back({"", o, p, c});
      }
  }

  // Cells, then column widths.
  std::vector<std::string> head;
  if (per_layer) head.push_back("layer");
  const char* const names[] = {"op",         "pass",          "abft",     "calls", "checks",
                               "detected",   "corrected",     "recomputed",
                               "uncorrectable", "injected", "ms", "check ms"};
  for (const char* n : names) head.push_back(n);
  const size_t first_num = per_layer ? 4 : 3;  // text columns are left-aligned

  auto cells = [&](const std::string& layer, const std::string& op, const std::string& pass,
                   const std::string& kind, const OpCounters& c) {
    std::vector<std::string> r;
    if (per_layer) r.push_back(layer);
    r.push_back(op);
    r.push_back(pass);
    r.push_back(kind);
    r.push_back(u64(c.calls));
    r.push_back(u64(c.checks));
    r.push_back(u64(c.detected));
    r.push_back(u64(c.corrected));
    r.push_back(u64(c.recomputed));
    r.push_back(u64(c.uncorrectable));
    r.push_back(u64(c.injected));
    r.push_back(fixed(c.seconds * 1e3, 2));
    // An estimate from few samples of short calls can exceed the calls' own time: shown
    // capped at it (the JSON keeps the raw estimate).
    r.push_back(c.timing_samples ? fixed(std::min(c.check_seconds, c.seconds) * 1e3, 2) : "-");
    return r;
  };
  std::vector<std::vector<std::string>> rows;
  rows.push_back(head);
  for (const Line& ln : lines) {
    const OpKind op = static_cast<OpKind>(ln.op);
    rows.push_back(cells(ln.layer, op_name(op), pass_name(static_cast<Pass>(ln.pass)),
                         op_is_abft(op) ? "ABFT" : "inv", ln.c));
  }
  rows.push_back(cells("", "total", "", "", total()));

  std::vector<size_t> width(head.size(), 0);
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());

  auto render = [&](const std::vector<std::string>& r) {
    std::string s;
    for (size_t i = 0; i < r.size(); ++i) {
      if (i) s += "  ";
      const std::string pad(width[i] - r[i].size(), ' ');
      s += i < first_num ? r[i] + pad : pad + r[i];
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s + "\n";
  };
  size_t line_width = 0;
  for (size_t w : width) line_width += w;
  line_width += 2 * (width.size() - 1);

  std::string out = render(rows.front());
  out += std::string(line_width, '-') + "\n";
  for (size_t i = 1; i + 1 < rows.size(); ++i) out += render(rows[i]);
  out += std::string(line_width, '-') + "\n";
  out += render(rows.back());
  return out;
}

std::string RunStats::json() const {
  std::string s = "{\"layers\": " + std::to_string(layers_);
  s += ", \"total\": {" + counters_json(total()) + "}";
  s += ", \"ops\": [";
  bool first = true;
  for (int l = -1; l < layers_; ++l)
    for (int o = 0; o < kOps; ++o)
      for (int p = 0; p < kPasses; ++p) {
        const OpKind op = static_cast<OpKind>(o);
        const Pass pass = static_cast<Pass>(p);
        const OpCounters& c = at(l, op, pass);
        if (!touched(c)) continue;
        if (!first) s += ", ";
        first = false;
        s += "{\"layer\": " + std::to_string(l);
        s += ", \"op\": " + json::quote(op_name(op));
        s += ", \"pass\": " + json::quote(pass_name(pass));
        s += std::string(", \"abft\": ") + (op_is_abft(op) ? "true" : "false");
        s += ", " + counters_json(c) + "}";
      }
  s += "]}";
  return s;
}

std::string RunStats::summary_line() const {
  const OpCounters t = total();
  return "checks " + u64(t.checks) + " detected " + u64(t.detected) + " corrected " +
         u64(t.corrected) + " recomputed " + u64(t.recomputed) + " uncorrectable " +
         u64(t.uncorrectable) + " injected " + u64(t.injected);
}

}  // namespace abft::transformer
