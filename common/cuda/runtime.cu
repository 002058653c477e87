// The CUDA runtime layer (see runtime.h): checked calls, device query, streams, events, buffers,
// the event timer.
#include "common/cuda/runtime.h"

#include <cuda_runtime.h>

#include <cmath>
#include <sstream>
#include <utility>

#include "common/cuda/cuda_check.cuh"

namespace dgs::gpu {

namespace detail {

namespace {
FaultKind cuda_fault_kind(cudaError_t err) {
  switch (err) {
    case cudaErrorMemoryAllocation:
      return FaultKind::OutOfMemory;
    case cudaErrorLaunchFailure:
    case cudaErrorLaunchOutOfResources:
    case cudaErrorLaunchTimeout:
    case cudaErrorInvalidConfiguration:
    case cudaErrorIllegalAddress:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidPc:
    case cudaErrorIllegalInstruction:
    case cudaErrorNoKernelImageForDevice:
      return FaultKind::LaunchFailure;
    default:
      return FaultKind::Other;
  }
}
FaultKind cudnn_fault_kind(cudnnStatus_t st) {
  switch (st) {
    case CUDNN_STATUS_ALLOC_FAILED:
      return FaultKind::OutOfMemory;
    case CUDNN_STATUS_NOT_SUPPORTED:
      return FaultKind::NoAlgorithm;
    case CUDNN_STATUS_EXECUTION_FAILED:
      return FaultKind::LaunchFailure;
    default:
      return FaultKind::Other;
  }
}
}  // namespace

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  std::ostringstream where, what;
  where << call << " (" << file << ":" << line << ")";
  what << cudaGetErrorName(err) << " (" << cudaGetErrorString(err) << ")";
  raise_device_error(cuda_fault_kind(err), where.str(), what.str());
}

[[noreturn]] void throw_cudnn_error(cudnnStatus_t st, const char* call, const char* file,
                                    int line) {
  std::ostringstream where;
  where << call << " (" << file << ":" << line << ")";
  raise_device_error(cudnn_fault_kind(st), where.str(), cudnnGetErrorString(st));
}

}  // namespace detail

namespace {

// Per-SM, per-clock arithmetic rates of the architectures this build targets (and the next ones
// a user may run on), in floating-point operations (an FMA is 2). Sources: NVIDIA CUDA C++
// Programming Guide, "Arithmetic Instructions" throughput table (FP32 and FP16 SIMT lanes per
// SM); NVIDIA Turing, A100, GA102, Ada and H100 whitepapers (dense FP16 tensor-core rate; for
// GA10x/Ada the FP16-accumulate rate). A compute capability not listed gets 0 (unknown).
struct ArchRates {
  int major, minor;
  const char* architecture;
  int fp32_flops_per_clk_sm;
  int fp16_flops_per_clk_sm;
  int tensor_fp16_flops_per_clk_sm;
};
constexpr ArchRates kArchRates[] = {
    {7, 5, "Turing", 128, 256, 1024}, {8, 0, "Ampere", 128, 512, 2048},
    {8, 6, "Ampere", 256, 256, 1024}, {8, 9, "Ada", 256, 256, 1024},
    {9, 0, "Hopper", 256, 512, 4096}, {10, 0, "Blackwell", 256, 0, 0},
    {12, 0, "Blackwell", 256, 0, 0},
};

// 255 registers per thread and allocation in units of 256 registers per warp hold for every
// compute capability >= 3.5 (CUDA Programming Guide, "Technical Specifications per Compute
// Capability"; CUDA Occupancy Calculator).
constexpr int kMaxRegistersPerThread = 255;
constexpr int kRegisterAllocationUnit = 256;
// DRAM transfers data on both clock edges (GDDR and HBM): bandwidth = 2 x clock x bus width.
constexpr double kDataRateFactor = 2.0;

int device_attribute(cudaDeviceAttr attr, int device) {
  int v = 0;
  DGS_CUDA_CHECK(cudaDeviceGetAttribute(&v, attr, device));
  return v;
}

}  // namespace

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();  // clear the (non-sticky) error: no driver or no device
    return 0;
  }
  return n;
}

