// The kernel testbed (see kernel_testbed.h): host code over the runtime layer.
#include "common/cuda/kernel_testbed.h"

namespace dgs::gpu {

DeviceTensors::DeviceTensors(const Graph& g, const TensorValues& values) : g_(&g) {
  for (int t = 0; t < g.num_tensors(); ++t) {
    const Tensor& ts = g.tensor(t);
    if (ts.dtype != DType::F32) continue;
    DeviceBuffer b(static_cast<size_t>(ts.numel()) * sizeof(float));
    auto it = values.find(t);
    if (it != values.end() && it->second.dtype == DType::F32) {
      b.upload(it->second.f.data(), it->second.f.size() * sizeof(float));
    } else {
      b.fill_bytes(0xFF);  // NaN: an element nobody writes fails the comparison
    }
    bufs_.emplace(t, std::move(b));
  }
}

float* DeviceTensors::operator[](int tensor) const {
  auto it = bufs_.find(tensor);
  if (it == bufs_.end()) {
    throw Error("DeviceTensors: tensor " + std::to_string(tensor) +
                " has no device buffer (not a float32 tensor of the fragment)");
  }
  return it->second.floats();
}

float* DeviceTensors::at(const std::string& name) const {
  const int t = g_->find_tensor(name);
  if (t < 0) throw Error("DeviceTensors: no tensor named '" + name + "'");
  return (*this)[t];
}

TensorData DeviceTensors::download(int tensor) const {
  (void)(*this)[tensor];  // throws for a tensor without a buffer
  const Tensor& ts = g_->tensor(tensor);
  TensorData d = TensorData::zeros(ts.shape);
  bufs_.at(tensor).download(d.f.data(), d.f.size() * sizeof(float));
  return d;
}

KernelCheck check_kernel(const Graph& fragment, const KernelRunner& run, uint64_t seed,
                         Tolerance tol, const TensorValues& feeds) {
  const TensorValues inputs = make_graph_feeds(fragment, feeds, seed);
  const TensorValues ref = run_graph(fragment, inputs, seed);
  DeviceTensors dev(fragment, inputs);
  Stream stream;
  KernelLauncher launcher(stream);
  run(launcher, dev);
  stream.synchronize();
  device_synchronize();
  KernelCheck r;
  r.launches = launcher.launches();
  for (int t : fragment.output_tensors()) {
    const Comparison c = compare_tensors(dev.download(t), ref.at(t), tol);
    r.passed = r.passed && c.passed;
    r.outputs.emplace(t, c);
  }
  return r;
}

}  // namespace dgs::gpu
