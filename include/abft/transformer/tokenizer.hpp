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

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;
  virtual std::vector<int32_t> encode(const std::string& text) const = 0;
  /** Ids outside the vocabulary decode to U+FFFD (never throw). */
  virtual std::string decode(const std::vector<int32_t>& ids) const = 0;
  virtual int64_t vocab_size() const = 0;
  virtual std::string name() const = 0;  ///< "bytes" / "gpt2-bpe"
};

/** Token id = byte value. */
std::unique_ptr<Tokenizer> make_byte_tokenizer();

/** GPT-2 BPE: byte-to-unicode alphabet, GPT-2's pre-tokenization pattern, merges by rank.
 *  Throws Error naming the file for a missing or malformed vocab.json / merges.txt. */
std::unique_ptr<Tokenizer> load_gpt2_bpe(const std::string& vocab_json, const std::string& merges_txt);

/** The BPE tokenizer when `dir` holds vocab.json and merges.txt, else the byte tokenizer. */
std::unique_ptr<Tokenizer> load_tokenizer(const std::string& dir);

}  // namespace abft::transformer
