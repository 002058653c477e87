#pragma once
// Cost of operators: FLOPs, MACs, bytes read and written, and parameters, per op, per graph and
// per fused group of ops (one kernel). Every cost model and scheduler of the suite counts work
// and traffic through these functions.
#include <cstdint>
#include <vector>

#include "common/graph/graph.h"

namespace dgs {

// What is counted (out = number of output elements of output 0, N = batch):
//   Conv            MACs = out * (C_in/group) * prod(kernel); FLOPs = 2*MACs (+ out with a bias)
//   ConvTranspose   MACs = in_elements(X) * (C_out/group) * prod(kernel); FLOPs = 2*MACs (+ out
//                   with a bias)
//   Gemm            MACs = M*N*K; FLOPs = 2*MACs (+ M*N when C is given); alpha/beta scaling
//                   not counted
//   MatMul          MACs = batch * M*N*K; FLOPs = 2*MACs
//   Max/AveragePool FLOPs = out * prod(kernel) (one compare or add per window element)
//   Global*Pool     FLOPs = input elements
//   BatchNorm       FLOPs = 2 per element (inference: folded scale and shift)
//   LayerNorm       FLOPs = 8 per element (mean 1, variance 3, normalise 2, affine 2)
//   Softmax         FLOPs = 5 per element (max, subtract, exp, sum, divide)
//   element-wise    FLOPs = 1 per output element for arithmetic ops (unary incl. transcendental,
//                   binary; variadic Max/Min count (inputs-1) per element); Identity, Dropout
//                   (inference) and Cast count 0
//   Reduce*         FLOPs = input elements (+ output elements for ReduceMean's division)
//   Resize          nearest 0; linear 3 per lerp, (2^k - 1) lerps per output element for k
//                   resized axes; cubic 2 per tap, 4^k taps
//   data movement   (Concat, Split, Slice, Reshape, Transpose, Flatten, Squeeze, Unsqueeze,
//                   Pad, DepthToSpace, SpaceToDepth, Gather, Expand): 0 FLOPs
// Bytes: bytes_read = bytes of every data input (activations, weights; an input used twice
// counts once), except that Slice reads only the selected elements and Gather reads the indices
// plus the gathered rows; shape-determining constants (Reshape's shape, Slice's starts, ...)
// are metadata and not counted. bytes_written = bytes of every output. Layout-only ops
// (is_layout_only) report the bytes a copy kernel would move; a model that treats them as free
// aliases should check is_layout_only itself.
// params = elements of the Weight-role inputs (Tensor::is_learned_weight: bool masks excluded).
struct OpCost {
  int64_t flops = 0;
  int64_t macs = 0;
  int64_t bytes_read = 0;
  int64_t bytes_written = 0;
  int64_t params = 0;

  OpCost& operator+=(const OpCost& o);
};

OpCost op_cost(const Graph& g, int op);

struct GraphCost {
  std::vector<OpCost> per_op;  // indexed by op
  OpCost total;                // sum over ops (params: each Weight tensor counted once)
};
GraphCost graph_cost(const Graph& g);

// Elements of all Weight-role tensors (each counted once, used or not).
int64_t parameter_count(const Graph& g);
// A learned parameter, counted in `params` and parameter_count: a Weight-role tensor that is not
// a bool mask (exports store attention-mask constants as bool initializers).
bool is_learned_weight(const Tensor& t);

// Cost of a fused group of ops run as one kernel: FLOPs and MACs summed; params = distinct
// Weight inputs; bytes_read = distinct tensors the group reads from outside (activations,
// weights, float constants; shape-determining inputs excluded), each whole; bytes_written =
// outputs of group ops that are graph outputs or read by ops outside the group. Intermediates
// stay on chip and cost no traffic.
OpCost group_cost(const Graph& g, const std::vector<int>& ops);

}  // namespace dgs
