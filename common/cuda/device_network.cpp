// A network of tile programs on the GPU (see device_network.h). Calls only CUDA-free headers, so it
// compiles in the build without CUDA too, where every device entry point throws.
#include "common/cuda/device_network.h"

#include <algorithm>
#include <string>

#include "common/util/error.h"

namespace dgs::gpu {

int tile_program_blocks(const TileProgram& p, int sm_count, int blocks_per_sm) {
  int64_t blocks = std::max<int64_t>(1, int64_t{sm_count} * blocks_per_sm);
  blocks = std::min<int64_t>(blocks, std::max<int64_t>(1, p.tiles));
  if (p.scratch_floats > 0) {
    const int64_t fit =
        kTpScratchBudgetBytes / (p.scratch_floats * static_cast<int64_t>(sizeof(float)));
    if (fit < 1)
      throw Error("tile program '" + p.name + "': one block's scratch (" +
                  std::to_string(p.scratch_floats) + " floats) exceeds the scratch budget");
    blocks = std::min(blocks, fit);
  }
  return static_cast<int>(blocks);
}

DeviceNetwork::DeviceNetwork(const Graph& g, const NetworkProgram& np, const TensorValues& feeds,
                             int sm_count)
    : g_(&g), np_(&np) {
  int64_t scratch_floats = 0;
  const int blocks_per_sm = gpu::tile_program_resident_blocks_per_sm();
  for (const TileProgram& k : np.kernels) {
    for (size_t i = 0; i < k.global_ids.size(); ++i) {
      const int b = np.buffer_of(k.global_ids[i]);
      if (bufs_.count(b)) continue;
      const Tensor& t = g.tensor(b);
      const size_t bytes = static_cast<size_t>(t.numel()) * sizeof(float);
      gpu::DeviceBuffer buf(std::max<size_t>(bytes, sizeof(float)));
      auto fi = feeds.find(b);
      if (t.producer < 0) {
        if (fi == feeds.end() || !fi->second.is_float())
          throw Error("device network: no float value for input tensor '" + t.name + "'");
        buf.upload(fi->second.f.data(), bytes);
      } else {
        buf.fill_bytes(0xFF);  // NaN: an element no kernel writes fails the comparisons
      }
      bytes_ += static_cast<int64_t>(bytes);
      bufs_.emplace(b, std::move(buf));
    }
  }
  for (const TileProgram& k : np.kernels) {
    std::vector<float*> ptrs;
    for (int t : k.global_ids) ptrs.push_back(bufs_.at(np.buffer_of(t)).floats());
    programs_.emplace_back(k, ptrs);
    blocks_.push_back(tile_program_blocks(k, sm_count, blocks_per_sm));
    scratch_floats = std::max(scratch_floats, blocks_.back() * k.scratch_floats);
  }
  scratch_ =
      gpu::DeviceBuffer(static_cast<size_t>(std::max<int64_t>(1, scratch_floats)) * sizeof(float));
  bytes_ += scratch_floats * static_cast<int64_t>(sizeof(float));
}

void DeviceNetwork::run(gpu::KernelLauncher& l) const {
  for (size_t i = 0; i < programs_.size(); ++i)
    programs_[i].launch(l, blocks_[i], scratch_.floats());
}

void DeviceNetwork::run_kernel(gpu::KernelLauncher& l, size_t i) const {
  if (i >= programs_.size())
    throw Error("device network: kernel " + std::to_string(i) + " of " +
                std::to_string(programs_.size()));
  programs_[i].launch(l, blocks_[i], scratch_.floats());
}

TensorData DeviceNetwork::download(int t) const {
  auto it = bufs_.find(np_->buffer_of(t));
  if (it == bufs_.end())
    throw Error("device network: tensor '" + g_->tensor(t).name + "' has no device buffer");
  TensorData d;
  d.dtype = DType::F32;
  d.shape = g_->tensor(t).shape;
  d.f = gpu::download_floats(it->second, static_cast<size_t>(numel(d.shape)));
  return d;
}

}  // namespace dgs::gpu
