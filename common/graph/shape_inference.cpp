#include "common/graph/shape_inference.h"

#include "common/graph/op_signature.h"
#include "common/graph/shape_inference_internal.h"

// The inference of each op family is in shape_inference_<family>.cpp.
namespace dgs {

void infer_op_shapes(Graph& g, int op_index) {
  const Op& op = g.op(op_index);
  check_arity(op);
  using namespace shape_inference_internal;
  Ctx c(g, op_index);
  // Whole families first (op_table.inc), then the kinds with an inference of their own.
  switch (op_family(op.kind)) {
    case OpFamily::EwUnary:
      return infer_unary(c);
    case OpFamily::EwBinary:
    case OpFamily::EwVariadic:
      return infer_binary(c);
    case OpFamily::Logic:
      return infer_logic(c);
    case OpFamily::Reduction:
      return infer_reduce(c);
    default:
      break;
  }
  switch (op.kind) {
    case OpKind::Conv:
      infer_conv(c);
      break;
    case OpKind::ConvTranspose:
      infer_conv_transpose(c);
      break;
    case OpKind::Gemm:
      infer_gemm(c);
      break;
    case OpKind::MatMul:
      infer_matmul(c);
      break;
    case OpKind::MaxPool:
    case OpKind::AveragePool:
      infer_pool(c);
      break;
    case OpKind::GlobalAveragePool:
    case OpKind::GlobalMaxPool:
      infer_global_pool(c);
      break;
    case OpKind::BatchNormalization:
      infer_batchnorm(c);
      break;
    case OpKind::LayerNormalization:
      infer_layernorm(c);
      break;
    case OpKind::Softmax:
      c.axis(c.attrs().get_int("axis", -1), c.rank(0), "attribute 'axis'");
      infer_unary(c);
      break;
    case OpKind::Clip:
      infer_clip(c);
      break;
    case OpKind::Cast:
      infer_cast(c);
      break;
    case OpKind::Dropout:
      infer_dropout(c);
      break;
    case OpKind::Concat:
      infer_concat(c);
      break;
    case OpKind::Split:
      infer_split(c);
      break;
    case OpKind::Slice:
      infer_slice(c);
      break;
    case OpKind::Reshape:
      infer_reshape(c);
      break;
    case OpKind::Transpose:
      infer_transpose(c);
      break;
    case OpKind::Flatten:
      infer_flatten(c);
      break;
    case OpKind::Squeeze:
      infer_squeeze(c);
      break;
    case OpKind::Unsqueeze:
      infer_unsqueeze(c);
      break;
    case OpKind::Pad:
      infer_pad(c);
      break;
    case OpKind::Resize:
      infer_resize(c);
      break;
    case OpKind::DepthToSpace:
    case OpKind::SpaceToDepth:
      infer_depth_space(c);
      break;
    case OpKind::Gather:
      infer_gather(c);
      break;
    case OpKind::Expand:
      infer_expand(c);
      break;
    case OpKind::GatherND:
      infer_gather_nd(c);
      break;
    case OpKind::Identity:
      infer_unary(c);
      break;
    default:
      c.fail("invalid op kind", "a supported operator");
  }
}

void infer_shapes(Graph& g) {
  for (int o : g.topo_order()) infer_op_shapes(g, o);
}

}  // namespace dgs
