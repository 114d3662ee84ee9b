/** \file tokenizer.hpp
 *  \brief Tokenizers for the text demos: byte level (vocabulary 256, always available) and
 *  GPT-2's byte-level BPE read from vocab.json and merges.txt.
 */
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace abft::transformer {

/** Text (any bytes; UTF-8 expected but not required) to token ids and back:
 *  decode(encode(text)) == text whenever encode succeeds. encode() and decode() are const and
 *  may be called from several threads at once. */
class Tokenizer {
 public:
  virtual ~Tokenizer() = default;
  /** Special tokens ("<|endoftext|>") in `text` are read as plain text; callers add their ids.
   *  Throws Error (INVALID_VALUE) only when the vocabulary lacks a byte's symbol. */
  virtual std::vector<int32_t> encode(const std::string& text) const = 0;
  /** Ids outside the vocabulary decode to U+FFFD (never throw). The result is bytes: a cut
   *  through a multi-byte character gives its bytes as they are. */
  virtual std::string decode(const std::vector<int32_t>& ids) const = 0;
  /** One past the largest id (ids in between may be unused). */
  virtual int64_t vocab_size() const = 0;
  virtual std::string name() const = 0;  ///< "bytes" / "gpt2-bpe"
};

/** Token id = byte value; vocabulary 256. */
std::unique_ptr<Tokenizer> make_byte_tokenizer();

/** GPT-2 BPE: byte-to-unicode alphabet, GPT-2's pre-tokenization pattern, merges by rank
 *  (GPT-2's rounds: every occurrence of the lowest-ranked pair, then the next).
 *  vocab.json: an object token -> integer id in [0, 2^24); tokens whose characters are not all
 *  in the byte alphabet (special tokens) decode to their own text. merges.txt: an optional
 *  "#version" first line, then one "a b" per line (rank = order), blank lines skipped; a, b and
 *  ab must be vocabulary tokens. \p{L} / \p{N} above U+00FF are approximated (see
 *  src/runtime/tokenizer_bpe.hpp). Throws Error (INVALID_VALUE) naming the file (and line) for a
 *  missing, unreadable or malformed vocab.json / merges.txt. */
std::unique_ptr<Tokenizer> load_gpt2_bpe(const std::string& vocab_json, const std::string& merges_txt);

/** The BPE tokenizer when `dir` holds vocab.json and merges.txt, else (also for "" or a
 *  directory that does not exist) the byte tokenizer. Files that exist but are broken throw, as
 *  load_gpt2_bpe() does. */
std::unique_ptr<Tokenizer> load_tokenizer(const std::string& dir);

}  // namespace abft::transformer
