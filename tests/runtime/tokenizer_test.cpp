/** \file tokenizer_test.cpp
 *  \brief The byte tokenizer and GPT-2's BPE (include/abft/transformer/tokenizer.hpp): the byte
 *  alphabet, pre-tokenization, merges by rank against a reference written here from GPT-2's
 *  algorithm, round trips, special tokens, load_tokenizer() and rejected files.
 *
 *  The BPE cases use small hand-made vocab.json / merges.txt files written under
 *  ABFT_TEST_TMP_DIR; the real GPT-2 files are not needed.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "abft/transformer/error.hpp"
#include "abft/transformer/tokenizer.hpp"
#include "tokenizer_bpe.hpp"

namespace tf = abft::transformer;
namespace fs = std::filesystem;
using Pieces = std::vector<std::string>;
using Ids = std::vector<int32_t>;

namespace {

const std::string kFffd = "\xEF\xBF\xBD";

// ---------------------------------------------------------------------------------------------
// Helpers: GPT-2's alphabet written again from its definition, files, expected errors.

std::string utf8(uint32_t cp) {
  std::string s;
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else if (cp < 0x800) {
    s += static_cast<char>(0xC0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    s += static_cast<char>(0xE0 | (cp >> 12));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    s += static_cast<char>(0xF0 | (cp >> 18));
    s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return s;
}

/** Raw bytes as a token of GPT-2's alphabet ("Ġthe" for " the"). */
std::string sym(const std::string& bytes) {
  static const std::vector<uint32_t> table = [] {
    std::vector<uint32_t> t(256);
    uint32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
      t[b] = printable ? static_cast<uint32_t>(b) : next++;
    }
    return t;
  }();
  std::string s;
  for (const char c : bytes) s += utf8(table[static_cast<unsigned char>(c)]);
  return s;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string tmp_dir(const std::string& name) {
  const fs::path p = fs::path(ABFT_TEST_TMP_DIR) / "tokenizer_files" / name;
  fs::remove_all(p);
  fs::create_directories(p);
  return p.string();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  ASSERT_TRUE(out.good()) << path;
}

/** The message of the Error `f` throws; a test failure when it throws nothing or the status is
 *  not INVALID_VALUE. */
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const tf::Error& e) {
    EXPECT_EQ(e.status(), ABFT_STATUS_INVALID_VALUE) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no abft::transformer::Error thrown";
  return "";
}

::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << text << "\" lacks \"" << part << "\"";
}

/** A vocabulary of all 256 byte symbols (id = byte value), one token per merge (ids 256, 257,
 *  ... in merge order) and the special tokens after them, written as vocab.json (in reverse
 *  id order: ids come from the values) and merges.txt under a fresh directory. */
struct BpeFiles {
  std::string dir, vocab, merges;
  std::map<std::string, int32_t> ids;  // raw bytes (or a special token's text) -> id
  std::unique_ptr<tf::Tokenizer> tok;

  int32_t id(const std::string& bytes) const {
    const auto it = ids.find(bytes);
    EXPECT_NE(it, ids.end()) << "test vocabulary lacks \"" << bytes << "\"";
    return it == ids.end() ? -1 : it->second;
  }
  Ids ids_of(const std::vector<std::string>& tokens) const {
    Ids out;
    for (const auto& t : tokens) out.push_back(id(t));
    return out;
  }
};

using Merges = std::vector<std::pair<std::string, std::string>>;

BpeFiles write_bpe(const std::string& name, const Merges& merges,
                   const std::vector<std::string>& specials = {}) {
  BpeFiles f;
  f.dir = tmp_dir(name);
  f.vocab = f.dir + "/vocab.json";
  f.merges = f.dir + "/merges.txt";
  std::vector<std::string> by_id;  // JSON keys
  for (int b = 0; b < 256; ++b) {
    const std::string raw(1, static_cast<char>(b));
    f.ids[raw] = b;
    by_id.push_back(sym(raw));
  }
  std::string merges_txt = "#version: 0.2\n";
  for (const auto& [a, b] : merges) {
    merges_txt += sym(a) + " " + sym(b) + "\n";
    if (f.ids.emplace(a + b, static_cast<int32_t>(by_id.size())).second)
      by_id.push_back(sym(a + b));
  }
  for (const auto& s : specials) {
    f.ids[s] = static_cast<int32_t>(by_id.size());
    by_id.push_back(s);
  }
  std::string json = "{";
  for (size_t i = by_id.size(); i-- > 0;)
    json += json_string(by_id[i]) + ": " + std::to_string(i) + (i ? ",\n" : "}\n");
  write_file(f.vocab, json);
  write_file(f.merges, merges_txt);
  return f;
}

