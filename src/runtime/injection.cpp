/** \file injection.cpp
 *  \brief The injection setting of the transformer runtime (injection.hpp): parsing and
 *  printing "rate=..,per=..,model=..,bit=..,sites=..,seed=..", the default site list and the
 *  names of sites and fault models.
 *
 *  Site names cover every abft_site. fft_stage and fft_twiddle parse (the syntax is the
 *  library's) but a transformer pass never calls an FFT, so faults drawn for those sites
 *  never land: the injector only picks, per call, among the listed sites that exist for the
 *  kernel at hand (GEMM or attention).
 */
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "abft/transformer/error.hpp"
#include "abft/transformer/injection.hpp"

namespace abft::transformer {

namespace {

const char* const kSiteNames[ABFT_SITE_COUNT_] = {
    "output",      "accumulator", "packed_a",    "packed_b",  "fft_stage",
    "fft_twiddle", "attn_scores", "attn_probs",  "attn_rowstat", "attn_acc",
    "attn_dp",     "attn_ds",     "attn_dq",     "attn_dk",   "attn_dv"};

const char* const kModelNames[ABFT_FAULT_MODEL_COUNT_] = {"bitflip", "bitflip2", "random", "zero",
                                                          "nan",     "inf",      "-inf"};

const char* const kKeys = "rate, per, model, bit, sites, seed";

[[noreturn]] void fail(const std::string& what) {
  throw Error(ABFT_STATUS_INVALID_VALUE, "injection: " + what);
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t')) --e;
  return s.substr(b, e - b);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t p = s.find(sep, start);
    out.push_back(s.substr(start, p == std::string::npos ? std::string::npos : p - start));
    if (p == std::string::npos) break;
    start = p + 1;
  }
  return out;
}

bool parse_double(const std::string& s, double* out) {
  if (s.empty() || s[0] == ' ' || s[0] == '\t') return false;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (!end || *end != '\0' || errno == ERANGE) return false;
  *out = v;
  return true;
}

bool parse_int64(const std::string& s, int64_t* out) {
  if (s.empty() || s[0] == ' ' || s[0] == '+') return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (!end || *end != '\0' || errno == ERANGE) return false;
  *out = v;
  return true;
}

bool parse_uint64(const std::string& s, uint64_t* out) {
  if (s.empty() || s[0] == '-' || s[0] == '+' || s[0] == ' ') return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 0);
  if (!end || *end != '\0' || errno == ERANGE) return false;
  *out = v;
  return true;
}

std::string site_list() {
  std::string s;
  for (int i = 0; i < ABFT_SITE_COUNT_; ++i) {
    if (i) s += ", ";
    s += kSiteNames[i];
  }
  return s;
}

std::string model_list() {
  std::string s;
  for (int i = 0; i < ABFT_FAULT_MODEL_COUNT_; ++i) {
    if (i) s += ", ";
    s += kModelNames[i];
  }
  return s;
}

/** The shortest decimal form of v that reads back as v. */
std::string shortest(double v) {
  char b[40];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(b, sizeof b, "%.*g", prec, v);
    if (std::strtod(b, nullptr) == v) break;
  }
  return b;
}

}  // namespace

std::vector<abft_site> InjectionSettings::effective_sites() const {
  if (!sites.empty()) return sites;
  return {ABFT_SITE_OUTPUT,       ABFT_SITE_ACCUMULATOR, ABFT_SITE_PACKED_A,
          ABFT_SITE_PACKED_B,     ABFT_SITE_ATTN_SCORES, ABFT_SITE_ATTN_PROBS,
          ABFT_SITE_ATTN_ROWSTAT, ABFT_SITE_ATTN_ACC,    ABFT_SITE_ATTN_DP,
          ABFT_SITE_ATTN_DS,      ABFT_SITE_ATTN_DQ,     ABFT_SITE_ATTN_DK,
          ABFT_SITE_ATTN_DV};
}

