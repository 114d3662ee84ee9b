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
  int64_t numel() const;  ///< product of shape: 1 for a scalar, 0 when a dimension is 0
};

struct StFile {
  std::map<std::string, StTensor> tensors;
  std::map<std::string, std::string> metadata;
};

/** Read a whole file. Throws Error (with the path and what is wrong) for a missing or
 *  unreadable file, a truncated header or data section, malformed JSON, an unsupported dtype,
 *  offsets outside the data or disagreeing with dtype x shape, overlapping tensors. The status
 *  is NOT_SUPPORTED for a dtype other than F32/F16/BF16/F64, INVALID_SIZE for a size that
 *  disagrees with dtype x shape or a negative dimension, INVALID_VALUE otherwise. The whole
 *  header is checked before any data is read; data is read tensor by tensor. */
StFile read_safetensors(const std::string& path);

/** One tensor to write: the caller's float data, row-major. */
struct StWrite {
  std::string name;
  std::vector<int64_t> shape;
  const float* data = nullptr;
};

/** Write F32 tensors (in the given order) and string metadata; the file is written to a
 *  temporary name (`path` + ".tmp") and renamed, so a failed write never leaves a truncated
 *  file at `path`. The header is padded with spaces to a multiple of 8 bytes, as the reference
 *  implementation does. Throws Error on duplicate names (or a tensor named "__metadata__"),
 *  a negative dimension (INVALID_SIZE), null data for a non-empty tensor (NULL_POINTER) or an
 *  I/O failure; arguments are checked before anything is written. */
void write_safetensors(const std::string& path, const std::vector<StWrite>& tensors,
                       const std::map<std::string, std::string>& metadata = {});

}  // namespace abft::transformer