BpeFiles load_bpe(const std::string& name, const Merges& merges,
                  const std::vector<std::string>& specials = {}) {
  BpeFiles f = write_bpe(name, merges, specials);
  f.tok = tf::load_gpt2_bpe(f.vocab, f.merges);
  return f;
}

/** GPT-2's BPE of one piece, on strings, as its reference encoder does it: find the adjacent
 *  pair with the lowest rank, merge all its occurrences left to right, repeat. */
std::vector<std::string> reference_bpe(const std::string& piece, const Merges& merges) {
  std::map<std::pair<std::string, std::string>, size_t> rank;
  for (size_t i = 0; i < merges.size(); ++i) rank.emplace(merges[i], i);
  std::vector<std::string> word;
  for (const char c : piece) word.emplace_back(1, c);
  while (word.size() > 1) {
    size_t best = SIZE_MAX;
    std::pair<std::string, std::string> pair;
    for (size_t i = 0; i + 1 < word.size(); ++i) {
      const auto it = rank.find({word[i], word[i + 1]});
      if (it != rank.end() && it->second < best) best = it->second, pair = it->first;
    }
    if (best == SIZE_MAX) break;
    std::vector<std::string> next;
    for (size_t i = 0; i < word.size();) {
      if (i + 1 < word.size() && word[i] == pair.first && word[i + 1] == pair.second) {
        next.push_back(pair.first + pair.second);
        i += 2;
      } else {
        next.push_back(word[i++]);
      }
    }
    word = std::move(next);
  }
  return word;
}

/** The small vocabulary most cases use. */
const Merges kSmallMerges = {
    {" ", "t"},     {"h", "e"},      {" t", "he"},  {"l", "l"},         {"e", "ll"},
    {"'", "s"},     {"1", "2"},      {"!", "!"},    {" ", " "},         {"\n", "\n"},
    {"\xC3", "\xA9"}, {"c", "a"},    {"ca", "f"},   {"caf", "\xC3\xA9"}, {" ", "caf\xC3\xA9"},
    {"o", "r"},     {"w", "or"},     {" ", "wor"},  {" wor", "l"},      {" worl", "d"},
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// Byte tokenizer

TEST(TokenizerBytes, EveryByteIsItsOwnId) {
  const auto tok = tf::make_byte_tokenizer();
  EXPECT_EQ(tok->name(), "bytes");
  EXPECT_EQ(tok->vocab_size(), 256);
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  const Ids ids = tok->encode(all);
  ASSERT_EQ(ids.size(), 256u);
  for (int b = 0; b < 256; ++b) EXPECT_EQ(ids[b], b);
  EXPECT_EQ(tok->decode(ids), all);
  EXPECT_TRUE(tok->encode("").empty());
  EXPECT_EQ(tok->decode({}), "");
}

TEST(TokenizerBytes, RoundTripsArbitraryBytesIncludingInvalidUtf8) {
  const auto tok = tf::make_byte_tokenizer();
  const std::vector<std::string> texts = {
      std::string("a\0b", 3), "\xFF\xFE\xC3", "\xED\xA0\x80 surrogate", "\xC0\xAF overlong",
      "caf\xC3\xA9 \xF0\x9F\x98\x80", std::string(1000, '\x80')};
  for (const auto& t : texts) EXPECT_EQ(tok->decode(tok->encode(t)), t);
  std::mt19937 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    std::string t(rng() % 300, '\0');
    for (auto& c : t) c = static_cast<char>(rng());
    EXPECT_EQ(tok->decode(tok->encode(t)), t);
  }
}

TEST(TokenizerBytes, IdsOutsideTheVocabularyDecodeToReplacementCharacter) {
  const auto tok = tf::make_byte_tokenizer();
  EXPECT_EQ(tok->decode({'a', 256, 'b', -1, INT32_MAX, INT32_MIN}),
            "a" + kFffd + "b" + kFffd + kFffd + kFffd);
}

// ---------------------------------------------------------------------------------------------
// GPT-2's alphabet and character classes

