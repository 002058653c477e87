#include "tests/onnx/export_fixture.h"

#include <onnx/defs/parser.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/util/resources.h"

namespace dgs {

namespace {

uint64_t name_seed(const std::string& name) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

// Uniform in [-1, 1] from a 64-bit LCG (Knuth's MMIX constants); the top 24 bits of each step.
std::vector<float> uniform_values(const std::string& name, int64_t n) {
  uint64_t s = name_seed(name);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x = static_cast<float>(static_cast<double>(s >> 40) / 8388608.0 - 1.0);
  }
  return v;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot open the fixture");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Initializer data of parameter or buffer `name`: parameters uniform, scaled by 1/sqrt(fan-in)
// (fan-in = elements / first dimension) for rank >= 2 and by 0.1 for rank 1 (biases, norm
// shifts) -- except norm scales (..._ln_/_bn_..._weight), which are 1 + 0.1 u; float buffers
// (running means and variances) 1 + 0.5 u; integer buffers (position ids) 0, 1, 2, ... along the
// last axis.
void fill_initializer(onnx::TensorProto* t) {
  const std::string& name = t->name();
  Shape dims(t->dims().begin(), t->dims().end());
  const int64_t n = numel(dims);
  if (t->data_type() == onnx::TensorProto_DataType_INT64) {
    std::vector<int64_t> v(static_cast<size_t>(n));
    const int64_t last = dims.empty() ? 1 : dims.back();
    for (int64_t k = 0; k < n; ++k) v[static_cast<size_t>(k)] = k % last;
    t->set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * 8));
    return;
  }
  std::vector<float> v = uniform_values(name, n);
  const bool buffer = name.rfind("b_", 0) == 0;
  const bool norm_scale =
      (name.find("_ln") != std::string::npos || name.find("_bn") != std::string::npos) &&
      name.ends_with("_weight");
  const double scale = dims.size() >= 2 ? 1.0 / std::sqrt(static_cast<double>(n / dims[0])) : 0.1;
  for (float& x : v) {
    if (buffer) {
      x = 1.0f + 0.5f * x;
    } else if (norm_scale) {
      x = 1.0f + 0.1f * x;
    } else {
      x = static_cast<float>(x * scale);
    }
  }
  t->set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4));
}

}  // namespace

onnx::ModelProto exported_fixture_model(const std::string& name) {
  const std::string path =
      std::string(DGS_SOURCE_DIR) + "/tests/onnx/fixtures/" + name + ".onnxtxt";
  const std::string text = read_text(path);
  onnx::ModelProto m;
  const auto status = onnx::OnnxParser::Parse(m, text.c_str());
  if (!status.IsOK()) throw Error(path + ": " + status.ErrorMessage());
  m.set_producer_name("pytorch");
  onnx::GraphProto* g = m.mutable_graph();
  for (auto& n : *g->mutable_node()) n.set_name("/" + n.output(0));  // exporters name every node
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> inputs;
  for (const auto& in : g->input()) {
    if (in.name().rfind("p_", 0) != 0 && in.name().rfind("b_", 0) != 0) {
      *inputs.Add() = in;
      continue;
    }
    onnx::TensorProto* t = g->add_initializer();
    t->set_name(in.name());
    t->set_data_type(in.type().tensor_type().elem_type());
    for (const auto& d : in.type().tensor_type().shape().dim()) t->add_dims(d.dim_value());
    fill_initializer(t);
  }
  g->mutable_input()->Swap(&inputs);
  return m;
}

std::string write_exported_fixture(const std::string& name, const std::string& dir) {
  const std::string path = dir + "/" + name + ".onnx";
  std::string bytes;
  exported_fixture_model(name).SerializeToString(&bytes);
  write_file_atomic(path, bytes);
  return path;
}

TensorData fixture_input(const std::string& name, const Shape& shape, DType dtype) {
  const int64_t n = numel(shape);
  if (dtype == DType::I64 && name == "attention_mask" && !shape.empty()) {
    // Row r pads its last r + 1 positions (0), as a padded batch of shorter sentences does.
    const int64_t len = shape.back();
    std::vector<int64_t> v(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) v[static_cast<size_t>(k)] = k % len < len - 1 - k / len ? 1 : 0;
    return TensorData::ints(shape, v);
  }
  if (dtype == DType::I64) {
    std::vector<int64_t> v(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) v[static_cast<size_t>(k)] = (7 * k + 3) % 16;
    return TensorData::ints(shape, v);
  }
  return TensorData::floats(shape, uniform_values(name, n));
}

std::map<std::string, TensorData> initializer_values(const onnx::ModelProto& model) {
  std::map<std::string, TensorData> out;
  for (const auto& t : model.graph().initializer()) {
    const Shape dims(t.dims().begin(), t.dims().end());
    const auto n = static_cast<size_t>(numel(dims));
    const std::string& raw = t.raw_data();
    if (t.data_type() == onnx::TensorProto_DataType_FLOAT) {
      std::vector<float> v(t.float_data().begin(), t.float_data().end());
      if (raw.size() == n * 4) {
        v.resize(n);
        std::memcpy(v.data(), raw.data(), raw.size());
      }
      if (v.size() == n) out[t.name()] = TensorData::floats(dims, v);
    } else if (t.data_type() == onnx::TensorProto_DataType_INT64) {
      std::vector<int64_t> v(t.int64_data().begin(), t.int64_data().end());
      if (raw.size() == n * 8) {
        v.resize(n);
        std::memcpy(v.data(), raw.data(), raw.size());
      }
      if (v.size() == n) out[t.name()] = TensorData::ints(dims, v);
    } else if (t.data_type() == onnx::TensorProto_DataType_BOOL) {  // int32_data or 1 byte each
      std::vector<int64_t> v(t.int32_data().begin(), t.int32_data().end());
      if (raw.size() == n) v.assign(raw.begin(), raw.end());
      for (int64_t& b : v) b = b != 0 ? 1 : 0;
      if (v.size() == n) out[t.name()] = TensorData::ints(dims, v, DType::Bool);
    }
  }
  return out;
}

std::string tensors_to_text(const std::map<std::string, TensorData>& tensors) {
  std::ostringstream s;
  s.precision(9);
  for (const auto& [name, t] : tensors) {
    s << name << " " << dtype_name(t.dtype) << " ";
    for (size_t d = 0; d < t.shape.size(); ++d) s << (d ? "," : "") << t.shape[d];
    s << ":";
    for (int64_t k = 0; k < t.numel(); ++k) s << " " << t.at(k);
    s << "\n";
  }
  return s.str();
}

std::map<std::string, TensorData> tensors_from_text(const std::string& text) {
  std::map<std::string, TensorData> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    std::istringstream s(line);
    std::string name, dtype, dims;
    s >> name >> dtype >> dims;
    Shape shape;
    if (dims.back() != ':') throw Error("reference line for '" + name + "' has no ':'");
    dims.pop_back();
    std::istringstream ds(dims);
    for (std::string d; std::getline(ds, d, ',');) {
      if (!d.empty()) shape.push_back(std::stoll(d));
    }
    std::vector<float> v;
    for (double x; s >> x;) v.push_back(static_cast<float>(x));
    if (static_cast<int64_t>(v.size()) != numel(shape)) {
      throw Error("reference '" + name + "': " + std::to_string(v.size()) + " values for " +
                  shape_str(shape));
    }
    out[name] = TensorData::floats(shape, v);
  }
  return out;
}

}  // namespace dgs
