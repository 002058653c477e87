#pragma once
// One testbed for every GPU kernel of the suite (in the manner of CUTLASS's
// test/unit/gemm/device/testbed.h): given a graph fragment (the ops a kernel claims to compute)
// and a function that runs the kernel under some configuration, run both and compare.
//
//   1. Values for every Input/Weight/Constant of the fragment: make_graph_feeds(fragment, feeds,
//      seed), the CPU reference executor's random values (common/exec/executor.h).
//   2. Reference: run_graph(fragment, ...) on the CPU.
//   3. Device: a buffer for every float tensor; inputs and weights uploaded, every other tensor
//      filled with NaN, so an element the kernel forgets to write fails the comparison.
//   4. The kernel runs on one stream through a KernelLauncher (its launch count is reported).
//   5. Every graph output is copied back and compared with compare_tensors (tensor_data.h).
//
// CUDA-free header; without CUDA check_kernel throws "this build has no CUDA support".
#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "common/cuda/runtime.h"
#include "common/exec/executor.h"
#include "common/exec/tensor_data.h"
#include "common/graph/graph.h"

namespace dgs::gpu {

// Tolerance of GPU-vs-CPU checks. Float32 sums in a different order (tiles, cuDNN's Winograd or
// FFT algorithms) differ from the CPU's by up to ~1e-4 of the operands' magnitude (values of
// the suite's random inputs are O(1)); a wrong index or a missed tile gives errors of O(1).
inline constexpr Tolerance kGpuTolerance{1e-3, 1e-3};

// Device buffers of a fragment's float tensors, by tensor index or name.
class DeviceTensors {
 public:
  DeviceTensors(const Graph& g, const TensorValues& values);
  float* operator[](int tensor) const;       // throws dgs::Error if the tensor has none
  float* at(const std::string& name) const;  // by tensor name
  TensorData download(int tensor) const;

 private:
  [[maybe_unused]] const Graph* g_;  // read by the CUDA build only
  std::map<int, DeviceBuffer> bufs_;
};

struct KernelCheck {
  bool passed = true;
  std::map<int, Comparison> outputs;  // by output tensor index
  int64_t launches = 0;               // kernels the run launched
  // One line per output: "output 'y': max rel error 3.2e-06 at [17]: ... (ok)".
  std::string str(const Graph& g) const {
    std::string s;
    for (const auto& [t, c] : outputs) {
      if (!s.empty()) s += '\n';
      s += "output '";
      s += g.tensor(t).name;
      s += "': ";
      s += c.str();
    }
    return s;
  }
};

using KernelRunner = std::function<void(KernelLauncher&, const DeviceTensors&)>;

// Runs `run` on the device and the fragment on the CPU, and compares every graph output.
KernelCheck check_kernel(const Graph& fragment, const KernelRunner& run, uint64_t seed,
                         Tolerance tol = kGpuTolerance, const TensorValues& feeds = {});

}  // namespace dgs::gpu