TEST(TokenizerAlphabet, MatchesGpt2ByteToUnicode) {
  namespace bpe = tf::bpe;
  EXPECT_EQ(bpe::byte_to_code_point(0), 0x100u);
  EXPECT_EQ(bpe::byte_to_code_point(' '), 0x120u);   // "Ġ"
  EXPECT_EQ(bpe::byte_to_code_point('\n'), 0x10Au);  // "Ċ"
  EXPECT_EQ(bpe::byte_to_code_point('!'), static_cast<uint32_t>('!'));
  EXPECT_EQ(bpe::byte_to_code_point(0x7F), 0x121u);
  EXPECT_EQ(bpe::byte_to_code_point(0xA0), 0x142u);
  EXPECT_EQ(bpe::byte_to_code_point(0xAD), 0x143u);  // the last of the 68 moved bytes
  EXPECT_EQ(bpe::byte_to_code_point(0xE9), 0xE9u);
  for (int b = 0; b < 256; ++b) {
    const uint32_t cp = bpe::byte_to_code_point(static_cast<uint8_t>(b));
    EXPECT_EQ(utf8(cp), sym(std::string(1, static_cast<char>(b)))) << b;
    EXPECT_EQ(bpe::code_point_to_byte(cp), b);
  }
  EXPECT_EQ(bpe::code_point_to_byte(' '), -1);
  EXPECT_EQ(bpe::code_point_to_byte(0xAD), -1);
  EXPECT_EQ(bpe::code_point_to_byte(0x144), -1);
  EXPECT_EQ(bpe::code_point_to_byte(0x1F600), -1);
}

TEST(TokenizerAlphabet, CharacterClasses) {
  using tf::bpe::CharClass;
  const auto expect_class = [](CharClass cls, const std::vector<uint32_t>& cps) {
    for (const uint32_t cp : cps)
      EXPECT_EQ(tf::bpe::classify(cp), cls) << "U+" << std::hex << cp;
  };
  expect_class(CharClass::Letter, {'a', 'Z', 0xAA, 0xB5, 0xC0, 0xE9, 0xFF, 0x0101, 0x03A9, 0x0416,
                                   0x05D0, 0x0627, 0x0915, 0x4E2D, 0x3042, 0xAC00, 0x1D400});
  expect_class(CharClass::Number, {'0', '9', 0xB2, 0xBD, 0x0663, 0x0967, 0x0E51, 0x2075, 0x2163,
                                   0x2460, 0x3007, 0xFF11, 0x1D7CE});
  expect_class(CharClass::Space, {' ', '\t', '\n', 0x0B, 0x0C, '\r', 0x85, 0xA0, 0x1680, 0x2000,
                                  0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000});
  expect_class(CharClass::Other, {'!', '\'', '~', 0x00, 0x1F, 0x7F, 0xA1, 0xD7, 0xF7, 0x0301,
                                  0x200B, 0x2014, 0x20AC, 0x2192, 0x3001, 0xE000, 0xFF01,
                                  0x1F600});
}

// ---------------------------------------------------------------------------------------------
// Pre-tokenization

TEST(TokenizerPretokenize, WordsAndLeadingSpaces) {
  using tf::bpe::pretokenize;
  EXPECT_EQ(pretokenize(""), Pieces{});
  EXPECT_EQ(pretokenize("Hello world"), (Pieces{"Hello", " world"}));
  EXPECT_EQ(pretokenize(" Hello"), (Pieces{" Hello"}));
  EXPECT_EQ(pretokenize("x"), (Pieces{"x"}));
}

TEST(TokenizerPretokenize, Contractions) {
  using tf::bpe::pretokenize;
  EXPECT_EQ(pretokenize("I'm you're they've he'll she'd it's don't"),
            (Pieces{"I", "'m", " you", "'re", " they", "'ve", " he", "'ll", " she", "'d", " it",
                    "'s", " don", "'t"}));
  // Case-sensitive, and only directly after the apostrophe.
  EXPECT_EQ(pretokenize("I'M"), (Pieces{"I", "'", "M"}));
  EXPECT_EQ(pretokenize("'tis"), (Pieces{"'t", "is"}));
  EXPECT_EQ(pretokenize("a 's"), (Pieces{"a", " '", "s"}));
  EXPECT_EQ(pretokenize("rock'n'roll"), (Pieces{"rock", "'", "n", "'", "roll"}));
  EXPECT_EQ(pretokenize("x'lly"), (Pieces{"x", "'ll", "y"}));
}

