#pragma once
// ResNet18-Tailor (OSDI'23 §5.3, Table 5 and Fig. 18) as graphs and as the kernels of the three
// schedules the paper compares on the A100:
//   per-layer      one kernel per conv+ReLU layer (TVM wrapping CUTLASS, Fig. 18a);
//   two-conv       one kernel per stage, conv3x3+ReLU -> conv1x1+ReLU back to back, the
//                  intermediate kept on chip (CUTLASS's fusion, Fig. 18b);
//   instance split stages split into batch instances, run in the scheduler's order of instances
//                  (Algorithm 3: a consumer instance right after its producers), so that an
//                  instance's output can stay in L2 for the next stage (GraphTurbo, Fig. 18c).
// The instance-split graph makes the paper's inserted operators (§3.5) explicit: a Slice of the
// input per instance (the split) and a Concat of the producer instances a consumer instance
// reads when it spans several (before the first unsplit stage, or between factors 4 and 2). Its
// weights and input have the same names as the plain graph's, so make_graph_feeds gives both the
// same values and their outputs are equal. Shapes the paper omits are named defaults (TailorShape).
#include <cstdint>
#include <string>
#include <vector>

#include "common/graph/graph.h"
#include "common/hw/hardware.h"
#include "common/plan/plan.h"
#include "common/tileprog/network_program.h"
#include "reproductions/graphturbo/grouping.h"

namespace dgs::graphturbo {

struct TailorShape {
  int64_t image = 56;     // input height and width (after the excluded stem)
  int stages = 4;         // conv3x3+ReLU -> conv1x1+ReLU each, stride 2 in stages 2..
  int64_t channels = 64;  // stage s has channels << s
};

struct TailorNetwork {
  Graph graph;
  std::string schedule;                   // "per-layer", "two-conv fusion", "instance split"
  std::vector<std::vector<int>> kernels;  // op groups, one kernel each, in execution order
  std::vector<std::string> kernel_names;  // e.g. "stage1.instance2" (Fig. 18's labels)
  int inserted_ops = 0;                   // Slice and Concat ops of §3.5 in the graph
  // Instance splits: the kernels follow Algorithm 3's order (true) or BFS's (lower peak of live
  // instance outputs, instances.h).
  bool algorithm3_order = false;
};

// The plain network; every conv without bias, each followed by a ReLU.
Graph resnet18_tailor(int64_t batch, DType dtype, const TailorShape& shape = {});

TailorNetwork tailor_per_layer(int64_t batch, DType dtype, const TailorShape& shape = {});
TailorNetwork tailor_two_conv(int64_t batch, DType dtype, const TailorShape& shape = {});
// Stage s in factors[s] batch instances (1: unsplit), each factor dividing `batch` and a multiple
// of the next stage's (a consumer instance reads whole producer instances: one, or a Concat of
// several, §3.5; the first stage's instances each read a Slice of the input). The kernels are the
// instances, ordered as the scheduler orders instances (instances.h): Algorithm 3 unless BFS keeps
// fewer bytes of instance outputs live.
TailorNetwork tailor_instances(int64_t batch, DType dtype, const std::vector<int64_t>& factors,
                               const TailorShape& shape = {});
// The first `split_stages` stages in `instances` instances each, the rest unsplit (Fig. 18c:
// 2 and 2). Requires 1 <= split_stages <= shape.stages.
TailorNetwork tailor_instance_split(int64_t batch, DType dtype, int split_stages, int instances,
                                    const TailorShape& shape = {});

// GraphTurbo's split of the two-conv sub-graphs on a GPU, recomputed: Algorithm 1 and Eq. 1
// (make_subgraph) on each stage of the network at `batch` in FP16 (the paper's datatype), the
// sub-graphs fixed to CUTLASS's pairs (it refuses three or more convs in a kernel, §5.6, so no
// merges), with the GPU's L2 in the LLB's part: capacity = kSplitCapacityFractionOfLlb x L2,
// candidate factors up to the SM count. Returns the factor of every stage and the parameters used.
struct TailorSplit {
  std::vector<int64_t> factors;
  GtParams params;
};
TailorSplit tailor_algorithm1_split(int64_t batch, const GpuSpec& gpu,
                                    const TailorShape& shape = {});

// Spatial edge of a kernel's output tile: tiles are one image, all output channels (a 1x1 conv
// after a 3x3 one needs every channel of the intermediate), kTailorTileEdge x kTailorTileEdge
// pixels (clipped at the image's edge). An assumption: small enough that a block's
// scratch (the 3x3 conv's output tile with its halo) stays a few hundred KiB at 512 channels.
inline constexpr int64_t kTailorTileEdge = 8;

// The tile programs of `net`'s kernels (common/tileprog), one per kernel, in order.
NetworkProgram tailor_program(const TailorNetwork& net);
// `net`'s kernels as a Plan v2 of net.graph: one stage per kernel, one Fused task each with the
// kernel's output tile (run_plan checks the inserted Slice/Concat ops with the rest).
Plan tailor_plan(const TailorNetwork& net);

}  // namespace dgs::graphturbo
