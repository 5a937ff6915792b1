#include "net/safetensors.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/file_util.h"

namespace loa {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "safetensors are little-endian; so must the host be");

// The header is padded with spaces to a multiple of this (as the reference
// implementation does), so that the tensor data is aligned.
constexpr std::size_t kHeaderAlignment = 8;
// A header larger than this is not ours (the reference caps it at 100 MB).
constexpr uint64_t kMaxHeaderBytes = 100'000'000;

// Returns the JSON list `j` of whole numbers from 0 to `max`; throws Error
// naming `what` for anything else (a negative, a fraction, a number too
// large for the type: converting those would be undefined).
std::vector<uint64_t> WholeNumbers(const nlohmann::json& j, uint64_t max, const std::string& what) {
  if (!j.is_array()) throw Error(what + ": not a list");
  std::vector<uint64_t> numbers;
  for (const nlohmann::json& v : j) {
    if (!v.is_number_unsigned() || v.get<uint64_t>() > max)
      throw Error(what + ": " + v.dump().substr(0, 40) + " is not a whole number from 0 to " + std::to_string(max));
    numbers.push_back(v.get<uint64_t>());
  }
  return numbers;
}

}  // namespace

int64_t HostTensor::NumElements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string HostTensor::ShapeString() const {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string SerializeSafeTensors(const SafeTensors& st) {
  nlohmann::ordered_json header;
  if (!st.metadata.empty()) header["__metadata__"] = st.metadata;
  uint64_t offset = 0;
  for (const auto& [name, tensor] : st.tensors) {
    if (tensor.NumElements() != int64_t(tensor.data.size()))
      throw Error("safetensors: tensor " + name + " has " + std::to_string(tensor.data.size()) + " values for shape " +
                  tensor.ShapeString());
    uint64_t bytes = tensor.data.size() * sizeof(float);
    header[name] = {{"dtype", "F32"}, {"shape", tensor.shape}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string json = header.dump();
  json.append((kHeaderAlignment - json.size() % kHeaderAlignment) % kHeaderAlignment, ' ');
  std::string out(8, '\0');
  uint64_t length = json.size();
  std::memcpy(out.data(), &length, 8);
  out += json;
  out.reserve(out.size() + offset);
  for (const auto& [name, tensor] : st.tensors)
    out.append(reinterpret_cast<const char*>(tensor.data.data()), tensor.data.size() * sizeof(float));
  return out;
}

SafeTensors ParseSafeTensors(const std::string& bytes, const std::string& name) {
  if (bytes.size() < 8) throw Error(name + ": truncated: " + std::to_string(bytes.size()) + " bytes, no header");
  uint64_t length;
  std::memcpy(&length, bytes.data(), 8);
  if (length > kMaxHeaderBytes)
    throw Error(name + ": not a safetensors file (header length " + std::to_string(length) + ")");
  if (8 + length > bytes.size()) throw Error(name + ": truncated: the header runs past the end of the file");
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(bytes.begin() + 8, bytes.begin() + 8 + length);
  } catch (const nlohmann::json::exception& e) {
    throw Error(name + ": not a safetensors file: bad JSON header: " + e.what());
  }
  if (!header.is_object()) throw Error(name + ": not a safetensors file: the header is not a JSON object");
  SafeTensors st;
  const char* data = bytes.data() + 8 + length;
  const uint64_t data_size = bytes.size() - 8 - length;
  try {
    for (auto it = header.begin(); it != header.end(); ++it) {
      if (it.key() == "__metadata__") {
        st.metadata = it.value().get<std::map<std::string, std::string>>();
        continue;
      }
      const nlohmann::json& entry = it.value();
      std::string dtype = entry.at("dtype").get<std::string>();
      if (dtype != "F32") throw Error(name + ": tensor " + it.key() + " is " + dtype + "; only F32 is read");
      HostTensor tensor;
      const std::string what = name + ": tensor " + it.key();
      // The shape's product never overflows: it is bounded by the data
      // there is, one dimension at a time.
      uint64_t elements = 1;
      for (uint64_t d : WholeNumbers(entry.at("shape"), uint64_t{1} << 40, what + ": shape")) {
        if (d != 0 && elements > data_size / sizeof(float) / d)
          throw Error(name + ": truncated: tensor " + it.key() + " runs past the end (its shape " +
                      entry.at("shape").dump().substr(0, 60) + " holds more values than the file)");
        elements *= d;
        tensor.shape.push_back(int64_t(d));
      }
      const std::vector<uint64_t> offsets = WholeNumbers(entry.at("data_offsets"), UINT64_MAX, what + ": data_offsets");
      if (offsets.size() != 2 || offsets[0] > offsets[1] || offsets[1] - offsets[0] != elements * sizeof(float))
        throw Error(what + ": data_offsets do not match shape " + tensor.ShapeString());
      if (offsets[1] > data_size) throw Error(name + ": truncated: tensor " + it.key() + " runs past the end");
      tensor.data.resize(tensor.NumElements());
      std::memcpy(tensor.data.data(), data + offsets[0], offsets[1] - offsets[0]);
      st.tensors.emplace(it.key(), std::move(tensor));
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(name + ": malformed safetensors header: " + e.what());
  }
  return st;
}

void WriteSafeTensors(const std::string& path, const SafeTensors& st) {
  WriteFileAtomic(path, SerializeSafeTensors(st));
}

}  // namespace loa
