/** \file json.cpp
 *  \brief The runtime's JSON reader (a recursive-descent parser over RFC 8259 with a strict
 *  number grammar, surrogate pairs and UTF-8 validation) and its writing helpers.
 */
#include "json.hpp"

#include <cerrno>
#include <clocale>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "abft/transformer/error.hpp"
#include "utf8.hpp"

namespace abft::transformer::json {

const Value* Value::find(const std::string& key) const {
  if (type != Type::Object) return nullptr;
  // RFC 8259 leaves duplicate names to the implementation; the last one wins, as in
  // JavaScript's JSON.parse and Python's json module.
  for (auto it = members.rbegin(); it != members.rend(); ++it)
    if (it->first == key) return &it->second;
  return nullptr;
}

namespace {

constexpr int kMaxDepth = 256;

/** strtod in the "C" locale: the caller's buffer uses '.', which is swapped for the current
 *  locale's decimal point when that differs (strtod itself follows LC_NUMERIC). */
double c_strtod(char* buf, char** end) {
  const char* dp = std::localeconv()->decimal_point;
  if (dp != nullptr && dp[0] != '.' && dp[0] != '\0' && dp[1] == '\0') {
    for (char* p = buf; *p != '\0'; ++p)
      if (*p == '.') *p = dp[0];
  }
  return std::strtod(buf, end);
}

class Parser {
 public:
  Parser(const std::string& text, const std::string& source)
      : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()), source_(source) {}

  Value document() {
    // A UTF-8 byte order mark is allowed and ignored (RFC 8259 section 8.1).
    if (end_ - p_ >= 3 && std::memcmp(p_, "\xEF\xBB\xBF", 3) == 0) p_ += 3;
    skip_ws();
    Value v;
    value(v, 0);
    skip_ws();
    if (p_ != end_) fail(p_, "expected end of document after the top-level value");
    return v;
  }

 private:
  const char* begin_;
  const char* p_;
  const char* end_;
  const std::string& source_;

  /** What is at `at`, for messages: a quoted character, a code, or "end of input". */
  std::string describe(const char* at) const {
    if (at >= end_) return "end of input";
    const unsigned char c = static_cast<unsigned char>(*at);
    char buf[32];
    if (c >= 0x20 && c < 0x7f) {
      std::snprintf(buf, sizeof buf, "'%c'", static_cast<char>(c));
    } else {
      std::snprintf(buf, sizeof buf, "byte 0x%02X", c);
    }
    return buf;
  }

  [[noreturn]] void fail(const char* at, const std::string& what) const {
    // Line and column (1-based; the column counts UTF-8 characters) are found only here, so
    // the hot paths carry no position bookkeeping.
    long line = 1;
    const char* line_start = begin_;
    for (const char* q = begin_; q < at && q < end_; ++q)
      if (*q == '\n') {
        ++line;
        line_start = q + 1;
      }
    long column = 1;
    for (const char* q = line_start; q < at && q < end_; ++q)
      if ((static_cast<unsigned char>(*q) & 0xC0) != 0x80) ++column;
    throw Error(ABFT_STATUS_INVALID_VALUE, source_ + ":" + std::to_string(line) + ":" +
                                               std::to_string(column) + ": " + what +
                                               ", found " + describe(at));
  }

  void skip_ws() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\t' || *p_ == '\r')) ++p_;
  }

  void value(Value& out, int depth) {
    if (p_ >= end_) fail(p_, "expected a value");
    switch (*p_) {
      case '{':
        object(out, depth + 1);
        return;
      case '[':
        array(out, depth + 1);
        return;
      case '"':
        out.type = Value::Type::String;
        string(out.text);
        return;
      case 't':
        literal("true", "a value");
        out.type = Value::Type::Bool;
        out.boolean = true;
        return;
      case 'f':
        literal("false", "a value");
        out.type = Value::Type::Bool;
        out.boolean = false;
        return;
      case 'n':
        literal("null", "a value");
        out.type = Value::Type::Null;
        return;
      default:
        if (*p_ == '-' || (*p_ >= '0' && *p_ <= '9')) {
          out.type = Value::Type::Number;
          out.number = number_value();
          return;
        }
        fail(p_, "expected a value (object, array, string, number, true, false or null)");
    }
  }

  void literal(const char* word, const char* expected) {
    const size_t n = std::strlen(word);
    const char* start = p_;
    for (size_t i = 0; i < n; ++i) {
      if (p_ + i >= end_ || p_[i] != word[i])
        fail(start + i, std::string("expected ") + expected + " (reading '" + word + "')");
    }
    p_ += n;
  }

  void enter(int depth, const char* at) const {
    if (depth > kMaxDepth)
      fail(at, "nesting deeper than " + std::to_string(kMaxDepth) + " levels is not accepted");
  }

  void object(Value& out, int depth) {
    enter(depth, p_);
    out.type = Value::Type::Object;
    ++p_;  // '{'
    skip_ws();
    if (p_ < end_ && *p_ == '}') {
      ++p_;
      return;
    }
    for (;;) {
      if (p_ >= end_ || *p_ != '"') fail(p_, "expected a string (an object member's name)");
      out.members.emplace_back();
      auto& member = out.members.back();
      string(member.first);
      skip_ws();
      if (p_ >= end_ || *p_ != ':') fail(p_, "expected ':' after an object member's name");
      ++p_;
      skip_ws();
      value(member.second, depth);
      skip_ws();
      if (p_ < end_ && *p_ == ',') {
        ++p_;
        skip_ws();
        continue;
      }
      if (p_ < end_ && *p_ == '}') {
        ++p_;
        return;
      }
      fail(p_, "expected ',' or '}' after an object member");
    }
  }

