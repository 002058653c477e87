#include "common/graph/onnx_dtype.h"

#include <array>
#include <string_view>

namespace dgs {

namespace {

// TensorProto.DataType names (onnx.proto, ONNX 1.12), indexed by code.
constexpr std::array<std::string_view, 17> kOnnxTypeNames = {
    "undefined", "float",  "uint8",     "int8",       "uint16",  "int16",
    "int32",     "int64",  "string",    "bool",       "float16", "double",
    "uint32",    "uint64", "complex64", "complex128", "bfloat16"};

struct DTypeCode {
  DType dtype;
  int code;
};
// The one table of the mapping, in the order error messages list it.
constexpr std::array<DTypeCode, 5> kDTypeCodes = {{{DType::F32, onnx_type::kFloat},
                                                   {DType::F16, onnx_type::kFloat16},
                                                   {DType::I64, onnx_type::kInt64},
                                                   {DType::I32, onnx_type::kInt32},
                                                   {DType::Bool, onnx_type::kBool}}};

}  // namespace

std::optional<DType> dtype_from_onnx(int64_t code) {
  for (const DTypeCode& e : kDTypeCodes) {
    if (e.code == code) return e.dtype;
  }
  return std::nullopt;
}

std::optional<DType> dtype_of_onnx_values(int64_t code) {
  if (code == onnx_type::kDouble) return DType::F32;
  return dtype_from_onnx(code);
}

DType require_dtype_from_onnx(int64_t code, const std::string& what) {
  if (const auto t = dtype_from_onnx(code)) return *t;
  throw Error(what + " is " + std::to_string(code) + " (" + onnx_type_name(code) +
              ", not supported); expected " + supported_onnx_types());
}

int dtype_to_onnx(DType t) {
  for (const DTypeCode& e : kDTypeCodes) {
    if (e.dtype == t) return e.code;
  }
  throw Error("dtype " + std::string(dtype_name(t)) + " has no ONNX element type");
}

std::string onnx_type_name(int64_t code) {
  if (code >= 0 && code < static_cast<int64_t>(kOnnxTypeNames.size())) {
    return std::string(kOnnxTypeNames[static_cast<size_t>(code)]);
  }
  return "type " + std::to_string(code);
}

std::string supported_onnx_types() {
  std::string s;
  for (size_t i = 0; i < kDTypeCodes.size(); ++i) {
    if (i > 0) s += i + 1 == kDTypeCodes.size() ? " or " : ", ";
    s += std::to_string(kDTypeCodes[i].code) + " (" + onnx_type_name(kDTypeCodes[i].code) + ")";
  }
  return s;
}

}  // namespace dgs