InjectionSettings InjectionSettings::parse(const std::string& spec) {
  InjectionSettings s;
  const std::string text = trim(spec);
  if (text.empty()) return s;
  bool seen[6] = {false, false, false, false, false, false};
  static const char* const keys[6] = {"rate", "per", "model", "bit", "sites", "seed"};
  for (const std::string& raw : split(text, ',')) {
    const std::string item = trim(raw);
    if (item.empty()) fail("empty item in '" + spec + "' (expected key=value, ...)");
    const size_t eq = item.find('=');
    if (eq == std::string::npos)
      fail("'" + item + "' is not key=value (keys: " + kKeys + ")");
    const std::string key = trim(item.substr(0, eq));
    const std::string value = trim(item.substr(eq + 1));
    int ki = -1;
    for (int i = 0; i < 6; ++i)
      if (key == keys[i]) ki = i;
    if (ki < 0) fail("unknown key '" + key + "' (keys: " + kKeys + ")");
    if (seen[ki]) fail("key '" + key + "' given twice");
    seen[ki] = true;
    if (value.empty()) fail("key '" + key + "' has no value");

    if (key == "rate") {
      double r = 0.0;
      if (!parse_double(value, &r) || !std::isfinite(r))
        fail("rate needs a finite number, got '" + value + "'");
      s.rate = r;
    } else if (key == "per") {
      if (value == "call")
        s.per_flop = false;
      else if (value == "flop")
        s.per_flop = true;
      else
        fail("per needs 'call' or 'flop', got '" + value + "'");
    } else if (key == "model") {
      int mi = -1;
      for (int i = 0; i < ABFT_FAULT_MODEL_COUNT_; ++i)
        if (value == kModelNames[i]) mi = i;
      if (value == "+inf") mi = ABFT_FAULT_POS_INF;
      if (mi < 0) fail("unknown model '" + value + "' (models: " + model_list() + ")");
      s.model = static_cast<abft_fault_model>(mi);
    } else if (key == "bit") {
      int64_t b = 0;
      if (!parse_int64(value, &b) || b < -1 || b > 31)
        fail("bit needs an integer in [0, 31] or -1 (drawn per fault), got '" + value + "'");
      s.bit = static_cast<int>(b);
    } else if (key == "sites") {
      s.sites.clear();
      for (const std::string& rawname : split(value, '+')) {
        const std::string name = trim(rawname);
        std::vector<abft_site> add;
        if (name == "all") {
          add = InjectionSettings{}.effective_sites();
        } else {
          int si = -1;
          for (int i = 0; i < ABFT_SITE_COUNT_; ++i)
            if (name == kSiteNames[i]) si = i;
          if (si < 0)
            fail("unknown site '" + name + "' (sites: " + site_list() + ", all)");
          add.push_back(static_cast<abft_site>(si));
        }
        for (abft_site a : add) {
          bool dup = false;
          for (abft_site x : s.sites) dup = dup || x == a;
          if (!dup) s.sites.push_back(a);
        }
      }
    } else {  // seed
      uint64_t v = 0;
      if (!parse_uint64(value, &v))
        fail("seed needs an unsigned integer, got '" + value + "'");
      s.seed = v;
    }
  }
  if (s.per_flop) {
    if (s.rate < 0.0)
      fail("rate per flop must be >= 0, got " + shortest(s.rate));
  } else if (s.rate < 0.0 || s.rate > 1.0) {
    fail("rate per call must be in [0, 1], got " + shortest(s.rate));
  }
  return s;
}

std::string InjectionSettings::describe() const {
  std::string s = "rate=" + shortest(rate);
  s += per_flop ? ",per=flop" : ",per=call";
  s += std::string(",model=") + fault_model_name(model);
  s += ",bit=" + std::to_string(bit);
  if (!sites.empty()) {
    s += ",sites=";
    for (size_t i = 0; i < sites.size(); ++i) {
      if (i) s += "+";
      s += site_name(sites[i]);
    }
  }
  s += ",seed=" + std::to_string(static_cast<unsigned long long>(seed));
  return s;
}

const char* site_name(abft_site s) {
  const int i = static_cast<int>(s);
  return (i >= 0 && i < ABFT_SITE_COUNT_) ? kSiteNames[i] : "unknown";
}

const char* fault_model_name(abft_fault_model m) {
  const int i = static_cast<int>(m);
  return (i >= 0 && i < ABFT_FAULT_MODEL_COUNT_) ? kModelNames[i] : "unknown";
}

}  // namespace abft::transformer
