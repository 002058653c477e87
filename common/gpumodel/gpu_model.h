#pragma once
// GPU performance model, shared by every paper that evaluates plans on a GPU (model mode).
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
//      tasks of a stage run concurrently on different streams, stage_sync_us between stages;
//      a tensor that the next kernel of its stream reads stays in L2 when it fits in the
//      stream's share (l2_residency.h).
//
// THE RATE RULE (per resident block, re-evaluated at every event):
//   compute rate  c = min(P_sm * eta_k, cap_tile) * w_b / max(W_sm, Wc)
//       P_sm  = peak rate of the kernel's math unit (FP32, FP16 SIMT or tensor) / sm_count
//       eta_k = the config's efficiency factor for the kernel's class (see gpu_efficiency below)
//       cap_tile = for a GEMM-class kernel that states its block's tile (KernelLaunch::tile), the
//       tile's arithmetic intensity against the SM's shared-memory bandwidth (the operand rule,
//       kernel.h); otherwise none
//       w_b   = warps of the block, W_sm = warps resident on its SM, Wc = compute saturation warps
//       (an SM's issue rate is shared by its resident warps; fewer than Wc warps cannot reach it)
//   DRAM rate     d = water-filling share of B_dram = dram_bandwidth * eta_dram among all resident
//       blocks of the GPU, in proportion to their warps, each capped by (a) what it can use at its
//       compute rate, (b) w_b * B_dram / (Wd * sm_count) (Little's law: Wd warps per SM saturate
//       DRAM, so one warp can keep at most that share in flight). L2 likewise with l2_bandwidth
//       and its own saturation warps (L2 latency is a fraction of DRAM's).
//   block time    t = max(flops_b / c, dram_b / d, l2_b / l2, block_min_us)   (roofline on the
//       block's shares; c is evaluated first, d and l2 use the demand it implies)
// Launches come from one host thread: it issues a stage's launches stream by stream (stream 0's
// kernels in order, then stream 1's, ...: the order a runtime's loop over its groups issues
// them), each taking kernel_launch_us (L) of host time, so the j-th launch in that order is issued
// at (j + 1) * L after the stage starts and concurrent streams start staggered (3 streams of one
// kernel each: ready at L, 2L, 3L). A kernel becomes ready when its launch is issued and, after
// the first of its stream, no earlier than L after its predecessor on the stream ends (one
// stream: every kernel L after its predecessor, as the host runs ahead). Dispatch order:
// ready kernels are served in the order they became ready (ties: lower stream first); a later
// kernel gets only the resources left by earlier ones (the hardware work distributor's FIFO);
// within a kernel, blocks are spread breadth-first over the SMs (one more block per SM per pass,
// least-loaded SMs first).
// THE EXCLUSIVE-KERNEL RULE: a kernel marked exclusive (KernelLaunch::exclusive) is dispatched
// only while no other exclusive kernel has blocks left to run (dispatched or not); it waits,
// in the FIFO above, until that kernel's last block ends, while kernels that are not exclusive
// keep being served beside it. Library convolutions are exclusive where the config states
// library_kernels_serialize = 1 (kernel_family.h): measured on the H200 with cuDNN 9, two and
// four convolutions on their own streams took 0.87 and 0.93 of their time one after another,
// i.e. their kernels did not share the GPU although none fills it (their call costs did overlap).
//
// Every tunable number is either a field of the hardware config (GpuSpec) or a named entry of its
// `efficiency` section (keys in gpu_efficiency, kernel.h; defaults with their reasons, and every
// other named constant of the model, in model_internal.h).
//
// The model's parts, one header each (this header includes them all):
//   kernel.h            KernelLaunch, math units, kernel classes, efficiency keys
//   occupancy.h         occupancy (resident blocks per SM and what limits them)
//   block_simulation.h  simulate_stage, estimate_kernel
//   stage_bounds.h      lower bounds on a stage's latency without simulating it
//   kernel_rules.h      operators -> kernels (kernels_for_op, merged convolutions)
//   l2_residency.h      tensors read from L2 by the next kernel of their stream
//   plan_evaluation.h   stage_streams, the synchronisation rule, evaluate_plan
// (model_internal.h is shared by the model's sources and is not part of its interface.)
#include "common/gpumodel/block_simulation.h"
#include "common/gpumodel/kernel.h"
#include "common/gpumodel/kernel_rules.h"
#include "common/gpumodel/l2_residency.h"
#include "common/gpumodel/occupancy.h"
#include "common/gpumodel/plan_evaluation.h"
#include "common/gpumodel/stage_bounds.h"
