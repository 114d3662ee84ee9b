/** \file fftw_wisdom.cpp
 *  \brief The wisdom registry and its text form.
 */
#include "fftw/fftw_wisdom.hpp"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

namespace abft::fftw {
namespace {

constexpr const char* kHeader = "fftw-3.3.10-abft";

std::map<std::string, int>& registry(abft_precision prec) {
  static auto* r = new std::map<std::string, int>[2];
  return r[prec == ABFT_PRECISION_FLOAT];
}
std::mutex& mu() {
  static auto* m = new std::mutex();
  return *m;
}
const char* tag(abft_precision prec) {
  return prec == ABFT_PRECISION_FLOAT ? "fftwf_wisdom" : "fftw_wisdom";
}

/** Minimal cursor over wisdom text. */
struct Cursor {
  const std::string& s;
  size_t i = 0;
  void skip_space() {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  }
  bool eat(char c) {
    skip_space();
    if (i < s.size() && s[i] == c) { ++i; return true; }
    return false;
  }
  std::string token() {  // up to space or a parenthesis
    skip_space();
    const size_t b = i;
    while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i])) && s[i] != '(' &&
           s[i] != ')')
      ++i;
    return s.substr(b, i - b);
  }
  bool quoted(std::string& out) {
    if (!eat('"')) return false;
    const size_t b = i;
    while (i < s.size() && s[i] != '"') ++i;
    if (i >= s.size()) return false;
    out = s.substr(b, i - b);
    ++i;
    return true;
  }
  /** Skips the rest of a balanced expression whose '(' was already read. */
  bool skip_rest() {
    int depth = 1;
    while (i < s.size() && depth > 0) {
      if (s[i] == '(') ++depth;
      if (s[i] == ')') --depth;
      ++i;
    }
    return depth == 0;
  }
};

}  // namespace

void wisdom_add(const Problem& pb) {
  std::lock_guard<std::mutex> g(mu());
  int& r = registry(pb.prec).emplace(pb.key(), -1).first->second;
  if (rigor_of(pb.flags) > r) r = rigor_of(pb.flags);
}

bool wisdom_has(const Problem& pb, int rigor) {
  std::lock_guard<std::mutex> g(mu());
  const auto& reg = registry(pb.prec);
  const auto it = reg.find(pb.key());
  return it != reg.end() && it->second >= rigor;
}

void wisdom_forget(abft_precision prec) {
  std::lock_guard<std::mutex> g(mu());
  registry(prec).clear();
}

std::string wisdom_export(abft_precision prec) {
  std::lock_guard<std::mutex> g(mu());
  std::string s = std::string("(") + kHeader + " " + tag(prec) + "\n";
  for (const auto& [key, rigor] : registry(prec))
    s += "  (abft " + std::to_string(rigor) + " \"" + key + "\")\n";
  return s + ")\n";
}

bool wisdom_import(abft_precision prec, const std::string& text) {
  Cursor c{text};
  if (!c.eat('(')) return false;
  const std::string header = c.token();
  if (header.compare(0, 5, "fftw-") != 0 || c.token() != tag(prec)) return false;
  if (header != kHeader) return c.skip_rest();  // FFTW's own wisdom: accepted, nothing learned
  std::map<std::string, int> learned;
  while (!c.eat(')')) {
    std::string key;
    if (!c.eat('(') || c.token() != "abft") return false;
    const std::string rigor = c.token();
    if (rigor.empty() || !c.quoted(key) || !c.eat(')')) return false;
    const int r = std::atoi(rigor.c_str());
    if (r < 0 || r > 3) return false;
    learned[key] = r;
  }
  std::lock_guard<std::mutex> g(mu());
  auto& reg = registry(prec);
  for (const auto& [key, r] : learned) {
    int& have = reg.emplace(key, -1).first->second;
    if (r > have) have = r;
  }
  return true;
}

std::string read_expression(int (*next)(void*), void* data) {
  std::string s;
  int depth = 0;
  bool started = false;
  for (int ch; (ch = next(data)) != EOF;) {
    s += char(ch);
    if (ch == '(') { ++depth; started = true; }
    if (ch == ')' && --depth == 0 && started) break;
  }
  return s;
}

}  // namespace abft::fftw
