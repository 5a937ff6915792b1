#pragma once
// The safetensors file layout (huggingface/safetensors): 8 bytes of
// little-endian header length N, N bytes of JSON header naming each tensor's
// dtype, shape and byte range, then the raw little-endian tensor bytes.
// "__metadata__" in the header maps strings to strings. We read and write
// float32 ("F32") tensors only. No LibTorch here.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace loa {

// One float32 tensor, row-major (C order), as PyTorch and numpy store it.
struct HostTensor {
  std::vector<int64_t> shape;
  std::vector<float> data;

  // Returns the product of the shape (1 for a scalar).
  int64_t NumElements() const;
  // Returns the shape as "[64, 7, 3, 3]".
  std::string ShapeString() const;
};

// A whole safetensors file in memory.
struct SafeTensors {
  std::map<std::string, HostTensor> tensors;
  std::map<std::string, std::string> metadata;
};

// Returns the file's bytes for st; every tensor's data must match its shape.
std::string SerializeSafeTensors(const SafeTensors& st);

// Parses the bytes of a safetensors file; `name` (the path) goes into the
// messages. Throws loa::Error for a truncated or malformed file or a dtype
// other than F32.
SafeTensors ParseSafeTensors(const std::string& bytes, const std::string& name);

// Writes st to path atomically (temporary file and rename); throws IoError.
void WriteSafeTensors(const std::string& path, const SafeTensors& st);

}  // namespace loa
