/** \file json.hpp
 *  \brief A small JSON reader (RFC 8259: objects, arrays, strings with escapes and surrogate
 *  pairs, numbers, literals) and writing helpers, for config.json, vocab.json, safetensors
 *  headers and the statistics report. Internal to the runtime.
 */
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace abft::transformer::json {

struct Value {
  enum class Type { Null, Bool, Number, String, Array, Object };
  Type type = Type::Null;
  bool boolean = false;
  double number = 0.0;
  std::string text;                                   ///< String
  std::vector<Value> items;                           ///< Array
  std::vector<std::pair<std::string, Value>> members;  ///< Object, in file order

  bool is_null() const { return type == Type::Null; }
  bool is_number() const { return type == Type::Number; }
  bool is_string() const { return type == Type::String; }
  bool is_object() const { return type == Type::Object; }
  bool is_array() const { return type == Type::Array; }
  /** Member `key` of an object, or nullptr (also when this is not an object). When a name
   *  occurs more than once, the last member wins (as in JavaScript and Python). */
  const Value* find(const std::string& key) const;
};

/** Parse a whole document. Throws abft::transformer::Error (INVALID_VALUE) with `source`,
 *  the line and column, and what was expected. Nesting deeper than 256 is rejected. */
Value parse(const std::string& text, const std::string& source = "json");

/** `s` as a JSON string literal, quotes included. */
std::string quote(const std::string& s);
/** A number as JSON (shortest round-trip form; non-finite values as null). */
std::string number(double v);

}  // namespace abft::transformer::json
