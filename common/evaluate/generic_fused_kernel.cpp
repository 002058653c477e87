#include "common/evaluate/generic_fused_kernel.h"

#include <string>

#include "common/graph/op_cost.h"

namespace dgs {

std::vector<KernelLaunch> generic_fused_kernel(const Graph& g, const Task& task,
                                               const GpuSpec& spec) {
  KernelLaunch best;
  double best_flops = -1;
  double flops = 0;
  for (int op : task.ops) {
    for (const KernelLaunch& k : kernels_for_op(g, op, spec)) {
      flops += k.flops;
      if (k.flops > best_flops) {
        best_flops = k.flops;
        best = k;
      }
    }
  }
  if (best_flops < 0) return {};  // only layout ops: no kernel
  const OpCost c = group_cost(g, task.ops);
  best.name = "fused(" + std::to_string(task.ops.size()) + " ops)";
  best.flops = flops;
  best.dram_bytes = static_cast<double>(c.bytes_read + c.bytes_written);
  best.l2_bytes = best.dram_bytes;
  best.ops = task.ops;
  return {best};
}

}  // namespace dgs
