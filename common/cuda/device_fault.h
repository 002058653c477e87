#pragma once
// Failures on the GPU as one line that says what failed and where: a CUDA or cuDNN call that fails
// in measured mode (out of device memory, no convolution algorithm for a shape, a kernel launch
// that fails) throws DeviceError, whose message names the work the calling thread was doing when
// it failed (the WorkScope labels: the item's unit of work, the stage, the kernel), the call and
// the CUDA/cuDNN error. The CLI prints it as "error: <item>: <message>" and exits 1; nothing is
// written (files are staged and written only when an item succeeds).
//
// The fake device layer of the tests: inject_fault arms a failure at one of the sites where the
// runtime layer allocates, chooses a convolution algorithm or launches a kernel; the next passage
// through that site (fault_point) throws the DeviceError a real failure there would throw, in a
// build with or without CUDA and on a machine with or without a GPU.
//
// CUDA-free header.
#include <cstdint>
#include <string>
#include <string_view>

#include "common/util/error.h"

namespace dgs::gpu {

enum class FaultKind : uint8_t {
  OutOfMemory,    // cudaErrorMemoryAllocation, CUDNN_STATUS_ALLOC_FAILED
  NoAlgorithm,    // cuDNN has no forward algorithm for a convolution's shape (within the workspace)
  LaunchFailure,  // a kernel launch or its execution failed (configuration, resources, fault)
  Other           // any other CUDA or cuDNN error
};
// "out of device memory", "no cuDNN algorithm", "kernel launch failed", "CUDA/cuDNN error"
std::string_view fault_kind_name(FaultKind k);

// Labels the work of the calling thread while it lives (nested scopes form a path, outermost
// first): e.g. WorkScope("schedule Sequential of network inception_v3"), then WorkScope("stage 7 of
// 41"), then WorkScope("kernel 'conv_12' (cuDNN convolution)").
class WorkScope {
 public:
  explicit WorkScope(std::string what);
  // A label that outlives the scope, not copied (for hot loops: an op's name in the graph).
  explicit WorkScope(const std::string* what);
  ~WorkScope();
  WorkScope(const WorkScope&) = delete;
  WorkScope& operator=(const WorkScope&) = delete;

 private:
  std::string own_;
};
// The labels of the calling thread's open scopes, outermost first, joined by ", "; "" if none.
std::string current_work();

class DeviceError : public Error {
 public:
  DeviceError(FaultKind kind, const std::string& message) : Error(message), kind_(kind) {}
  FaultKind kind() const { return kind_; }

 private:
  FaultKind kind_;
};

// Throws DeviceError with the one-line message
//   "<kind name> in <current_work()>: <call>: <detail>"   (without " in ..." when no scope is open)
[[noreturn]] void raise_device_error(FaultKind kind, const std::string& call,
                                     const std::string& detail);

// --- fault injection (the fake device layer of the tests) --------------------------------------
enum class FaultSite : uint8_t {
  Allocation,       // DeviceBuffer's allocation: raises OutOfMemory
  AlgorithmSearch,  // choosing a cuDNN convolution algorithm: raises NoAlgorithm
  Launch            // a kernel launch (KernelLauncher::count_launch): raises LaunchFailure
};
// Arms one failure: the (skip + 1)-th passage through `site` from now on (on any thread) fails.
void inject_fault(FaultSite site, int64_t skip = 0);
// Disarms every injected failure.
void clear_faults();
// A site: throws the armed failure's DeviceError (naming `call`) when it is due; otherwise
// nothing (one relaxed atomic load when nothing is armed).
void fault_point(FaultSite site, const char* call);

// Chooses a convolution algorithm from cuDNN's search results (the fake device layer's entry for
// "no algorithm"): the first of `candidates` (in cuDNN's order, fastest first) whose `usable` is
// true; raises NoAlgorithm naming `shape` when none is (or when a fault is injected at
// AlgorithmSearch). Returns its index in `candidates`.
struct AlgorithmCandidate {
  int algorithm = 0;
  bool usable = false;  // succeeded, fits the workspace, allowed math
};
size_t choose_algorithm(const AlgorithmCandidate* candidates, size_t count,
                        const std::string& shape, const std::string& why_none);

}  // namespace dgs::gpu