TEST(TokenizerPretokenize, DigitsAndPunctuationRuns) {
  using tf::bpe::pretokenize;
  EXPECT_EQ(pretokenize("abc123def 4567"), (Pieces{"abc", "123", "def", " 4567"}));
  EXPECT_EQ(pretokenize("Hi!!! ...? (x)"), (Pieces{"Hi", "!!!", " ...?", " (", "x", ")"}));
  EXPECT_EQ(pretokenize("3.14"), (Pieces{"3", ".", "14"}));
  EXPECT_EQ(pretokenize("a+=b;"), (Pieces{"a", "+=", "b", ";"}));
  EXPECT_EQ(pretokenize("!'s"), (Pieces{"!'", "s"}));  // the run of punctuation wins
}

TEST(TokenizerPretokenize, WhitespaceRuns) {
  using tf::bpe::pretokenize;
  // The last space of a run goes with the next word.
  EXPECT_EQ(pretokenize("a  b"), (Pieces{"a", " ", " b"}));
  EXPECT_EQ(pretokenize("a   b"), (Pieces{"a", "  ", " b"}));
  EXPECT_EQ(pretokenize("  a"), (Pieces{" ", " a"}));
  EXPECT_EQ(pretokenize("a  "), (Pieces{"a", "  "}));
  EXPECT_EQ(pretokenize("   "), (Pieces{"   "}));
  EXPECT_EQ(pretokenize("a  1"), (Pieces{"a", " ", " 1"}));
  EXPECT_EQ(pretokenize("a  !"), (Pieces{"a", " ", " !"}));
  // Newlines and tabs: only a space (U+0020) joins the next word.
  EXPECT_EQ(pretokenize("a\nb"), (Pieces{"a", "\n", "b"}));
  EXPECT_EQ(pretokenize("a\n\nb"), (Pieces{"a", "\n", "\n", "b"}));
  EXPECT_EQ(pretokenize("a\n\n"), (Pieces{"a", "\n\n"}));
  EXPECT_EQ(pretokenize("a \nb"), (Pieces{"a", " ", "\n", "b"}));
  EXPECT_EQ(pretokenize("x\n  y"), (Pieces{"x", "\n ", " y"}));
  EXPECT_EQ(pretokenize("\tb"), (Pieces{"\t", "b"}));
  EXPECT_EQ(pretokenize("\r\n\r\nEnd"), (Pieces{"\r\n\r", "\n", "End"}));
}

TEST(TokenizerPretokenize, NonAsciiText) {
  using tf::bpe::pretokenize;
  EXPECT_EQ(pretokenize("caf\xC3\xA9 na\xC3\xAFve"), (Pieces{"caf\xC3\xA9", " na\xC3\xAFve"}));
  EXPECT_EQ(pretokenize("\xD0\x9F\xD1\x80\xD0\xB8 \xD0\xBC\xD0\xB8\xD1\x80"),  // "При мир"
            (Pieces{"\xD0\x9F\xD1\x80\xD0\xB8", " \xD0\xBC\xD0\xB8\xD1\x80"}));
  EXPECT_EQ(pretokenize("\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E"),  // "日本語"
            (Pieces{"\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E"}));
  EXPECT_EQ(pretokenize("x\xD9\xA3\xD9\xA4"), (Pieces{"x", "\xD9\xA3\xD9\xA4"}));  // "x٣٤"
  EXPECT_EQ(pretokenize("a\xC2\xA0" "b"), (Pieces{"a", "\xC2\xA0", "b"}));       // NBSP
  EXPECT_EQ(pretokenize("a\xE2\x80\x94" "b"), (Pieces{"a", "\xE2\x80\x94", "b"}));  // em dash
  EXPECT_EQ(pretokenize("hi \xF0\x9F\x98\x80!"), (Pieces{"hi", " \xF0\x9F\x98\x80!"}));  // emoji
  EXPECT_EQ(pretokenize("x\xC2\xB2"), (Pieces{"x", "\xC2\xB2"}));                 // "x²"
  EXPECT_EQ(pretokenize("e\xCC\x81t"), (Pieces{"e", "\xCC\x81", "t"}));           // combining
  EXPECT_EQ(pretokenize("a\xE3\x80\x80" "b"), (Pieces{"a", "\xE3\x80\x80", "b"}));  // U+3000
}

