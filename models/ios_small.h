#pragma once
// The four-convolution graph of IOS thesis Fig. 1.2 (see ios_small.cpp); zoo
// "ios_fig1_2".
#include "common/graph/graph.h"
#include "models/zoo.h"

namespace dgs {
Graph build_ios_fig1_2(const ZooOptions& opts);
}  // namespace dgs
