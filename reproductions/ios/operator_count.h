#pragma once
// Operator counts as the IOS thesis reports them (Table 4.1: 119 operators in Inception V3, 120 in
// RandWire, 50 in SqueezeNet), computed with the suite's generic layer grouping
// (common/graph/op_grouping.h): the counted compound units. An independent check of the units
// that network.h builds for scheduling.
#include "common/graph/graph.h"
#include "common/graph/op_grouping.h"

namespace dgs::ios {

// The number of operators "the way IOS counts them": counted compound units of `g`.
int ios_operator_count(const Graph& g, const CompoundOptions& opts = {});

// IOS's conventions for networks whose nodes sum their input terms (RandWire, the authors'
// graphs): a node's input sums belong to its Relu-SepConv unit, stage exits (the authors'
// Identity nodes) are sum units, and an activation is not merged into the conv after it.
CompoundOptions ios_sum_node_options();

}  // namespace dgs::ios
