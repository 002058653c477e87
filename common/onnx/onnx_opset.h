#pragma once
// Opsets newer than Debian's libonnx 1.12 knows (it checks and shape-infers up to opset 17, IR
// version 8): a model importing opset 18 or newer, or written with IR version 9 or 10 (what
// PyTorch's dynamo exporter writes), is rewritten into the equivalent opset-17 / IR-8 form before
// ONNX's checker and shape inference see it, so that they validate it as usual:
//   * opset 18: reductions other than ReduceSum take their axes as an input -> attribute (the
//     input must be a constant); Split's num_outputs -> dropped (opset 13 splits equally into the
//     outputs); Resize's antialias / axes / keep_aspect_ratio_policy: dropped at their defaults;
//     Pad's axes input: refused unless absent;
//   * opset 19: Cast's saturate (only meaningful for float8) dropped;
//   * opset 20: Gelu of the ONNX domain -> Gelu of com.microsoft (approximate="none"; "tanh" is
//     refused);
//   * opsets 21-23 only widen element types (int4, float8, float4), which the suite refuses
//     anyway where they occur.
// Anything these rules do not cover is refused in one line naming the node.
#include <cstdint>
#include <string>

namespace onnx {
class ModelProto;
}

namespace dgs {

// The default-domain opsets the loader accepts (older ones are upgraded to the opset-13 forms).
inline constexpr int64_t kOnnxMinOpset = 1;
inline constexpr int64_t kOnnxMaxOpset = 23;
// What libonnx 1.12's checker and shape inference know.
inline constexpr int64_t kOnnxCheckerOpset = 17;
inline constexpr int64_t kOnnxCheckerIrVersion = 8;

// Rewrites `model` in place into the opset-17 / IR-8 form (no-op for models already there).
// Throws dgs::Error naming `origin` and the node for an opset outside [kOnnxMinOpset,
// kOnnxMaxOpset] or a signature these rules do not convert.
void convert_to_checker_opset(onnx::ModelProto* model, const std::string& origin);

}  // namespace dgs
