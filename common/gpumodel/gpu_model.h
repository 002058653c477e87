#pragma once
// GPU performance model shared by IOS, Welder and BrickDL (model mode).
//
// A kernel is a grid of identical thread blocks, each with its threads, registers and shared
// memory, and its share of the kernel's work (FLOPs) and traffic (DRAM and L2 bytes). The model
//   1. computes occupancy: resident blocks per SM, limited by threads, warps, registers (allocated
//      per warp in units of `register_allocation_unit`), shared memory and the block-slot limit;
//   2. runs an event-driven simulation of the blocks of one or more streams on the SMs
//      (simulate_stage): a launched kernel's blocks are dispatched to SMs with free resources; a
//      resident block progresses at a rate given by the roofline rule below, re-evaluated whenever
//      the set of resident blocks changes (processor sharing); a stage ends when its last block
//      ends;
//   3. maps each operator of a graph to the kernel(s) a cuDNN-class library would launch for it
//      (kernels_for_op; the rules are named in KernelRule and documented at kernels_for_op);
//   4. evaluates a whole dgs::Plan (plan_latency / evaluate_plan): stages run one after another,
//      tasks of a stage run concurrently on different streams, stage_sync_us between stages.
//
// THE RATE RULE (per resident block, re-evaluated at every event):
//   compute rate  c = P_sm * eta_k * w_b / max(W_sm, Wc)
//       P_sm  = peak rate of the kernel's math unit (FP32, FP16 SIMT or tensor) / sm_count
//       eta_k = the config's efficiency factor for the kernel's class (see gpu_efficiency below)
//       w_b   = warps of the block, W_sm = warps resident on its SM, Wc = compute saturation warps
//       (an SM's issue rate is shared by its resident warps; fewer than Wc warps cannot reach it)
//   DRAM rate     d = water-filling share of B_dram = dram_bandwidth * eta_dram among all resident
//       blocks of the GPU, in proportion to their warps, each capped by (a) what it can use at its
//       compute rate, (b) w_b * B_dram / (Wd * sm_count) (Little's law: Wd warps per SM saturate
//       DRAM, so one warp can keep at most that share in flight). L2 likewise with l2_bandwidth
//       and its own saturation warps (L2 latency is a fraction of DRAM's).
//   block time    t = max(flops_b / c, dram_b / d, l2_b / l2, block_min_us)   (roofline on the
//       block's shares; c is evaluated first, d and l2 use the demand it implies)
// Launch overhead: a kernel becomes ready kernel_launch_us after its predecessor on the same stream
// ends (the first kernel of a stream: kernel_launch_us after the stage starts). Dispatch order:
// ready kernels are served in the order they became ready (ties: lower stream first); a later
// kernel gets only the resources left by earlier ones (the hardware work distributor's FIFO);
// within a kernel, blocks are spread breadth-first over the SMs (one more block per SM per pass,
// least-loaded SMs first).
//
// Every tunable number is either a field of the hardware config (GpuSpec) or a named entry of its
// `efficiency` section (keys in gpu_efficiency, defaults below with their reasons).
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/graph/graph.h"
#include "common/hw/hardware.h"
#include "common/plan/plan.h"