TEST(TokenizerPretokenize, InvalidUtf8BytesArePunctuation) {
  using tf::bpe::pretokenize;
  EXPECT_EQ(pretokenize("a\xFF" "b"), (Pieces{"a", "\xFF", "b"}));
  EXPECT_EQ(pretokenize("ab\xC3"), (Pieces{"ab", "\xC3"}));
  EXPECT_EQ(pretokenize("!\xFF\xFE"), (Pieces{"!\xFF\xFE"}));
  EXPECT_EQ(pretokenize("\xC3\xA9\xC3"), (Pieces{"\xC3\xA9", "\xC3"}));
  EXPECT_EQ(pretokenize(" \xED\xA0\x80"), (Pieces{" \xED\xA0\x80"}));  // a surrogate
  EXPECT_EQ(pretokenize("\xC0\xAF" "a"), (Pieces{"\xC0\xAF", "a"}));    // overlong
}

TEST(TokenizerPretokenize, PiecesConcatenateToTheText) {
  std::mt19937 rng(11);
  const std::vector<std::string> parts = {"a", "Z", "7", " ", "  ", "\n", "\t", "'", "'s",  "!",
                                          "\xC3\xA9", "\xE2\x80\x94", "\xC2\xA0", "\xFF", "\xE6",
                                          "\xF0\x9F\x98\x80", "\xD9\xA3"};
  for (int trial = 0; trial < 300; ++trial) {
    std::string text;
    for (int i = rng() % 40; i > 0; --i) text += parts[rng() % parts.size()];
    const Pieces pieces = tf::bpe::pretokenize(text);
    std::string joined;
    for (const auto& p : pieces) {
      EXPECT_FALSE(p.empty());
      joined += p;
    }
    EXPECT_EQ(joined, text);
  }
}

// ---------------------------------------------------------------------------------------------
// BPE

TEST(TokenizerBpe, MergesExactly) {
  const BpeFiles f = load_bpe("exact", kSmallMerges, {"<|endoftext|>"});
  const auto& tok = *f.tok;
  EXPECT_EQ(tok.name(), "gpt2-bpe");
  EXPECT_EQ(tok.vocab_size(), static_cast<int64_t>(f.ids.size()));
  EXPECT_EQ(tok.encode("hello"), f.ids_of({"he", "ll", "o"}));  // "he" outranks "ll"
  EXPECT_EQ(tok.encode(" the"), f.ids_of({" the"}));
  EXPECT_EQ(tok.encode("the"), f.ids_of({"t", "he"}));
  EXPECT_EQ(tok.encode(" world"), f.ids_of({" world"}));
  EXPECT_EQ(tok.encode("hello world"), f.ids_of({"he", "ll", "o", " world"}));
  EXPECT_EQ(tok.encode(" caf\xC3\xA9"), f.ids_of({" caf\xC3\xA9"}));
  EXPECT_EQ(tok.encode("it's 123!!!"), f.ids_of({"i", "t", "'s", " ", "12", "3", "!!", "!"}));
  // Pre-tokenization bounds the merges: "  " and "\n\n" exist but not across pieces.
  EXPECT_EQ(tok.encode("a   the"), f.ids_of({"a", "  ", " the"}));
  EXPECT_EQ(tok.encode("x\n\n"), f.ids_of({"x", "\n\n"}));
  EXPECT_EQ(tok.encode("x\n\ny"), f.ids_of({"x", "\n", "\n", "y"}));
  EXPECT_TRUE(tok.encode("").empty());
}

TEST(TokenizerBpe, LowerRankMergesFirst) {
  const BpeFiles ab = load_bpe("rank_ab", {{"a", "b"}, {"b", "c"}});
  const BpeFiles bc = load_bpe("rank_bc", {{"b", "c"}, {"a", "b"}});
  EXPECT_EQ(ab.tok->encode("abc"), ab.ids_of({"ab", "c"}));
  EXPECT_EQ(bc.tok->encode("abc"), bc.ids_of({"a", "bc"}));
}

