/** \file runtime_args.cpp
 *  \brief Helpers of `abft infer` and `abft train` (runtime_args.hpp).
 */
#include "runtime_args.hpp"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "abft/transformer/config.hpp"
#include "abft/transformer/error.hpp"
#include "commands.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace abft::cli {

using abft::transformer::Error;

bool ArgReader::is(const char* name) const {
  const size_t n = std::strlen(name);
  return current_ && std::strncmp(current_, name, n) == 0 &&
         (current_[n] == '\0' || current_[n] == '=');
}

std::string ArgReader::value(const char* what) {
  const char* eq = std::strchr(current_, '=');
  std::string name = eq ? std::string(current_, size_t(eq - current_)) : std::string(current_);
  if (eq) return eq + 1;
  if (i_ >= argc_) throw UsageError(name + " needs " + what + ", got nothing");
  return argv_[i_++];
}

bool ArgReader::has_plain_next() const {
  return i_ < argc_ && std::strncmp(argv_[i_], "--", 2) != 0;
}

namespace {
std::string option_name(const ArgReader& a) {
  const char* c = a.current();
  const char* eq = std::strchr(c, '=');
  return eq ? std::string(c, size_t(eq - c)) : std::string(c);
}
}  // namespace

uint64_t u64_value(ArgReader& a) {
  const std::string v = a.value("an unsigned integer");
  uint64_t out = 0;
  if (!parse_u64(v.c_str(), &out))
    throw UsageError(option_name(a) + " needs an unsigned integer, got '" + v + "'");
  return out;
}

int64_t positive_value(ArgReader& a) {
  const std::string v = a.value("a positive integer");
  uint64_t out = 0;
  if (!parse_u64(v.c_str(), &out) || out == 0 || out > (uint64_t(1) << 40))
    throw UsageError(option_name(a) + " needs a positive integer, got '" + v + "'");
  return int64_t(out);
}

double double_value(ArgReader& a) {
  const std::string v = a.value("a number");
  double out = 0;
  if (!parse_double(v.c_str(), &out))
    throw UsageError(option_name(a) + " needs a number, got '" + v + "'");
  return out;
}

abft::Policy policy_value(ArgReader& a) {
  const std::string v = a.value("'off', 'detect' or 'correct'");
  if (v == "off") return abft::Policy::Off;
  if (v == "detect") return abft::Policy::Detect;
  if (v == "correct") return abft::Policy::Correct;
  throw UsageError(option_name(a) + " needs 'off', 'detect' or 'correct', got '" + v + "'");
}

const char* policy_name(abft::Policy p) {
  switch (p) {
    case abft::Policy::Off: return "off";
    case abft::Policy::Detect: return "detect";
    case abft::Policy::Correct: return "correct";
    default: return "default";
  }
}

abft::transformer::Engine engine_value(ArgReader& a) {
  const std::string v = a.value("'cpu' or 'gpu'");
  if (v == "cpu") return abft::transformer::Engine::Cpu;
  if (v == "gpu") return abft::transformer::Engine::Gpu;
  throw UsageError(option_name(a) + " needs 'cpu' or 'gpu', got '" + v + "'");
}

const char* engine_name(abft::transformer::Engine e) { return e == abft::transformer::Engine::Gpu ? "gpu" : "cpu"; }

std::string ModelSource::describe() const {
  std::string s = dir.empty() ? "preset " + preset : dir;
  if (!weights.empty())
    s += ", weights " + weights;
  else if (dir.empty())
    s += ", random initialization (seed " + std::to_string(seed) + ")";
  return s;
}

std::unique_ptr<abft::transformer::Model> load_model(const ModelSource& src,
                                                     const abft::transformer::ModelOptions& opt) {
  using namespace abft::transformer;
  std::unique_ptr<Model> m;
  if (!src.dir.empty()) {
    // What Model::from_pretrained does, with the model built where it stays.
    const std::string cpath = src.dir + "/config.json";
    std::ifstream in(cpath, std::ios::binary);
    if (!in) throw Error(ABFT_STATUS_INVALID_VALUE, cpath + ": cannot open");
    std::ostringstream text;
    text << in.rdbuf();
    m = std::make_unique<Model>(config_from_json(text.str(), cpath), opt);
    m->weights().load(src.weights.empty() ? src.dir + "/model.safetensors" : src.weights);
    return m;
  }
  m = std::make_unique<Model>(preset(src.preset), opt);
  if (!src.weights.empty())
    m->weights().load(src.weights);
  else
    m->weights().init_random(src.seed);
  return m;
}

std::vector<int32_t> encode_for(const abft::transformer::Tokenizer& tok, const std::string& text,
                                int64_t vocab, const char* cmd) {
  std::vector<int32_t> ids = tok.encode(text);
  if (tok.vocab_size() > vocab && tok.name() == "bytes") {
    static bool noted = false;
    if (!noted)
      std::fprintf(stderr, "abft %s: note: bytes folded modulo the model's vocabulary of %lld\n",
                   cmd, static_cast<long long>(vocab));
    noted = true;
    for (int32_t& id : ids) id = int32_t(id % vocab);
  }
  return ids;
}

