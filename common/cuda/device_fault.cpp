// Device failures as one line naming the work, and the fault injection of the tests (see
// device_fault.h). CUDA-free: built with and without CUDA.
#include "common/cuda/device_fault.h"

#include <atomic>
#include <mutex>
#include <vector>

namespace dgs::gpu {

namespace {

std::vector<const std::string*>& scopes() {
  thread_local std::vector<const std::string*> s;
  return s;
}

struct Armed {
  std::mutex mu;
  std::atomic<bool> any{false};
  bool on[3] = {false, false, false};
  int64_t skip[3] = {0, 0, 0};
};
Armed& armed() {
  static Armed a;
  return a;
}

FaultKind kind_of(FaultSite s) {
  switch (s) {
    case FaultSite::Allocation:
      return FaultKind::OutOfMemory;
    case FaultSite::AlgorithmSearch:
      return FaultKind::NoAlgorithm;
    case FaultSite::Launch:
      return FaultKind::LaunchFailure;
  }
  return FaultKind::Other;
}

const char* injected_code(FaultSite s) {
  switch (s) {
    case FaultSite::Allocation:
      return "cudaErrorMemoryAllocation (out of memory) [injected]";
    case FaultSite::AlgorithmSearch:
      return "no algorithm returned [injected]";
    case FaultSite::Launch:
      return "cudaErrorLaunchFailure (unspecified launch failure) [injected]";
  }
  return "[injected]";
}

}  // namespace

std::string_view fault_kind_name(FaultKind k) {
  switch (k) {
    case FaultKind::OutOfMemory:
      return "out of device memory";
    case FaultKind::NoAlgorithm:
      return "no cuDNN algorithm";
    case FaultKind::LaunchFailure:
      return "kernel launch failed";
    case FaultKind::Other:
      break;
  }
  return "CUDA/cuDNN error";
}

WorkScope::WorkScope(std::string what) : own_(std::move(what)) {
  scopes().push_back(&own_);
}
WorkScope::WorkScope(const std::string* what) {
  scopes().push_back(what);
}
WorkScope::~WorkScope() {
  scopes().pop_back();
}

std::string current_work() {
  std::string s;
  for (const std::string* w : scopes()) s += (s.empty() ? "" : ", ") + *w;
  return s;
}

void raise_device_error(FaultKind kind, const std::string& call, const std::string& detail) {
  const std::string where = current_work();
  std::string msg(fault_kind_name(kind));
  if (!where.empty()) msg += " in " + where;
  msg += ": " + call + ": " + detail;
  for (char& c : msg)
    if (c == '\n') c = ' ';
  throw DeviceError(kind, msg);
}

void inject_fault(FaultSite site, int64_t skip) {
  Armed& a = armed();
  const std::lock_guard<std::mutex> lock(a.mu);
  a.on[static_cast<size_t>(site)] = true;
  a.skip[static_cast<size_t>(site)] = skip;
  a.any.store(true);
}

void clear_faults() {
  Armed& a = armed();
  const std::lock_guard<std::mutex> lock(a.mu);
  for (bool& o : a.on) o = false;
  a.any.store(false);
}

void fault_point(FaultSite site, const char* call) {
  Armed& a = armed();
  if (!a.any.load(std::memory_order_relaxed)) return;
  {
    const std::lock_guard<std::mutex> lock(a.mu);
    const size_t i = static_cast<size_t>(site);
    if (!a.on[i]) return;
    if (a.skip[i] > 0) {
      --a.skip[i];
      return;
    }
    a.on[i] = false;
    a.any.store(a.on[0] || a.on[1] || a.on[2]);
  }
  raise_device_error(kind_of(site), call, injected_code(site));
}

size_t choose_algorithm(const AlgorithmCandidate* candidates, size_t count,
                        const std::string& shape, const std::string& why_none) {
  fault_point(FaultSite::AlgorithmSearch, ("cuDNN algorithm search for " + shape).c_str());
  for (size_t i = 0; i < count; ++i)
    if (candidates[i].usable) return i;
  raise_device_error(FaultKind::NoAlgorithm, "cuDNN algorithm search for " + shape,
                     count == 0 ? "cuDNN returned no algorithm" : why_none);
}

}  // namespace dgs::gpu
