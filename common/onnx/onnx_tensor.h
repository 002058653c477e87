#pragma once
// Values of ONNX TensorProtos (initializers, Constant nodes, folded results): reading them as
// float or integer vectors, writing them back, and checking that the stored data matches the
// dims. Internal to common/onnx.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/graph/graph.h"

namespace onnx {
class NodeProto;
class TensorProto;
}  // namespace onnx

namespace dgs {

// IEEE 754 binary16 <-> binary32 (round to nearest even).
uint16_t float_to_half(float f);
float half_to_float(uint16_t h);

Shape dims_of(const onnx::TensorProto& t);
// Bytes per element of raw_data for an ONNX element type (0: not a fixed-size numeric type).
int64_t raw_element_bytes(int32_t elem_type);
bool has_external_data(const onnx::TensorProto& t);
// True when the tensor stores values (or has no elements).
bool has_data(const onnx::TensorProto& t);

// The values of an integer tensor (int64 or int32) and of a float tensor (float32 or float16, as
// float32). Throw dgs::Error naming `what` when the data does not match the dims.
std::vector<int64_t> int_values(const onnx::TensorProto& t, const std::string& what);
std::vector<float> float_values(const onnx::TensorProto& t, const std::string& what);

// Checks that a tensor with data stores exactly as many values as its dims say (raw_data bytes
// or the typed field its element type uses); a tensor without data (a declared weight) passes.
// Throws OnnxInvalidModel (onnx_io.h): "<what>: raw_data holds 6 bytes; dims [3] of int64 need
// 24".
void check_tensor_data_size(const onnx::TensorProto& t, const std::string& what);

// A tensor value of any numeric ONNX element type, as constant folding computes with it:
// float types (float, float16, double) in `f`, integer types and bool in `i`.
struct OnnxValue {
  int32_t elem_type = 1;  // ONNX TensorProto::DataType
  Shape dims;
  std::vector<double> f;
  std::vector<int64_t> i;
  bool from_weight = false;  // derived from a learned parameter (a large float initializer)

  bool is_float() const;
  int64_t numel() const { return dgs::numel(dims); }
  double at(int64_t k) const {
    return is_float() ? f[static_cast<size_t>(k)] : static_cast<double>(i[static_cast<size_t>(k)]);
  }
};

// True for the element types an OnnxValue holds (float, float16, double, bool, (u)int8..64).
bool is_foldable_elem_type(int32_t elem_type);
bool is_float_elem_type(int32_t elem_type);

// Reads a tensor with data. Throws dgs::Error naming `what` for external data, an element type
// outside is_foldable_elem_type, or data that does not match the dims.
OnnxValue read_onnx_value(const onnx::TensorProto& t, const std::string& what);
// A Constant node's value (value, value_float(s), value_int(s)); nothing for sparse or string
// values.
std::optional<onnx::TensorProto> constant_node_tensor(const onnx::NodeProto& n);

// Writes `v` (name, element type, dims, values) into `t`.
void write_onnx_value(const OnnxValue& v, const std::string& name, onnx::TensorProto* t);

}  // namespace dgs
