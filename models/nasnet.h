#pragma once
// NasNet-A Large as the IOS authors define it (see nasnet.cpp); zoo
// "nasnet_large".
#include "common/graph/graph.h"
#include "models/zoo.h"

namespace dgs {
Graph build_nasnet_large(const ZooOptions& opts);
}  // namespace dgs
