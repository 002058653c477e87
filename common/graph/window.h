#pragma once
// Sliding windows of convolution and pooling operators, resolved in one place.
//
// Conv, ConvTranspose, MaxPool and AveragePool slide a kernel over the spatial dims of their input
// X [N, C, spatial...] (any number of spatial dims: 1-D, 2-D, 3-D, ...). Their ONNX attributes
// (kernel_shape, strides, dilations, pads, auto_pad, ceil_mode, group, output_padding,
// output_shape) are read and checked here, and turned into explicit per-dim numbers: the kernel,
// the strides and dilations, the padding before and after each spatial dim, and the output's
// spatial sizes. Shape inference, iteration spaces, the CPU reference executor, the CUDA stage
// executor and every scheduler that needs a window call resolve_window(), so the rules below are
// written once.
//
// Rules (ONNX's convPoolShapeInference and ConvTranspose spec), per spatial dim i, with input size
// `in`, effective kernel ek = (kernel - 1) * dilation + 1 and stride s:
//   Conv, MaxPool, AveragePool
//     auto_pad NOTSET (default): pads from the 'pads' attribute [begin..., end...] (default 0);
//       out = floor((in + pad_begin + pad_end - ek) / s) + 1 (ceil instead of floor when the pool
//       has ceil_mode = 1; pads_end stays the attribute's value).
//     VALID: no padding, out as above with zero pads.
//     SAME_UPPER / SAME_LOWER: out = ceil(in / s); total = max(0, (out - 1) * s + ek - in) is
//       split with the odd element at the end (SAME_UPPER: begin = total / 2) or at the beginning
//       (SAME_LOWER: begin = total - total / 2).
//   ConvTranspose, with full = s * (in - 1) + output_padding + ek:
//     'output_shape' given (N and C may be included), or auto_pad SAME_*: the output size is
//       output_shape (or in * s for SAME_*), total = full - out is split with the odd element at
//       the end for SAME_UPPER (begin = floor(total / 2)) and at the beginning otherwise; the pads
//       may then be negative.
//     NOTSET: pads from 'pads', out = full - pad_begin - pad_end; VALID: no padding, out = full.
// The kernel comes from the weight's spatial dims for Conv/ConvTranspose (kernel_shape, when
// given, must equal them) and from kernel_shape for the pools. AveragePool honours dilations as
// ONNX opset 19 defines them. Every violation throws dgs::Error naming the op:
// "op '<name>' (<Kind>): <what>; expected <what was expected>".
#include <cstdint>
#include <string_view>
#include <vector>

#include "common/graph/graph.h"

namespace dgs {

// ONNX's auto_pad attribute.
enum class AutoPad : uint8_t { NotSet, Valid, SameUpper, SameLower };

// The resolved window of one op. Every vector has one entry per spatial dim.
struct Window {
  std::vector<int64_t> kernel;          // kernel size
  std::vector<int64_t> strides;         // >= 1
  std::vector<int64_t> dilations;       // >= 1
  std::vector<int64_t> pads_begin;      // padding before the first element (< 0 only for
  std::vector<int64_t> pads_end;        //   ConvTranspose with output_shape or SAME_*)
  std::vector<int64_t> output_padding;  // ConvTranspose's output_padding; zeros otherwise
  Shape out_spatial;                    // output spatial sizes
  AutoPad auto_pad = AutoPad::NotSet;
  bool ceil_mode = false;  // pools only
  int64_t group = 1;       // Conv/ConvTranspose 'group'; 1 for pools

  size_t spatial_dims() const { return kernel.size(); }
  // (kernel - 1) * dilation + 1: the input extent one output element reads along dim i.
  int64_t effective_kernel(size_t i) const { return (kernel[i] - 1) * dilations[i] + 1; }
  // True when every dim is padded equally before and after.
  bool symmetric_pads() const { return pads_begin == pads_end; }
};

// True for the ops resolve_window() accepts: Conv, ConvTranspose, MaxPool, AveragePool.
bool has_window(OpKind k);

// Resolves the window of `op` for an input whose spatial sizes are `input_spatial` (X.shape[2:]).
// `weight_kernel` is the weight's spatial dims (W.shape[2:]) for Conv and ConvTranspose; it may be
// empty, and is then taken from kernel_shape. Pools ignore it. Throws dgs::Error naming the op.
Window resolve_window(const Op& op, const Shape& input_spatial, const Shape& weight_kernel = {});

// The same for op `op` of `g`, with X = input 0 and (Conv/ConvTranspose) W = input 1.
Window resolve_window(const Graph& g, int op);

std::string_view auto_pad_name(AutoPad p);  // "NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"

}  // namespace dgs