GpuSpec query_gpu_spec(int device) {
  const int n = device_count();
  if (n == 0) throw Error("query_gpu_spec: no CUDA device on this machine");
  if (device < 0 || device >= n) {
    throw Error("query_gpu_spec: device " + std::to_string(device) +
                " does not exist; expected 0.." + std::to_string(n - 1));
  }
  cudaDeviceProp p{};
  DGS_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  const int clock_khz = device_attribute(cudaDevAttrClockRate, device);
  const int mem_clock_khz = device_attribute(cudaDevAttrMemoryClockRate, device);

  GpuSpec g;
  g.name = p.name;
  g.file = "live device " + std::to_string(device) + " (cudaGetDeviceProperties)";
  g.compute_capability = p.major * 10 + p.minor;
  const ArchRates* rates = nullptr;
  for (const ArchRates& r : kArchRates) {
    if (r.major == p.major && r.minor == p.minor) rates = &r;
  }
  if (rates == nullptr) {  // same major, other minor (e.g. 8.7): take the major's first entry
    for (const ArchRates& r : kArchRates) {
      if (r.major == p.major && rates == nullptr) rates = &r;
    }
  }
  g.architecture = rates ? rates->architecture : "sm_" + std::to_string(g.compute_capability);
  g.sm_count = p.multiProcessorCount;
  g.core_clock_mhz = clock_khz / 1000.0;
  g.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  g.max_threads_per_block = p.maxThreadsPerBlock;
  g.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
  g.warp_size = p.warpSize;
  g.max_warps_per_sm = p.maxThreadsPerMultiProcessor / p.warpSize;
  g.registers_per_sm = p.regsPerMultiprocessor;
  g.max_registers_per_thread = kMaxRegistersPerThread;
  g.register_allocation_unit = kRegisterAllocationUnit;
  g.shared_mem_per_sm = static_cast<int64_t>(p.sharedMemPerMultiprocessor);
  g.shared_mem_per_block = static_cast<int64_t>(p.sharedMemPerBlockOptin);

  const double clock_hz = clock_khz * 1e3;
  if (rates) {
    g.peak_fp32_tflops = g.sm_count * clock_hz * rates->fp32_flops_per_clk_sm / 1e12;
    g.peak_fp16_tflops = g.sm_count * clock_hz * rates->fp16_flops_per_clk_sm / 1e12;
    g.peak_tensor_tflops = g.sm_count * clock_hz * rates->tensor_fp16_flops_per_clk_sm / 1e12;
  }
  g.dram_bytes = static_cast<int64_t>(p.totalGlobalMem);
  g.dram_bandwidth_gbs = kDataRateFactor * mem_clock_khz * 1e3 * (p.memoryBusWidth / 8.0) / 1e9;
  g.l2_bytes = p.l2CacheSize;
  g.transaction_bytes = 32;

  const std::string prop = "cudaGetDeviceProperties: ";
  g.sources["name"] = prop + "name";
  g.sources["compute_capability"] = prop + "major, minor";
  g.sources["sm_count"] = prop + "multiProcessorCount";
  g.sources["core_clock_mhz"] = "cudaDeviceGetAttribute(cudaDevAttrClockRate)";
  g.sources["max_threads_per_sm"] = prop + "maxThreadsPerMultiProcessor";
  g.sources["max_threads_per_block"] = prop + "maxThreadsPerBlock";
  g.sources["max_blocks_per_sm"] = prop + "maxBlocksPerMultiProcessor";
  g.sources["max_warps_per_sm"] = prop + "maxThreadsPerMultiProcessor / warpSize";
  g.sources["registers_per_sm"] = prop + "regsPerMultiprocessor";
  g.sources["max_registers_per_thread"] = "CUDA Programming Guide: 255 for cc >= 3.5";
  g.sources["register_allocation_unit"] = "CUDA Occupancy Calculator: 256 per warp";
  g.sources["shared_mem_per_sm"] = prop + "sharedMemPerMultiprocessor";
  g.sources["shared_mem_per_block"] = prop + "sharedMemPerBlockOptin";
  const std::string rate_src =
      rates ? "SMs x clock x per-SM rate of " + std::string(rates->architecture) +
                  " (CUDA Programming Guide throughput table; NVIDIA whitepapers)"
            : "unknown: compute capability not in the suite's rate table";
  g.sources["peak_fp32_tflops"] = rate_src;
  g.sources["peak_fp16_tflops"] = rate_src;
  g.sources["peak_tensor_tflops"] = rate_src;
  g.sources["dram_bytes"] = prop + "totalGlobalMem";
  g.sources["dram_bandwidth_gbs"] =
      "2 x cudaDevAttrMemoryClockRate x memoryBusWidth / 8 (double data rate)";
  g.sources["l2_bytes"] = prop + "l2CacheSize";
  g.sources["transaction_bytes"] = "32-byte sectors on every NVIDIA GPU since Maxwell";
  const std::string na = "not reported by the CUDA runtime (left 0)";
  g.sources["l2_bandwidth_gbs"] = na;
  g.sources["pcie_bandwidth_gbs"] = na;
  g.sources["kernel_launch_us"] = na;
  g.sources["stage_sync_us"] = na;
  return g;
}

