#include "common/onnx/onnx_limits.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <map>
#include <set>

#include "common/graph/onnx_dtype.h"
#include "common/util/error.h"

namespace dgs {

namespace {

std::string dims_text(const google::protobuf::RepeatedField<int64_t>& dims) {
  std::string s = "[";
  for (int i = 0; i < dims.size() && i < 8; ++i) {
    if (i > 0) s += ',';
    s += std::to_string(dims[i]);
  }
  if (dims.size() > 8) s += ",... (" + std::to_string(dims.size()) + " dims)";
  return s + "]";
}

std::string limits_text() {
  return "at most rank " + std::to_string(kOnnxMaxRank) + " and " +
         std::to_string(kOnnxMaxTensorBytes >> 30) + " GiB per tensor";
}

// Element size of an ONNX element type for the budget (unknown types count as 1 byte).
int64_t element_bytes(int32_t elem_type) {
  switch (elem_type) {
    case onnx::TensorProto_DataType_DOUBLE:
    case onnx::TensorProto_DataType_INT64:
    case onnx::TensorProto_DataType_UINT64:
    case onnx::TensorProto_DataType_COMPLEX64:
      return 8;
    case onnx::TensorProto_DataType_COMPLEX128:
      return 16;
    case onnx::TensorProto_DataType_FLOAT:
    case onnx::TensorProto_DataType_INT32:
    case onnx::TensorProto_DataType_UINT32:
      return 4;
    case onnx::TensorProto_DataType_FLOAT16:
    case onnx::TensorProto_DataType_BFLOAT16:
    case onnx::TensorProto_DataType_INT16:
    case onnx::TensorProto_DataType_UINT16:
      return 2;
    default:
      return 1;
  }
}

void check_shape(const google::protobuf::RepeatedField<int64_t>& dims, int32_t elem_type,
                 const std::string& what) {
  if (dims.size() > kOnnxMaxRank) {
    throw Error(what + " declares rank " + std::to_string(dims.size()) + "; expected " +
                limits_text());
  }
  for (int64_t d : dims) {
    if (d < 0) {
      throw Error(what + " declares shape " + dims_text(dims) +
                  " with a negative dimension; expected non-negative dimensions");
    }
  }
  const Shape shape(dims.begin(), dims.end());
  if (bounded_tensor_bytes(shape, element_bytes(elem_type)) < 0) {
    throw Error(what + " declares shape " + dims_text(dims) + " (" + onnx_type_name(elem_type) +
                "), over the memory budget; expected " + limits_text());
  }
}

void check_value_info(const onnx::ValueInfoProto& v, const std::string& what) {
  if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return;
  const auto& shape = v.type().tensor_type().shape();
  google::protobuf::RepeatedField<int64_t> dims;
  for (const auto& d : shape.dim()) dims.Add(d.has_dim_value() ? d.dim_value() : 1);
  check_shape(dims, v.type().tensor_type().elem_type(), what + " '" + v.name() + "'");
}

void check_attribute(const onnx::AttributeProto& a, const std::string& what) {
  const int n = std::max(
      {a.ints_size(), a.floats_size(), a.strings_size(), a.tensors_size(), a.graphs_size()});
  if (n > kOnnxMaxAttributeElements) {
    throw Error(what + ": attribute '" + a.name() + "' lists " + std::to_string(n) +
                " values; expected at most " + std::to_string(kOnnxMaxAttributeElements));
  }
  if (a.has_t()) {
    check_shape(a.t().dims(), a.t().data_type(), what + ": attribute '" + a.name() + "' tensor");
  }
}

// `s` with control characters written as \xNN (for quoting a name that is refused).
std::string escaped(const std::string& s) {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s.substr(0, 200)) {
    if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// Names are quoted in one-line errors and written to CSVs: a control character is refused.
void check_name(const std::string& name, const std::string& what) {
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7f) {
      throw Error(what + " '" + escaped(name) +
                  "' contains a control character; expected a printable name");
    }
  }
}

// Window attributes of convolutions and pools: libonnx 1.12's shape inference divides by strides
// and dilations without checking them (a zero stride is a SIGFPE), so they are checked first.
void check_window_attributes(const onnx::NodeProto& n, const std::string& what) {
  static const std::set<std::string> kWindowOps = {"Conv",        "ConvTranspose", "ConvInteger",
                                                   "QLinearConv", "MaxPool",       "AveragePool",
                                                   "LpPool",      "MaxUnpool",     "MaxRoiPool"};
  if (!kWindowOps.count(n.op_type())) return;
  for (const auto& a : n.attribute()) {
    const bool positive =
        a.name() == "strides" || a.name() == "dilations" || a.name() == "kernel_shape";
    if (!positive && a.name() != "pads" && a.name() != "output_padding") continue;
    for (int64_t v : a.ints()) {
      if (positive ? v < 1 : v < 0) {
        std::string list;
        for (int i = 0; i < a.ints_size() && i < 8; ++i) {
          if (i > 0) list += ',';
          list += std::to_string(a.ints(i));
        }
        throw Error(what + ": attribute '" + a.name() + "' [" + list + "]: expected " +
                    (positive ? "positive values" : "non-negative values"));
      }
    }
  }
}

// Ranks of the window operators' data and weight inputs where the file declares them (graph
// inputs, initializers, value_info): libonnx 1.12's ConvTranspose shape inference reads past the
// shapes of a rank-2 input (a SIGSEGV). Ranks known only after inference are not seen here.
void check_window_input_ranks(const onnx::GraphProto& g, const std::string& origin) {
  static const std::set<std::string> kWindowOps = {"Conv", "ConvTranspose", "MaxPool",
                                                   "AveragePool", "LpPool"};
  std::map<std::string, int> rank;
  for (const auto* vs : {&g.input(), &g.value_info()}) {
    for (const auto& v : *vs) {
      if (v.type().has_tensor_type() && v.type().tensor_type().has_shape())
        rank[v.name()] = v.type().tensor_type().shape().dim_size();
    }
  }
  for (const auto& t : g.initializer()) rank[t.name()] = t.dims_size();
  for (const auto& n : g.node()) {
    if (n.op_type() == "Gemm") {  // libonnx 1.12 reads dimension 1 of a rank-1 A or B (SIGSEGV)
      for (int i = 0; i < 2 && i < n.input_size(); ++i) {
        const auto it = rank.find(n.input(i));
        if (it != rank.end() && it->second != 2) {
          throw Error(origin + ": node '" + n.name() + "' (Gemm): input '" + n.input(i) +
                      "' has rank " + std::to_string(it->second) + "; expected rank 2");
        }
      }
      continue;
    }
    if (!kWindowOps.count(n.op_type())) continue;
    const int inputs = n.op_type().starts_with("Conv") ? 2 : 1;
    int first_rank = -1;
    for (int i = 0; i < inputs && i < n.input_size(); ++i) {
      const auto it = rank.find(n.input(i));
      if (it == rank.end()) continue;
      if (it->second < 3 || (first_rank >= 0 && it->second != first_rank)) {
        throw Error(origin + ": node '" + n.name() + "' (" + n.op_type() + "): input '" +
                    n.input(i) + "' has rank " + std::to_string(it->second) +
                    "; expected rank 3 or more (batch, channels, spatial), the same for data "
                    "and weights");
      }
      first_rank = it->second;
    }
  }
}

}  // namespace

