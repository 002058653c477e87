// Built when nvcc was not found: tile programs run on the host interpreter only
// (common/tileprog/tile_program_interpreter.h); the device side refuses in one line.
#include "common/cuda/nocuda/nocuda.h"
#include "common/cuda/tile_program_gpu.h"

namespace dgs::gpu {

int tile_program_resident_blocks_per_sm() {
  throw_no_cuda("tile_program_resident_blocks_per_sm");
}
DeviceTileProgram::DeviceTileProgram(const TileProgram&, const std::vector<float*>&) {
  throw_no_cuda("DeviceTileProgram");
}
void DeviceTileProgram::launch(KernelLauncher&, int, float*) const {
  throw_no_cuda("DeviceTileProgram::launch");
}

}  // namespace dgs::gpu
