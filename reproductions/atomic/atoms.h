#pragma once
// Atoms (Sec. III-IV-A of the Atomic Dataflow paper): sub-tasks of a layer, each an output region
// of one sample (batch replication: every sample has the same atoms) and, for convolutions and
// matrix products, a slice of the input channels whose partial sums are added at the region's home.
// Their dependencies come from the shared iteration spaces: atom y of layer m depends on atom x of
// layer l when x's output region (and its input-channel slices) intersects the input region y
// reads (common/graph/iteration_space.h, reduction_slice.h). Engine cycles come from the shared
// DSA unit cost (common/dsamodel/unit_cost.h: the KC-P and YX-P fits with fill and drain).
//
// Layers are the graph's ops. An atom shape splits a layer's output per sample:
//   rank-4 outputs [N, C, H, W]: c_out channels x h rows x w columns, and c_in input channels
//   (matrix ops whose reduction axis is "c_in"; 0 = all of them);
//   rank-2 outputs [N, C] (Gemm, MatMul, Flatten): c_out columns and c_in of the "k" axis;
//   layout-only ops (unit None), outputs of other ranks or without the
//   batch on axis 0, and ops with several outputs: one atom for the whole batch.
#include <cstdint>
#include <string>
#include <vector>

#include "common/graph/graph.h"
#include "common/graph/iteration_space.h"
#include "common/hw/dsa_spec.h"

namespace dgs::atomic {

// Sizes of one atom along its layer's output (and reduction) axes; 0 = the whole axis.
struct AtomShape {
  int64_t h = 0, w = 0, c_out = 0, c_in = 0;
  bool operator==(const AtomShape&) const = default;
};

struct Layer {
  int op = -1;
  int output = -1;               // the op's output 0
  Shape shape;                   // of the output (with the batch)
  bool splittable = false;       // rank 2 or 4 output, batch on axis 0, a compute op
  std::string reduction_axis;    // "c_in" / "k" when the op sums over it and may be sliced
  int64_t reduction_extent = 0;  // of that axis (per group for grouped convolutions)
  bool matrix = false;           // runs on the PE array
  int depth = 0;                 // longest path (in layers) from a graph input
  double macs_per_sample = 0;    // of the whole layer, one sample
};

struct Atom {
  int layer = -1;
  int sample = 0;
  Region region;        // of the layer's output
  Interval c_in{0, 0};  // reduction slice ({0,0}: the whole axis)
  double cycles = 0;    // on one engine, without communication (unit_cost)
  double macs = 0;
  int64_t out_bytes = 0;  // the region at the config's element size
  int index_in_layer = 0;
};

struct AtomicDag {
  int batch = 1;
  std::vector<Layer> layers;      // in topological order
  std::vector<AtomShape> shapes;  // per layer
  std::vector<Atom> atoms;        // grouped by layer, then sample
  std::vector<std::vector<int>> atoms_of_layer;
  std::vector<std::vector<int>> preds, succs;  // atom-level edges
  double total_macs() const;
};

// The batch of `g` (built with the batch on axis 0): its first input's axis 0 (1 without one).
int64_t graph_batch(const Graph& g);

// The layers of `g` (topological order, with depths and per-sample MACs).
std::vector<Layer> graph_layers(const Graph& g);

// The regions (output boxes and reduction slices) of one sample of `layer` cut by `shape`.
struct AtomRegion {
  Region region;
  Interval c_in{0, 0};
};
std::vector<AtomRegion> layer_atom_regions(const Layer& layer, const AtomShape& shape, int sample);
// The first of them (the full-size atom) and their number, without listing them.
AtomRegion first_atom_region(const Layer& layer, const AtomShape& shape);
int64_t atoms_per_sample(const Layer& layer, const AtomShape& shape);

// Cycles of one atom of `layer` on one engine of `spec` (unit_cost.h), and its MACs.
struct AtomCost {
  double cycles = 0;
  double macs = 0;
};
AtomCost atom_cost(const Graph& g, const Layer& layer, const AtomRegion& a, const DsaSpec& spec);

// Bytes one atom keeps in its engine's buffer while it runs: the input regions it reads (its
// input-channel slice), its weights and its output region, at the config's element size.
int64_t atom_working_bytes(const Graph& g, const Layer& layer, const AtomRegion& a,
                           const DsaSpec& spec);

// Cuts every layer of `g` (built with batch `batch` on axis 0) by `shapes` (one per layer of
// graph_layers) and links the atoms by receptive-field intersection.
AtomicDag build_atomic_dag(const Graph& g, const std::vector<AtomShape>& shapes,
                           const DsaSpec& spec);

}  // namespace dgs::atomic
