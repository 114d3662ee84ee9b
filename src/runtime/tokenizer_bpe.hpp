/** \file tokenizer_bpe.hpp
 *  \brief Internals of the GPT-2 tokenizer (tokenizer_bpe.cpp) that the tests exercise
 *  directly: the byte-to-unicode alphabet, the character classes and the pre-tokenizer.
 *  Internal to the runtime.
 */
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace abft::transformer::bpe {

/** The code point GPT-2's alphabet gives byte `b`: bytes 33..126, 161..172 and 174..255 map
 *  to themselves, the other 68 bytes to 256, 257, ... in increasing byte order. */
uint32_t byte_to_code_point(uint8_t b);
/** The byte of alphabet code point `cp`, or -1 when `cp` is not in the alphabet. */
int code_point_to_byte(uint32_t cp);

/** The classes GPT-2's pre-tokenization pattern distinguishes. */
enum class CharClass : uint8_t { Letter, Number, Space, Other };

/** \p{L} / \p{N} / \s (Unicode White_Space) / anything else, for one code point.
 *  Exact for ASCII and Latin-1 (U+0000..U+00FF). Above U+00FF an approximation: a table of
 *  whitespace (U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000), decimal digit
 *  and number blocks (Arabic-Indic, the Indic scripts, Thai, Lao, Tibetan, Myanmar, Khmer,
 *  Mongolian, superscripts and subscripts, number forms, circled and dingbat numbers, CJK
 *  numerals, fullwidth and mathematical digits) and punctuation / symbol / mark blocks
 *  (combining diacritics, general punctuation, currency, arrows, mathematical operators,
 *  box drawing, shapes, dingbats, CJK symbols, fullwidth punctuation, emoji, private use);
 *  every other code point counts as a letter. Known differences from the real classes:
 *  combining marks of the Indic and other scripts (GPT-2 splits words at them, we do not),
 *  scattered symbols inside letter blocks, and unassigned code points. */
CharClass classify(uint32_t cp);

/** Splits `text` by GPT-2's pattern
 *    's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
 *  (leftmost alternative first, as Python's regex engine does). The text is read as UTF-8;
 *  a byte that does not start a valid sequence (overlong, surrogate, beyond U+10FFFF,
 *  truncated) is one character of class Other, so every input splits and the pieces always
 *  concatenate back to `text`. */
std::vector<std::string> pretokenize(const std::string& text);

}  // namespace abft::transformer::bpe
