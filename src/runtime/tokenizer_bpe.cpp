/** \file tokenizer_bpe.cpp
 *  \brief GPT-2's byte-level BPE: vocab.json + merges.txt, the byte-to-unicode alphabet, the
 *  pre-tokenization pattern (a hand-written scanner) and merges by rank.
 *
 *  Encoding follows GPT-2's reference encoder: the text is split into pieces by the
 *  pre-tokenization pattern; each piece's bytes become alphabet symbols; then, round after
 *  round, the adjacent pair with the lowest merge rank is found and *every* occurrence of it is
 *  merged, left to right without overlap, before ranks are compared again. (Tokenizers that
 *  merge one occurrence at a time can differ from this when a merge result also arises from a
 *  lower-ranked split; GPT-2's own files give the same answer either way.) A priority queue of
 *  (rank, position) keeps a piece of n bytes at O(n log n). Pieces are cached.
 *
 *  encode() reads its text as plain text: special tokens such as "<|endoftext|>" in the input
 *  are split like any other text (their ids come from the caller); decode() writes them out
 *  literally.
 */
#include "tokenizer_bpe.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <queue>
#include <sstream>
#include <unordered_map>
#include <utility>

#include "abft/transformer/error.hpp"
#include "abft/transformer/tokenizer.hpp"
#include "json.hpp"
#include "utf8.hpp"