namespace {
/** Length of the valid UTF-8 sequence at b[i] (0: not one). */
size_t utf8_len(const unsigned char* b, size_t i, size_t n) {
  const unsigned char c = b[i];
  if (c < 0x80) return 1;
  const size_t len = (c >= 0xc2 && c <= 0xdf) ? 2 : (c >= 0xe0 && c <= 0xef) ? 3
                     : (c >= 0xf0 && c <= 0xf4) ? 4 : 0;
  if (len == 0 || i + len > n) return 0;
  for (size_t j = 1; j < len; ++j)
    if ((b[i + j] & 0xc0) != 0x80) return 0;
  // Overlong 3- and 4-byte forms, surrogates and code points above U+10FFFF.
  if (c == 0xe0 && b[i + 1] < 0xa0) return 0;
  if (c == 0xed && b[i + 1] >= 0xa0) return 0;
  if (c == 0xf0 && b[i + 1] < 0x90) return 0;
  if (c == 0xf4 && b[i + 1] >= 0x90) return 0;
  return len;
}
}  // namespace

std::string printable(const std::string& s) {
  std::string out;
  const auto* b = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  auto hex = [&out](unsigned char c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", c);
    out += buf;
  };
  for (size_t i = 0; i < n;) {
    const unsigned char c = b[i];
    if (c == '\n') { out += "\\n"; ++i; continue; }
    if (c == '\t') { out += "\\t"; ++i; continue; }
    if (c == '\\') { out += "\\\\"; ++i; continue; }
    if (c < 0x20 || c == 0x7f) { hex(c); ++i; continue; }
    if (c < 0x80) { out += char(c); ++i; continue; }
    // A whole, valid UTF-8 sequence passes; anything else is escaped byte by byte.
    const size_t len = utf8_len(b, i, n);
    if (len) {
      out.append(s, i, len);
      i += len;
    } else {
      hex(c);
      ++i;
    }
  }
  return out;
}

std::string utf8_clean(const std::string& s) {
  std::string out;
  const auto* b = reinterpret_cast<const unsigned char*>(s.data());
  for (size_t i = 0; i < s.size();) {
    const size_t len = utf8_len(b, i, s.size());
    if (len) {
      out.append(s, i, len);
      i += len;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

std::string ids_json(const std::vector<int32_t>& ids) {
  std::string s = "[";
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(ids[i]);
  }
  return s + "]";
}

std::string ids_text(const std::vector<int32_t>& ids) {
  std::string s;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i) s += ' ';
    s += std::to_string(ids[i]);
  }
  return s;
}

void write_file(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw Error(ABFT_STATUS_INVALID_VALUE, path + ": cannot open for writing");
  out.write(data.data(), std::streamsize(data.size()));
  out.close();
  if (!out) throw Error(ABFT_STATUS_INVALID_VALUE, path + ": write failed");
}

void write_npy(const std::string& path, int64_t rows, int64_t cols, const float* data) {
  // Magic, version 1.0, a little-endian uint16 header length, then the header dict padded
  // with spaces and ended by a newline so that the data starts on a 64-byte boundary.
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" +
                     std::to_string(rows) + ", " + std::to_string(cols) + "), }";
  const size_t prefix = 10;
  size_t total = prefix + dict.size() + 1;
  const size_t pad = (64 - total % 64) % 64;
  dict.append(pad, ' ');
  dict += '\n';
  std::string out = "\x93NUMPY";
  out += char(1);
  out += char(0);
  const size_t hlen = dict.size();
  out += char(hlen & 0xff);
  out += char((hlen >> 8) & 0xff);
  out += dict;
  const size_t n = size_t(rows) * size_t(cols);
  const size_t at = out.size();
  out.resize(at + n * 4);
  for (size_t i = 0; i < n; ++i) {  // little-endian float32 whatever the host order
    uint32_t bits;
    std::memcpy(&bits, data + i, 4);
    for (int b = 0; b < 4; ++b) out[at + 4 * i + size_t(b)] = char((bits >> (8 * b)) & 0xff);
  }
  write_file(path, out);
}

void set_threads(int threads) {
#ifdef _OPENMP
  if (threads > 0) omp_set_num_threads(threads);
#else
  (void)threads;
#endif
}

int guarded_command(const char* name, const std::function<int()>& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    std::fprintf(stderr, "abft %s: %s\n(`abft %s --help` lists the options)\n", name, e.what(), name);
    return 2;
  } catch (const std::exception& e) {  // abft::transformer::Error included
    std::fprintf(stderr, "abft %s: %s\n", name, e.what());
    return 1;
  }
}

}  // namespace abft::cli
