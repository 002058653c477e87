#pragma once
// A network as IOS schedules it: schedule units (compound operators, thesis
// §4.1), blocks, and parts of at most 50 units (the authors' max_part_size in
// every experiment script).
//
// Schedule units (the thesis lets the user define them; Table 4.1 names
// Conv-Relu and Relu-SepConv). Rule used here, which reproduces the authors'
// unit counts 119 / 120 / 374 / 50:
//  * Conv [+ its Relu]                              (Conv-Relu; the Relu is
//  fused into the conv)
//  * [terms] Relu Conv [1x1 Conv after a depthwise]  (Relu-Conv, Relu-SepConv)
//  * [terms]                                         (the authors' Identity:
//  Adds, then a Concat)
//  * any other op alone (pools, ...).
//  "terms" are Add ops (and one Concat) that combine inputs: an Add/Concat
//  absorbs the pure-Add units that feed only it; a Relu absorbs the terms unit
//  that feeds only it. An op joins its producer's unit only if it is that
//  output's only consumer. Layout-only ops form no unit of their own unless
//  nothing else holds them.
// Blocks: a block ends after unit U when U's output is the only value live at
// that point and
//  either U combines values (Add/Concat) or U's output fans out to several
//  units (a branch starts); this gives the authors' block containers (13 / 6 /
//  12 for Inception V3 / RandWire / SqueezeNet). NasNet's explicit per-cell
//  parts come from its op names ("<cell>.<...>"): PartRule::NamePrefix.
// Side inputs (PartRule::Blocks): values computed by cheap ops (element-wise,
//  layout, gathers) from graph inputs other than the first (or compared to bool
//  from the first), such as a BERT export's attention mask read by every layer,
//  neither hold a cut open nor keep a block open: the authors' IR has one data
//  input, and an edge from an early block to a later one is legal (NASNet
//  cells read the cell before last). A network with one float input has none.
#include <string>
#include <vector>

#include "common/graph/graph.h"
#include "reproductions/ios/dp.h"

namespace dgs::ios {

struct Unit {
  std::string name;        // the common prefix of its ops' names
  std::vector<int> ops;    // graph ops, in topological order
  std::vector<int> preds;  // units it reads from (unit indices, ascending)
  int conv = -1;           // the Conv op of a Conv[-Relu] unit that can be merged, else -1
  bool has_relu = false;   // a Conv-Relu unit (activation fused)
  std::string kind;        // "Conv-Relu", "Conv", "Relu-Conv", "Relu-SepConv",
                           // "Identity", op kind
};

struct Part {
  std::string block;       // the block's name
  int index_in_block = 0;  // 0, 1, ... when a block is split
  std::vector<int> units;  // unit indices, topological
};

enum class PartRule { Blocks, NamePrefix };

struct Network {
  const Graph* graph = nullptr;
  std::vector<Unit> units;          // topological order
  std::vector<std::string> blocks;  // block names in order
  std::vector<Part> parts;          // in execution order
  int num_blocks() const { return static_cast<int>(blocks.size()); }
};

// Builds the units, blocks and parts of `g`. `max_part_size` <= 64 (bitmask
// states).
Network make_network(const Graph& g, PartRule rule, int max_part_size = 50);

// The part's DAG over its units (local indices = positions in part.units), with
// merge classes: units whose Conv reads the same tensor with equal stride,
// dilation, output size, alignment (2*pad - kernel per axis) and activation,
// with group 1, share a class.
PartDag part_dag(const Network& net, const Part& part);

// The rule for a zoo model name: NamePrefix for nasnet_large, Blocks otherwise.
PartRule default_part_rule(const std::string& model);

}  // namespace dgs::ios