namespace abft::transformer {
namespace bpe {
namespace {

// ---------------------------------------------------------------------------------------------
// The byte-to-unicode alphabet.

struct Alphabet {
  std::array<uint32_t, 256> cp{};     // byte -> code point
  std::array<int16_t, 324> byte_of{};  // code point -> byte, -1 outside the alphabet
  Alphabet() {
    byte_of.fill(-1);
    uint32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool self = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174);
      cp[b] = self ? static_cast<uint32_t>(b) : next++;
      byte_of[cp[b]] = static_cast<int16_t>(b);
    }
  }
};

const Alphabet& alphabet() {
  static const Alphabet a;
  return a;
}

// ---------------------------------------------------------------------------------------------
// UTF-8 (utf8.hpp).

void append_utf8(std::string& out, uint32_t cp) { utf8::append(out, cp); }

size_t decode_utf8(const std::string& s, size_t i, uint32_t& cp) {
  return utf8::decode(s.data() + i, s.size() - i, cp);
}

// ---------------------------------------------------------------------------------------------
// Character classes above U+00FF: ranges that are not letters (see classify() in the header
// for what this approximates). Sorted, disjoint; every code point outside them is a letter.

struct Range {
  uint32_t lo, hi;
  CharClass cls;
};

constexpr CharClass L = CharClass::Letter, N = CharClass::Number, S = CharClass::Space,
                    O = CharClass::Other;

constexpr Range kRanges[] = {
    // spacing modifier symbols, combining diacritical marks
    {0x02C2, 0x02C5, O}, {0x02D2, 0x02DF, O}, {0x02E5, 0x02EB, O}, {0x02ED, 0x02ED, O},
    {0x02EF, 0x036F, O},
    // Greek, Cyrillic, Armenian, Hebrew punctuation and marks
    {0x0375, 0x0375, O}, {0x037E, 0x037E, O}, {0x0384, 0x0385, O}, {0x0387, 0x0387, O},
    {0x03F6, 0x03F6, O}, {0x0482, 0x0489, O}, {0x055A, 0x055F, O}, {0x0589, 0x058A, O},
    {0x058D, 0x058F, O}, {0x0591, 0x05C7, O}, {0x05F3, 0x05F4, O},
    // Arabic
    {0x0600, 0x061F, O}, {0x064B, 0x065F, O}, {0x0660, 0x0669, N}, {0x066A, 0x066D, O},
    {0x0670, 0x0670, O}, {0x06D4, 0x06D4, O}, {0x06D6, 0x06E4, O}, {0x06E7, 0x06ED, O},
    {0x06F0, 0x06F9, N}, {0x06FD, 0x06FE, O}, {0x0700, 0x070F, O}, {0x07C0, 0x07C9, N},
    // Indic digits and dandas
    {0x0964, 0x0965, O}, {0x0966, 0x096F, N}, {0x0970, 0x0970, O}, {0x09E6, 0x09EF, N},
    {0x09F2, 0x09F3, O}, {0x09F4, 0x09F9, N}, {0x09FA, 0x09FB, O}, {0x0A66, 0x0A6F, N},
    {0x0AE6, 0x0AEF, N}, {0x0AF0, 0x0AF1, O}, {0x0B66, 0x0B6F, N}, {0x0B70, 0x0B70, O},
    {0x0B72, 0x0B77, N}, {0x0BE6, 0x0BF2, N}, {0x0BF3, 0x0BFA, O}, {0x0C66, 0x0C6F, N},
    {0x0C78, 0x0C7E, N}, {0x0C7F, 0x0C7F, O}, {0x0CE6, 0x0CEF, N}, {0x0D58, 0x0D5E, N},
    {0x0D66, 0x0D78, N}, {0x0D79, 0x0D79, O}, {0x0DE6, 0x0DEF, N}, {0x0DF4, 0x0DF4, O},
    // Thai, Lao, Tibetan, Myanmar, Georgian, Ethiopic
    {0x0E3F, 0x0E3F, O}, {0x0E4F, 0x0E4F, O}, {0x0E50, 0x0E59, N}, {0x0E5A, 0x0E5B, O},
    {0x0ED0, 0x0ED9, N}, {0x0F01, 0x0F17, O}, {0x0F20, 0x0F33, N}, {0x0F34, 0x0F3F, O},
    {0x1040, 0x1049, N}, {0x104A, 0x104F, O}, {0x1090, 0x1099, N}, {0x10FB, 0x10FB, O},
    {0x1360, 0x1368, O}, {0x1369, 0x137C, N}, {0x1390, 0x1399, O}, {0x1400, 0x1400, O},
    {0x166D, 0x166E, O}, {0x1680, 0x1680, S}, {0x169B, 0x169C, O}, {0x16EB, 0x16ED, O},
    {0x16EE, 0x16F0, N},
    // Khmer, Mongolian, Limbu, New Tai Lue, Tai Tham, Balinese, Sundanese, Lepcha, Ol Chiki
    {0x17D4, 0x17D6, O}, {0x17D8, 0x17DB, O}, {0x17E0, 0x17E9, N}, {0x17F0, 0x17F9, N},
    {0x1800, 0x180F, O}, {0x1810, 0x1819, N}, {0x1940, 0x1945, O}, {0x1946, 0x194F, N},
    {0x19D0, 0x19DA, N}, {0x19DE, 0x19FF, O}, {0x1A80, 0x1A89, N}, {0x1A90, 0x1A99, N},
    {0x1AB0, 0x1AFF, O}, {0x1B50, 0x1B59, N}, {0x1BB0, 0x1BB9, N}, {0x1C40, 0x1C49, N},
    {0x1C50, 0x1C59, N},
    // extended diacritics, Greek spacing accents
    {0x1DC0, 0x1DFF, O}, {0x1FBD, 0x1FBD, O}, {0x1FBF, 0x1FC1, O},
    {0x1FCD, 0x1FCF, O}, {0x1FDD, 0x1FDF, O}, {0x1FED, 0x1FEF, O}, {0x1FFD, 0x1FFE, O},
    // general punctuation, super/subscripts, currency
    {0x2000, 0x200A, S}, {0x200B, 0x2027, O}, {0x2028, 0x2029, S}, {0x202A, 0x202E, O},
    {0x202F, 0x202F, S}, {0x2030, 0x205E, O}, {0x205F, 0x205F, S}, {0x2060, 0x206F, O},
    {0x2070, 0x2070, N}, {0x2074, 0x2079, N}, {0x207A, 0x207E, O}, {0x2080, 0x2089, N},
    {0x208A, 0x208E, O}, {0x20A0, 0x20CF, O}, {0x20D0, 0x20FF, O},
    // letterlike symbols (the letters among them stay letters), number forms
    {0x2100, 0x2101, O}, {0x2103, 0x2106, O}, {0x2108, 0x2109, O}, {0x2114, 0x2114, O},
    {0x2116, 0x2118, O}, {0x211E, 0x2123, O}, {0x2125, 0x2125, O}, {0x2127, 0x2127, O},
    {0x2129, 0x2129, O}, {0x212E, 0x212E, O}, {0x213A, 0x213B, O}, {0x2140, 0x2144, O},
    {0x214A, 0x214D, O}, {0x214F, 0x214F, O}, {0x2150, 0x2182, N}, {0x2185, 0x2189, N},
    {0x218A, 0x218B, O},
    // arrows, mathematical operators, technical, control pictures, OCR
    {0x2190, 0x245F, O}, {0x2460, 0x249B, N}, {0x249C, 0x24E9, O}, {0x24EA, 0x24FF, N},
    // box drawing, blocks, shapes, symbols, dingbats (with their circled numbers)
    {0x2500, 0x2775, O}, {0x2776, 0x2793, N}, {0x2794, 0x2BFF, O},
    // Coptic and Tifinagh punctuation, supplemental punctuation, CJK radicals
    {0x2CE5, 0x2CEA, O}, {0x2CF9, 0x2CFC, O}, {0x2CFD, 0x2CFD, N}, {0x2CFE, 0x2CFF, O},
    {0x2D70, 0x2D70, O}, {0x2DE0, 0x2DFF, O}, {0x2E00, 0x2E2E, O}, {0x2E30, 0x2FFF, O},
    // CJK symbols and punctuation
    {0x3000, 0x3000, S}, {0x3001, 0x3004, O}, {0x3007, 0x3007, N}, {0x3008, 0x3020, O},
    {0x3021, 0x3029, N}, {0x302A, 0x3030, O}, {0x3036, 0x3037, O}, {0x3038, 0x303A, N},
    {0x303D, 0x303F, O}, {0x3099, 0x309C, O}, {0x30A0, 0x30A0, O}, {0x30FB, 0x30FB, O},
    {0x3190, 0x3191, O}, {0x3192, 0x3195, N}, {0x3196, 0x319F, O}, {0x31C0, 0x31EF, O},
    {0x3200, 0x321F, O}, {0x3220, 0x3229, N}, {0x322A, 0x3247, O}, {0x3248, 0x324F, N},
    {0x3250, 0x3250, O}, {0x3251, 0x325F, N}, {0x3260, 0x327F, O}, {0x3280, 0x3289, N},
    {0x328A, 0x32B0, O}, {0x32B1, 0x32BF, N}, {0x32C0, 0x33FF, O}, {0x4DC0, 0x4DFF, O},
    // Yi, Lisu, Vai, Bamum, Syloti, Saurashtra, Kayah Li, Javanese, Cham, Meetei digits etc.
    {0xA490, 0xA4C6, O}, {0xA4FE, 0xA4FF, O}, {0xA60D, 0xA60F, O}, {0xA620, 0xA629, N},
    {0xA66F, 0xA67E, O}, {0xA6E6, 0xA6EF, N}, {0xA6F0, 0xA6F7, O}, {0xA700, 0xA716, O},
    {0xA720, 0xA721, O}, {0xA789, 0xA78A, O}, {0xA828, 0xA82B, O}, {0xA830, 0xA835, N},
    {0xA836, 0xA839, O}, {0xA874, 0xA877, O}, {0xA8CE, 0xA8CF, O}, {0xA8D0, 0xA8D9, N},
    {0xA900, 0xA909, N}, {0xA92E, 0xA92F, O}, {0xA9C1, 0xA9CD, O}, {0xA9D0, 0xA9D9, N},
    {0xA9F0, 0xA9F9, N}, {0xAA50, 0xAA59, N}, {0xAA5C, 0xAA5F, O}, {0xABF0, 0xABF9, N},
    // private use, presentation forms, variation selectors, small and fullwidth forms
    {0xE000, 0xF8FF, O}, {0xFB29, 0xFB29, O}, {0xFD3E, 0xFD3F, O}, {0xFDFC, 0xFDFF, O},
    {0xFE00, 0xFE6F, O}, {0xFEFF, 0xFEFF, O}, {0xFF01, 0xFF0F, O}, {0xFF10, 0xFF19, N},
    {0xFF1A, 0xFF20, O}, {0xFF3B, 0xFF40, O}, {0xFF5B, 0xFF65, O}, {0xFFE0, 0xFFFF, O},
    // supplementary planes: Aegean numbers, musical and mathematical symbols, emoji, tags
    {0x10100, 0x10102, O}, {0x10107, 0x10133, N}, {0x10137, 0x1013F, O},
    {0x1D000, 0x1D24F, O}, {0x1D6C1, 0x1D6C1, O}, {0x1D6DB, 0x1D6DB, O},
    {0x1D6FB, 0x1D6FB, O}, {0x1D715, 0x1D715, O}, {0x1D735, 0x1D735, O},
    {0x1D74F, 0x1D74F, O}, {0x1D76F, 0x1D76F, O}, {0x1D789, 0x1D789, O},
    {0x1D7A9, 0x1D7A9, O}, {0x1D7C3, 0x1D7C3, O}, {0x1D7CE, 0x1D7FF, N},
    {0x1EC71, 0x1ECB4, N}, {0x1F000, 0x1F0FF, O}, {0x1F100, 0x1F10C, N},
    {0x1F10D, 0x1FAFF, O}, {0x1FB00, 0x1FBEF, O}, {0x1FBF0, 0x1FBF9, N},
    {0xE0000, 0xE01EF, O}, {0xF0000, 0x10FFFF, O},
};

constexpr bool ranges_sorted() {
  for (size_t i = 0; i < sizeof(kRanges) / sizeof(kRanges[0]); ++i) {
    if (kRanges[i].lo > kRanges[i].hi || kRanges[i].lo <= 0xFF) return false;
    if (i > 0 && kRanges[i - 1].hi >= kRanges[i].lo) return false;
  }
  return true;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

uint32_t byte_to_code_point(uint8_t b) { return alphabet().cp[b]; }

int code_point_to_byte(uint32_t cp) { return cp < 324 ? alphabet().byte_of[cp] : -1; }

CharClass classify(uint32_t cp) {
  if (cp < 0x80) {
    if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z')) return L;
    if (cp >= '0' && cp <= '9') return N;
    if (cp == ' ' || (cp >= '\t' && cp <= '\r')) return S;
    return O;
  }
  if (cp <= 0xFF) {  // Latin-1, exact
    if (cp == 0x85 || cp == 0xA0) return S;
    if (cp == 0xAA || cp == 0xB5 || cp == 0xBA) return L;
    if (cp == 0xB2 || cp == 0xB3 || cp == 0xB9 || (cp >= 0xBC && cp <= 0xBE)) return N;
    if (cp < 0xC0 || cp == 0xD7 || cp == 0xF7) return O;
    return L;
  }
  static_assert(ranges_sorted(), "kRanges must be sorted, disjoint and above U+00FF");
  const Range* end = kRanges + sizeof(kRanges) / sizeof(kRanges[0]);
  const Range* r =
      std::upper_bound(kRanges, end, cp, [](uint32_t c, const Range& x) { return c < x.lo; });
  if (r != kRanges && cp <= (r - 1)->hi) return (r - 1)->cls;
  return L;
}

namespace {

/** Calls piece(begin, end) for each piece of `text`, in order (see pretokenize()). */
template <class Fn>
void for_each_piece(const std::string& text, Fn&& piece) {
  struct Unit {
    uint32_t cp;
    size_t begin;
    CharClass cls;
  };
  std::vector<Unit> u;
  u.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    uint32_t cp = 0;
    const size_t len = decode_utf8(text, i, cp);
    if (len == 0) {  // not UTF-8: the byte alone, as a symbol
      u.push_back({0xFFFFFFFFu, i, O});
      i += 1;
    } else {
      u.push_back({cp, i, classify(cp)});
      i += len;
    }
  }
  const size_t n = u.size();
  const auto is = [&](size_t j, CharClass c) { return j < n && u[j].cls == c; };
  const auto cp_at = [&](size_t j) { return j < n ? u[j].cp : 0xFFFFFFFFu; };
  for (size_t k = 0; k < n;) {
    size_t end = k;  // one past the last unit of the piece
    const uint32_t c = u[k].cp;
    if (c == '\'') {  // 's|'t|'re|'ve|'m|'ll|'d
      const uint32_t c1 = cp_at(k + 1), c2 = cp_at(k + 2);
      if (c1 == 's' || c1 == 't' || c1 == 'm' || c1 == 'd')
        end = k + 2;
      else if ((c1 == 'r' && c2 == 'e') || (c1 == 'v' && c2 == 'e') || (c1 == 'l' && c2 == 'l'))
        end = k + 3;
    }
    if (end == k) {
      // ' ?X+' for X = letters, numbers, other (neither space, letter nor number)
      for (const CharClass cls : {L, N, O}) {
        const size_t first = (c == ' ' && is(k + 1, cls)) ? k + 1 : k;
        if (!is(first, cls)) continue;
        end = first;
        while (is(end, cls)) ++end;
        break;
      }
    }
    if (end == k) {
      // \s+(?!\S) | \s+ : a run of whitespace followed by more text leaves its last
      // character to the next piece, unless the run is that one character.
      size_t j = k;
      while (is(j, S)) ++j;
      end = (j == n || j - k == 1) ? j : j - 1;
    }
    piece(u[k].begin, end < n ? u[end].begin : text.size());
    k = end;
  }
}

}  // namespace

std::vector<std::string> pretokenize(const std::string& text) {
  std::vector<std::string> pieces;
  for_each_piece(text, [&](size_t b, size_t e) { pieces.push_back(text.substr(b, e - b)); });
  return pieces;
}

}  // namespace bpe

