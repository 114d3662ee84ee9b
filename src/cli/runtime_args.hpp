/** \file runtime_args.hpp
 *  \brief What `abft infer` and `abft train` share: option reading, the model and tokenizer
 *  they load, text and file output (JSON, NumPy .npy).
 */
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "abft/transformer/model.hpp"
#include "abft/transformer/tokenizer.hpp"

namespace abft::cli {

/** A bad command line: the message names the option; the command exits with status 2. */
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/** Walks argv: "--name value" and "--name=value" forms. */
class ArgReader {
 public:
  ArgReader(int argc, char** argv) : argc_(argc), argv_(argv) {}
  bool done() const { return i_ >= argc_; }
  /** The current argument, then the next one. */
  const char* next() { return current_ = argv_[i_++]; }
  /** Whether the current argument is option `name` ("--steps"), with or without "=value". */
  bool is(const char* name) const;
  /** The value of the current option; throws UsageError "`name` needs `what`" when missing. */
  std::string value(const char* what);
  /** Whether the following argument exists and is not an option (for lists of values). */
  bool has_plain_next() const;
  const char* current() const { return current_; }

 private:
  int argc_, i_ = 0;
  char** argv_;
  const char* current_ = nullptr;
};

/** The value of the current option as a whole unsigned integer / finite number. */
uint64_t u64_value(ArgReader& a);
int64_t positive_value(ArgReader& a);  ///< >= 1
double double_value(ArgReader& a);
abft::Policy policy_value(ArgReader& a);
const char* policy_name(abft::Policy p);
/** --engine cpu|gpu (the runtime's products and attention on the CPU or the CUDA engine). */
abft::transformer::Engine engine_value(ArgReader& a);
const char* engine_name(abft::transformer::Engine e);

/** Where the model comes from: a Hugging Face directory, or a preset (random initialization
 *  from `seed` unless `weights` names a safetensors file, which also overrides a directory's). */
struct ModelSource {
  std::string dir;
  std::string preset;  ///< used when dir is empty
  std::string weights;
  uint64_t seed = 1;
  std::string describe() const;
};
/** Built in place (never moved: a Model's workspace points at its own members). */
std::unique_ptr<abft::transformer::Model> load_model(const ModelSource& src,
                                                     const abft::transformer::ModelOptions& opt);

/** Text as ids of a model with `vocab` ids: the tokenizer's ids, bytes folded modulo a
 *  vocabulary smaller than 256 (a note goes to stderr once). */
std::vector<int32_t> encode_for(const abft::transformer::Tokenizer& tok, const std::string& text,
                                int64_t vocab, const char* cmd);

/** Printable form of generated text: control bytes and invalid UTF-8 as \xNN escapes. */
std::string printable(const std::string& s);
std::string ids_text(const std::vector<int32_t>& ids);
/** Valid UTF-8 for a JSON report: every invalid byte becomes U+FFFD. */
std::string utf8_clean(const std::string& s);
/** [1,2,3] */
std::string ids_json(const std::vector<int32_t>& ids);

/** Write a file whole; throws abft::transformer::Error naming it on failure. */
void write_file(const std::string& path, const std::string& data);
/** A float32 array [rows, cols] as a NumPy .npy file (format version 1.0). */
void write_npy(const std::string& path, int64_t rows, int64_t cols, const float* data);

/** Set the OpenMP thread count for the runtime's own loops (0: leave the default). */
void set_threads(int threads);

/** Run one runtime command's body with the error handling they share: a UsageError prints
 *  "abft NAME: message" and the --help hint and gives 2; a runtime or other error prints
 *  "abft NAME: message" and gives 1. */
int guarded_command(const char* name, const std::function<int()>& body);

}  // namespace abft::cli
