#pragma once
// Welder Table 7 (§5.4): the host-memory level. A network whose tensors do not fit the GPU is run
// in host passes: each pass is tiled 4x4 over H and W (all channels); for every tile its input
// regions (with halos) go host->device, the pass computes the tile on the device, and the tile
// of each tensor leaving the pass goes device->host. Welder connects operators at the
// device-memory level (one pass holds several operators); its base disables that connection.
//
// The computation follows the authors' artifact (microsoft/nnfusion, branch osdi2023welder,
// experimental/host_device: opbase.py, vgg_arch.py, unet_arch.py, host_vgg.py, host_unet.py):
//   * OpBase.slice: an input tile is the pass's dependency range clamped to the tensor's bounds;
//     OpBase.d2h/gather: the output tile goes back once; weights live on the device (created with
//     device=self.device once), so they are no host traffic;
//   * nn.MaxPool2d is applied to host tensors between passes: it runs on the host;
//   * n_step = 4: tile = ceil(H/4) x ceil(W/4) of the pass's output, all channels;
//   * base (VGG16Base/UNetBase): one pass per Conv (conv+bias+ReLU) and per UpSample
//     (ConvTranspose + concat); Welder (VGG16/UNet): one pass per MultiConv stage, DoubleConv and
//     UpConv (ConvTranspose + concat + DoubleConv).
// The artifact groups by hand, per nn.Module; host_passes() states the grouping as a rule on the
// graph (see HostGrouping) so that any CNN can be run, and the tests check that the rule gives
// the artifact's modules on both networks.
#include <cstdint>
#include <string>
#include <vector>

#include "common/graph/graph.h"

namespace dgs::welder {

// Artifact experimental/host_device: `n_step=4` in every module's __call__.
constexpr int64_t kHostTilesPerSide = 4;

// One host pass: graph ops, in topological order (host ops such as MaxPool are in no pass).
struct HostPass {
  std::vector<int> ops;
};

enum class HostGrouping {
  // Welder-base of Table 7: register-level connections only. An op joins its producer when it
  // reads one element of it per output element (element-wise, BatchNormalization, Concat) and
  // is that producer's only consumer: conv+bias+ReLU, ConvTranspose+Concat (artifact's Conv,
  // UpSample).
  PerOperator,
  // Welder: the base connections, plus device-memory connections of producer->consumer edges in
  // topological order when (a) both outputs have the same H and W, so the pass has one 4x4 tile
  // grid [open choice: the paper states no rule; this is the one under which the artifact's
  // hand-made modules are exactly the maximal passes], (b) no path leaves the merged pass and
  // re-enters it (a MaxPool runs on the host), (c) the per-tile device footprint fits the device
  // memory (Fig. 7's MemFootprint <= capacity).
  Welder,
  // For comparison only: Welder's connection loop with (b) and (c) but without (a), i.e. the
  // extension of the GPU-level algorithm that connects whatever fits (this groups UNet's whole
  // decoder into one pass; the artifact does not).
  WelderFitOnly,
};

// Whether `op` runs on the host between passes (artifact: MaxPool on host tensors).
bool runs_on_host(const Graph& g, int op);

// The passes of `g` under `grouping`, with `device_capacity` bytes of device memory.
std::vector<HostPass> host_passes(const Graph& g, HostGrouping grouping, double device_capacity);

struct HostTraffic {
  double h2d_bytes = 0;  // host -> device (input tiles with their halos)
  double d2h_bytes = 0;  // device -> host (output tiles)
  double total() const { return h2d_bytes + d2h_bytes; }
};

// Host<->device bytes of one pass over its 4x4 tiles. Throws dgs::Error if a tensor leaving the
// pass is not 4-D (NCHW).
HostTraffic host_pass_traffic(const Graph& g, const HostPass& p);
HostTraffic host_traffic(const Graph& g, const std::vector<HostPass>& passes);

// Device-memory footprint of a pass: the largest, over its tiles, peak of live tile regions in
// topological order (inputs from the host until their last use, intermediates from producer to
// last consumer, weights from first to last use).
double host_pass_footprint(const Graph& g, const std::vector<int>& ops);

}  // namespace dgs::welder
