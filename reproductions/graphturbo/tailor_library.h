#pragma once
// ResNet18-Tailor's schedules (tailor.h) on library kernels, for measured Table 5: which kernel
// runs each of a schedule's kernels (op groups), and a runner for them on FP16 NHWC buffers.
//
// The paper's GPU case study (§5.6) generates every kernel with CUTLASS (v2.9): per layer
// through TVM wrapping CUTLASS, two convs through CUTLASS's back-to-back fusion, and the
// instance split on the same fused kernels over batch instances. Its precision is not stated;
// CUTLASS's back-to-back convolution fusion is tensor-core only (FP16 or INT8), so FP16 it is:
// FP16 operands and activations, NHWC, FP32 accumulation (a choice, named in every output).
// Per kernel of a schedule:
//   conv + ReLU                          cutlass_conv2d_f16 (common/cuda/library_kernels.h)
//   conv + ReLU -> 1x1 conv + ReLU       cutlass_b2b_conv2d_f16, one kernel; when no
//                                        instantiation fits, two cutlass_conv2d_f16 launches
//   a leading Slice or Concat (§3.5's inserted ops) along the batch
//                                        no kernel: every activation level has one full-batch
//                                        NHWC buffer, an instance reads and writes its batch
//                                        slice of it (contiguous in NHWC), so the split is a
//                                        pointer offset and the Concat of instances is where
//                                        they wrote
//   a Concat alone (the last stage's)    no kernel, for the same reason
// Anything else is refused in one line naming the kernel. The cuDNN baseline runs the same
// launches with cuDNN's FP16 convolution (CudnnConvF16) in place of CUTLASS's, each
// back-to-back pair as two cuDNN calls through the intermediate level's buffer.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/cuda/library_kernels.h"
#include "common/cuda/runtime.h"
#include "common/exec/executor.h"
#include "common/exec/tensor_data.h"
#include "reproductions/graphturbo/tailor.h"

namespace dgs::graphturbo {

// One launch of a schedule's kernel (or none: a view).
struct TailorLaunch {
  enum class Kind { Conv, BackToBack, View };
  Kind kind = Kind::View;
  std::string kernel;   // net.kernel_names[k]
  std::string library;  // what runs it, e.g. "CUTLASS b2b 64ch rf 64px 2w" or "view (no kernel)"
  // Conv: conv0 only; BackToBack: conv0 then the 1x1 conv1; shapes at the instance's batch.
  gpu::Conv2dShape conv0, conv1;
  int weight0 = -1, weight1 = -1;  // the convs' weight tensors (graph indices)
  // Activation levels (0: the network input, +1 per conv) read and written, and the first image.
  int in_level = 0, out_level = 0;
  int64_t batch_offset = 0;
};

// The library kernels of every kernel of `net` in execution order (views included). Throws
// dgs::Error naming the kernel when one holds ops other than the forms above, or a Slice or
// Concat other than contiguous batch ranges of one level.
std::vector<TailorLaunch> tailor_launches(const TailorNetwork& net);
// "stage1: CUTLASS b2b 64ch rf 64px 2w; stage2: ..." (views left out): the notes' summary.
std::string tailor_launches_summary(const std::vector<TailorLaunch>& launches);

// Which library runs the convolutions.
enum class TailorLibrary { Cutlass, Cudnn };

// A schedule's launches on the current GPU: one FP16 NHWC buffer per activation level (the full
// batch, [n, h, w, c] of the level's tensor), the weights as FP16 KRSC, the input uploaded from
// `feeds` (the graph's float32 NCHW values: make_graph_feeds). Throws without a GPU.
class TailorDeviceRun {
 public:
  TailorDeviceRun(const TailorNetwork& net, const TensorValues& feeds, TailorLibrary library,
                  const gpu::Stream& stream);
  ~TailorDeviceRun();
  TailorDeviceRun(const TailorDeviceRun&) = delete;
  TailorDeviceRun& operator=(const TailorDeviceRun&) = delete;
  // Every launch in order on l's stream (counted there).
  void run(gpu::KernelLauncher& l);
  // The last level (the network's output) as float32 NCHW.
  TensorData output(gpu::KernelLauncher& l) const;
  const std::vector<TailorLaunch>& launches() const { return launches_; }

 private:
  std::vector<TailorLaunch> launches_;
  TailorLibrary library_;
  struct Level {
    Shape nchw;  // full batch
    gpu::DeviceBuffer buf;
  };
  std::vector<Level> levels_;
  std::vector<std::pair<int, gpu::DeviceBuffer>> weights_;  // graph tensor -> FP16 KRSC
  std::unique_ptr<gpu::CudnnConvF16> cudnn_;
  const uint16_t* weight(int tensor) const;
  uint16_t* at(int level, int64_t batch_offset) const;
};

}  // namespace dgs::graphturbo
