#pragma once
// Resource limits of the ONNX loader: what a file may declare before the suite refuses it, in one
// line and before allocating anything of the declared size. The suite schedules and models graphs
// (it allocates tensors only in the CPU reference executor), so the limits are generous for real
// networks and exist to turn absurd or hostile files into one clear error instead of an overflow,
// an out-of-memory or a hang.
#include <cstdint>
#include <string>

#include "common/graph/graph.h"

namespace onnx {
class GraphProto;
}

namespace dgs {

// The memory budget of one tensor: its declared size (elements x element size) must not exceed
// 1 TiB (the largest real activations and weights are a few GiB).
inline constexpr int64_t kOnnxMaxTensorBytes = int64_t{1} << 40;
// The largest rank a tensor may declare.
inline constexpr int kOnnxMaxRank = 32;
// The most elements an attribute list (ints, floats, strings) may have.
inline constexpr int kOnnxMaxAttributeElements = 1 << 16;

// Refuses, before anything is converted or inferred, a graph whose declared shapes (graph inputs,
// outputs, value_info, initializers, tensor attributes) have a rank over kOnnxMaxRank, a negative
// dimension, or a size over kOnnxMaxTensorBytes (computed without overflowing 64 bits), or whose
// nodes carry an attribute list over kOnnxMaxAttributeElements, or whose names (graph, values,
// initializers, nodes, operators, domains, attributes) contain a control character (errors quote
// them on one line), or whose convolutions and pools have a stride, dilation or kernel size
// below 1 or a negative pad (libonnx's shape inference divides by them). Throws dgs::Error:
// "<origin>: graph input 'x' declares shape [...]: ...".
void check_file_limits(const onnx::GraphProto& g, const std::string& origin);

// Refuses, after shape inference, a tensor whose inferred size exceeds kOnnxMaxTensorBytes (an
// Expand or a Resize can declare far more than its inputs), and (unless `allow_empty_inputs`) a
// graph input with a zero dimension (nothing to schedule).
void check_tensor_budget(const Graph& g, const std::string& origin, bool allow_empty_inputs);

// The size in bytes of `shape` elements of `element_bytes` each, or -1 if it exceeds
// kOnnxMaxTensorBytes (or 64 bits) or a dimension is negative.
int64_t bounded_tensor_bytes(const Shape& shape, int64_t element_bytes);

}  // namespace dgs
