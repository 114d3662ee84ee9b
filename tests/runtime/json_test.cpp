/** \file json_test.cpp
 *  \brief The runtime's JSON reader and writers: good and bad documents (messages with source,
 *  line, column and what was expected), escapes and surrogate pairs, UTF-8 checks, the nesting
 *  limit, the number grammar and the shortest round-trip number form.
 */
#include <gtest/gtest.h>

#include <clocale>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "abft/transformer/error.hpp"
#include "json.hpp"

namespace {

using abft::transformer::Error;
namespace json = abft::transformer::json;
using Type = json::Value::Type;

/** The message of the Error that parsing `text` throws ("" and a failure when none). */
std::string parse_error(const std::string& text, const std::string& source = "doc.json") {
  try {
    json::parse(text, source);
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), ABFT_STATUS_INVALID_VALUE) << e.what();
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "unexpected exception type for " << text << ": " << e.what();
    return "";
  }
  ADD_FAILURE() << "no error for: " << text;
  return "";
}

#define EXPECT_PARSE_ERROR(text, fragment)                                        \
  do {                                                                            \
    const std::string message_ = parse_error(text);                               \
    EXPECT_NE(message_.find(fragment), std::string::npos)                         \
        << "message '" << message_ << "' lacks '" << (fragment) << "'";          \
  } while (0)

TEST(JsonParse, ScalarsAtTopLevel) {
  EXPECT_TRUE(json::parse("null").is_null());
  const auto t = json::parse(" true ");
  EXPECT_EQ(t.type, Type::Bool);
  EXPECT_TRUE(t.boolean);
  const auto f = json::parse("\tfalse\r\n");
  EXPECT_EQ(f.type, Type::Bool);
  EXPECT_FALSE(f.boolean);
  EXPECT_EQ(json::parse("-12.5e1").number, -125.0);
  EXPECT_EQ(json::parse("\"hi\"").text, "hi");
}

TEST(JsonParse, NestedDocumentKeepsMemberOrder) {
  const auto v = json::parse(R"({
    "zeta": [1, 2.5, -3e2, true, false, null, "x", {}, []],
    "alpha": {"inner": {"k": "v"}},
    "empty": ""
  })");
  ASSERT_TRUE(v.is_object());
  ASSERT_EQ(v.members.size(), 3u);
  EXPECT_EQ(v.members[0].first, "zeta");
  EXPECT_EQ(v.members[1].first, "alpha");
  EXPECT_EQ(v.members[2].first, "empty");
  const json::Value* zeta = v.find("zeta");
  ASSERT_NE(zeta, nullptr);
  ASSERT_TRUE(zeta->is_array());
  ASSERT_EQ(zeta->items.size(), 9u);
  EXPECT_EQ(zeta->items[0].number, 1.0);
  EXPECT_EQ(zeta->items[1].number, 2.5);
  EXPECT_EQ(zeta->items[2].number, -300.0);
  EXPECT_TRUE(zeta->items[3].boolean);
  EXPECT_EQ(zeta->items[4].type, Type::Bool);
  EXPECT_FALSE(zeta->items[4].boolean);
  EXPECT_TRUE(zeta->items[5].is_null());
  EXPECT_EQ(zeta->items[6].text, "x");
  EXPECT_TRUE(zeta->items[7].is_object());
  EXPECT_TRUE(zeta->items[7].members.empty());
  EXPECT_TRUE(zeta->items[8].is_array());
  const json::Value* inner = v.find("alpha")->find("inner");
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(inner->find("k")->text, "v");
  EXPECT_EQ(v.find("missing"), nullptr);
  EXPECT_EQ(zeta->find("zeta"), nullptr);  // not an object
  EXPECT_EQ(v.find("empty")->text, "");
}

TEST(JsonParse, DuplicateNamesLastWins) {
  const auto v = json::parse(R"({"a": 1, "a": 2})");
  EXPECT_EQ(v.members.size(), 2u);
  EXPECT_EQ(v.find("a")->number, 2.0);
}

TEST(JsonParse, ByteOrderMarkIsSkipped) {
  EXPECT_EQ(json::parse("\xEF\xBB\xBF[1]").items.size(), 1u);
}

TEST(JsonString, SimpleEscapes) {
  const auto v = json::parse(R"("q\" b\\ s\/ \b\f\n\r\t end")");
  EXPECT_EQ(v.text, "q\" b\\ s/ \b\f\n\r\t end");
}

