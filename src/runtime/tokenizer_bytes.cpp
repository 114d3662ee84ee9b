/** \file tokenizer_bytes.cpp
 *  \brief The byte tokenizer (token id = byte value, vocabulary 256) and load_tokenizer(), which
 *  picks GPT-2's BPE when a directory holds its files.
 */
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "abft/transformer/tokenizer.hpp"

namespace abft::transformer {
namespace {

class ByteTokenizer final : public Tokenizer {
 public:
  std::vector<int32_t> encode(const std::string& text) const override {
    std::vector<int32_t> ids(text.size());
    for (size_t i = 0; i < text.size(); ++i) ids[i] = static_cast<unsigned char>(text[i]);
    return ids;
  }

  std::string decode(const std::vector<int32_t>& ids) const override {
    std::string out;
    out.reserve(ids.size());
    for (const int32_t id : ids) {
      if (id >= 0 && id < 256)
        out += static_cast<char>(static_cast<unsigned char>(id));
      else
        out += "\xEF\xBF\xBD";  // U+FFFD
    }
    return out;
  }

  int64_t vocab_size() const override { return 256; }
  std::string name() const override { return "bytes"; }
};

}  // namespace

std::unique_ptr<Tokenizer> make_byte_tokenizer() { return std::make_unique<ByteTokenizer>(); }

std::unique_ptr<Tokenizer> load_tokenizer(const std::string& dir) {
  if (!dir.empty()) {
    namespace fs = std::filesystem;
    const fs::path vocab = fs::path(dir) / "vocab.json", merges = fs::path(dir) / "merges.txt";
    std::error_code e1, e2;
    if (fs::exists(vocab, e1) && fs::exists(merges, e2))
      return load_gpt2_bpe(vocab.string(), merges.string());
  }
  return make_byte_tokenizer();
}

}  // namespace abft::transformer
