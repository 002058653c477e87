#pragma once
// GENERIC_FUSED_KERNEL_RULE: how the GPU model prices a Fused task of a plan whose scheduler does
// not model its own fused kernels (a plan file, an external scheduler). A fused task is one kernel
// with the launch shape (grid, threads, registers, shared memory, math unit, class) of its most
// expensive op's kernel, the FLOPs of all its ops, and DRAM traffic equal to the group's external
// traffic (dgs::group_cost: tensors read from or written to outside the group once each;
// intermediates stay on chip). It ignores tile re-reads and on-chip capacity: an optimistic bound
// for any fusion, stated wherever it is used.
#include <vector>

#include "common/gpumodel/gpu_model.h"
#include "common/graph/graph.h"
#include "common/plan/plan.h"

namespace dgs {

inline constexpr const char* kGenericFusedKernelRuleName = "GENERIC_FUSED_KERNEL_RULE";

// A FusedKernelFn (common/gpumodel/gpu_model.h) implementing the rule above.
std::vector<KernelLaunch> generic_fused_kernel(const Graph& g, const Task& task,
                                               const GpuSpec& spec);

}  // namespace dgs