TEST(JsonString, UnicodeEscapesBecomeUtf8) {
  EXPECT_EQ(json::parse(R"("\u0041")").text, "A");
  EXPECT_EQ(json::parse(R"("\u00e9")").text, "\xC3\xA9");        // é, two bytes
  EXPECT_EQ(json::parse(R"("\u00E9")").text, "\xC3\xA9");        // upper-case hex
  EXPECT_EQ(json::parse(R"("\u20AC")").text, "\xE2\x82\xAC");    // €, three bytes
  EXPECT_EQ(json::parse(R"("\u0120")").text, "\xC4\xA0");        // GPT-2's 'Ġ'
  EXPECT_EQ(json::parse(R"("\ud83d\ude00")").text, "\xF0\x9F\x98\x80");  // U+1F600
  EXPECT_EQ(json::parse(R"("\uDBFF\uDFFF")").text, "\xF4\x8F\xBF\xBF");  // U+10FFFF
  EXPECT_EQ(json::parse(R"("a\u0000b")").text, std::string("a\0b", 3));
  EXPECT_EQ(json::parse(R"("\u007f\u0080\u07ff\u0800\uffff")").text,
            "\x7F\xC2\x80\xDF\xBF\xE0\xA0\x80\xEF\xBF\xBF");
}

TEST(JsonString, RawUtf8PassesThrough) {
  const std::string s = "\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"";
  EXPECT_EQ(json::parse(s).text, s.substr(1, s.size() - 2));
}

TEST(JsonString, BadEscapesAndSurrogatesRejected) {
  EXPECT_PARSE_ERROR(R"("\x41")", "after '\\'");
  EXPECT_PARSE_ERROR(R"("\u12G4")", "four hex digits");
  EXPECT_PARSE_ERROR(R"("\u12")", "four hex digits");
  EXPECT_PARSE_ERROR(R"("\ud83d")", "low surrogate");
  EXPECT_PARSE_ERROR(R"("\ud83d\u0041")", "low surrogate");
  EXPECT_PARSE_ERROR(R"("\ud83dx")", "low surrogate");
  EXPECT_PARSE_ERROR(R"("\ude00")", "high surrogate");
  EXPECT_PARSE_ERROR("\"a\tb\"", "control character");
  EXPECT_PARSE_ERROR("\"a\nb\"", "control character");
  EXPECT_PARSE_ERROR("\"abc", "close the string");
  EXPECT_PARSE_ERROR("\"abc\\", "escape character");
}

TEST(JsonString, InvalidUtf8Rejected) {
  EXPECT_PARSE_ERROR("\"\x80\"", "UTF-8");              // lone continuation byte
  EXPECT_PARSE_ERROR("\"\xC3\"", "UTF-8");              // truncated sequence
  EXPECT_PARSE_ERROR("\"\xC0\xAF\"", "UTF-8");          // overlong '/'
  EXPECT_PARSE_ERROR("\"\xE0\x80\xAF\"", "UTF-8");      // overlong, three bytes
  EXPECT_PARSE_ERROR("\"\xED\xA0\x80\"", "UTF-8");      // encoded surrogate
  EXPECT_PARSE_ERROR("\"\xF4\x90\x80\x80\"", "UTF-8");  // above U+10FFFF
  EXPECT_PARSE_ERROR("\"\xFF\"", "UTF-8");
  const std::string m = parse_error("\"\xFF\"");
  EXPECT_NE(m.find("0xFF"), std::string::npos) << m;
}

TEST(JsonErrors, MessageHasSourceLineColumnAndExpectation) {
  // Line 3 is `  "b" 2`: the '2' is at column 7.
  const std::string m = parse_error("{\n  \"a\": 1,\n  \"b\" 2\n}", "model/config.json");
  EXPECT_NE(m.find("model/config.json:3:7:"), std::string::npos) << m;
  EXPECT_NE(m.find("expected ':'"), std::string::npos) << m;
  EXPECT_NE(m.find("found '2'"), std::string::npos) << m;
}

TEST(JsonErrors, ColumnCountsCharactersNotBytes) {
  // "é€" are 2 characters in 5 bytes; the bad 'x' is the 8th character of line 1 (the 11th
  // byte).
  const std::string m = parse_error("[\"\xC3\xA9\xE2\x82\xAC\", x]");
  EXPECT_NE(m.find("doc.json:1:8:"), std::string::npos) << m;
}

