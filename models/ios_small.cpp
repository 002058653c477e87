// The four-convolution graph of the IOS thesis' Fig. 1.2 (and Fig. 4.3), as the
// authors' script builds it (artifact: experiments/utilization/main.py,
// model_a(ch=384, r=15)): input 384x15x15; conv a 3x3 384 -> 384 and conv b 3x3
// a -> 768 in one branch, conv c 3x3 384 -> 384 and conv d 3x3 384 -> 768
// beside it, each Conv+bias+Relu; the outputs concatenated (b, d, c: 1920
// channels). Definition order a, d, c, b, concat, as in the script.
#include "models/builder.h"
#include "models/zoo.h"

namespace dgs {

Graph build_ios_fig1_2(const ZooOptions& opts) {
  check_zoo_options(opts, "ios_fig1_2");
  constexpr int64_t kChannels = 384;           // Fig. 1.2 / utilization script: ch = 384
  const int64_t r = zoo_image_size(opts, 15);  // resolution 15x15
  ModelBuilder b("ios_fig1_2", opts.dtype);
  const int x = b.input("data", {opts.batch, kChannels, r, r});
  auto conv_relu = [&](int in, int64_t out, const std::string& name) {
    auto s = b.scope("block");
    auto u = b.scope(name);
    return b.relu(b.conv2d(in, out, 3, 1, 1, 1, true, "conv"), "relu");
  };
  const int a = conv_relu(x, kChannels, "a");
  const int d = conv_relu(x, 2 * kChannels, "d");
  const int c = conv_relu(x, kChannels, "c");
  const int bb = conv_relu(a, 2 * kChannels, "b");
  int out;
  {
    auto s = b.scope("block");
    auto u = b.scope("concat");
    out = b.concat({bb, d, c}, 1, "concat");
  }
  return b.finish({out});
}

}  // namespace dgs