TEST(TokenizerBpe, MergesEveryOccurrenceOfThePairBeforeTheNextRank) {
  // GPT-2's encoder merges all "a b" in one round; only then does "ab a" (rank 0) compete.
  const Merges merges = {{"ab", "a"}, {"a", "b"}};
  const BpeFiles f = load_bpe("rounds", merges);
  EXPECT_EQ(f.tok->encode("abab"), f.ids_of({"ab", "ab"}));
  EXPECT_EQ(f.tok->encode("aba"), f.ids_of({"aba"}));
  EXPECT_EQ(f.tok->encode("aaab"), f.ids_of({"a", "a", "ab"}));
  EXPECT_EQ(f.tok->encode("abab"), f.ids_of(reference_bpe("abab", merges)));
  // Overlapping occurrences: left to right, without overlap.
  const BpeFiles g = load_bpe("overlap", {{"a", "a"}, {"aa", "aa"}});
  EXPECT_EQ(g.tok->encode("aaa"), g.ids_of({"aa", "a"}));
  EXPECT_EQ(g.tok->encode("aaaaa"), g.ids_of({"aaaa", "a"}));
  EXPECT_EQ(g.tok->encode(std::string(200, 'a')), Ids(50, g.id("aaaa")));  // beyond the cache
}

TEST(TokenizerBpe, AgreesWithReferenceOnRandomMerges) {
  for (const unsigned seed : {1u, 2u, 3u, 4u}) {
    std::mt19937 rng(seed);
    // Random merges over a few letters: the same string often arises from several splits.
    std::vector<std::string> tokens = {"a", "b", "c", "d"};
    Merges merges;
    std::map<std::pair<std::string, std::string>, bool> seen;
    while (merges.size() < 60) {
      const std::string x = tokens[rng() % tokens.size()], y = tokens[rng() % tokens.size()];
      if (x.size() + y.size() > 8 || !seen.emplace(std::make_pair(x, y), true).second) continue;
      merges.emplace_back(x, y);
      if (std::find(tokens.begin(), tokens.end(), x + y) == tokens.end()) tokens.push_back(x + y);
    }
    // Shuffled ranks: a merge may now outrank those that build its parts, which is where
    // merging one occurrence at a time would part from GPT-2's rounds.
    if (seed > 2) std::shuffle(merges.begin(), merges.end(), rng);
    const BpeFiles f = load_bpe("random" + std::to_string(seed), merges);
    for (int trial = 0; trial < 200; ++trial) {
      std::string word(1 + rng() % (trial < 190 ? 20 : 150), 'a');
      for (auto& c : word) c = static_cast<char>('a' + rng() % 4);
      const Ids expected = f.ids_of(reference_bpe(word, merges));
      EXPECT_EQ(f.tok->encode(word), expected) << "seed " << seed << ", \"" << word << "\"";
      EXPECT_EQ(f.tok->encode(word), expected) << "cached, \"" << word << "\"";
    }
  }
}

TEST(TokenizerBpe, DecodeInvertsEncode) {
  const BpeFiles f = load_bpe("roundtrip", kSmallMerges, {"<|endoftext|>"});
  std::vector<std::string> texts = {
      "",
      "hello world",
      "The quick brown fox -- it's 12:34!!\n\n\tindented\r\n",
      "caf\xC3\xA9 na\xC3\xAFve \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80\xF0\x9F\x98\x80",
      "   leading and trailing   ",
      "\xFF\xFE invalid \xC3 utf-8 \xED\xA0\x80\xC0\xAF",
      std::string("nul\0inside", 10),
      "<|endoftext|>",
      std::string(500, ' ') + "x" + std::string(300, '!'),
  };
  std::mt19937 rng(5);
  for (int trial = 0; trial < 100; ++trial) {
    std::string t(rng() % 200, '\0');
    for (auto& c : t) c = static_cast<char>(rng());
    texts.push_back(t);
  }
  for (const auto& t : texts) {
    const Ids ids = f.tok->encode(t);
    for (const int32_t id : ids) {
      EXPECT_GE(id, 0);
      EXPECT_LT(id, f.tok->vocab_size());
    }
    EXPECT_EQ(f.tok->decode(ids), t);
  }
}