// ---------------------------------------------------------------------------------------------
// The tokenizer.

namespace {

constexpr const char* kReplacement = "\xEF\xBF\xBD";  // U+FFFD
constexpr int64_t kMaxId = (int64_t{1} << 24) - 1;     // largest id vocab.json may use
constexpr size_t kCachedPieceBytes = 64;               // longer pieces are not cached
constexpr size_t kCacheEntries = size_t{1} << 16;      // the cache is cleared when this full

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error(ABFT_STATUS_INVALID_VALUE, path + ": is a directory, expected a file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(ABFT_STATUS_INVALID_VALUE,
                path + ": cannot open file (" + std::strerror(errno) + ")");
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) throw Error(ABFT_STATUS_INVALID_VALUE, path + ": cannot read file");
  return s.str();
}

/** `s` for a message: quoted, control bytes escaped, cut after 60 bytes. */
std::string show(const std::string& s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size() && i < 60; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7F || c == '"' || c == '\\') {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += s.size() > 60 ? "\"..." : "\"";
  return out;
}

/** The bytes a vocabulary entry stands for: through the inverse alphabet when every character
 *  is in the alphabet, else (special tokens such as "<|im start|>") the entry itself. */
std::string token_bytes(const std::string& token) {
  std::string bytes;
  for (size_t i = 0; i < token.size();) {
    uint32_t cp = 0;
    const size_t len = bpe::decode_utf8(token, i, cp);
    const int b = len ? bpe::code_point_to_byte(cp) : -1;
    if (b < 0) return token;
    bytes += static_cast<char>(b);
    i += len;
  }
  return bytes;
}

