/** \file safetensors.hpp
 *  \brief Reading and writing the safetensors format: an 8-byte little-endian header length, a
 *  JSON header {name: {dtype, shape, data_offsets}, "__metadata__": {...}}, then the raw data.
 *  Floating tensors (F32, F16, BF16, F64) are read as float; files are written as F32.
 */
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace abft::transformer {

struct StTensor {
  std::string dtype;            ///< as stored: "F32", "F16", "BF16", "F64"
  std::vector<int64_t> shape;   ///< empty for a scalar
  std::vector<float> data;      ///< converted to float, row-major
  int64_t numel() const;
};

struct StFile {
  std::map<std::string, StTensor> tensors;
  std::map<std::string, std::string> metadata;
};

/** Read a whole file. Throws Error (with the path and what is wrong) for a missing or
 *  unreadable file, a truncated header or data section, malformed JSON, an unsupported dtype,
 *  offsets outside the data or disagreeing with dtype x shape, overlapping tensors. */
StFile read_safetensors(const std::string& path);

/** One tensor to write: the caller's float data, row-major. */
struct StWrite {
  std::string name;
  std::vector<int64_t> shape;
  const float* data = nullptr;
};

/** Write F32 tensors (in the given order) and string metadata; the file is written to a
 *  temporary name and renamed, so a failed write never leaves a truncated file at `path`.
 *  Throws Error on duplicate names or an I/O failure. */
void write_safetensors(const std::string& path, const std::vector<StWrite>& tensors,
                       const std::map<std::string, std::string>& metadata = {});

}  // namespace abft::transformer