TEST(TokenizerBpe, SpecialAndUnknownIdsDecode) {
  const BpeFiles f = load_bpe("special", kSmallMerges, {"<|endoftext|>", "<|im start|>"});
  const int32_t eot = f.id("<|endoftext|>"), im = f.id("<|im start|>");
  EXPECT_EQ(f.tok->vocab_size(), im + 1);
  EXPECT_EQ(f.tok->decode({eot}), "<|endoftext|>");
  EXPECT_EQ(f.tok->decode({im}), "<|im start|>");  // ' ' is not in the alphabet: literal
  EXPECT_EQ(f.tok->decode({f.id(" the"), eot, f.id("\n\n")}), " the<|endoftext|>\n\n");
  EXPECT_EQ(f.tok->decode({f.id("he"), im + 1, -1, f.id("ll")}), "he" + kFffd + kFffd + "ll");
  // encode reads special tokens as text.
  const Ids ids = f.tok->encode("<|endoftext|>");
  EXPECT_EQ(std::count(ids.begin(), ids.end(), eot), 0);
  EXPECT_EQ(f.tok->decode(ids), "<|endoftext|>");
}

TEST(TokenizerBpe, IdsMayLeaveGaps) {
  const std::string dir = tmp_dir("gaps");
  std::string json = "{";
  for (int b = 0; b < 256; ++b)
    json += json_string(sym(std::string(1, static_cast<char>(b)))) + ": " + std::to_string(2 * b) +
            ", ";
  json += json_string(sym("ab")) + ": 1000}";
  write_file(dir + "/vocab.json", json);
  write_file(dir + "/merges.txt", "a b\n\n\n");  // no #version line; blank lines at the end
  const auto tok = tf::load_gpt2_bpe(dir + "/vocab.json", dir + "/merges.txt");
  EXPECT_EQ(tok->vocab_size(), 1001);
  EXPECT_EQ(tok->encode("abc"), (Ids{1000, 2 * 'c'}));
  EXPECT_EQ(tok->decode({1000, 2 * 'c', 1}), "abc" + kFffd);
}

TEST(TokenizerBpe, ByteMissingFromVocabularyIsAnError) {
  const std::string dir = tmp_dir("missing_byte");
  write_file(dir + "/vocab.json", "{\"a\": 0, \"b\": 1, \"ab\": 2}");
  write_file(dir + "/merges.txt", "#version: 0.2\r\na b\r\n");
  const auto tok = tf::load_gpt2_bpe(dir + "/vocab.json", dir + "/merges.txt");
  EXPECT_EQ(tok->encode("abba"), (Ids{2, 1, 0}));
  const std::string msg = error_of([&] { tok->encode("ab c"); });
  EXPECT_TRUE(Contains(msg, "\xC4\xA0"));  // "Ġ", the space's symbol
  EXPECT_TRUE(Contains(msg, "0x20"));
}

TEST(TokenizerBpe, ConcurrentEncodesAgree) {
  const BpeFiles f = load_bpe("threads", kSmallMerges);
  std::string text;
  for (int i = 0; i < 200; ++i) text += "hello world, the caf\xC3\xA9 " + std::to_string(i) + "\n";
  const Ids expected = f.tok->encode(text);
  std::vector<Ids> got(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < got.size(); ++t)
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 5; ++rep) got[t] = f.tok->encode(text);
    });
  for (auto& th : threads) th.join();
  for (const auto& g : got) EXPECT_EQ(g, expected);
}

// ---------------------------------------------------------------------------------------------
// load_tokenizer

TEST(TokenizerLoad, PicksBpeOnlyWhenBothFilesExist) {
  const BpeFiles f = write_bpe("load_both", kSmallMerges);
  EXPECT_EQ(tf::load_tokenizer(f.dir)->name(), "gpt2-bpe");
  EXPECT_EQ(tf::load_tokenizer(f.dir)->encode(" the"), f.ids_of({" the"}));

  const std::string only_vocab = tmp_dir("load_only_vocab");
  fs::copy_file(f.vocab, only_vocab + "/vocab.json");
  EXPECT_EQ(tf::load_tokenizer(only_vocab)->name(), "bytes");
  const std::string only_merges = tmp_dir("load_only_merges");
  fs::copy_file(f.merges, only_merges + "/merges.txt");
  EXPECT_EQ(tf::load_tokenizer(only_merges)->name(), "bytes");

  EXPECT_EQ(tf::load_tokenizer(tmp_dir("load_empty"))->name(), "bytes");
  EXPECT_EQ(tf::load_tokenizer(f.dir + "/no/such/dir")->name(), "bytes");
  const auto bytes = tf::load_tokenizer("");
  EXPECT_EQ(bytes->name(), "bytes");
  EXPECT_EQ(bytes->vocab_size(), 256);
}

