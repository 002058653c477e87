#pragma once
// A stage executor on a GPU: runs a dgs::Plan of a dgs::Graph stage by stage, each task of a stage
// on its own stream (inter-operator parallelism), and measures stage and network latency with
// CUDA events.
//
// What it does:
//  - One context per task position j of a stage (up to max_streams, created when a stage first
//    needs it): a stream, a cuDNN handle bound to it and a cuDNN workspace. Task j of every stage
//    runs on context j.
//  - Between stages the host calls cudaDeviceSynchronize, except between two consecutive
//    single-task stages (which share context 0's stream, so order is kept without it). At the
//    start and end of a forward pass the other streams are joined to stream 0 with events, so
//    consecutive passes never overlap.
//  - FP32 NCHW. Conv through cuDNN with the algorithm cudnnFindConvolutionForwardAlgorithmEx
//    finds fastest (once per convolution shape), math CUDNN_FMA_MATH (FP32 on CUDA cores, no
//    tensor cores) unless allow_tf32; a Conv whose only consumer is the next op of its task, a
//    Relu, runs as one cudnnConvolutionBiasActivationForward (Conv+bias+ReLU in one call);
//    pooling, activation (Relu/Sigmoid/Tanh), softmax and batch-norm inference through cuDNN;
//    the suite's own kernels (common/cuda/tensor_kernels.h) for concat, split, slice, transpose,
//    expand, pad, broadcasting element-wise ops and pooling windows cuDNN cannot express;
//    Gemm/MatMul through cuBLASLt (common/cuda/library_kernels.h: bias, residual and alpha in
//    its epilogue; FP32 on CUDA cores unless allow_tf32), the suite's tiled GEMM
//    (common/cuda/gemm_kernels.h) only for an operand layout cuBLAS cannot take. Layout-only ops
//    (Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout) alias their input: no kernel.
//  - A Merged task (operator merge) holds convolutions that share their input (plus, after
//    them, element-wise ops of the task): their kernels are zero-padded to the largest and
//    concatenated along the output channels into one weight built on the device, run as one
//    convolution, and the output is split back to the convolutions' tensors. When each merged
//    conv's only consumer is a Relu in the task, the ReLU is fused into the merged convolution.
//  - Latency: warm-up, then the median of repeats of `number` runs timed with CUDA events
//    (runtime.h TimingProtocol, set by StageExecutorOptions::timing), with a device
//    synchronisation after each run of a multi-task stage.
//
// Values: every Input and Weight tensor is filled from make_graph_feeds(g, {}, seed) (the CPU
// reference executor's random values, common/exec/executor.h), so run() followed by outputs()
// compares directly with run_graph(g, {}, seed). set_tensor() overrides a value. Tensors on the
// device are float32 and bool (run-time attention masks: Equal, And, Not, IsNaN, Where, GatherND
// with constant indices), a bool one as a float32 buffer of 0 and 1; an op reading or writing
// another element type (int64 token ids, Cast from them) is refused at construction.
//
// This header has no CUDA types; in a build without CUDA the constructor throws.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/cuda/runtime.h"
#include "common/exec/tensor_data.h"
#include "common/graph/graph.h"
#include "common/hw/hardware.h"
#include "common/plan/plan.h"

