// Built when nvcc was not found: the CUDA runtime layer exists so that everything links, but no
// object that needs a GPU can be created (constructors throw), and device_count() is 0.
#include <utility>

#include "common/cuda/nocuda/nocuda.h"
#include "common/cuda/runtime.h"

namespace dgs::gpu {

int device_count() {
  return 0;
}
GpuSpec query_gpu_spec(int) {
  throw_no_cuda("query_gpu_spec");
}
void device_synchronize() {
  throw_no_cuda("device_synchronize");
}

Stream::Stream() {
  throw_no_cuda("Stream");
}
Stream::~Stream() = default;
Stream::Stream(Stream&& o) noexcept : handle_(std::exchange(o.handle_, nullptr)) {}
Stream& Stream::operator=(Stream&& o) noexcept {
  handle_ = std::exchange(o.handle_, nullptr);
  return *this;
}
void Stream::synchronize() const {
  throw_no_cuda("Stream::synchronize");
}

Event::Event() {
  throw_no_cuda("Event");
}
Event::~Event() = default;
Event::Event(Event&& o) noexcept : handle_(std::exchange(o.handle_, nullptr)) {}
Event& Event::operator=(Event&& o) noexcept {
  handle_ = std::exchange(o.handle_, nullptr);
  return *this;
}
void Event::record(const Stream&) {
  throw_no_cuda("Event::record");
}
void Event::synchronize() const {
  throw_no_cuda("Event::synchronize");
}
void Event::make_wait(const Stream&) const {
  throw_no_cuda("Event::make_wait");
}
double elapsed_ms(const Event&, const Event&) {
  throw_no_cuda("elapsed_ms");
}

DeviceBuffer::DeviceBuffer(size_t) {
  fault_point(FaultSite::Allocation, "cudaMalloc");  // the fake device layer's site
  throw_no_cuda("DeviceBuffer");
}
DeviceBuffer::~DeviceBuffer() = default;
DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept
    : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  ptr_ = std::exchange(o.ptr_, nullptr);
  bytes_ = std::exchange(o.bytes_, 0);
  return *this;
}
void DeviceBuffer::upload(const void*, size_t, size_t) {
  throw_no_cuda("DeviceBuffer::upload");
}
void DeviceBuffer::download(void*, size_t, size_t) const {
  throw_no_cuda("DeviceBuffer::download");
}
void DeviceBuffer::fill_bytes(int) {
  throw_no_cuda("DeviceBuffer::fill_bytes");
}

DeviceBuffer upload_floats(const std::vector<float>&) {
  throw_no_cuda("upload_floats");
}
std::vector<float> download_floats(const DeviceBuffer&, size_t) {
  throw_no_cuda("download_floats");
}

Timing time_with_events(const std::function<void()>&, const Stream&, const TimingProtocol&) {
  throw_no_cuda("time_with_events");
}

}  // namespace dgs::gpu
