#pragma once
// The CUDA runtime layer of the suite: device query, streams, events, device buffers, a kernel
// launcher that counts launches, and the event timer that every measured number goes through
// (warm-up, then the median of repeats).
//
// This header has no CUDA types, so it compiles in both builds. With CUDA (common/cuda/*.cu)
// every CUDA/cuDNN call is checked and a failure throws dgs::Error naming the call, file and line.
// Without CUDA (common/cuda/nocuda/) every function that would touch a GPU throws
// dgs::Error("... this build has no CUDA support ..."), and device_count() returns 0.
// Callers check dgs::cuda_gpu_available() (common/cuda/device.h) first.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/cuda/device_fault.h"
#include "common/hw/hardware.h"

namespace dgs::gpu {

// Number of usable CUDA devices; 0 when there is no driver or no device (never throws for that).
int device_count();

// Fills a GpuSpec from the live device (cudaGetDeviceProperties and cudaDeviceGetAttribute):
// SM count, clocks, threads, registers, shared memory, L2, DRAM size and bandwidth (memory
// clock x bus width x 2 for double data rate), peak FP32/FP16 rates from the per-SM lane counts
// of the architecture. Fields the runtime cannot report (L2 bandwidth, PCIe bandwidth, launch
// and sync overheads) stay 0 and their `sources` entry says so. Throws dgs::Error without a GPU.
GpuSpec query_gpu_spec(int device = 0);

// Waits for all work on the current device (cudaDeviceSynchronize).
void device_synchronize();

// A CUDA stream (cudaStreamCreate: blocking, i.e. ordered with the legacy default stream, where
// DeviceBuffer's copies and memsets run; streams still run concurrently with each other).
// Move-only.
class Stream {
 public:
  Stream();
  ~Stream();
  Stream(Stream&& o) noexcept;
  Stream& operator=(Stream&& o) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  void synchronize() const;
  void* handle() const { return handle_; }  // the cudaStream_t

 private:
  void* handle_ = nullptr;
};

// A CUDA event with timing enabled. Move-only.
class Event {
 public:
  Event();
  ~Event();
  Event(Event&& o) noexcept;
  Event& operator=(Event&& o) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  void record(const Stream& s);
  void synchronize() const;
  // `s` waits (on the device, without blocking the host) until this event has completed.
  void make_wait(const Stream& s) const;
  void* handle() const { return handle_; }  // the cudaEvent_t

 private:
  void* handle_ = nullptr;
};

// Milliseconds between two recorded, completed events.
double elapsed_ms(const Event& start, const Event& end);

// Device memory. Move-only.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() const { return ptr_; }
  float* floats() const { return static_cast<float*>(ptr_); }
  size_t bytes() const { return bytes_; }
  bool empty() const { return ptr_ == nullptr; }

  // Synchronous copies (cudaMemcpy), `bytes` from `offset` into this buffer / out of it.
  void upload(const void* host, size_t bytes, size_t offset = 0);
  void download(void* host, size_t bytes, size_t offset = 0) const;
  // Sets every byte to `value` (cudaMemset), synchronously.
  void fill_bytes(int value);

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

DeviceBuffer upload_floats(const std::vector<float>& values);
std::vector<float> download_floats(const DeviceBuffer& buf, size_t count);

// Issues kernels on one stream and counts them: every kernel wrapper of the suite (and every
// cuDNN call of the stage executor, counted as one) calls count_launch() after a successful
// launch, so a fused schedule's kernel count is read from the launcher, not inferred.
class KernelLauncher {
 public:
  explicit KernelLauncher(const Stream& stream) : stream_(&stream) {}
  const Stream& stream() const { return *stream_; }
  void* stream_handle() const { return stream_->handle(); }
  // Also the launch site of the fake device layer (device_fault.h).
  void count_launch(int64_t n = 1) {
    fault_point(FaultSite::Launch, "kernel launch");
    launches_ += n;
  }
  int64_t launches() const { return launches_; }
  void reset_count() { launches_ = 0; }

 private:
  const Stream* stream_;
  int64_t launches_ = 0;
};

// How a latency is measured: `warmup` untimed runs, then `repeats` samples of `number` runs each;
// the result is the median of the samples (every measured number of the suite is a median, and
// every sample is kept). Defaults (an assumption, not tuned): 2 warm-up runs, then 6 samples of
// 6 runs. A paper's reproduction sets its own protocol where the paper or its artifact states one.
struct TimingProtocol {
  int warmup = 2;   // untimed runs first (cuDNN autotuning, caches, clocks)
  int number = 6;   // runs per timed repeat; a sample is elapsed / number
  int repeats = 6;  // timed repeats; the result is their median
};

struct Timing {
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  std::vector<double> samples_ms;  // one per repeat: elapsed / number
};

// Runs `run_once` protocol.warmup times, then for each repeat: cudaDeviceSynchronize, record a
// start event on `stream`, call `run_once` protocol.number times, record an end event on
// `stream`, synchronize. `run_once` must leave all of its work ordered before `stream`'s later
// work (single stream, or joined into it, or ended by a device synchronisation).
Timing time_with_events(const std::function<void()>& run_once, const Stream& stream,
                        const TimingProtocol& protocol = {});

// Hardware performance counters (e.g. global-memory transactions) need CUPTI or Nsight Compute,
// which the suite does not link: reports print this reason instead of a number.
// Count them outside the suite with
//   ncu --metrics
//   l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
inline bool hardware_counters_readable(std::string* why) {
  if (why)
    *why = "hardware counters are not read: the suite does not link CUPTI (use Nsight Compute)";
  return false;
}

// Median of a non-empty list (mean of the two middle values for an even count); 0 when empty.
inline double median_of(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace dgs::gpu