  void array(Value& out, int depth) {
    enter(depth, p_);
    out.type = Value::Type::Array;
    ++p_;  // '['
    skip_ws();
    if (p_ < end_ && *p_ == ']') {
      ++p_;
      return;
    }
    for (;;) {
      out.items.emplace_back();
      value(out.items.back(), depth);
      skip_ws();
      if (p_ < end_ && *p_ == ',') {
        ++p_;
        skip_ws();
        continue;
      }
      if (p_ < end_ && *p_ == ']') {
        ++p_;
        return;
      }
      fail(p_, "expected ',' or ']' after an array element");
    }
  }

  /** Four hex digits after "\u" (p_ points at the 'u'). */
  uint32_t hex4() {
    const char* start = p_ + 1;
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const char* q = start + i;
      if (q >= end_) fail(q, "expected four hex digits after \\u");
      const char c = *q;
      uint32_t d;
      if (c >= '0' && c <= '9') {
        d = static_cast<uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        d = static_cast<uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        d = static_cast<uint32_t>(c - 'A' + 10);
      } else {
        fail(q, "expected four hex digits after \\u");
      }
      v = (v << 4) | d;
    }
    p_ = start + 4;
    return v;
  }

  /** Length of the well-formed UTF-8 sequence at `q` (lead byte >= 0x80), or 0 (utf8.hpp). */
  size_t utf8_length(const char* q) const {
    uint32_t cp;
    return utf8::decode(q, size_t(end_ - q), cp);
  }


  void string(std::string& out) {
    ++p_;  // opening quote
    for (;;) {
      // Copy the run of characters that need no attention in one go.
      const char* run = p_;
      while (p_ < end_) {
        const unsigned char c = static_cast<unsigned char>(*p_);
        if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
        ++p_;
      }
      out.append(run, static_cast<size_t>(p_ - run));
      if (p_ >= end_) fail(p_, "expected '\"' to close the string");
      const unsigned char c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        ++p_;
        return;
      }
      if (c < 0x20) fail(p_, "expected an escape sequence for a control character in a string");
      if (c >= 0x80) {
        const size_t n = utf8_length(p_);
        if (n == 0) fail(p_, "expected valid UTF-8 in a string");
        out.append(p_, n);
        p_ += n;
        continue;
      }
      // Backslash.
      const char* esc = p_;
      ++p_;
      if (p_ >= end_) fail(p_, "expected an escape character after '\\'");
      switch (*p_) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          uint32_t cp = hex4();
          if (cp >= 0xDC00 && cp <= 0xDFFF)
            fail(esc, "expected a high surrogate before a low surrogate (\\uDC00-\\uDFFF)");
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u')
              fail(p_, "expected a \\u low surrogate after a high surrogate");
            const char* low_at = p_;
            ++p_;  // now at 'u'
            const uint32_t low = hex4();
            if (low < 0xDC00 || low > 0xDFFF)
              fail(low_at, "expected a low surrogate (\\uDC00-\\uDFFF) after a high surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          utf8::append(out, cp);
          continue;  // hex4 left p_ after the digits
        }
        default:
          fail(p_, "expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u after '\\'");
      }
      ++p_;
    }
  }

  static bool digit(char c) { return c >= '0' && c <= '9'; }

  /** The number at p_: the RFC 8259 grammar is checked here, the value comes from strtod. */
  double number_value() {
    const char* start = p_;
    const char* q = p_;
    if (*q == '-') ++q;
    if (q >= end_ || !digit(*q)) fail(q, "expected a digit in a number");
    if (*q == '0') {
      ++q;
      if (q < end_ && digit(*q)) fail(q, "expected no leading zeros in a number");
    } else {
      while (q < end_ && digit(*q)) ++q;
    }
    if (q < end_ && *q == '.') {
      ++q;
      if (q >= end_ || !digit(*q)) fail(q, "expected a digit after the decimal point");
      while (q < end_ && digit(*q)) ++q;
    }
    if (q < end_ && (*q == 'e' || *q == 'E')) {
      ++q;
      if (q < end_ && (*q == '+' || *q == '-')) ++q;
      if (q >= end_ || !digit(*q)) fail(q, "expected a digit in the exponent");
      while (q < end_ && digit(*q)) ++q;
    }
    const size_t len = static_cast<size_t>(q - start);
    // strtod needs a terminated copy: the text after the number could extend what it accepts.
    char small[64];
    std::string big;
    char* buf = small;
    if (len + 1 > sizeof small) {
      big.assign(start, len);
      buf = &big[0];
    } else {
      std::memcpy(small, start, len);
      small[len] = '\0';
    }
    errno = 0;
    char* stop = nullptr;
    const double v = c_strtod(buf, &stop);
    if (stop != buf + len) fail(start, "expected a number strtod accepts");
    if (errno == ERANGE && std::isinf(v))
      fail(start, "expected a number within the range of a double");
    p_ = q;
    return v;  // an underflow gives 0 or a subnormal, as the text asks for
  }
};

}  // namespace

Value parse(const std::string& text, const std::string& source) {
  return Parser(text, source).document();
}

std::string quote(const std::string& s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (const char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += ch;  // bytes >= 0x80 pass through: the text is UTF-8
        }
    }
  }
  out += '"';
  return out;
}

std::string number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[40];
  const char* dp = std::localeconv()->decimal_point;
  const char locale_point = (dp != nullptr && dp[0] != '\0' && dp[1] == '\0') ? dp[0] : '.';
  for (int precision = 15; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (locale_point != '.')
      for (char* p = buf; *p != '\0'; ++p)
        if (*p == locale_point) *p = '.';
    char copy[40];
    std::memcpy(copy, buf, sizeof copy);
    char* end = nullptr;
    if (c_strtod(copy, &end) == v) break;  // %.17g always round-trips
  }
  return buf;
}

}  // namespace abft::transformer::json
