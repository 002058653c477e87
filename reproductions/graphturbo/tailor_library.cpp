#include "reproductions/graphturbo/tailor_library.h"

#include <algorithm>
#include <map>

#include "common/util/error.h"

namespace dgs::graphturbo {

namespace {

// Where a tensor lives: an activation level and the first image of its batch slice.
struct Place {
  int level = 0;
  int64_t offset = 0;
};

[[noreturn]] void refuse(const std::string& kernel, const std::string& why) {
  throw Error("table5 measured: kernel '" + kernel + "' has no library kernel: " + why);
}

int64_t const_int(const Graph& g, const Op& op, size_t input, const std::string& kernel) {
  if (input >= op.inputs.size() || op.inputs[input] < 0)
    refuse(kernel, op.name + " lacks an input");
  const Tensor& t = g.tensor(op.inputs[input]);
  if (t.role != TensorRole::Constant || t.int_data.size() != 1)
    refuse(kernel, op.name + "'s input " + std::to_string(input) + " is not one constant integer");
  return t.int_data[0];
}

// A Slice or Concat along the batch: the place of its output (a view of its input's level).
Place batch_view(const Graph& g, const Op& op, const std::map<int, Place>& places,
                 const std::string& kernel) {
  auto place_of = [&](int t) {
    auto it = places.find(t);
    if (it == places.end())
      refuse(kernel, op.name + " reads '" + g.tensor(t).name + "', which no earlier kernel writes");
    return it->second;
  };
  const Shape& out = g.tensor(op.outputs.at(0)).shape;
  if (op.kind == OpKind::Slice) {
    if (const_int(g, op, 3, kernel) != 0)
      refuse(kernel, op.name + " slices another axis than the batch");
    if (op.inputs.size() > 4 && const_int(g, op, 4, kernel) != 1)
      refuse(kernel, op.name + " has a step");
    Place p = place_of(op.inputs[0]);
    p.offset += const_int(g, op, 1, kernel);
    return p;
  }
  if (op.attrs.get_int("axis", 1) != 0)
    refuse(kernel, op.name + " concatenates another axis than the batch");
  Place first = place_of(op.inputs.at(0));
  int64_t next = first.offset;
  for (int t : op.inputs) {
    const Place p = place_of(t);
    if (p.level != first.level || p.offset != next)
      refuse(kernel, op.name + "'s parts are not consecutive batch slices of one buffer");
    next += g.tensor(t).shape.at(0);
  }
  if (next - first.offset != out.at(0)) refuse(kernel, op.name + "'s parts do not add up");
  return first;
}

}  // namespace

std::vector<TailorLaunch> tailor_launches(const TailorNetwork& net) {
  const Graph& g = net.graph;
  std::map<int, Place> places;
  places[g.input_tensors().at(0)] = Place{0, 0};
  std::vector<TailorLaunch> out;
  for (size_t k = 0; k < net.kernels.size(); ++k) {
    const std::string& name = net.kernel_names.at(k);
    std::vector<int> ops = net.kernels[k];
    std::sort(ops.begin(), ops.end());  // built in topological order
    std::vector<int> convs;
    Place first_in;  // where the kernel's first conv reads
    for (int oi : ops) {
      const Op& op = g.op(oi);
      switch (op.kind) {
        case OpKind::Slice:
        case OpKind::Concat:
          places[op.outputs.at(0)] = batch_view(g, op, places, name);
          break;
        case OpKind::Conv: {
          auto it = places.find(op.inputs.at(0));
          if (it == places.end())
            refuse(name, op.name + " reads a tensor no earlier kernel writes");
          if (convs.empty()) first_in = it->second;
          places[op.outputs.at(0)] = Place{it->second.level + 1, it->second.offset};
          convs.push_back(oi);
          break;
        }
        case OpKind::Relu: {
          // The ReLU of the kernel's last conv, in that conv's epilogue.
          if (convs.empty() || g.op(convs.back()).outputs.at(0) != op.inputs.at(0))
            refuse(name, op.name + " does not directly follow a convolution of the kernel");
          places[op.outputs.at(0)] = places.at(op.inputs.at(0));
          break;
        }
        default:
          refuse(name, "op '" + op.name + "' (" + std::string(op_kind_name(op.kind)) +
                           ") is neither a convolution, a ReLU, nor a batch Slice or Concat");
      }
    }
    // Every conv must be followed by its ReLU (the epilogues apply one).
    auto relu_of = [&](int conv) {
      const int y = g.op(conv).outputs.at(0);
      for (int o : ops)
        if (g.op(o).kind == OpKind::Relu && g.op(o).inputs.at(0) == y) return o;
      refuse(name, g.op(conv).name + " is not followed by a ReLU");
    };
    for (int c : convs) (void)relu_of(c);
    TailorLaunch l;
    l.kernel = name;
    l.in_level = first_in.level;
    l.batch_offset = first_in.offset;
    if (convs.empty()) {
      l.kind = TailorLaunch::Kind::View;
      l.library = "view (no kernel)";
      out.push_back(l);
      continue;
    }
    if (convs.size() > 2)
      refuse(name, std::to_string(convs.size()) + " convolutions in one kernel");
    l.conv0 = gpu::conv2d_shape_of(g, convs[0]);
    l.weight0 = g.op(convs[0]).inputs.at(1);
    if (std::string why = gpu::cutlass_conv2d_f16_unsupported(l.conv0); !why.empty())
      refuse(name, g.op(convs[0]).name + ": " + why);
    if (convs.size() == 1) {
      l.kind = TailorLaunch::Kind::Conv;
      l.out_level = l.in_level + 1;
      l.library = "CUTLASS " + gpu::cutlass_conv2d_f16_kernel(l.conv0);
      out.push_back(l);
      continue;
    }
    const Op& second = g.op(convs[1]);
    const Op& relu0 = g.op(relu_of(convs[0]));
    if (second.inputs.at(0) != relu0.outputs.at(0))
      refuse(name, second.name + " does not read " + relu0.name);
    l.conv1 = gpu::conv2d_shape_of(g, convs[1]);
    l.weight1 = second.inputs.at(1);
    if (std::string why = gpu::cutlass_conv2d_f16_unsupported(l.conv1); !why.empty())
      refuse(name, second.name + ": " + why);
    const std::string b2b_why = gpu::cutlass_b2b_unsupported(l.conv0, l.conv1);
    if (b2b_why.empty()) {
      l.kind = TailorLaunch::Kind::BackToBack;
      l.out_level = l.in_level + 2;
      l.library = "CUTLASS " + gpu::cutlass_b2b_config(l.conv0, l.conv1).str();
      out.push_back(l);
      continue;
    }
    // No fused instantiation: the two convolutions as two launches.
    TailorLaunch a = l, b = l;
    a.kind = b.kind = TailorLaunch::Kind::Conv;
    a.out_level = l.in_level + 1;
    a.library =
        "CUTLASS " + gpu::cutlass_conv2d_f16_kernel(l.conv0) + " (unfused: " + b2b_why + ")";
    b.conv0 = l.conv1;
    b.weight0 = l.weight1;
    b.in_level = l.in_level + 1;
    b.out_level = l.in_level + 2;
    b.library = "CUTLASS " + gpu::cutlass_conv2d_f16_kernel(l.conv1) + " (unfused)";
    a.conv1 = b.conv1 = gpu::Conv2dShape{};
    a.weight1 = b.weight1 = -1;
    out.push_back(a);
    out.push_back(b);
  }
  // The network's output must be a whole level.
  const int y = g.output_tensors().at(0);
  auto it = places.find(y);
  if (it == places.end() || it->second.offset != 0)
    throw Error("table5 measured: the network's output is not one whole activation level");
  return out;
}

std::string tailor_launches_summary(const std::vector<TailorLaunch>& launches) {
  std::string s;
  std::string last;
  for (const TailorLaunch& l : launches) {
    if (l.kind == TailorLaunch::Kind::View) continue;
    const std::string item = l.kernel + ": " + l.library;
    if (item == last) continue;  // the second launch of an unfused pair names the kernel again
    if (!s.empty()) s += "; ";
    s += item;
    last = item;
  }
  return s;
}

// ---------------------------------------------------------------------------------------------

TailorDeviceRun::TailorDeviceRun(const TailorNetwork& net, const TensorValues& feeds,
                                 TailorLibrary library, const gpu::Stream& stream)
    : launches_(tailor_launches(net)), library_(library) {
  const Graph& g = net.graph;
  const int x = g.input_tensors().at(0);
  const Shape& xs = g.tensor(x).shape;
  const int64_t batch = xs.at(0);
  // Level shapes, full batch: level 0 the input, each conv's output one level on.
  std::map<int, Shape> shapes{{0, xs}};
  auto note = [&](int level, const gpu::Conv2dShape& c) {
    shapes[level] = Shape{batch, c.out_c, c.out_h, c.out_w};
  };
  for (const TailorLaunch& l : launches_) {
    if (l.kind == TailorLaunch::Kind::View) continue;
    note(l.in_level + 1, l.conv0);
    if (l.kind == TailorLaunch::Kind::BackToBack) note(l.in_level + 2, l.conv1);
  }
  const int top = shapes.rbegin()->first;
  for (int lv = 0; lv <= top; ++lv) {
    auto it = shapes.find(lv);
    if (it == shapes.end())
      throw Error("table5 measured: activation level " + std::to_string(lv) + " has no shape");
    levels_.push_back(Level{
        it->second, gpu::DeviceBuffer(static_cast<size_t>(numel(it->second)) * sizeof(uint16_t))});
  }
  gpu::KernelLauncher l(stream);
  auto upload_f16_nhwc = [&](const TensorData& v, uint16_t* dst) {
    const gpu::DeviceBuffer f32 = gpu::upload_floats(v.f);
    gpu::nchw_f32_to_nhwc_f16(l, v.shape.at(0), v.shape.at(1), v.shape.at(2), v.shape.at(3),
                              f32.floats(), dst);
    stream.synchronize();
  };
  upload_f16_nhwc(feeds.at(x), at(0, 0));
  for (const TailorLaunch& ln : launches_) {
    for (int w : {ln.weight0, ln.weight1}) {
      if (w < 0 || std::any_of(weights_.begin(), weights_.end(),
                               [&](const auto& p) { return p.first == w; }))
        continue;
      const TensorData& v = feeds.at(w);
      weights_.emplace_back(w, gpu::DeviceBuffer(v.f.size() * sizeof(uint16_t)));
      upload_f16_nhwc(v, static_cast<uint16_t*>(weights_.back().second.data()));
    }
  }
  if (library_ == TailorLibrary::Cudnn) cudnn_ = std::make_unique<gpu::CudnnConvF16>(stream);
}

TailorDeviceRun::~TailorDeviceRun() = default;

const uint16_t* TailorDeviceRun::weight(int tensor) const {
  for (const auto& [t, b] : weights_)
    if (t == tensor) return static_cast<const uint16_t*>(b.data());
  throw Error("table5 measured: weight tensor " + std::to_string(tensor) + " was not uploaded");
}

uint16_t* TailorDeviceRun::at(int level, int64_t batch_offset) const {
  const Level& lv = levels_.at(static_cast<size_t>(level));
  const int64_t image = lv.nchw[1] * lv.nchw[2] * lv.nchw[3];
  return static_cast<uint16_t*>(lv.buf.data()) + batch_offset * image;
}

void TailorDeviceRun::run(gpu::KernelLauncher& l) {
  for (const TailorLaunch& ln : launches_) {
    if (ln.kind == TailorLaunch::Kind::View) continue;
    const uint16_t* in = at(ln.in_level, ln.batch_offset);
    uint16_t* out = at(ln.out_level, ln.batch_offset);
    if (ln.kind == TailorLaunch::Kind::Conv) {
      if (library_ == TailorLibrary::Cutlass)
        gpu::cutlass_conv2d_f16(l, ln.conv0, in, weight(ln.weight0), out, true);
      else
        cudnn_->run(l, ln.conv0, in, weight(ln.weight0), out, true);
      continue;
    }
    if (library_ == TailorLibrary::Cutlass) {
      gpu::cutlass_b2b_conv2d_f16(l, ln.conv0, ln.conv1, in, weight(ln.weight0), weight(ln.weight1),
                                  out);
    } else {
      uint16_t* mid = at(ln.in_level + 1, ln.batch_offset);
      cudnn_->run(l, ln.conv0, in, weight(ln.weight0), mid, true);
      cudnn_->run(l, ln.conv1, mid, weight(ln.weight1), out, true);
    }
  }
}

TensorData TailorDeviceRun::output(gpu::KernelLauncher& l) const {
  const Level& top = levels_.back();
  const gpu::DeviceBuffer f32(static_cast<size_t>(numel(top.nchw)) * sizeof(float));
  gpu::nhwc_f16_to_nchw_f32(l, top.nchw[0], top.nchw[1], top.nchw[2], top.nchw[3],
                            static_cast<const uint16_t*>(top.buf.data()), f32.floats());
  l.stream().synchronize();
  TensorData d = TensorData::zeros(top.nchw);
  f32.download(d.f.data(), d.f.size() * sizeof(float));
  return d;
}

}  // namespace dgs::graphturbo