TEST(JsonErrors, StructuralMistakes) {
  EXPECT_PARSE_ERROR("", "doc.json:1:1: expected a value");
  EXPECT_PARSE_ERROR("", "found end of input");
  EXPECT_PARSE_ERROR("   \n  ", "doc.json:2:3: expected a value");
  EXPECT_PARSE_ERROR("[1, 2,]", "doc.json:1:7: expected a value");
  EXPECT_PARSE_ERROR("{\"a\": 1,}", "doc.json:1:9: expected a string");
  EXPECT_PARSE_ERROR("{\"a\" 1}", "expected ':'");
  EXPECT_PARSE_ERROR("{\"a\": 1 \"b\": 2}", "expected ',' or '}'");
  EXPECT_PARSE_ERROR("[1 2]", "expected ',' or ']'");
  EXPECT_PARSE_ERROR("[1, 2", "found end of input");
  EXPECT_PARSE_ERROR("{a: 1}", "expected a string");
  EXPECT_PARSE_ERROR("{'a': 1}", "found '''");
  EXPECT_PARSE_ERROR("1 2", "doc.json:1:3: expected end of document");
  EXPECT_PARSE_ERROR("{} x", "expected end of document");
  EXPECT_PARSE_ERROR("tru", "reading 'true'");
  EXPECT_PARSE_ERROR("nul", "reading 'null'");
  EXPECT_PARSE_ERROR("falsy", "reading 'false'");
  EXPECT_PARSE_ERROR("True", "expected a value");
  EXPECT_PARSE_ERROR("NaN", "expected a value");
  EXPECT_PARSE_ERROR("[Infinity]", "expected a value");
  EXPECT_PARSE_ERROR("// comment\n1", "expected a value");
  EXPECT_PARSE_ERROR("\x01", "byte 0x01");
}

TEST(JsonNumbers, StrictGrammar) {
  EXPECT_EQ(json::parse("0").number, 0.0);
  EXPECT_TRUE(std::signbit(json::parse("-0").number));
  EXPECT_EQ(json::parse("-0.0e+0").number, 0.0);
  EXPECT_EQ(json::parse("10").number, 10.0);
  EXPECT_EQ(json::parse("1E3").number, 1000.0);
  EXPECT_EQ(json::parse("1e-2").number, 0.01);
  EXPECT_EQ(json::parse("123456789012345678901234567890").number, 1.2345678901234568e29);
  EXPECT_EQ(json::parse("0.1").number, 0.1);
  EXPECT_EQ(json::parse("2.2250738585072014e-308").number, 2.2250738585072014e-308);
  EXPECT_EQ(json::parse("1e-400").number, 0.0);  // underflow is not an error
  EXPECT_EQ(json::parse("[1,-1]").items[1].number, -1.0);

  EXPECT_PARSE_ERROR("01", "leading zeros");
  EXPECT_PARSE_ERROR("-01", "leading zeros");
  EXPECT_PARSE_ERROR("1.", "after the decimal point");
  EXPECT_PARSE_ERROR("1.e5", "after the decimal point");
  EXPECT_PARSE_ERROR(".5", "expected a value");
  EXPECT_PARSE_ERROR("+1", "expected a value");
  EXPECT_PARSE_ERROR("-", "digit in a number");
  EXPECT_PARSE_ERROR("-a", "digit in a number");
  EXPECT_PARSE_ERROR("1e", "exponent");
  EXPECT_PARSE_ERROR("1e+", "exponent");
  EXPECT_PARSE_ERROR("0x10", "expected end of document");  // no hex, as strtod would allow
  EXPECT_PARSE_ERROR("1e400", "range of a double");
  EXPECT_PARSE_ERROR("-1e400", "range of a double");
}

TEST(JsonNumbers, IndependentOfTheLocale) {
  // strtod and printf follow LC_NUMERIC; JSON always uses '.'. Runs where a locale with a
  // decimal comma is installed (or made with localedef and found through LOCPATH).
  struct Restore {
    std::string name = std::setlocale(LC_NUMERIC, nullptr);
    ~Restore() { std::setlocale(LC_NUMERIC, name.c_str()); }
  } restore;
  const char* found = nullptr;
  for (const char* name : {"de_DE.UTF-8", "de_DE.utf8", "de_DE", "fr_FR.UTF-8", "fr_FR.utf8",
                           "ru_RU.UTF-8", "nl_NL.UTF-8"}) {
    if (std::setlocale(LC_NUMERIC, name) != nullptr &&
        std::localeconv()->decimal_point[0] == ',') {
      found = name;
      break;
    }
  }
  if (found == nullptr) GTEST_SKIP() << "no locale with a decimal comma is installed";
  EXPECT_EQ(json::parse("[2.5, -0.125e1]").items[1].number, -1.25) << found;
  EXPECT_EQ(json::number(0.3), "0.3") << found;
  EXPECT_EQ(json::parse(json::number(1.0 / 3.0)).number, 1.0 / 3.0) << found;
}

