/** \file utf8.hpp
 *  \brief UTF-8 encoding and strict decoding (RFC 3629: no overlong forms, no encoded
 *  surrogates, nothing above U+10FFFF), shared by the JSON reader and the BPE tokenizer.
 *  Internal to the runtime.
 */
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace abft::transformer::utf8 {

/** Append the encoding of code point cp (at most U+10FFFF). */
inline void append(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

/** The character at p (n >= 1 bytes available): its length in bytes (1 to 4) with its code
 *  point in cp, or 0 when p does not start a well-formed sequence. */
inline size_t decode(const char* p, size_t n, uint32_t& cp) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(p[k]); };
  const unsigned char b0 = byte(0);
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  }
  size_t len;
  uint32_t min;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2, min = 0x80, cp = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3, min = 0x800, cp = b0 & 0x0F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4, min = 0x10000, cp = b0 & 0x07;
  } else {
    return 0;
  }
  if (n < len) return 0;
  for (size_t k = 1; k < len; ++k) {
    const unsigned char b = byte(k);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

}  // namespace abft::transformer::utf8