uint64_t pair_key(int32_t a, int32_t b) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
}

class Gpt2Bpe final : public Tokenizer {
 public:
  Gpt2Bpe(const std::string& vocab_json, const std::string& merges_txt) {
    std::unordered_map<std::string, int32_t> ids = load_vocab(vocab_json);
    load_merges(merges_txt, vocab_json, ids);
    for (int b = 0; b < 256; ++b) {
      std::string sym;
      bpe::append_utf8(sym, bpe::byte_to_code_point(static_cast<uint8_t>(b)));
      const auto it = ids.find(sym);
      byte_id_[b] = it == ids.end() ? -1 : it->second;
    }
  }

  std::vector<int32_t> encode(const std::string& text) const override {
    std::vector<int32_t> out;
    out.reserve(text.size() / 3 + 1);
    bpe::for_each_piece(text, [&](size_t b, size_t e) { encode_piece(text, b, e, out); });
    return out;
  }

  std::string decode(const std::vector<int32_t>& ids) const override {
    std::string out;
    for (const int32_t id : ids) {
      if (id >= 0 && static_cast<size_t>(id) < present_.size() && present_[id])
        out += bytes_[id];
      else
        out += kReplacement;
    }
    return out;
  }

  int64_t vocab_size() const override { return static_cast<int64_t>(bytes_.size()); }
  std::string name() const override { return "gpt2-bpe"; }

