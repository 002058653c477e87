#include "common/onnx/onnx_external_data.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>

#include "common/graph/onnx_dtype.h"
#include "common/onnx/onnx_io.h"
#include "common/onnx/onnx_limits.h"
#include "common/onnx/onnx_tensor.h"

namespace dgs {

namespace {

namespace fs = std::filesystem;

// A non-negative decimal integer, or -1.
int64_t parse_count(const std::string& s) {
  if (s.empty() || s.size() > 18) return -1;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

struct OpenDataFile {
  std::ifstream in;
  int64_t size = 0;
};

}  // namespace

std::vector<fs::path> load_external_initializers(onnx::ModelProto* model,
                                                 const std::string& model_path) {
  const fs::path dir = fs::path(model_path).parent_path();
  std::map<std::string, std::unique_ptr<OpenDataFile>> files;
  for (onnx::TensorProto& t : *model->mutable_graph()->mutable_initializer()) {
    if (!has_external_data(t)) continue;
    const std::string what = model_path + ": initializer '" + t.name() + "'";
    std::string location;
    int64_t offset = 0, length = -1;
    for (const auto& kv : t.external_data()) {
      if (kv.key() == "location") {
        location = kv.value();
      } else if (kv.key() == "offset" || kv.key() == "length") {
        const int64_t v = parse_count(kv.value());
        if (v < 0) {
          throw OnnxInvalidModel(what + ": external data " + kv.key() + " '" + kv.value() +
                                 "' is not a non-negative integer");
        }
        (kv.key() == "offset" ? offset : length) = v;
      }
    }
    const fs::path rel(location);
    bool escapes = location.empty() || rel.is_absolute() || rel.has_root_name();
    for (const auto& part : rel) escapes |= part == "..";
    if (escapes) {
      throw OnnxInvalidModel(what + ": external data location '" + location +
                             "' must be a file name relative to the model's directory");
    }
    const int64_t element_bytes = raw_element_bytes(t.data_type());
    const int64_t need = element_bytes > 0 ? bounded_tensor_bytes(dims_of(t), element_bytes) : -1;
    if (need < 0) {
      throw OnnxInvalidModel(what + ": external data of element type " +
                             onnx_type_name(t.data_type()) + " with dims " + shape_str(dims_of(t)) +
                             " is not supported");
    }
    if (length >= 0 && length != need) {
      throw OnnxInvalidModel(what + ": external data length " + std::to_string(length) +
                             " bytes; dims " + shape_str(dims_of(t)) + " of " +
                             onnx_type_name(t.data_type()) + " need " + std::to_string(need));
    }
    auto& file = files[location];
    if (!file) {
      file = std::make_unique<OpenDataFile>();
      const fs::path p = dir / rel;
      file->in.open(p, std::ios::binary | std::ios::ate);
      if (!file->in) {
        throw OnnxInvalidModel(what + ": cannot open its external data file '" + p.string() + "'");
      }
      file->size = static_cast<int64_t>(file->in.tellg());
    }
    if (offset > file->size || need > file->size - offset) {
      throw OnnxInvalidModel(what + ": external data at offset " + std::to_string(offset) + " of " +
                             std::to_string(need) + " bytes is beyond the end of '" + location +
                             "' (" + std::to_string(file->size) + " bytes)");
    }
    std::string bytes(static_cast<size_t>(need), '\0');
    file->in.seekg(offset);
    file->in.read(bytes.data(), static_cast<std::streamsize>(need));
    if (!file->in) throw OnnxInvalidModel(what + ": cannot read its external data");
    t.clear_external_data();
    t.set_data_location(onnx::TensorProto_DataLocation_DEFAULT);
    t.set_raw_data(std::move(bytes));
  }
  std::vector<fs::path> read;
  for (const auto& [location, file] : files) read.push_back(dir / location);
  return read;
}

}  // namespace dgs
