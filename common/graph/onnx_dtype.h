#pragma once
// ONNX element types (TensorProto.DataType codes, onnx.proto) and the suite's DType, mapped in
// one place. The graph needs the codes because Cast's 'to' and LayerNormalization's 'stash_type'
// attributes hold them; the ONNX loader/writer, the backend-test-data reader and the CPU
// executor use the same mapping.
//
//   code  ONNX name  DType
//   1     float      F32
//   10    float16    F16
//   7     int64      I64
//   6     int32      I32
//   9     bool       Bool
//   11    double     none; read as F32 where values are only computed with (dtype_of_onnx_values)
//   other            not supported
#include <cstdint>
#include <optional>
#include <string>

#include "common/graph/graph.h"

namespace dgs {

// The codes of the element types the suite reads (equal to ONNX's TensorProto_DataType_*; the
// ONNX loader checks this at compile time).
namespace onnx_type {
inline constexpr int kFloat = 1;
inline constexpr int kInt32 = 6;
inline constexpr int kInt64 = 7;
inline constexpr int kBool = 9;
inline constexpr int kFloat16 = 10;
inline constexpr int kDouble = 11;
}  // namespace onnx_type

// The DType of ONNX element type `code`: float, float16, int64, int32 and bool map one to one;
// nullopt for every other code (double included: the graph has no double dtype).
std::optional<DType> dtype_from_onnx(int64_t code);

// The same, but for values that are only computed with (test data, the executor's Cast): double
// is held as F32 too. nullopt for every other unsupported code.
std::optional<DType> dtype_of_onnx_values(int64_t code);

// As dtype_from_onnx, but an unsupported code throws dgs::Error:
// "<what> is <code> (<name>, not supported); expected 1 (float), 10 (float16), 7 (int64), 6 (int32)
// or 9 (bool)".
DType require_dtype_from_onnx(int64_t code, const std::string& what);

// The ONNX element type code of `t` (inverse of dtype_from_onnx).
int dtype_to_onnx(DType t);

// ONNX's name of element type `code` in lower case ("float", "uint8", "bfloat16", "undefined" for
// 0), or "type <code>" for a code ONNX does not define.
std::string onnx_type_name(int64_t code);

// The element types dtype_from_onnx accepts, for error messages:
// "1 (float), 10 (float16), 7 (int64), 6 (int32) or 9 (bool)".
std::string supported_onnx_types();

}  // namespace dgs