 private:
  struct Merge {
    int32_t rank;
    int32_t id;  // of the merged symbol
  };

  std::unordered_map<std::string, int32_t> load_vocab(const std::string& path) {
    const json::Value doc = json::parse(read_file(path), path);
    if (!doc.is_object())
      throw Error(ABFT_STATUS_INVALID_VALUE,
                  path + ": expected a JSON object mapping each token to its id");
    if (doc.members.empty()) throw Error(ABFT_STATUS_INVALID_VALUE, path + ": no tokens");
    std::unordered_map<std::string, int32_t> ids;
    ids.reserve(doc.members.size());
    int64_t max_id = -1;
    for (const auto& [token, value] : doc.members) {
      if (!value.is_number() || !(value.number >= 0) || value.number > kMaxId ||
          value.number != std::floor(value.number))
        throw Error(ABFT_STATUS_INVALID_VALUE,
                    path + ": token " + show(token) + ": expected an integer id in [0, 2^24)");
      if (token.empty()) throw Error(ABFT_STATUS_INVALID_VALUE, path + ": empty token");
      const auto id = static_cast<int32_t>(value.number);
      if (!ids.emplace(token, id).second)
        throw Error(ABFT_STATUS_INVALID_VALUE, path + ": token " + show(token) + " appears twice");
      max_id = std::max<int64_t>(max_id, id);
    }
    bytes_.assign(static_cast<size_t>(max_id + 1), std::string());
    present_.assign(static_cast<size_t>(max_id + 1), false);
    for (const auto& [token, id] : ids) {
      if (present_[id])
        throw Error(ABFT_STATUS_INVALID_VALUE,
                    path + ": id " + std::to_string(id) + " is given to more than one token");
      present_[id] = true;
      bytes_[id] = token_bytes(token);
    }
    return ids;
  }

