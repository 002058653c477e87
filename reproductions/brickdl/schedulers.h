#pragma once
// BrickDL's schedulers behind the suite's Scheduler interface (common/scheduler/scheduler.h):
//   brickdl        the paper's method on a whole network, as Fig. 7 runs it (network_model.h):
//                  the static model's partition into merged subgraphs, brick sizes and
//                  padded/memoized choices, cuDNN for the rest, layout conversions;
//   brickdl.cudnn  BrickDL's baseline: cuDNN layer by layer, one library call per brick unit with
//                  its element-wise ops (bias, BN, ReLU, residual add) in the epilogue, which is
//                  not the suite's `sequential` (a kernel per operator).
// Both price their fused tasks with BrickDL's own analytic model (brick_plan.h,
// brickdl_fused_kernels), passed to evaluate() in ScheduleResult::evaluation.
#include "common/scheduler/scheduler.h"

namespace dgs {

SchedulerList brickdl_schedulers();

}  // namespace dgs
