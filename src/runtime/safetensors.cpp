/** \file safetensors.cpp
 *  \brief safetensors in and out: the header is checked in full (dtypes, shapes, offsets within
 *  the data section, sizes, overlaps) before any tensor data is read; F16/BF16/F64 are
 *  converted to float by hand; files are written as F32 through a temporary name.
 */
#include "abft/transformer/safetensors.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <set>

#include "abft/transformer/error.hpp"
#include "json.hpp"

namespace abft::transformer {

int64_t StTensor::numel() const {
  int64_t n = 1;
  for (const int64_t d : shape) n *= d;
  return n;
}

namespace {

constexpr uint64_t kMaxHeader = 100ull << 20;  // 100 MiB: GPT-2 small's header is ~15 KB

constexpr bool kLittleEndian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

[[noreturn]] void fail(const std::string& path, const std::string& what,
                       abft_status status = ABFT_STATUS_INVALID_VALUE) {
  throw Error(status, path + ": " + what);
}

std::string shape_string(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

/** Closes the FILE on every path out. */
struct File {
  std::FILE* f = nullptr;
  ~File() {
    if (f != nullptr) std::fclose(f);
  }
};

/** IEEE binary16 to binary32, by hand (subnormals, infinities and NaN payloads included). */
float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t mant = h & 0x3FFu;
  uint32_t bits;
  if (exp == 0x1F) {
    bits = sign | 0x7F800000u | (mant << 13);  // inf, or NaN keeping its payload
  } else if (exp != 0) {
    bits = sign | ((exp + 112u) << 23) | (mant << 13);  // rebias 15 -> 127
  } else if (mant == 0) {
    bits = sign;  // signed zero
  } else {
    // Subnormal: value = mant * 2^-24. Normalise the mantissa into the float's hidden bit.
    int e = -1;
    do {
      mant <<= 1;
      ++e;
    } while ((mant & 0x400u) == 0);
    bits = sign | (static_cast<uint32_t>(112 - e) << 23) | ((mant & 0x3FFu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

uint64_t load_le(const unsigned char* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

struct Entry {
  std::string name;
  std::string dtype;
  int item = 0;  // bytes per element
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;
};

int item_size(const std::string& dtype) {
  if (dtype == "F32") return 4;
  if (dtype == "F16" || dtype == "BF16") return 2;
  if (dtype == "F64") return 8;
  return 0;
}

/** A non-negative integer from the header (shape entries, offsets); `what` names it. */
uint64_t header_uint(const std::string& path, const json::Value& v, const std::string& what) {
  if (!v.is_number() || v.number != std::floor(v.number))
    fail(path, what + " is not an integer");
  if (v.number < 0) fail(path, what + " is negative (" + json::number(v.number) + ")");
  if (v.number > 9007199254740992.0)  // 2^53: beyond this a double no longer counts bytes
    fail(path, what + " is too large (" + json::number(v.number) + ")");
  return static_cast<uint64_t>(v.number);
}

Entry parse_entry(const std::string& path, const std::string& name, const json::Value& v,
                  uint64_t data_size) {
  Entry e;
  e.name = name;
  const std::string where = "tensor '" + name + "'";
  if (!v.is_object()) fail(path, where + ": header entry is not an object");
  const json::Value* dtype = v.find("dtype");
  const json::Value* shape = v.find("shape");
  const json::Value* offsets = v.find("data_offsets");
  if (dtype == nullptr) fail(path, where + ": missing \"dtype\"");
  if (shape == nullptr) fail(path, where + ": missing \"shape\"");
  if (offsets == nullptr) fail(path, where + ": missing \"data_offsets\"");
  if (!dtype->is_string()) fail(path, where + ": \"dtype\" is not a string");
  e.dtype = dtype->text;
  e.item = item_size(e.dtype);
  if (e.item == 0)
    fail(path,
         where + " has unsupported dtype " + e.dtype + " (readable: F32, F16, BF16, F64)",
         ABFT_STATUS_NOT_SUPPORTED);
  if (!shape->is_array()) fail(path, where + ": \"shape\" is not an array");
  // numel x itemsize is kept below data_size + 1 while multiplying, so nothing overflows;
  // a zero dimension makes the tensor empty whatever follows it.
  uint64_t numel = 1;
  bool too_big = false;
  for (size_t i = 0; i < shape->items.size(); ++i) {
    const json::Value& d = shape->items[i];
    if (d.is_number() && d.number < 0)
      fail(path, where + " has a negative dimension (" + json::number(d.number) +
                     ") in \"shape\"",
           ABFT_STATUS_INVALID_SIZE);
    const uint64_t n = header_uint(path, d, where + ": shape entry " + std::to_string(i));
    e.shape.push_back(static_cast<int64_t>(n));
    if (n == 0) {
      numel = 0;
    } else if (numel != 0 && !too_big) {
      if (numel > (data_size + 1) / n) too_big = true;
      else numel *= n;
    }
  }
  if (numel == 0) too_big = false;
  if (!offsets->is_array() || offsets->items.size() != 2)
    fail(path, where + ": \"data_offsets\" is not an array [begin, end]");
  e.begin = header_uint(path, offsets->items[0], where + ": data_offsets begin");
  e.end = header_uint(path, offsets->items[1], where + ": data_offsets end");
  const std::string range = "[" + std::to_string(e.begin) + ", " + std::to_string(e.end) + "]";
  if (e.end < e.begin) fail(path, where + ": data_offsets " + range + " end before they begin");
  if (e.end > data_size)
    fail(path, where + ": data_offsets " + range + " lie outside the data section (" +
                   std::to_string(data_size) + " bytes; is the file truncated?)");
  const uint64_t bytes = e.end - e.begin;
  if (too_big || bytes != numel * static_cast<uint64_t>(e.item))
    fail(path, where + ": data_offsets " + range + " hold " + std::to_string(bytes) +
                   " bytes, but dtype " + e.dtype + " x shape " + shape_string(e.shape) +
                   " needs " + (too_big ? "more" : std::to_string(numel * e.item)),
         ABFT_STATUS_INVALID_SIZE);
  return e;
}

void convert(const Entry& e, const unsigned char* raw, float* out, size_t n) {
  if (e.dtype == "F32") {
    if (kLittleEndian) {
      std::memcpy(out, raw, n * 4);
    } else {
      for (size_t i = 0; i < n; ++i) {
        const auto bits = static_cast<uint32_t>(load_le(raw + 4 * i, 4));
        std::memcpy(out + i, &bits, 4);
      }
    }
  } else if (e.dtype == "F16") {
    for (size_t i = 0; i < n; ++i)
      out[i] = half_to_float(static_cast<uint16_t>(load_le(raw + 2 * i, 2)));
  } else if (e.dtype == "BF16") {
    for (size_t i = 0; i < n; ++i) {
      const uint32_t bits = static_cast<uint32_t>(load_le(raw + 2 * i, 2)) << 16;
      std::memcpy(out + i, &bits, 4);
    }
  } else {  // F64
    for (size_t i = 0; i < n; ++i) {
      const uint64_t bits = load_le(raw + 8 * i, 8);
      double d;
      std::memcpy(&d, &bits, 8);
      out[i] = static_cast<float>(d);
    }
  }
}

}  // namespace

StFile read_safetensors(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    fail(path, std::string("cannot open: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) fail(path, "not a regular file");
  File file;
  file.f = std::fopen(path.c_str(), "rb");
  if (file.f == nullptr) fail(path, std::string("cannot open: ") + std::strerror(errno));
  const uint64_t file_size = static_cast<uint64_t>(st.st_size);

  if (file_size < 8)
    fail(path, "file is " + std::to_string(file_size) +
                   " bytes, shorter than the 8-byte header length; not a safetensors file");
  unsigned char len_bytes[8];
  if (std::fread(len_bytes, 1, 8, file.f) != 8) fail(path, "cannot read the header length");
  const uint64_t header_len = load_le(len_bytes, 8);
  if (header_len > kMaxHeader)
    fail(path, "header length " + std::to_string(header_len) +
                   " is absurd (more than 100 MiB); not a safetensors file?");
  if (header_len > file_size - 8)
    fail(path, "header length " + std::to_string(header_len) + " is larger than the " +
                   std::to_string(file_size - 8) + " bytes after it (truncated file?)");
  std::string header(header_len, '\0');
  if (header_len > 0 && std::fread(&header[0], 1, header_len, file.f) != header_len)
    fail(path, "cannot read the " + std::to_string(header_len) + "-byte header (truncated?)");
  const uint64_t data_size = file_size - 8 - header_len;

  const json::Value root = json::parse(header, path + " (header)");
  if (!root.is_object()) fail(path, "header is not a JSON object");

  StFile out;
  std::vector<Entry> entries;
  std::set<std::string> seen;
  for (const auto& [name, v] : root.members) {
    if (!seen.insert(name).second) fail(path, "header names '" + name + "' twice");
    if (name == "__metadata__") {
      if (!v.is_object()) fail(path, "\"__metadata__\" is not an object");
      for (const auto& [key, value] : v.members) {
        if (!value.is_string())
          fail(path, "\"__metadata__\" entry '" + key + "' is not a string");
        out.metadata[key] = value.text;
      }
      continue;
    }
    entries.push_back(parse_entry(path, name, v, data_size));
  }

  // Overlaps: sorted by where they begin, each non-empty tensor must start at or after the end
  // of every non-empty one before it.
  std::vector<const Entry*> order;
  for (const Entry& e : entries)
    if (e.end > e.begin) order.push_back(&e);
  std::sort(order.begin(), order.end(),
            [](const Entry* a, const Entry* b) { return a->begin < b->begin; });
  for (size_t i = 1; i < order.size(); ++i)
    if (order[i]->begin < order[i - 1]->end)
      fail(path, "tensors '" + order[i - 1]->name + "' and '" + order[i]->name +
                     "' overlap in the data section");

  // Data, read tensor by tensor in file order (no copy of the whole file in memory).
  const uint64_t data_start = 8 + header_len;
  std::vector<unsigned char> raw;
  for (const Entry* e : order) {
    const size_t n = static_cast<size_t>((e->end - e->begin) / e->item);
    StTensor t;
    t.dtype = e->dtype;
    t.shape = e->shape;
    t.data.resize(n);
    if (::fseeko(file.f, static_cast<off_t>(data_start + e->begin), SEEK_SET) != 0)
      fail(path, "cannot seek to tensor '" + e->name + "'");
    unsigned char* dst;
    if (e->dtype == "F32" && kLittleEndian) {
      dst = reinterpret_cast<unsigned char*>(t.data.data());
    } else {
      raw.resize(e->end - e->begin);
      dst = raw.data();
    }
    if (std::fread(dst, 1, e->end - e->begin, file.f) != e->end - e->begin)
      fail(path, "data of tensor '" + e->name + "' is truncated");
    if (dst == raw.data()) convert(*e, raw.data(), t.data.data(), n);
    out.tensors.emplace(e->name, std::move(t));
  }
  for (const Entry& e : entries) {  // empty tensors
    if (e.end > e.begin) continue;
    StTensor t;
    t.dtype = e.dtype;
    t.shape = e.shape;
    out.tensors.emplace(e.name, std::move(t));
  }
  return out;
}

void write_safetensors(const std::string& path, const std::vector<StWrite>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  // Header first: every argument is checked before anything touches the disk.
  std::string header = "{";
  bool first = true;
  if (!metadata.empty()) {
    header += "\"__metadata__\":{";
    for (const auto& [key, value] : metadata) {
      if (!first) header += ',';
      first = false;
      header += json::quote(key) + ':' + json::quote(value);
    }
    header += '}';
    first = false;
  }
  std::set<std::string> names;
  std::vector<uint64_t> sizes;
  uint64_t offset = 0;
  for (const StWrite& t : tensors) {
    if (t.name == "__metadata__") fail(path, "'__metadata__' cannot name a tensor");
    if (!names.insert(t.name).second)
      fail(path, "tensor name '" + t.name + "' given twice");
    uint64_t numel = 1;
    for (const int64_t d : t.shape) {
      if (d < 0)
        fail(path, "tensor '" + t.name + "' has a negative dimension in shape " +
                       shape_string(t.shape),
             ABFT_STATUS_INVALID_SIZE);
      if (d != 0 && numel > (uint64_t{1} << 60) / static_cast<uint64_t>(d))
        fail(path, "tensor '" + t.name + "' shape " + shape_string(t.shape) + " is too large",
             ABFT_STATUS_INVALID_SIZE);
      numel *= static_cast<uint64_t>(d);
    }
    if (numel != 0 && t.data == nullptr)
      fail(path, "tensor '" + t.name + "' has no data (null pointer) for shape " +
                     shape_string(t.shape),
           ABFT_STATUS_NULL_POINTER);
    const uint64_t bytes = numel * 4;
    if (!first) header += ',';
    first = false;
    header += json::quote(t.name) + ":{\"dtype\":\"F32\",\"shape\":[";
    for (size_t i = 0; i < t.shape.size(); ++i)
      header += (i ? "," : "") + std::to_string(t.shape[i]);
    header += "],\"data_offsets\":[" + std::to_string(offset) + "," +
              std::to_string(offset + bytes) + "]}";
    sizes.push_back(numel);
    offset += bytes;
  }
  header += '}';
  // As the reference implementation does: spaces pad the header so the data starts on an
  // 8-byte boundary.
  header.append((8 - header.size() % 8) % 8, ' ');

  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) fail(path, "cannot create '" + tmp + "': " + std::strerror(errno));
  bool ok = true;
  errno = 0;
  unsigned char len_bytes[8];
  for (int i = 0; i < 8; ++i) len_bytes[i] = static_cast<unsigned char>(header.size() >> (8 * i));
  ok = ok && std::fwrite(len_bytes, 1, 8, f) == 8;
  ok = ok && std::fwrite(header.data(), 1, header.size(), f) == header.size();
  std::vector<unsigned char> buf;
  for (size_t k = 0; ok && k < tensors.size(); ++k) {
    const size_t n = static_cast<size_t>(sizes[k]);
    if (n == 0) continue;
    if (kLittleEndian) {
      ok = std::fwrite(tensors[k].data, sizeof(float), n, f) == n;
    } else {
      buf.resize(n * 4);
      for (size_t i = 0; i < n; ++i) {
        uint32_t bits;
        std::memcpy(&bits, tensors[k].data + i, 4);
        for (int b = 0; b < 4; ++b) buf[4 * i + b] = static_cast<unsigned char>(bits >> (8 * b));
      }
      ok = std::fwrite(buf.data(), 1, buf.size(), f) == buf.size();
    }
  }
  int error = ok ? 0 : errno;
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    error = errno;
  }
  if (!ok) {
    std::remove(tmp.c_str());
    fail(path, "write to '" + tmp + "' failed: " + (error ? std::strerror(error) : "I/O error"));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    std::remove(tmp.c_str());
    fail(path, "cannot rename '" + tmp + "' to the final name: " + std::strerror(e));
  }
}

}  // namespace abft::transformer