  void load_merges(const std::string& path, const std::string& vocab_path,
                   const std::unordered_map<std::string, int32_t>& ids) {
    const std::string text = read_file(path);
    int32_t rank = 0;
    size_t line_no = 0;
    for (size_t pos = 0; pos < text.size();) {
      size_t eol = text.find('\n', pos);
      if (eol == std::string::npos) eol = text.size();
      std::string line = text.substr(pos, eol - pos);
      pos = eol + 1;
      ++line_no;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line_no == 1 && line.rfind("#version", 0) == 0) continue;
      if (line.find_first_not_of(" \t") == std::string::npos) continue;  // blank
      const std::string where = path + ":" + std::to_string(line_no) + ": ";
      const size_t sp = line.find(' ');
      if (sp == 0 || sp == std::string::npos || sp + 1 == line.size() ||
          line.find(' ', sp + 1) != std::string::npos)
        throw Error(ABFT_STATUS_INVALID_VALUE,
                    where + "expected two symbols separated by one space, got " + show(line));
      const std::string a = line.substr(0, sp), b = line.substr(sp + 1);
      const auto id_of = [&](const std::string& sym) {
        const auto it = ids.find(sym);
        if (it == ids.end())
          throw Error(ABFT_STATUS_INVALID_VALUE, where + "merge " + show(line) + ": " + show(sym) +
                                                     " is not in the vocabulary " + vocab_path);
        return it->second;
      };
      const int32_t ia = id_of(a), ib = id_of(b), iab = id_of(a + b);
      merges_.emplace(pair_key(ia, ib), Merge{rank, iab});  // a repeated pair keeps its rank
      ++rank;
    }
  }

  /** Appends the ids of text[b, e). */
  void encode_piece(const std::string& text, size_t b, size_t e,
                    std::vector<int32_t>& out) const {
    const size_t n = e - b;
    if (n <= kCachedPieceBytes) {
      std::string key = text.substr(b, n);
      {
        std::lock_guard<std::mutex> lock(cache_mutex_);
        const auto it = cache_.find(key);
        if (it != cache_.end()) {
          out.insert(out.end(), it->second.begin(), it->second.end());
          return;
        }
      }
      std::vector<int32_t> ids;
      merge(text.data() + b, n, ids);
      out.insert(out.end(), ids.begin(), ids.end());
      std::lock_guard<std::mutex> lock(cache_mutex_);
      if (cache_.size() >= kCacheEntries) cache_.clear();
      cache_.emplace(std::move(key), std::move(ids));
    } else {
      merge(text.data() + b, n, out);
    }
  }

  const Merge* find_merge(int32_t a, int32_t b) const {
    const auto it = merges_.find(pair_key(a, b));
    return it == merges_.end() ? nullptr : &it->second;
  }

  /** BPE of one piece (n >= 1 bytes), appended to `out`. */
  void merge(const char* p, size_t n, std::vector<int32_t>& out) const {
    constexpr int32_t kDead = -2;  // a symbol merged into its left neighbour
    struct Sym {
      int32_t id;  // -1: the byte's symbol is not in the vocabulary (it never merges)
      int32_t prev, next;
    };
    std::vector<Sym> sym(n);
    for (size_t i = 0; i < n; ++i)
      sym[i] = {byte_id_[static_cast<unsigned char>(p[i])], static_cast<int32_t>(i) - 1,
                i + 1 < n ? static_cast<int32_t>(i + 1) : -1};

    using Entry = std::pair<int32_t, int32_t>;  // (rank, position of the pair's left symbol)
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
    const auto push = [&](int32_t i) {
      if (i < 0 || sym[i].next < 0) return;
      if (const Merge* m = find_merge(sym[i].id, sym[sym[i].next].id)) heap.push({m->rank, i});
    };
    for (size_t i = 0; i + 1 < n; ++i) push(static_cast<int32_t>(i));

    std::vector<int32_t> round, merged;
    while (!heap.empty()) {
      // One round: every occurrence of the lowest-ranked pair, left to right. Entries whose
      // pair has changed since they were pushed are stale and skipped.
      const int32_t rank = heap.top().first;
      round.clear();
      while (!heap.empty() && heap.top().first == rank) {
        round.push_back(heap.top().second);
        heap.pop();
      }
      std::sort(round.begin(), round.end());
      round.erase(std::unique(round.begin(), round.end()), round.end());
      merged.clear();
      for (const int32_t i : round) {
        const int32_t j = sym[i].next;
        if (sym[i].id == kDead || j < 0) continue;
        const Merge* m = find_merge(sym[i].id, sym[j].id);
        if (m == nullptr || m->rank != rank) continue;
        sym[i].id = m->id;
        sym[i].next = sym[j].next;
        if (sym[j].next >= 0) sym[sym[j].next].prev = i;
        sym[j].id = kDead;
        merged.push_back(i);
      }
      // The pairs the merged symbols now form compete from the next round on.
      for (const int32_t i : merged) {
        push(sym[i].prev);
        push(i);
      }
    }
    for (int32_t i = 0; i >= 0; i = sym[i].next) {
      if (sym[i].id < 0) {
        std::string s;
        bpe::append_utf8(s, bpe::byte_to_code_point(static_cast<unsigned char>(p[i])));
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(p[i]));
        throw Error(ABFT_STATUS_INVALID_VALUE, "gpt2-bpe: symbol \"" + s + "\" (byte " + hex +
                                                   ") is not in the vocabulary");
      }
      out.push_back(sym[i].id);
    }
  }

  std::array<int32_t, 256> byte_id_{};  // vocabulary id of each byte's symbol, -1 if absent
  std::unordered_map<uint64_t, Merge> merges_;  // (left id, right id) -> rank, merged id
  std::vector<std::string> bytes_;              // id -> the bytes it decodes to
  std::vector<bool> present_;                   // id -> in the vocabulary
  mutable std::mutex cache_mutex_;
  mutable std::unordered_map<std::string, std::vector<int32_t>> cache_;  // piece -> ids
};

}  // namespace

std::unique_ptr<Tokenizer> load_gpt2_bpe(const std::string& vocab_json,
                                         const std::string& merges_txt) {
  return std::make_unique<Gpt2Bpe>(vocab_json, merges_txt);
}

}  // namespace abft::transformer