int64_t bounded_tensor_bytes(const Shape& shape, int64_t element_bytes) {
  int64_t bytes = element_bytes;
  for (int64_t d : shape) {
    if (d < 0) return -1;
    if (d == 0) return 0;
    if (bytes > kOnnxMaxTensorBytes / d) return -1;
    bytes *= d;
  }
  return bytes <= kOnnxMaxTensorBytes ? bytes : -1;
}

void check_file_limits(const onnx::GraphProto& g, const std::string& origin) {
  check_name(g.name(), origin + ": graph name");
  for (const auto* vs : {&g.input(), &g.output(), &g.value_info()}) {
    for (const auto& v : *vs) check_name(v.name(), origin + ": value");
  }
  for (const auto& t : g.initializer()) check_name(t.name(), origin + ": initializer");
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    const std::string what = origin + ": node " + std::to_string(i);
    check_name(n.name(), what + " name");
    check_name(n.op_type(), what + " operator");
    check_name(n.domain(), what + " domain");
    for (const auto& x : n.input()) check_name(x, what + " input");
    for (const auto& x : n.output()) check_name(x, what + " output");
    for (const auto& a : n.attribute()) check_name(a.name(), what + " attribute");
  }
  for (const auto& v : g.input()) check_value_info(v, origin + ": graph input");
  for (const auto& v : g.output()) check_value_info(v, origin + ": graph output");
  for (const auto& v : g.value_info()) check_value_info(v, origin + ": value_info");
  for (const auto& t : g.initializer()) {
    check_shape(t.dims(), t.data_type(), origin + ": initializer '" + t.name() + "'");
  }
  for (const auto& n : g.node()) {
    const std::string what = origin + ": node '" + n.name() + "' (" + n.op_type() + ")";
    for (const auto& a : n.attribute()) check_attribute(a, what);
    check_window_attributes(n, what);
  }
  check_window_input_ranks(g, origin);
}

void check_tensor_budget(const Graph& g, const std::string& origin, bool allow_empty_inputs) {
  for (const Tensor& t : g.tensors()) {
    if (static_cast<int>(t.shape.size()) > kOnnxMaxRank ||
        bounded_tensor_bytes(t.shape, dtype_size(t.dtype)) < 0) {
      throw Error(origin + ": tensor '" + t.name + "' has inferred shape " + shape_str(t.shape) +
                  ", over the memory budget; expected " + limits_text());
    }
    if (!allow_empty_inputs && t.role == TensorRole::Input && t.numel() == 0) {
      throw Error(origin + ": graph input '" + t.name + "' has shape " + shape_str(t.shape) +
                  " (a zero dimension: nothing to schedule); expected positive dimensions");
    }
  }
}

}  // namespace dgs