TEST(JsonNesting, DepthLimitIs256) {
  const std::string ok = std::string(256, '[') + std::string(256, ']');
  const auto v = json::parse(ok);
  EXPECT_TRUE(v.is_array());
  const std::string objects = [] {
    std::string s;
    for (int i = 0; i < 256; ++i) s += "{\"k\":";
    s += "1";
    for (int i = 0; i < 256; ++i) s += "}";
    return s;
  }();
  EXPECT_NO_THROW(json::parse(objects));

  EXPECT_PARSE_ERROR(std::string(257, '[') + std::string(257, ']'), "doc.json:1:257: nesting");
  // Far deeper input is rejected at the limit, not by running out of stack.
  EXPECT_PARSE_ERROR(std::string(1000000, '['), "deeper than 256");
  EXPECT_PARSE_ERROR("{\"a\":" + std::string(300, '['), "deeper than 256");
}

TEST(JsonQuote, EscapesWhatJsonRequires) {
  EXPECT_EQ(json::quote(""), "\"\"");
  EXPECT_EQ(json::quote("plain"), "\"plain\"");
  EXPECT_EQ(json::quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(json::quote("\n\t\r\b\f"), "\"\\n\\t\\r\\b\\f\"");
  EXPECT_EQ(json::quote(std::string("\x01\x1f\0", 3)), "\"\\u0001\\u001f\\u0000\"");
  EXPECT_EQ(json::quote("caf\xC3\xA9/"), "\"caf\xC3\xA9/\"");
}

TEST(JsonQuote, RoundTripsEveryByteAndUtf8) {
  std::string s;
  for (int c = 0; c < 128; ++c) s += static_cast<char>(c);
  s += "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xC4\xA0";
  EXPECT_EQ(json::parse(json::quote(s)).text, s);
}

TEST(JsonNumber, ShortestFormsAndNonFinite) {
  EXPECT_EQ(json::number(0.0), "0");
  EXPECT_EQ(json::number(1.0), "1");
  EXPECT_EQ(json::number(-3.0), "-3");
  EXPECT_EQ(json::number(0.1), "0.1");
  EXPECT_EQ(json::number(1e-5), "1e-05");
  EXPECT_EQ(json::number(10000.0), "10000");
  EXPECT_EQ(json::number(50257.0), "50257");
  EXPECT_EQ(json::number(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(json::number(std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(json::number(-std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(json::number(std::nan("")), "null");
}

TEST(JsonNumber, RoundTripsExactly) {
  std::vector<double> values = {1.0 / 3.0, 2.0 / 3.0, 1e300, -1e-300, 5e-324, 2.5e-310,
                                std::numeric_limits<double>::max(),
                                std::numeric_limits<double>::min(), 123456789.123456789,
                                9007199254740993.0, 1e21, 1e22, 1e23, 0.5, -0.0};
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    const uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    if (std::isfinite(d)) values.push_back(d);
    values.push_back(std::ldexp(static_cast<double>(rng() >> 11), -53));  // in [0, 1)
  }
  for (const double d : values) {
    const std::string text = json::number(d);
    const json::Value v = json::parse(text);  // also checks the text is valid JSON
    ASSERT_TRUE(v.is_number()) << text;
    ASSERT_EQ(std::memcmp(&v.number, &d, sizeof d), 0) << text << " from " << d;
  }
}

TEST(JsonParse, LargeVocabularyLikeGpt2) {
  // A vocab.json-sized object: 50257 members, ~1 MB, escapes and UTF-8 included. No timing
  // assertion here (benchmarks own speed); it must parse and keep every member.
  std::string doc = "{";
  for (int i = 0; i < 50257; ++i) {
    if (i) doc += ", ";
    std::string key = "\\u0120tok" + std::to_string(i);
    if (i % 7 == 0) key += "\\\"q";
    if (i % 11 == 0) key += "\xC3\xA9";
    doc += "\"" + key + "\": " + std::to_string(i);
  }
  doc += "}";
  const json::Value v = json::parse(doc, "vocab.json");
  ASSERT_EQ(v.members.size(), 50257u);
  EXPECT_EQ(v.members[0].first, "\xC4\xA0tok0\"q\xC3\xA9");
  EXPECT_EQ(v.members[50256].first, "\xC4\xA0tok50256");
  EXPECT_EQ(v.members[50256].second.number, 50256.0);
  for (size_t i = 0; i < v.members.size(); ++i)
    ASSERT_EQ(v.members[i].second.number, static_cast<double>(i));
}

}  // namespace
