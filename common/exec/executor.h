#pragma once
// CPU reference executor: runs a Graph (or a subset of its ops, or one op) on real numbers with
// ONNX semantics, in float32 (int64 where the op needs integers: Gather indices, shapes, Cast).
//
// It is the ground truth that every scheduled execution (fused groups, merged convolutions, tiles,
// split instances, halo tiles, CUDA kernels) is compared with, on random inputs (tensor_data.h says
// how values are compared). Convolutions run as im2col + Eigen GEMM per group, ConvTranspose as
// Eigen GEMM + col2im, MatMul/Gemm as Eigen products; Eigen stays inside the .cpp files.
//
// Semantics are ONNX opset 13-17 for every OpKind (the Graph records no opset: Softmax is the
// opset-13 form, not the older "flatten to 2-D" one). Known unsupported features (they throw
// UnsupportedFeature): BatchNormalization and Dropout in training mode, Resize with
// tf_crop_and_resize / antialias / axes, Pad mode 'wrap', Cast to types without a DType. NaN
// propagates through every op (Max/Min, MaxPool, ReduceMax, Relu included), which
// run_op_region relies on. Checked against ONNX's backend test data by tests/onnxcheck.
//
// Typical use (checking a transformed graph against the original on the same random inputs):
//   TensorValues ref = run_graph(original, {}, /*seed=*/1);
//   TensorValues got = run_graph(transformed, {}, 1);   // same names -> same random inputs
//   compare_tensors(got.at(transformed.find_tensor("y")), ref.at(original.find_tensor("y")));
#include <cstdint>
#include <map>
#include <vector>

#include "common/exec/tensor_data.h"
#include "common/graph/graph.h"
#include "common/graph/iteration_space.h"

namespace dgs {

// Values by tensor index of one graph.
using TensorValues = std::map<int, TensorData>;

// An operator, attribute value or dtype that the executor does not implement (for example Resize
// with coordinate_transformation_mode=tf_crop_and_resize, or BatchNormalization in training mode).
// The message names the op and the feature.
class UnsupportedFeature : public Error {
 public:
  explicit UnsupportedFeature(const std::string& what) : Error(what) {}
};

// Values for every Input, Weight and Constant tensor of `g`: taken from `feeds` where given (their
// shapes must match the graph's), from the graph's int_data/float_data for Constants, and random
// otherwise (random_tensor(shape, dtype, tensor_seed(seed, name)); integer tensors used as Gather
// indices are drawn in [0, size of the gathered axis); Weight operands of Conv, ConvTranspose,
// Gemm and MatMul are scaled to He-uniform [-sqrt(6/fan_in), sqrt(6/fan_in)] so that deep
// networks neither overflow nor vanish; BatchNormalization variances lie in [0.5, 1.5]).
TensorValues make_graph_feeds(const Graph& g, const TensorValues& feeds, uint64_t seed);

// Runs every op of `g` in topological order on make_graph_feeds(g, feeds, seed). Returns the
// values of every tensor: inputs, weights, constants and every op output.
TensorValues run_graph(const Graph& g, const TensorValues& feeds, uint64_t seed);

// Runs the ops `ops` of `g` in the given order (which must respect their dependencies), reading
// each op's inputs from `values` (Constant tensors may be absent: their graph data is used) and
// storing its outputs into `values`. Throws dgs::Error if an input has no value.
void run_ops(const Graph& g, const std::vector<int>& ops, TensorValues& values);

// Computes op `op` of `g` from `values` (as run_ops does) and returns its outputs in the order of
// Op::outputs, checking that each has the shape the graph states.
std::vector<TensorData> run_op(const Graph& g, int op, const TensorValues& values);

// The kernel level: computes `op` from its input values (inputs[i] is nullptr for an omitted
// optional input; Constant inputs must be given as values too) without consulting any graph, so
// it works on inputs of any size (tiles, sub-graphs). Returns `num_outputs` outputs.
std::vector<TensorData> compute_op(const Op& op, const std::vector<const TensorData*>& inputs,
                                   int num_outputs);

// The value of a Constant tensor from its graph data (int_data or float_data).
TensorData constant_value(const Tensor& t);

// ---------------------------------------------------------------------------------------------
// Regions (tiles): checking tile-by-tile execution against whole-tensor execution
// ---------------------------------------------------------------------------------------------
// The elements of region `r` of `t` (a tensor of shape = the region's sizes). Throws dgs::Error
// if `r` has the wrong rank or leaves t's bounds.
TensorData extract_region(const TensorData& t, const Region& r);

// Writes `tile` (shape = the region's sizes) into region `r` of `t`.
void insert_region(TensorData& t, const Region& r, const TensorData& tile);
// Copies box `from` of `src` into box `to` of `dst` (the same sizes and dtype class; both inside
// their tensors): extract_region and insert_region in one step, without the intermediate tile.
void copy_region(const TensorData& src, const Region& from, TensorData& dst, const Region& to);

// Computes output tile `output_tile` of output `output_index` of op `op` from input tiles only:
// input_tiles[i] holds the elements of region input_regions[i] of op input i (for example the
// regions input_regions(g, op, output_tile) from iteration_space.h says the tile needs, cut from
// full tensors with extract_region). Constant inputs may be left out (empty region and tile):
// their graph data is used. Every element outside the given regions is unknown: float inputs
// hold NaN there, so an output element that depends on a missing input element comes out NaN and
// a comparison with the whole-tensor result (compare_tensors) fails. Integer inputs must be given
// whole. The work is proportional to the tile and its halo for most ops (compute_op_region in
// region_eval.h says which; the others are evaluated whole and the tile cut out).
TensorData run_op_region(const Graph& g, int op, const std::vector<Region>& input_regions,
                         const std::vector<TensorData>& input_tiles, const Region& output_tile,
                         int output_index = 0);

}  // namespace dgs