void device_synchronize() {
  DGS_CUDA_CHECK(cudaDeviceSynchronize());
}

// --- Stream ---------------------------------------------------------------------------------
Stream::Stream() {
  cudaStream_t s = nullptr;
  // A blocking stream: it is ordered after the legacy default stream's work, so the synchronous
  // cudaMemcpy/cudaMemset of DeviceBuffer (issued there) are complete before a kernel reads the
  // memory, and a device-to-host copy waits for the stream's kernels.
  DGS_CUDA_CHECK(cudaStreamCreate(&s));
  handle_ = s;
}
Stream::~Stream() {
  if (handle_) (void)cudaStreamDestroy(static_cast<cudaStream_t>(handle_));
}
Stream::Stream(Stream&& o) noexcept : handle_(std::exchange(o.handle_, nullptr)) {}
Stream& Stream::operator=(Stream&& o) noexcept {
  if (this != &o) {
    if (handle_) (void)cudaStreamDestroy(static_cast<cudaStream_t>(handle_));
    handle_ = std::exchange(o.handle_, nullptr);
  }
  return *this;
}
void Stream::synchronize() const {
  DGS_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(handle_)));
}

// --- Event ----------------------------------------------------------------------------------
Event::Event() {
  cudaEvent_t e = nullptr;
  DGS_CUDA_CHECK(cudaEventCreate(&e));
  handle_ = e;
}
Event::~Event() {
  if (handle_) (void)cudaEventDestroy(static_cast<cudaEvent_t>(handle_));
}
Event::Event(Event&& o) noexcept : handle_(std::exchange(o.handle_, nullptr)) {}
Event& Event::operator=(Event&& o) noexcept {
  if (this != &o) {
    if (handle_) (void)cudaEventDestroy(static_cast<cudaEvent_t>(handle_));
    handle_ = std::exchange(o.handle_, nullptr);
  }
  return *this;
}
void Event::record(const Stream& s) {
  DGS_CUDA_CHECK(
      cudaEventRecord(static_cast<cudaEvent_t>(handle_), static_cast<cudaStream_t>(s.handle())));
}
void Event::synchronize() const {
  DGS_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(handle_)));
}
void Event::make_wait(const Stream& s) const {
  DGS_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(s.handle()),
                                     static_cast<cudaEvent_t>(handle_), 0));
}

