#pragma once
// Helpers that the evaluators of load-time constant folding share (onnx_fold_eval.h): node
// attributes, row-major strides, element copies, the fold size limit, broadcasting and casts of
// OnnxValues. Internal to common/onnx.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/onnx/onnx_tensor.h"

namespace onnx {
class AttributeProto;
class NodeProto;
}  // namespace onnx

namespace dgs {

const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const std::string& name);
int64_t attr_int(const onnx::NodeProto& n, const std::string& name, int64_t def);
std::optional<std::vector<int64_t>> attr_ints(const onnx::NodeProto& n, const std::string& name);

// Strides of a row-major shape.
std::vector<int64_t> strides_of(const Shape& s);

// Appends element `from` of `src` to `dst` (same value kind).
void copy_element(const OnnxValue& src, int64_t from, OnnxValue& dst);

// A value of `v`'s element type and weight origin with dims `dims` and no elements yet.
OnnxValue empty_like(const OnnxValue& v, Shape dims);

// A folded floating-point value stored as int64; throws FoldTooLarge when it does not fit
// (converting it would be undefined behaviour).
int64_t fold_int64(double v);

// Throws FoldTooLarge when a folded value of shape `dims` would be negative or exceed
// kOnnxMaxFoldElements (before anything of that size is allocated).
void check_fold_size(const Shape& dims);

// Gathers elements of `v` by a function from output flat index to input flat index.
OnnxValue remap(const OnnxValue& v, Shape out_dims, const std::function<int64_t(int64_t)>& src);

// `axis` in [0, rank); throws dgs::Error naming `what` when it is outside [-rank, rank).
int64_t normalize_axis(int64_t axis, int64_t rank, const std::string& what);

// The broadcast of two shapes (numpy rules); throws naming `what` when they do not broadcast.
Shape broadcast_dims(const Shape& a, const Shape& b, const std::string& what);
// For each element of `out`, the flat index of the element of `in` that broadcasts to it.
std::vector<int64_t> broadcast_sources(const Shape& in, const Shape& out);
OnnxValue broadcast_to(const OnnxValue& v, const Shape& out);

// Casts values to another element type (float -> integer truncates toward zero; -> bool: != 0).
OnnxValue cast_to(const OnnxValue& v, int32_t to);

}  // namespace dgs