namespace dgs {

// ---------------------------------------------------------------------------------------------
// Efficiency factors and model constants: names of entries in a config's "efficiency" section
// ---------------------------------------------------------------------------------------------
namespace gpu_efficiency {
// Achieved fraction of the per-SM peak rate for each kernel class (at >= Wc resident warps).
inline constexpr std::string_view kGemmFp32 = "gemm_fp32";  // implicit-GEMM conv / GEMM, FP32 SIMT
inline constexpr std::string_view kGemmFp16 = "gemm_fp16";  // same, FP16 SIMT (half2)
inline constexpr std::string_view kGemmTensor = "gemm_tensor";  // same, FP16 tensor cores
inline constexpr std::string_view kDirect = "direct_conv";      // depthwise / direct convolution
inline constexpr std::string_view kMemory = "memory_bound";  // element-wise, pooling, norms, copies
inline constexpr std::string_view kFused = "fused";          // generated fused kernels (Welder)
// Achieved fraction of peak bandwidth.
inline constexpr std::string_view kDram = "dram_bandwidth";
inline constexpr std::string_view kL2 = "l2_bandwidth";
// Saturation warps (not fractions; stored in the same section so one file holds all model inputs).
inline constexpr std::string_view kComputeSaturationWarps = "compute_saturation_warps_per_sm";
inline constexpr std::string_view kDramSaturationWarps = "dram_saturation_warps_per_sm";
inline constexpr std::string_view kL2SaturationWarps = "l2_saturation_warps_per_sm";
// The shortest time a block takes (warp launch + one DRAM round trip), in microseconds.
inline constexpr std::string_view kBlockMinUs = "block_min_us";

// Defaults used when a config omits an entry (each an assumption; see gpu_model.cpp for reasons).
double default_value(std::string_view key);
// spec.efficiency[key] if present, else default_value(key).
double get(const GpuSpec& spec, std::string_view key);
// All keys above, for printing the model's inputs next to a result.
std::vector<std::string_view> all_keys();
}  // namespace gpu_efficiency

// ---------------------------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------------------------
enum class MathUnit : uint8_t { Fp32, Fp16, Tensor };  // which peak rate bounds the FLOPs
std::string_view math_unit_name(MathUnit u);           // "fp32", "fp16", "tensor"

enum class KernelClass : uint8_t {
  Gemm,    // implicit-GEMM convolution or GEMM (cuDNN/cuBLAS-class tiles)
  Direct,  // direct convolution (depthwise)
  Memory,  // memory-bound: element-wise, pooling, normalisation, reduction, concat/copy
  Fused    // a generated fused kernel (Welder); efficiency "fused"
};
std::string_view kernel_class_name(KernelClass c);  // "gemm", "direct", "memory", "fused"

struct KernelLaunch {
  std::string name;         // e.g. "conv3x3:implicit_gemm_128x64"
  int64_t grid_blocks = 1;  // thread blocks in the grid
  int threads_per_block = 256;
  int registers_per_thread = 32;
  int64_t shared_bytes_per_block = 0;
  double flops = 0;       // whole kernel (a multiply-add counts 2)
  double dram_bytes = 0;  // whole kernel, bytes read + written that reach DRAM
  double l2_bytes = 0;    // whole kernel, bytes served by L2 (incl. those from DRAM)
  MathUnit math = MathUnit::Fp32;
  KernelClass klass = KernelClass::Memory;
  double compute_efficiency = 0;  // > 0 overrides the config's factor for `klass`
  std::vector<int> ops;           // graph ops this kernel computes (for reports); may be empty
};

// The per-SM resource limits of one block of a kernel.
enum class OccupancyLimit : uint8_t { Threads, Warps, Registers, SharedMemory, Blocks };
std::string_view occupancy_limit_name(OccupancyLimit l);

struct Occupancy {
  int blocks_per_sm = 0;  // resident blocks per SM when the kernel runs alone
  OccupancyLimit limited_by = OccupancyLimit::Blocks;
  int warps_per_block = 0;
  int registers_per_block = 0;   // after per-warp allocation rounding
  int64_t shared_per_block = 0;  // after allocation rounding
  int active_warps_per_sm = 0;   // blocks_per_sm * warps_per_block (theoretical)
  double occupancy = 0;          // active_warps_per_sm / max_warps_per_sm
};

// Occupancy of `k` on `spec`. Throws dgs::Error naming the kernel if a block cannot run at all
// (too many threads, registers per thread or shared memory per block).
Occupancy occupancy(const GpuSpec& spec, const KernelLaunch& k);

struct KernelEstimate {
  Occupancy occ;
  int64_t waves = 0;                 // ceil(grid_blocks / (blocks_per_sm * sm_count))
  double full_wave_block_us = 0;     // time of one block in a full wave (all SMs at blocks_per_sm)
  double latency_us = 0;             // launch overhead + execution (equals simulate_stage's result)
  double achieved_warps_per_sm = 0;  // time-averaged resident warps per SM over the latency
};

// One kernel alone on the GPU, computed analytically: full waves in closed form, the last partial
// wave with the same fluid rule as the simulation (equal to simulate_stage({{k}}) to rounding).
KernelEstimate estimate_kernel(const GpuSpec& spec, const KernelLaunch& k);

// ---------------------------------------------------------------------------------------------
// Stages: several streams in flight
// ---------------------------------------------------------------------------------------------
struct KernelTiming {
  int stream = 0;       // index into the `streams` argument
  int index = 0;        // position in its stream
  double ready_us = 0;  // launched (after its launch overhead): its blocks may be dispatched
  double start_us = 0;  // first block dispatched
  double end_us = 0;    // last block finished
};

struct StageResult {
  double latency_us = 0;               // last block's end (no stage synchronisation included)
  std::vector<KernelTiming> kernels;   // one per kernel, streams in order, kernels in stream order
  double avg_active_warps_per_sm = 0;  // time-averaged over [0, latency]
  double avg_busy_sms = 0;             // time-averaged SMs holding at least one block
  int64_t events = 0;                  // simulation events processed (for the microbenchmark)
};

// Simulates one stage: streams[s] is a sequence of kernels on stream s; streams run concurrently.
// Empty streams are allowed; an empty stage has latency 0.
StageResult simulate_stage(const GpuSpec& spec,
                           const std::vector<std::vector<KernelLaunch>>& streams);
// The same, with the kernels given by pointer (no copies; for searches that assemble stages
// from cached kernels).
StageResult simulate_stage_refs(const GpuSpec& spec,
                                const std::vector<std::vector<const KernelLaunch*>>& streams);

// ---------------------------------------------------------------------------------------------
// Lower bounds on a stage's latency (no simulation), for searches that skip stages that cannot win
// ---------------------------------------------------------------------------------------------
// What simulate_stage's rules guarantee about one kernel, or the sum over several kernels (+=):
//  * some SM runs ceil(grid / sm_count) of its blocks, at most at the SM's full rate together;
//  * a block progresses at most at 1/t_min, t_min = max(flops_b / (P_sm * eta_k * share_max),
//    dram_b / (w_b * dram warp cap), l2_b / (w_b * l2 warp cap), block_min_us) with
//    share_max = w_b / max(w_b, Wc) (the block alone on its SM); at most blocks_per_sm * sm_count
//    blocks of a kernel are resident at once, so its blocks take >= ceil(grid / that) * t_min;
//  * the GPU moves at most B_dram (B_l2) bytes per us, and an SM computes at most P_sm * eta_k;
//  * a kernel starts kernel_launch_us after its predecessor on the stream ends.
struct KernelWorkBound {
  double stream_us = 0;  // launch overhead + the least time the kernel(s) can take, in sequence
  double sm_us = 0;      // flops / (P_sm * eta_k * sm_count): the GPU's compute time at full rate
  double dram_us = 0;    // dram_bytes / B_dram
  double l2_us = 0;      // l2_bytes / B_l2 (0 without an L2 limit)
  int64_t kernels = 0;
  KernelWorkBound& operator+=(const KernelWorkBound& o);
};
KernelWorkBound kernel_work_bound(const GpuSpec& spec, const KernelLaunch& k);

// A lower bound on simulate_stage's latency for streams whose kernels' bounds sum to
// `streams[s]` (one entry per stream): the longest stream, and the stage's total compute, DRAM
// and L2 work at the GPU's full rates after the first launch; lowered by a relative margin that
// covers the simulation's rounding, so that it never exceeds the simulated latency.
double stage_latency_lower_bound_us(const GpuSpec& spec,
                                    const std::vector<KernelWorkBound>& streams);

// ---------------------------------------------------------------------------------------------
// Operators -> kernels (the named rules a cuDNN-class library follows)
// ---------------------------------------------------------------------------------------------
// Rules, one per op family (constants in gpu_model.cpp):
//  ImplicitGemm  Conv (not depthwise), ConvTranspose, Gemm, MatMul: output tiles (M x N) of
//                128 x 64, or 64 x 64, or 64 x 32: the largest whose grid has >= one block per SM
//                (else the smallest; no split-K); 256 threads, 126 registers/thread (the cuDNN
//                kernel of IOS thesis §2.3, whose 48-block example this rule reproduces),
//                shared memory = double-buffered A/B K-slices of 8 (12 KiB FP32 at 128 x 64);
//                conv: M = N*OH*OW, N = C_out/g, K = C_in/g*KH*KW, grid = g*ceil(M/tm)*ceil(N/tn);
//                matmul: grid = batch*ceil(M/tm)*ceil(N/tn). FLOPs and DRAM bytes (inputs incl.
//                weights + outputs once each; L2 absorbs the re-reads) from op_cost
//                (common/graph/analysis.h); L2 bytes = DRAM bytes + the tile re-reads: every
//                tile reads its tm x K A-panel and K x tn B-panel. Name "<op>:implicit_gemm_TMxTN".
//  DepthwiseDirect  Conv with groups == C_in and C_out a multiple of C_in: 256 threads, one
//                output element per thread, 32 registers, no shared memory.
//  ElementwiseMemory  element-wise, pooling, BatchNorm, Softmax, LayerNorm, reductions, Concat,
//                Split, Slice, Transpose, Pad, Resize, Gather, Expand, ...: 256 threads, one output
//                element per thread, 32 registers, no shared memory; for reductions the grid
//                covers max(outputs, inputs / 16) threads (a thread reads <= 16 inputs).
//  LayoutOnly    Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout: no kernel.
enum class KernelRule : uint8_t { ImplicitGemm, DepthwiseDirect, ElementwiseMemory, LayoutOnly };
std::string_view kernel_rule_name(KernelRule r);
KernelRule kernel_rule_for(const Graph& g, int op);

struct KernelOptions {
  // FP16 convolutions/GEMMs use tensor cores when the GPU has them (peak_tensor_tflops > 0).
  // false: FP16 runs on SIMT FP16 (Welder Fig. 11 "FP16 w/o TensorCore"). FP32 never uses them
  // (IOS runs cuDNN with CUDNN_DEFAULT_MATH / FMA math on FP32).
  bool tensor_cores = true;
  // A Relu whose input is produced by a Conv/ConvTranspose/Gemm/MatMul with no other consumer
  // launches nothing: it runs in that kernel's epilogue (IOS's cudnnConvolutionBiasActivation-
  // Forward). The producer's kernel is unchanged (the epilogue costs nothing extra).
  bool fold_activation = false;
};

// Whether op `op` is a Relu that fold_activation removes (see KernelOptions).
bool is_folded_activation(const Graph& g, int op);

// The kernels op `op` launches (empty for layout-only ops). Throws dgs::Error naming the op for a
// kind the rules do not cover.
std::vector<KernelLaunch> kernels_for_op(const Graph& g, int op, const GpuSpec& spec,
                                         const KernelOptions& opts = {});

// IOS operator merge: convolutions `ops` that read the same input tensor, merged into one
// convolution whose kernel is the largest KH x KW among them (smaller kernels zero-padded, padding
// FLOPs counted), C_out = sum of C_out, output = the concatenation. Requires same input, stride,
// dilation and groups == 1, and "same"-style padding so outputs agree (checked; throws dgs::Error
// naming the op otherwise). Returns the merged conv's kernel (implicit GEMM), whose DRAM bytes
// are input once + zero-padded weights + biases + the outputs; the split back into the original
// outputs is a channel-range view (as in the IOS engine), so it launches nothing. A single op
// gives kernels_for_op.
std::vector<KernelLaunch> kernels_for_merged_conv(const Graph& g, const std::vector<int>& ops,
                                                  const GpuSpec& spec,
                                                  const KernelOptions& opts = {});

// The kernels of a Merged plan task (IOS operator merge): `ops` holds the convolutions to merge
// (read the same input; see kernels_for_merged_conv) plus, optionally, element-wise ops that run
// in those convolutions' epilogues (is_folded_activation; requires opts.fold_activation, e.g.
// IOS's Conv+Relu schedule units). Each epilogue op must follow (through a chain of epilogue ops)
// a convolution of the task. Returns the merged conv's kernel with `ops` = the task's ops. Throws
// dgs::Error naming the op that is neither.
std::vector<KernelLaunch> kernels_for_merged_task(const Graph& g, const std::vector<int>& ops,
                                                  const GpuSpec& spec,
                                                  const KernelOptions& opts = {});

// ---------------------------------------------------------------------------------------------
// Plans
// ---------------------------------------------------------------------------------------------
// Supplies the kernel(s) of a Fused task (Welder computes its own tiles and traffic).
using FusedKernelFn =
    std::function<std::vector<KernelLaunch>(const Graph&, const Task&, const GpuSpec&)>;

// The streams of one stage: one per task, in task order. Sequential task = kernels_for_op of its
// ops in order; Merged task = kernels_for_merged_task (a single-conv merged task = kernels_for_op);
// Fused task = fused(g, task, spec) (throws dgs::Error if `fused` is empty).
std::vector<std::vector<KernelLaunch>> stage_streams(const Graph& g, const Stage& stage,
                                                     const GpuSpec& spec,
                                                     const FusedKernelFn& fused = {},
                                                     const KernelOptions& opts = {});

// simulate_stage(spec, stage_streams(g, stage, spec, fused, opts)): the latency of one stage of
// a plan (no synchronisation), e.g. for IOS's dynamic program.
StageResult simulate_plan_stage(const Graph& g, const Stage& stage, const GpuSpec& spec,
                                const FusedKernelFn& fused = {}, const KernelOptions& opts = {});

// THE SYNCHRONISATION RULE (one rule, used by evaluate_plan and by stage-wise searches such as
// IOS's dynamic program, so that a search's objective equals the plan's evaluated latency): a
// stage with more than one task runs its tasks on several streams and ends with one
// synchronisation (stage_sync_us: its streams join before anything after it starts; the last
// stage too, since the network's output is complete only after the join). A single-task stage
// runs on stream 0 (the legacy default stream, which orders itself with every other stream) and
// pays nothing. The cost is thus a property of the stage alone and adds up over stages.
bool stage_ends_with_sync(size_t num_tasks);
// stage_sync_us if stage_ends_with_sync(num_tasks), else 0.
double stage_sync_cost_us(const GpuSpec& spec, size_t num_tasks);
// stage_ends_with_sync(plan.stages[i].tasks.size()) (false for i out of range).
bool needs_stage_sync(const Plan& plan, size_t i);

struct PlanEvaluation {
  double latency_us = 0;                           // sum of stage latencies + synchronisations
  std::vector<double> stage_latency_us;            // per stage, without synchronisation
  double sync_us = 0;                              // total synchronisation cost
  int64_t kernels = 0;                             // kernels launched
  double flops = 0, dram_bytes = 0, l2_bytes = 0;  // summed over kernels
  double avg_active_warps_per_sm = 0;  // time-averaged over the whole plan (syncs count as 0)
};

PlanEvaluation evaluate_plan(const Graph& g, const Plan& plan, const GpuSpec& spec,
                             const FusedKernelFn& fused = {}, const KernelOptions& opts = {});

// evaluate_plan(...).latency_us, in microseconds.
double plan_latency(const Graph& g, const Plan& plan, const GpuSpec& spec,
                    const FusedKernelFn& fused = {}, const KernelOptions& opts = {});

}  // namespace dgs