double elapsed_ms(const Event& start, const Event& end) {
  float ms = 0;
  DGS_CUDA_CHECK(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start.handle()),
                                      static_cast<cudaEvent_t>(end.handle())));
  return static_cast<double>(ms);
}

// --- DeviceBuffer ---------------------------------------------------------------------------
DeviceBuffer::DeviceBuffer(size_t bytes) : bytes_(bytes) {
  fault_point(FaultSite::Allocation, "cudaMalloc");
  // cudaMalloc(0) returns a null pointer; allocate one element so data() is always valid.
  DGS_CUDA_CHECK(cudaMalloc(&ptr_, bytes == 0 ? sizeof(float) : bytes));
}
DeviceBuffer::~DeviceBuffer() {
  if (ptr_) (void)cudaFree(ptr_);
}
DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept
    : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    if (ptr_) (void)cudaFree(ptr_);
    ptr_ = std::exchange(o.ptr_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

namespace {
void check_range(size_t offset, size_t bytes, size_t size, const char* what) {
  if (offset > size || bytes > size - offset) {
    throw Error(std::string("DeviceBuffer::") + what + ": " + std::to_string(bytes) +
                " bytes at offset " + std::to_string(offset) + " exceed the buffer's " +
                std::to_string(size) + " bytes");
  }
}
}  // namespace

void DeviceBuffer::upload(const void* host, size_t bytes, size_t offset) {
  check_range(offset, bytes, bytes_, "upload");
  if (bytes == 0) return;
  DGS_CUDA_CHECK(
      cudaMemcpy(static_cast<char*>(ptr_) + offset, host, bytes, cudaMemcpyHostToDevice));
}
void DeviceBuffer::download(void* host, size_t bytes, size_t offset) const {
  check_range(offset, bytes, bytes_, "download");
  if (bytes == 0) return;
  DGS_CUDA_CHECK(
      cudaMemcpy(host, static_cast<const char*>(ptr_) + offset, bytes, cudaMemcpyDeviceToHost));
}
void DeviceBuffer::fill_bytes(int value) {
  if (bytes_ == 0) return;
  DGS_CUDA_CHECK(cudaMemset(ptr_, value, bytes_));
}

DeviceBuffer upload_floats(const std::vector<float>& values) {
  DeviceBuffer b(values.size() * sizeof(float));
  b.upload(values.data(), values.size() * sizeof(float));
  return b;
}
std::vector<float> download_floats(const DeviceBuffer& buf, size_t count) {
  std::vector<float> v(count);
  buf.download(v.data(), count * sizeof(float));
  return v;
}

// --- timing ---------------------------------------------------------------------------------
Timing time_with_events(const std::function<void()>& run_once, const Stream& stream,
                        const TimingProtocol& protocol) {
  if (protocol.number < 1 || protocol.repeats < 1 || protocol.warmup < 0) {
    throw Error("time_with_events: timing protocol warmup=" + std::to_string(protocol.warmup) +
                " number=" + std::to_string(protocol.number) +
                " repeats=" + std::to_string(protocol.repeats) +
                "; expected warmup >= 0, number >= 1, repeats >= 1");
  }
  for (int i = 0; i < protocol.warmup; ++i) run_once();
  Event start, end;
  Timing t;
  for (int r = 0; r < protocol.repeats; ++r) {
    device_synchronize();
    start.record(stream);
    for (int i = 0; i < protocol.number; ++i) run_once();
    end.record(stream);
    end.synchronize();
    t.samples_ms.push_back(elapsed_ms(start, end) / protocol.number);
  }
  t.median_ms = median_of(t.samples_ms);
  t.min_ms = *std::min_element(t.samples_ms.begin(), t.samples_ms.end());
  t.max_ms = *std::max_element(t.samples_ms.begin(), t.samples_ms.end());
  return t;
}

}  // namespace dgs::gpu