TEST(TokenizerLoad, PresentButBrokenFilesAreReportedNotIgnored) {
  const BpeFiles f = write_bpe("load_broken", kSmallMerges);
  write_file(f.merges, "#version: 0.2\nh e\nnot-a-merge\n");
  const std::string msg = error_of([&] { tf::load_tokenizer(f.dir); });
  EXPECT_TRUE(Contains(msg, f.merges + ":3:"));
}

// ---------------------------------------------------------------------------------------------
// Rejected files

TEST(TokenizerErrors, MissingFilesNameThePath) {
  const BpeFiles f = write_bpe("err_missing", kSmallMerges);
  const std::string nope = f.dir + "/nope.json";
  EXPECT_TRUE(Contains(error_of([&] { tf::load_gpt2_bpe(nope, f.merges); }), nope));
  const std::string nope_txt = f.dir + "/nope.txt";
  EXPECT_TRUE(Contains(error_of([&] { tf::load_gpt2_bpe(f.vocab, nope_txt); }), nope_txt));
  const std::string msg = error_of([&] { tf::load_gpt2_bpe(f.dir, f.merges); });
  EXPECT_TRUE(Contains(msg, f.dir));
  EXPECT_TRUE(Contains(msg, "directory"));
}

TEST(TokenizerErrors, MalformedMergesLineNamesFileAndLine) {
  const BpeFiles f = write_bpe("err_merges", kSmallMerges);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"#version: 0.2\nh e\nabc\n", ":3:"},       // one symbol
      {"h e\nl l\nh e l\n", ":3:"},               // three symbols
      {"#version: 0.2\nh  e\n", ":2:"},           // two spaces
      {"h e\n e\n", ":2:"},                       // leading space
      {"h e\nh \n", ":2:"},                       // trailing space
      {"l l\n#version: 0.2\n", ":2:"},            // "#version" only on line 1
  };
  for (const auto& [text, where] : cases) {
    write_file(f.merges, text);
    const std::string msg = error_of([&] { tf::load_gpt2_bpe(f.vocab, f.merges); });
    EXPECT_TRUE(Contains(msg, f.merges + where)) << text;
  }
}

TEST(TokenizerErrors, MergeSymbolsMustBeInTheVocabulary) {
  const BpeFiles f = write_bpe("err_merge_vocab", kSmallMerges);
  write_file(f.merges, "#version: 0.2\nh e\nq z\n");  // "qz" is not a token
  std::string msg = error_of([&] { tf::load_gpt2_bpe(f.vocab, f.merges); });
  EXPECT_TRUE(Contains(msg, f.merges + ":3:"));
  EXPECT_TRUE(Contains(msg, "\"qz\""));
  write_file(f.merges, "h e\n\xC4\xA0the x\n");  // "Ġthe" is, "x" is, "Ġthex" is not
  msg = error_of([&] { tf::load_gpt2_bpe(f.vocab, f.merges); });
  EXPECT_TRUE(Contains(msg, f.merges + ":2:"));
  EXPECT_TRUE(Contains(msg, "not in the vocabulary"));
}

TEST(TokenizerErrors, VocabularyMustBeAnObjectOfIntegerIds) {
  const BpeFiles f = write_bpe("err_vocab", kSmallMerges);
  const auto expect_rejected = [&](const std::string& json, const std::string& part) {
    write_file(f.vocab, json);
    const std::string msg = error_of([&] { tf::load_gpt2_bpe(f.vocab, f.merges); });
    EXPECT_TRUE(Contains(msg, f.vocab)) << json;
    EXPECT_TRUE(Contains(msg, part)) << json;
  };
  expect_rejected("[1, 2]", "object");
  expect_rejected("\"a\"", "object");
  expect_rejected("{}", "no tokens");
  expect_rejected("{\"a\": 1.5}", "\"a\"");
  expect_rejected("{\"a\": -1}", "\"a\"");
  expect_rejected("{\"a\": \"0\"}", "\"a\"");
  expect_rejected("{\"a\": 1e12}", "\"a\"");
  expect_rejected("{\"a\": 0, \"b\": 0}", "id 0");
  expect_rejected("{\"a\": 0, \"a\": 1}", "twice");
  write_file(f.vocab, "{\"a\": 0,");  // not JSON at all: the JSON reader's message
  EXPECT_TRUE(Contains(error_of([&] { tf::load_gpt2_bpe(f.vocab, f.merges); }), f.vocab));
}