namespace dgs::gpu {

// Default cuDNN workspace of each context. Assumption (not measured): room for the workspace of
// the fastest FP32 forward algorithms of the zoo's convolutions, while one workspace per stream
// stays small beside a GPU's memory. cuDNN's algorithm search skips algorithms that need more.
inline constexpr size_t kDefaultCudnnWorkspaceBytes = size_t{128} << 20;

struct StageExecutorOptions {
  uint64_t seed = 1;      // random inputs and weights (make_graph_feeds)
  TimingProtocol timing;  // how stages and whole passes are timed
  // Bytes of the cuDNN workspace each context allocates; convolution algorithms are chosen among
  // those whose workspace fits.
  size_t workspace_bytes = kDefaultCudnnWorkspaceBytes;
  // The most contexts (streams) the executor creates, i.e. the widest stage it runs: a stage with
  // more tasks is refused in one line. 0: no limit.
  int max_streams = 0;
  bool allow_tf32 = false;     // false: CUDNN_FMA_MATH and CUBLAS_COMPUTE_32F (FP32 on CUDA cores)
  bool fuse_conv_relu = true;  // a Conv whose only consumer is the next op, a Relu: one cuDNN call
};

struct PlanLatency {
  double network_ms = 0;         // median over repeats of one forward pass
  std::vector<double> stage_ms;  // each stage measured alone (empty unless asked for)
  Timing network;                // all samples of the forward pass
  int64_t kernel_calls = 0;      // kernels + cuDNN calls per forward pass
};

class StageExecutor {
 public:
  // Copies `g`; allocates a device buffer for every float tensor and uploads the inputs and
  // weights. Throws dgs::Error without a GPU, or naming the first op the executor cannot run.
  explicit StageExecutor(const Graph& g, StageExecutorOptions opts = {});
  ~StageExecutor();
  StageExecutor(const StageExecutor&) = delete;
  StageExecutor& operator=(const StageExecutor&) = delete;

  const Graph& graph() const;
  const GpuSpec& gpu() const;
  // "FMA (FP32 CUDA cores)" or "default (TF32 tensor cores allowed)".
  std::string conv_math() const;
  // The cuDNN forward algorithm chosen for Conv op `op` (its cudnnConvolutionFwdAlgo_t value:
  // 0 IMPLICIT_GEMM ... 7 WINOGRAD_NONFUSED) once prepared; -1 for an op that is not a prepared
  // convolution. `fused`: whether a run so far went through the fused Conv+bias+ReLU call
  // (cudnnConvolutionBiasActivationForward: a Conv followed by its ReLU in the same task, with an
  // algorithm that call accepts); false for a convolution without a ReLU. It accumulates over
  // the runs of this executor (a plan that fused it once leaves it true).
  int conv_algorithm(int op, bool* fused = nullptr) const;

  // Overrides the value of an Input or Weight tensor (shape and dtype must match).
  void set_tensor(int tensor, const TensorData& value);
  // Copies a float32 or bool tensor back to the host (after run()).
  TensorData get_tensor(int tensor) const;
  // Every graph output, by tensor index (after run()).
  std::map<int, TensorData> outputs() const;
  // Fills every tensor an op writes with NaN, so that a plan which fails to compute one fails
  // the comparison with the CPU reference instead of reading a previous run's value.
  void poison_activations();

  // Checks the plan (Plan::check) and that every op is supported, finds convolution algorithms
  // and builds merged weights; run() and the measurements call it when needed.
  void prepare(const Plan& plan);
  // One forward pass of `plan`, synchronised at the end.
  void run(const Plan& plan);
  // Latency of one stage run alone (its inputs are whatever the buffers hold).
  Timing measure_stage(const Stage& stage);
  // Network latency and, with `per_stage`, every stage's latency (each stage timed alone).
  PlanLatency measure(const Plan& plan, bool per_stage = true);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A stage-latency oracle for a scheduler's search: given the groups of a stage (each a list of
// op indices in execution order) and the strategy, builds the stage and measures it on the GPU
// with one StageExecutor over the whole graph (all tensors allocated once, random values).
// Results are cached by (strategy, groups).
class MeasuredStageCost {
 public:
  enum class Strategy { Concurrent, Merge };
  explicit MeasuredStageCost(const Graph& g, StageExecutorOptions opts = {});
  ~MeasuredStageCost();

  // Concurrent: one Sequential task per group. Merge: one Merged task with every op of every
  // group (they must be convolutions sharing an input, then element-wise ops).
  double stage_latency_ms(const std::vector<std::vector<int>>& groups, Strategy strategy);
  int64_t measurements() const;  // distinct stages measured so far (cache misses)

 private:
  std::unique_ptr<StageExecutor> exec_;
  std::map<std::string, double> cache_;
};

}  // namespace dgs::gpu
