#pragma once
// GraphTurbo's GPU schedules of ResNet18-Tailor (tailor.h) on the GPU model, for Table 5 and
// Fig. 18 (table5.cpp, fig18.cpp). Three schedules: TVM wrapping CUTLASS per layer (one kernel per
// conv+ReLU layer), CUTLASS two-conv fusion (four back-to-back kernels, the intermediate kept on
// chip), and GraphTurbo's (the first two fused sub-graphs split into two batch instances, run
// instance by instance so that an instance's output stays in L2 for the next sub-graph's
// instance). Plans are checked and priced by evaluate().
#include <cstdint>
#include <string>
#include <vector>

#include "common/gpumodel/kernel.h"
#include "common/graph/graph.h"
#include "common/hw/hardware.h"
#include "common/hw/hardware_spec.h"
#include "common/plan/plan.h"

namespace dgs::graphturbo {

// The paper's split of Fig. 18c: the first two sub-graphs (stages) in two batch instances each.
// Table 5's reproduced GraphTurbo row runs the split Algorithm 1 computes
// (tailor_algorithm1_split); this one runs beside it, labelled as the paper's.
inline const std::vector<int64_t> kFig18cFactors = {2, 2, 1, 1};

// ResNet18-Tailor in FP16 at `batch`.
Graph tailor_f16(int64_t batch);

// The kernels of a Fused task: one stage's two convs = one back-to-back kernel; a run of split
// stages (factors[s] > 1, each a multiple of the next) = their instances in Algorithm 3's order (a
// consumer instance right after the producer instances it reads), a consumer instance reading its
// producers' outputs from L2 (up to the L2's size; the paper keeps them on chip).
std::vector<KernelLaunch> fused_kernels(const Graph& g, const Task& t, const GpuSpec& spec,
                                        const std::vector<int64_t>& factors);

// "4/2/1/1"
std::string factors_text(const std::vector<int64_t>& factors);

enum class GpuSchedule { Tvm, CutlassFusion, GraphTurbo };

// GraphTurbo's plan: a run of consecutive split stages (factor > 1) is one Fused task (its
// instances, fused_kernels), every other stage its two-conv kernel.
Plan gpu_plan(const Graph& g, GpuSchedule s, const std::vector<int64_t>& factors = {});

// The plan of schedule `s` checked and priced by evaluate() on `hw` (a GPU), its Fused tasks'
// kernels GraphTurbo's (fused_kernels, tailor.h).
double gpu_ms(const Graph& g, GpuSchedule s, const HardwareSpec& hw,
              const std::vector<int64_t>& factors = {});

}  // namespace dgs::graphturbo
