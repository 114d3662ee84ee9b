/** \file safetensors_test.cpp
 *  \brief safetensors: F32 round trip (metadata, scalar, empty tensor, header layout), reading
 *  F16 (every bit pattern), BF16 and F64 from hand-built files, and every kind of bad file
 *  rejected with a message that names the path and the problem.
 */
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "abft/transformer/error.hpp"
#include "abft/transformer/safetensors.hpp"

namespace {

using abft::transformer::Error;
using abft::transformer::read_safetensors;
using abft::transformer::StFile;
using abft::transformer::StTensor;
using abft::transformer::StWrite;
using abft::transformer::write_safetensors;

std::string tmp_path(const std::string& name) {
  return std::string(ABFT_TEST_TMP_DIR) + "/st_" + name + ".safetensors";
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void spit(const std::string& path, const std::string& bytes) {
  // Unlink first: ext4 flushes a file that is truncated and rewritten when it is closed
  // (auto_da_alloc), which made the many small writes below slow.
  std::remove(path.c_str());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string le64(uint64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
  return s;
}

/** A file from a header text and raw data bytes, as another writer would produce it. */
std::string build(const std::string& header, const std::string& data) {
  return le64(header.size()) + header + data;
}

template <class T>
std::string bytes_of(const std::vector<T>& v) {
  std::string s;
  for (const T& x : v) {
    unsigned char b[sizeof(T)];
    std::memcpy(b, &x, sizeof(T));
    s.append(reinterpret_cast<const char*>(b), sizeof(T));  // the tests run little-endian
  }
  return s;
}

/** The message of the Error `f` throws; a test failure when it throws nothing or else. */
std::string error_of(const std::function<void()>& f, abft_status* status = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (status != nullptr) *status = e.status();
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "unexpected exception type: " << e.what();
    return "";
  }
  ADD_FAILURE() << "no exception";
  return "";
}

/** Reading `bytes` (written to a file) fails with a message holding the path and `fragment`. */
void expect_rejected(const std::string& name, const std::string& bytes,
                     const std::string& fragment) {
  const std::string path = tmp_path("bad_" + name);
  spit(path, bytes);
  const std::string m = error_of([&] { read_safetensors(path); });
  EXPECT_NE(m.find(path), std::string::npos) << name << ": '" << m << "' lacks the path";
  EXPECT_NE(m.find(fragment), std::string::npos)
      << name << ": '" << m << "' lacks '" << fragment << "'";
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(SafetensorsTensor, Numel) {
  StTensor t;
  EXPECT_EQ(t.numel(), 1);  // scalar
  t.shape = {2, 3, 4};
  EXPECT_EQ(t.numel(), 24);
  t.shape = {5, 0, 7};
  EXPECT_EQ(t.numel(), 0);
  t.shape = {50257, 768};
  EXPECT_EQ(t.numel(), 38597376);
}

TEST(SafetensorsRoundTrip, TensorsMetadataScalarAndEmpty) {
  const std::string path = tmp_path("round_trip");
  std::remove(path.c_str());
  std::vector<float> a(6), b(5), scalar = {-2.75f};
  for (size_t i = 0; i < a.size(); ++i) a[i] = 0.1f * static_cast<float>(i) - 0.25f;
  b = {std::numeric_limits<float>::infinity(), -0.0f, std::numeric_limits<float>::quiet_NaN(),
       std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::max()};
  const std::vector<StWrite> tensors = {
      {"transformer.h.0.attn.c_attn.weight", {2, 3}, a.data()},
      {"b\"quoted\\name", {5}, b.data()},
      {"scalar", {}, scalar.data()},
      {"empty", {0, 3}, nullptr},  // no data needed for zero elements
  };
  const std::map<std::string, std::string> metadata = {{"format", "pt"},
                                                       {"note", "line\nbreak \"q\" caf\xC3\xA9"}};
  write_safetensors(path, tensors, metadata);
  EXPECT_FALSE(exists(path + ".tmp"));

  const StFile f = read_safetensors(path);
  EXPECT_EQ(f.metadata, metadata);
  ASSERT_EQ(f.tensors.size(), 4u);
  const StTensor& ta = f.tensors.at("transformer.h.0.attn.c_attn.weight");
  EXPECT_EQ(ta.dtype, "F32");
  EXPECT_EQ(ta.shape, (std::vector<int64_t>{2, 3}));
  ASSERT_EQ(ta.data.size(), a.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(same_bits(ta.data[i], a[i])) << i;
  const StTensor& tb = f.tensors.at("b\"quoted\\name");
  ASSERT_EQ(tb.data.size(), b.size());
  for (size_t i = 0; i < b.size(); ++i) EXPECT_TRUE(same_bits(tb.data[i], b[i])) << i;
  const StTensor& ts = f.tensors.at("scalar");
  EXPECT_TRUE(ts.shape.empty());
  EXPECT_EQ(ts.numel(), 1);
  ASSERT_EQ(ts.data.size(), 1u);
  EXPECT_EQ(ts.data[0], -2.75f);
  const StTensor& te = f.tensors.at("empty");
  EXPECT_EQ(te.shape, (std::vector<int64_t>{0, 3}));
  EXPECT_TRUE(te.data.empty());
}

TEST(SafetensorsRoundTrip, HeaderLayoutFollowsTheReference) {
  const std::string path = tmp_path("layout");
  std::vector<float> x = {1, 2, 3}, y = {4, 5};
  write_safetensors(path, {{"zz", {3}, x.data()}, {"aa", {2}, y.data()}}, {{"k", "v"}});
  const std::string bytes = slurp(path);
  ASSERT_GE(bytes.size(), 8u);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[i]);
  EXPECT_EQ(n % 8, 0u) << "the data section must start 8-byte aligned";
  ASSERT_EQ(bytes.size(), 8 + n + 4 * 5);
  const std::string header = bytes.substr(8, n);
  const size_t close = header.find_last_of('}');
  for (size_t i = close + 1; i < header.size(); ++i) EXPECT_EQ(header[i], ' ');
  EXPECT_LT(header.size() - close - 1, 8u);
  // Given order, not alphabetical: "zz" holds bytes [0, 12), "aa" [12, 20).
  EXPECT_NE(header.find("\"zz\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,12]}"),
            std::string::npos)
      << header;
  EXPECT_NE(header.find("\"aa\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[12,20]}"),
            std::string::npos)
      << header;
  EXPECT_NE(header.find("\"__metadata__\":{\"k\":\"v\"}"), std::string::npos) << header;
  float first;
  std::memcpy(&first, bytes.data() + 8 + n, 4);
  EXPECT_EQ(first, 1.0f);
}

TEST(SafetensorsRoundTrip, EmptyFileAndOverwrite) {
  const std::string path = tmp_path("overwrite");
  write_safetensors(path, {});
  EXPECT_TRUE(read_safetensors(path).tensors.empty());
  std::vector<float> x(1000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) * 0.5f;
  write_safetensors(path, {{"x", {10, 100}, x.data()}});
  const StFile f = read_safetensors(path);
  ASSERT_EQ(f.tensors.size(), 1u);
  EXPECT_EQ(f.tensors.at("x").data, x);
}

TEST(SafetensorsWrite, RejectsBadArgumentsWithoutTouchingTheFile) {
  const std::string path = tmp_path("write_bad");
  std::vector<float> x = {1, 2};
  write_safetensors(path, {{"keep", {2}, x.data()}});
  const std::string before = slurp(path);

  abft_status st{};
  std::string m = error_of(
      [&] { write_safetensors(path, {{"a", {2}, x.data()}, {"a", {1}, x.data()}}); }, &st);
  EXPECT_NE(m.find("'a' given twice"), std::string::npos) << m;
  EXPECT_NE(m.find(path), std::string::npos) << m;
  EXPECT_EQ(st, ABFT_STATUS_INVALID_VALUE);

  m = error_of([&] { write_safetensors(path, {{"n", {2, 1}, nullptr}}); }, &st);
  EXPECT_NE(m.find("null pointer"), std::string::npos) << m;
  EXPECT_EQ(st, ABFT_STATUS_NULL_POINTER);

  m = error_of([&] { write_safetensors(path, {{"neg", {2, -1}, x.data()}}); }, &st);
  EXPECT_NE(m.find("negative dimension"), std::string::npos) << m;
  EXPECT_EQ(st, ABFT_STATUS_INVALID_SIZE);

  m = error_of([&] { write_safetensors(path, {{"__metadata__", {1}, x.data()}}); });
  EXPECT_NE(m.find("__metadata__"), std::string::npos) << m;

  EXPECT_EQ(slurp(path), before);
  EXPECT_FALSE(exists(path + ".tmp"));
}

TEST(SafetensorsWrite, IoFailureIsReported) {
  const std::string path = std::string(ABFT_TEST_TMP_DIR) + "/no_such_dir/x.safetensors";
  std::vector<float> x = {1};
  const std::string m = error_of([&] { write_safetensors(path, {{"x", {1}, x.data()}}); });
  EXPECT_NE(m.find(path), std::string::npos) << m;
  EXPECT_NE(m.find("cannot create"), std::string::npos) << m;
}

/** binary16 value of every bit pattern, computed independently (exact in double). */
double half_reference(uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
  double v;
  if (exp == 0x1F) {
    v = mant == 0 ? std::numeric_limits<double>::infinity()
                  : std::numeric_limits<double>::quiet_NaN();
  } else if (exp == 0) {
    v = std::ldexp(static_cast<double>(mant), -24);
  } else {
    v = std::ldexp(static_cast<double>(1024 + mant), exp - 25);
  }
  return sign ? -v : v;
}

TEST(SafetensorsRead, F16EveryBitPattern) {
  std::vector<uint16_t> halves(65536);
  for (int i = 0; i < 65536; ++i) halves[i] = static_cast<uint16_t>(i);
  const std::string header =
      "{\"h\":{\"dtype\":\"F16\",\"shape\":[256,256],\"data_offsets\":[0,131072]}}";
  const std::string path = tmp_path("f16");
  spit(path, build(header, bytes_of(halves)));
  const StFile f = read_safetensors(path);
  const StTensor& t = f.tensors.at("h");
  EXPECT_EQ(t.dtype, "F16");
  EXPECT_EQ(t.shape, (std::vector<int64_t>{256, 256}));
  ASSERT_EQ(t.data.size(), 65536u);
  for (int i = 0; i < 65536; ++i) {
    const double ref = half_reference(static_cast<uint16_t>(i));
    if (std::isnan(ref)) {
      ASSERT_TRUE(std::isnan(t.data[i])) << std::hex << i;
    } else {
      ASSERT_EQ(static_cast<double>(t.data[i]), ref) << std::hex << i;
      ASSERT_EQ(std::signbit(t.data[i]), std::signbit(ref)) << std::hex << i;
    }
  }
  // A few by name.
  EXPECT_EQ(t.data[0x3C00], 1.0f);
  EXPECT_EQ(t.data[0xC000], -2.0f);
  EXPECT_EQ(t.data[0x7BFF], 65504.0f);
  EXPECT_EQ(t.data[0x0001], std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(t.data[0x0400], std::ldexp(1.0f, -14));  // smallest normal
  EXPECT_TRUE(std::isinf(t.data[0xFC00]) && t.data[0xFC00] < 0);
}

TEST(SafetensorsRead, Bf16F64AndMixedDtypes) {
  const std::vector<uint16_t> bf = {0x3F80, 0xC049, 0x7F80, 0x7FC0, 0x0001, 0x8000};
  const std::vector<double> f64 = {1.5, -0.1, 1e-300, 3.0e38, 65504.0};
  const std::vector<float> f32 = {7.0f};
  const std::string header =
      "{\"__metadata__\":{\"format\":\"pt\"},"
      "\"w64\":{\"dtype\":\"F64\",\"shape\":[5],\"data_offsets\":[12,52]},"
      "\"w32\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[52,56]},"
      "\"wbf\":{\"dtype\":\"BF16\",\"shape\":[2,3],\"data_offsets\":[0,12]}}   ";
  const std::string path = tmp_path("mixed");
  spit(path, build(header, bytes_of(bf) + bytes_of(f64) + bytes_of(f32)));
  const StFile f = read_safetensors(path);
  EXPECT_EQ(f.metadata.at("format"), "pt");
  const StTensor& b = f.tensors.at("wbf");
  EXPECT_EQ(b.dtype, "BF16");
  ASSERT_EQ(b.data.size(), 6u);
  EXPECT_EQ(b.data[0], 1.0f);
  EXPECT_EQ(b.data[1], -3.140625f);
  EXPECT_TRUE(std::isinf(b.data[2]));
  EXPECT_TRUE(std::isnan(b.data[3]));
  EXPECT_EQ(b.data[4], std::ldexp(1.0f, -133));  // a float subnormal
  EXPECT_TRUE(b.data[5] == 0.0f && std::signbit(b.data[5]));
  const StTensor& d = f.tensors.at("w64");
  EXPECT_EQ(d.dtype, "F64");
  ASSERT_EQ(d.data.size(), 5u);
  for (size_t i = 0; i < f64.size(); ++i) EXPECT_EQ(d.data[i], static_cast<float>(f64[i]));
  const StTensor& s = f.tensors.at("w32");
  ASSERT_EQ(s.data.size(), 1u);
  EXPECT_EQ(s.data[0], 7.0f);
}

// ---------------------------------------------------------------------------------------------
// Bad files

const std::string kGoodEntry = "\"t\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}";
const std::string kEightBytes(8, '\0');

TEST(SafetensorsBadFile, MissingFileAndDirectory) {
  const std::string missing = tmp_path("does_not_exist");
  std::remove(missing.c_str());
  std::string m = error_of([&] { read_safetensors(missing); });
  EXPECT_NE(m.find(missing), std::string::npos) << m;
  EXPECT_NE(m.find("cannot open"), std::string::npos) << m;
  m = error_of([&] { read_safetensors(ABFT_TEST_TMP_DIR); });
  EXPECT_NE(m.find("not a regular file"), std::string::npos) << m;
}

TEST(SafetensorsBadFile, HeaderLengthProblems) {
  expect_rejected("empty", "", "shorter than the 8-byte");
  expect_rejected("short", "abcde", "shorter than the 8-byte");
  expect_rejected("len_past_end", le64(100) + "{}", "header length 100 is larger");
  expect_rejected("len_absurd", le64(uint64_t{1} << 40) + "{}", "absurd");
  expect_rejected("len_huge", le64(~uint64_t{0}) + "{}", "absurd");
}

TEST(SafetensorsBadFile, MalformedHeaderJson) {
  expect_rejected("json_cut", build("{\"t\": {\"dtype\": ", ""), "(header):1:17: expected a value");
  expect_rejected("json_array", build("[1, 2]", ""), "not a JSON object");
  expect_rejected("json_entry", build("{\"t\": 3}", ""), "not an object");
  expect_rejected("json_meta", build("{\"__metadata__\": {\"a\": 1}}", ""), "__metadata__");
  expect_rejected("json_twice", build("{" + kGoodEntry + "," + kGoodEntry + "}", kEightBytes),
                  "'t' twice");
}

TEST(SafetensorsBadFile, MissingFields) {
  expect_rejected("no_dtype", build("{\"t\":{\"shape\":[2],\"data_offsets\":[0,8]}}", kEightBytes),
                  "tensor 't': missing \"dtype\"");
  expect_rejected("no_shape",
                  build("{\"t\":{\"dtype\":\"F32\",\"data_offsets\":[0,8]}}", kEightBytes),
                  "missing \"shape\"");
  expect_rejected("no_offsets", build("{\"t\":{\"dtype\":\"F32\",\"shape\":[2]}}", kEightBytes),
                  "missing \"data_offsets\"");
  expect_rejected("offsets_one",
                  build("{\"t\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8]}}",
                        kEightBytes),
                  "[begin, end]");
  expect_rejected("dtype_number",
                  build("{\"t\":{\"dtype\":4,\"shape\":[2],\"data_offsets\":[0,8]}}", kEightBytes),
                  "\"dtype\" is not a string");
}

TEST(SafetensorsBadFile, UnsupportedDtypeIsNamed) {
  const std::string path = tmp_path("bad_i64");
  spit(path, build("{\"ids\":{\"dtype\":\"I64\",\"shape\":[1],\"data_offsets\":[0,8]}}",
                   kEightBytes));
  abft_status st{};
  const std::string m = error_of([&] { read_safetensors(path); }, &st);
  EXPECT_NE(m.find("tensor 'ids' has unsupported dtype I64"), std::string::npos) << m;
  EXPECT_EQ(st, ABFT_STATUS_NOT_SUPPORTED);
  expect_rejected("bool", build("{\"m\":{\"dtype\":\"BOOL\",\"shape\":[1],\"data_offsets\":[0,1]}}",
                                std::string(1, '\1')),
                  "unsupported dtype BOOL");
}

TEST(SafetensorsBadFile, BadShapes) {
  expect_rejected("neg_dim",
                  build("{\"t\":{\"dtype\":\"F32\",\"shape\":[2,-1],\"data_offsets\":[0,8]}}",
                        kEightBytes),
                  "negative dimension (-1)");
  expect_rejected("frac_dim",
                  build("{\"t\":{\"dtype\":\"F32\",\"shape\":[2.5],\"data_offsets\":[0,8]}}",
                        kEightBytes),
                  "not an integer");
  expect_rejected("str_dim",
                  build("{\"t\":{\"dtype\":\"F32\",\"shape\":[\"2\"],\"data_offsets\":[0,8]}}",
                        kEightBytes),
                  "not an integer");
  expect_rejected("shape_obj",
                  build("{\"t\":{\"dtype\":\"F32\",\"shape\":{},\"data_offsets\":[0,8]}}",
                        kEightBytes),
                  "\"shape\" is not an array");
  // A product of dimensions that overflows 64 bits must not wrap around to a "valid" size.
  expect_rejected(
      "overflow_dims",
      build("{\"t\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296,2],"
            "\"data_offsets\":[0,8]}}",
            kEightBytes),
      "needs more");
}

TEST(SafetensorsBadFile, BadOffsets) {
  expect_rejected("outside",
                  build("{\"t\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}",
                        kEightBytes),
                  "data_offsets [0, 16] lie outside the data section (8 bytes");
  expect_rejected("size_mismatch",
                  build("{\"t\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,8]}}",
                        kEightBytes),
                  "hold 8 bytes, but dtype F32 x shape [4] needs 16");
  expect_rejected("f16_mismatch",
                  build("{\"t\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,8]}}",
                        kEightBytes),
                  "needs 4");
  expect_rejected("reversed",
                  build("{\"t\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[8,0]}}",
                        kEightBytes),
                  "end before they begin");
  expect_rejected("neg_offset",
                  build("{\"t\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[-8,0]}}",
                        kEightBytes),
                  "data_offsets begin is negative");
  expect_rejected("overlap",
                  build("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                        "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}",
                        std::string(12, '\0')),
                  "tensors 'a' and 'b' overlap");
  expect_rejected("same_range",
                  build("{\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                        "\"a\":{\"dtype\":\"BF16\",\"shape\":[4],\"data_offsets\":[0,8]}}",
                        kEightBytes),
                  "overlap");
}

TEST(SafetensorsBadFile, TruncatedData) {
  const std::string path = tmp_path("truncated_src");
  std::vector<float> x(64, 1.5f);
  write_safetensors(path, {{"x", {8, 8}, x.data()}});
  const std::string bytes = slurp(path);
  expect_rejected("truncated", bytes.substr(0, bytes.size() - 4), "is the file truncated?");
}

/** Every prefix of a good file, and random corruption of its header, is rejected or read:
 *  never a crash, never an exception of another type. */
TEST(SafetensorsBadFile, PrefixesAndCorruptionNeverCrash) {
  const std::string src = tmp_path("fuzz_src");
  std::vector<float> x(12, 2.0f), y(3, -1.0f);
  write_safetensors(src, {{"x", {3, 4}, x.data()}, {"y", {3}, y.data()}}, {{"k", "v"}});
  const std::string bytes = slurp(src);
  const std::string path = tmp_path("fuzz");
  for (size_t n = 0; n < bytes.size(); ++n) {
    spit(path, bytes.substr(0, n));
    try {
      read_safetensors(path);
      ADD_FAILURE() << "prefix of " << n << " bytes accepted";
    } catch (const Error&) {
    }
  }
  std::mt19937 rng(11);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[i]);
  int accepted = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string bad = bytes;
    const int flips = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < flips; ++k) {
      const size_t at = 8 + rng() % n;  // somewhere in the header
      bad[at] = static_cast<char>(rng() % 256);
    }
    spit(path, bad);
    try {
      const StFile f = read_safetensors(path);
      ++accepted;
      for (const auto& [name, t] : f.tensors)
        ASSERT_EQ(static_cast<int64_t>(t.data.size()), t.numel()) << name;
    } catch (const Error&) {
    }
  }
  EXPECT_LT(accepted, 3000);
}

}  // namespace
