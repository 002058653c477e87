#include "models/builder.h"

#include <cctype>
#include <cmath>
#include <utility>

namespace dgs {

namespace {
// ONNX TensorProto element types (onnx.proto), for Cast's "to" attribute.
int64_t onnx_elem_type(DType t) {
  switch (t) {
    case DType::F32:
      return 1;
    case DType::F16:
      return 10;
    case DType::I64:
      return 7;
    case DType::I32:
      return 6;
    case DType::Bool:
      return 9;
  }
  return 1;
}
}  // namespace

ModelBuilder::ModelBuilder(std::string graph_name, DType dtype) : dtype_(dtype) {
  g_.name = std::move(graph_name);
}

int64_t ModelBuilder::dim(int tensor, int axis) const {
  const Shape& s = shape(tensor);
  const int r = static_cast<int>(s.size());
  const int a = axis < 0 ? axis + r : axis;
  if (a < 0 || a >= r) {
    throw Error("graph '" + g_.name + "': axis " + std::to_string(axis) + " is out of range for '" +
                g_.tensor(tensor).name + "' of shape " + shape_str(s));
  }
  return s[static_cast<size_t>(a)];
}

// ---- naming ----------------------------------------------------------------------------------
ModelBuilder::ScopeGuard::~ScopeGuard() {
  if (b_ != nullptr) b_->scopes_.resize(depth_);
}

ModelBuilder::ScopeGuard ModelBuilder::scope(const std::string& name) {
  const size_t depth = scopes_.size();
  scopes_.push_back(name);
  return ScopeGuard(this, depth);
}

std::string ModelBuilder::op_name(const std::string& name, const std::string& base) {
  std::string prefix;
  for (const std::string& s : scopes_) {
    if (s.empty()) continue;
    prefix += s;
    prefix += '.';
  }
  if (!name.empty()) return prefix + name;
  int& counter = counters_[prefix + base];
  std::string candidate;
  do {
    candidate = prefix + base + "_" + std::to_string(counter++);
  } while (g_.find_op(candidate) >= 0 || g_.find_tensor(candidate) >= 0);
  return candidate;
}

// ---- inputs, weights, constants --------------------------------------------------------------
int ModelBuilder::input(const std::string& name, Shape shape) {
  return g_.add_input(name, std::move(shape), dtype_);
}
int ModelBuilder::input(const std::string& name, Shape shape, DType dtype) {
  return g_.add_input(name, std::move(shape), dtype);
}
int ModelBuilder::weight(const std::string& name, Shape shape) {
  return g_.add_weight(name, std::move(shape), dtype_);
}
int ModelBuilder::const_ints(const std::string& name, std::vector<int64_t> values) {
  return g_.add_constant_ints(name, std::move(values));
}
int ModelBuilder::const_scalar(const std::string& name, float value) {
  int t = g_.add_constant_floats(name, Shape{}, {value});
  g_.tensor(t).dtype = dtype_;
  return t;
}
int ModelBuilder::const_floats(const std::string& name, Shape shape, std::vector<float> values) {
  return g_.add_constant_floats(name, std::move(shape), std::move(values));
}

// ---- generic ---------------------------------------------------------------------------------
std::string ModelBuilder::kind_base(OpKind kind) {
  std::string base(op_kind_name(kind));
  for (char& c : base) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return base;
}

int ModelBuilder::emit(OpKind kind, const std::string& full_name, const std::vector<int>& inputs,
                       Attributes attrs) {
  const int id = g_.add_op(kind, full_name, inputs, std::move(attrs));
  return g_.op(id).outputs.at(0);
}

int ModelBuilder::op(OpKind kind, const std::vector<int>& inputs, Attributes attrs,
                     const std::string& name) {
  return emit(kind, op_name(name, kind_base(kind)), inputs, std::move(attrs));
}

std::vector<int> ModelBuilder::op_multi(OpKind kind, const std::vector<int>& inputs,
                                        int num_outputs, Attributes attrs,
                                        const std::string& name) {
  const std::string n = op_name(name, kind_base(kind));
  const int id = g_.add_op(kind, n, inputs, std::move(attrs), num_outputs);
  return g_.op(id).outputs;
}

// ---- convolution, pooling, normalisation -----------------------------------------------------
int ModelBuilder::conv2d(int x, int64_t out_channels, int64_t kernel, int64_t stride, int64_t pad,
                         int64_t groups, bool bias, const std::string& name) {
  Conv2dSpec s;
  s.kernel = {kernel, kernel};
  s.strides = {stride, stride};
  s.pads = {pad, pad, pad, pad};
  s.groups = groups;
  s.bias = bias;
  return conv2d(x, out_channels, s, name);
}

int ModelBuilder::conv2d(int x, int64_t out_channels, std::array<int64_t, 2> kernel,
                         std::array<int64_t, 2> stride, std::array<int64_t, 2> pad, int64_t groups,
                         bool bias, const std::string& name) {
  Conv2dSpec s;
  s.kernel = kernel;
  s.strides = stride;
  s.pads = {pad[0], pad[1], pad[0], pad[1]};
  s.groups = groups;
  s.bias = bias;
  return conv2d(x, out_channels, s, name);
}

int ModelBuilder::conv2d(int x, int64_t out_channels, const Conv2dSpec& spec,
                         const std::string& name) {
  const std::string n = op_name(name, "conv");
  const int64_t in_channels = dim(x, 1);
  if (spec.groups <= 0 || in_channels % spec.groups != 0 || out_channels % spec.groups != 0) {
    throw Error("op '" + n + "' (Conv): group " + std::to_string(spec.groups) +
                " does not divide input channels " + std::to_string(in_channels) +
                " and output channels " + std::to_string(out_channels));
  }
  std::vector<int> inputs = {x, weight(n + ".weight", {out_channels, in_channels / spec.groups,
                                                       spec.kernel[0], spec.kernel[1]})};
  if (spec.bias) inputs.push_back(weight(n + ".bias", {out_channels}));
  Attributes a;
  a.set("kernel_shape", std::vector<int64_t>{spec.kernel[0], spec.kernel[1]});
  a.set("strides", std::vector<int64_t>{spec.strides[0], spec.strides[1]});
  a.set("pads", std::vector<int64_t>(spec.pads.begin(), spec.pads.end()));
  a.set("dilations", std::vector<int64_t>{spec.dilations[0], spec.dilations[1]});
  a.set("group", spec.groups);
  const int id = g_.add_op(OpKind::Conv, n, inputs, std::move(a));
  return g_.op(id).outputs.at(0);
}

int ModelBuilder::conv3d(int x, int64_t out_channels, std::array<int64_t, 3> kernel,
                         std::array<int64_t, 3> stride, std::array<int64_t, 3> pad,
                         std::array<int64_t, 3> dilation, int64_t groups, bool bias,
                         const std::string& name) {
  const std::string n = op_name(name, "conv");
  if (rank(x) != 5) {
    throw Error("op '" + n + "' (Conv): 3-D convolution needs a rank-5 input, got " +
                shape_str(shape(x)));
  }
  const int64_t in_channels = dim(x, 1);
  if (groups <= 0 || in_channels % groups != 0 || out_channels % groups != 0) {
    throw Error("op '" + n + "' (Conv): group " + std::to_string(groups) +
                " does not divide input channels " + std::to_string(in_channels) +
                " and output channels " + std::to_string(out_channels));
  }
  std::vector<int> inputs = {x, weight(n + ".weight", {out_channels, in_channels / groups,
                                                       kernel[0], kernel[1], kernel[2]})};
  if (bias) inputs.push_back(weight(n + ".bias", {out_channels}));
  Attributes a;
  a.set("kernel_shape", std::vector<int64_t>(kernel.begin(), kernel.end()));
  a.set("strides", std::vector<int64_t>(stride.begin(), stride.end()));
  a.set("pads", std::vector<int64_t>{pad[0], pad[1], pad[2], pad[0], pad[1], pad[2]});
  a.set("dilations", std::vector<int64_t>(dilation.begin(), dilation.end()));
  a.set("group", groups);
  const int id = g_.add_op(OpKind::Conv, n, inputs, std::move(a));
  return g_.op(id).outputs.at(0);
}

int ModelBuilder::max_pool3d(int x, std::array<int64_t, 3> kernel, std::array<int64_t, 3> stride,
                             std::array<int64_t, 3> pad, const std::string& name) {
  Attributes a;
  a.set("kernel_shape", std::vector<int64_t>(kernel.begin(), kernel.end()));
  a.set("strides", std::vector<int64_t>(stride.begin(), stride.end()));
  a.set("pads", std::vector<int64_t>{pad[0], pad[1], pad[2], pad[0], pad[1], pad[2]});
  return emit(OpKind::MaxPool, op_name(name, "maxpool"), {x}, std::move(a));
}

int ModelBuilder::conv_transpose2d(int x, int64_t out_channels, int64_t kernel, int64_t stride,
                                   int64_t pad, bool bias, const std::string& name) {
  const std::string n = op_name(name, "conv_transpose");
  const int64_t in_channels = dim(x, 1);
  std::vector<int> inputs = {x, weight(n + ".weight", {in_channels, out_channels, kernel, kernel})};
  if (bias) inputs.push_back(weight(n + ".bias", {out_channels}));
  Attributes a;
  a.set("kernel_shape", std::vector<int64_t>{kernel, kernel});
  a.set("strides", std::vector<int64_t>{stride, stride});
  a.set("pads", std::vector<int64_t>{pad, pad, pad, pad});
  const int id = g_.add_op(OpKind::ConvTranspose, n, inputs, std::move(a));
  return g_.op(id).outputs.at(0);
}

int ModelBuilder::batchnorm(int x, double epsilon, const std::string& name) {
  const std::string n = op_name(name, "bn");
  const int64_t c = dim(x, 1);
  std::vector<int> inputs = {x, weight(n + ".weight", {c}), weight(n + ".bias", {c}),
                             weight(n + ".running_mean", {c}), weight(n + ".running_var", {c})};
  Attributes a;
  a.set("epsilon", epsilon);
  const int id = g_.add_op(OpKind::BatchNormalization, n, inputs, std::move(a));
  return g_.op(id).outputs.at(0);
}

int ModelBuilder::max_pool2d(int x, int64_t kernel, int64_t stride, int64_t pad, bool ceil_mode,
                             const std::string& name) {
  Attributes a;
  a.set("kernel_shape", std::vector<int64_t>{kernel, kernel});
  a.set("strides", std::vector<int64_t>{stride, stride});
  a.set("pads", std::vector<int64_t>{pad, pad, pad, pad});
  if (ceil_mode) a.set("ceil_mode", int64_t{1});
  return emit(OpKind::MaxPool, op_name(name, "maxpool"), {x}, std::move(a));
}

int ModelBuilder::avg_pool2d(int x, int64_t kernel, int64_t stride, int64_t pad,
                             bool count_include_pad, bool ceil_mode, const std::string& name) {
  Attributes a;
  a.set("kernel_shape", std::vector<int64_t>{kernel, kernel});
  a.set("strides", std::vector<int64_t>{stride, stride});
  a.set("pads", std::vector<int64_t>{pad, pad, pad, pad});
  if (count_include_pad) a.set("count_include_pad", int64_t{1});
  if (ceil_mode) a.set("ceil_mode", int64_t{1});
  return emit(OpKind::AveragePool, op_name(name, "avgpool"), {x}, std::move(a));
}

int ModelBuilder::global_avg_pool(int x, const std::string& name) {
  return emit(OpKind::GlobalAveragePool, op_name(name, "gap"), {x}, {});
}

int ModelBuilder::layernorm(int x, double epsilon, int num_axes, const std::string& name) {
  const std::string n = op_name(name, "layernorm");
  const Shape& s = shape(x);
  if (num_axes < 1 || num_axes > static_cast<int>(s.size())) {
    throw Error("op '" + n + "' (LayerNormalization): cannot normalise " +
                std::to_string(num_axes) + " axes of a tensor of shape " + shape_str(s));
  }
  Shape norm(s.end() - num_axes, s.end());
  std::vector<int> inputs = {x, weight(n + ".weight", norm), weight(n + ".bias", norm)};
  Attributes a;
  a.set("axis", static_cast<int64_t>(-num_axes));
  a.set("epsilon", epsilon);
  const int id = g_.add_op(OpKind::LayerNormalization, n, inputs, std::move(a));
  return g_.op(id).outputs.at(0);
}

int ModelBuilder::softmax(int x, int64_t axis, const std::string& name) {
  Attributes a;
  a.set("axis", axis);
  return emit(OpKind::Softmax, op_name(name, "softmax"), {x}, std::move(a));
}

// ---- activations -----------------------------------------------------------------------------
int ModelBuilder::relu(int x, const std::string& name) {
  return emit(OpKind::Relu, op_name(name, "relu"), {x}, {});
}
int ModelBuilder::relu6(int x, const std::string& name) {
  return clip_named(x, 0.0f, 6.0f, op_name(name, "relu6"));
}
int ModelBuilder::clip(int x, float lo, float hi, const std::string& name) {
  return clip_named(x, lo, hi, op_name(name, "clip"));
}
int ModelBuilder::clip_named(int x, float lo, float hi, const std::string& n) {
  const int lo_t = const_scalar(n + ".min", lo);
  const int hi_t = const_scalar(n + ".max", hi);
  const int id = g_.add_op(OpKind::Clip, n, {x, lo_t, hi_t});
  return g_.op(id).outputs.at(0);
}
int ModelBuilder::sigmoid(int x, const std::string& name) {
  return emit(OpKind::Sigmoid, op_name(name, "sigmoid"), {x}, {});
}
int ModelBuilder::tanh(int x, const std::string& name) {
  return emit(OpKind::Tanh, op_name(name, "tanh"), {x}, {});
}
int ModelBuilder::hardswish(int x, const std::string& name) {
  return emit(OpKind::HardSwish, op_name(name, "hardswish"), {x}, {});
}
int ModelBuilder::silu(int x, const std::string& name) {
  const std::string n = op_name(name, "silu");
  const int s = emit(OpKind::Sigmoid, n + ".sigmoid", {x}, {});
  return emit(OpKind::Mul, n + ".mul", {x, s}, {});
}
int ModelBuilder::gelu(int x, const std::string& name) {
  const std::string n = op_name(name, "gelu");
  const int d = scalar_binary(OpKind::Div, x, static_cast<float>(std::sqrt(2.0)), n + ".div");
  const int e = emit(OpKind::Erf, n + ".erf", {d}, {});
  const int a = scalar_binary(OpKind::Add, e, 1.0f, n + ".add");
  const int m = emit(OpKind::Mul, n + ".mul", {x, a}, {});
  return scalar_binary(OpKind::Mul, m, 0.5f, n + ".mul2");
}
int ModelBuilder::gelu_op(int x, const std::string& name) {
  return emit(OpKind::Gelu, op_name(name, "gelu"), {x}, {});
}

// ---- linear algebra --------------------------------------------------------------------------
int ModelBuilder::linear(int x, int64_t out_features, bool bias, const std::string& name) {
  const std::string n = op_name(name, "linear");
  const int64_t in_features = dim(x, -1);
  if (rank(x) == 2) {
    std::vector<int> inputs = {x, weight(n + ".weight", {out_features, in_features})};
    if (bias) inputs.push_back(weight(n + ".bias", {out_features}));
    Attributes a;
    a.set("transB", int64_t{1});
    const int id = g_.add_op(OpKind::Gemm, n, inputs, std::move(a));
    return g_.op(id).outputs.at(0);
  }
  const int w = weight(n + ".weight", {in_features, out_features});
  const int id = g_.add_op(OpKind::MatMul, n, {x, w});
  int y = g_.op(id).outputs.at(0);
  if (bias) {
    const int b = weight(n + ".bias", {out_features});
    const int id2 = g_.add_op(OpKind::Add, n + ".bias_add", {y, b});
    y = g_.op(id2).outputs.at(0);
  }
  return y;
}

int ModelBuilder::matmul(int a, int b, const std::string& name) {
  return emit(OpKind::MatMul, op_name(name, "matmul"), {a, b}, {});
}

int ModelBuilder::gemm(int a, int b, int c, bool trans_a, bool trans_b, double alpha, double beta,
                       const std::string& name) {
  Attributes at;
  if (trans_a) at.set("transA", int64_t{1});
  if (trans_b) at.set("transB", int64_t{1});
  if (alpha != 1.0) at.set("alpha", alpha);
  if (beta != 1.0) at.set("beta", beta);
  std::vector<int> inputs = {a, b};
  if (c >= 0) inputs.push_back(c);
  return emit(OpKind::Gemm, op_name(name, "gemm"), inputs, std::move(at));
}

// ---- element-wise binary ---------------------------------------------------------------------
int ModelBuilder::binary(OpKind kind, int a, int b, const std::string& name,
                         const std::string& base) {
  return emit(kind, op_name(name, base), {a, b}, {});
}
int ModelBuilder::scalar_binary(OpKind kind, int a, float v, const std::string& n) {
  const int c = const_scalar(n + ".value", v);
  const int id = g_.add_op(kind, n, {a, c});
  return g_.op(id).outputs.at(0);
}
int ModelBuilder::add(int a, int b, const std::string& name) {
  return binary(OpKind::Add, a, b, name, "add");
}
int ModelBuilder::sub(int a, int b, const std::string& name) {
  return binary(OpKind::Sub, a, b, name, "sub");
}
int ModelBuilder::mul(int a, int b, const std::string& name) {
  return binary(OpKind::Mul, a, b, name, "mul");
}
int ModelBuilder::div(int a, int b, const std::string& name) {
  return binary(OpKind::Div, a, b, name, "div");
}
int ModelBuilder::pow(int a, int b, const std::string& name) {
  return binary(OpKind::Pow, a, b, name, "pow");
}
int ModelBuilder::add_scalar(int a, float v, const std::string& name) {
  return scalar_binary(OpKind::Add, a, v, op_name(name, "add"));
}
int ModelBuilder::mul_scalar(int a, float v, const std::string& name) {
  return scalar_binary(OpKind::Mul, a, v, op_name(name, "mul"));
}
int ModelBuilder::div_scalar(int a, float v, const std::string& name) {
  return scalar_binary(OpKind::Div, a, v, op_name(name, "div"));
}

// ---- data movement ---------------------------------------------------------------------------
int ModelBuilder::concat(const std::vector<int>& xs, int64_t axis, const std::string& name) {
  Attributes a;
  a.set("axis", axis);
  return emit(OpKind::Concat, op_name(name, "concat"), xs, std::move(a));
}

std::vector<int> ModelBuilder::split(int x, const std::vector<int64_t>& sizes, int64_t axis,
                                     const std::string& name) {
  const std::string n = op_name(name, "split");
  const int s = const_ints(n + ".split", sizes);
  Attributes a;
  a.set("axis", axis);
  const int id = g_.add_op(OpKind::Split, n, {x, s}, std::move(a), static_cast<int>(sizes.size()));
  return g_.op(id).outputs;
}

int ModelBuilder::slice(int x, const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                        const std::vector<int64_t>& axes, const std::vector<int64_t>& steps,
                        const std::string& name) {
  const std::string n = op_name(name, "slice");
  std::vector<int> inputs = {x, const_ints(n + ".starts", starts), const_ints(n + ".ends", ends),
                             const_ints(n + ".axes", axes)};
  if (!steps.empty()) inputs.push_back(const_ints(n + ".steps", steps));
  const int id = g_.add_op(OpKind::Slice, n, inputs);
  return g_.op(id).outputs.at(0);
}

int ModelBuilder::reshape(int x, const std::vector<int64_t>& new_shape, const std::string& name) {
  const std::string n = op_name(name, "reshape");
  const int s = const_ints(n + ".shape", new_shape);
  const int id = g_.add_op(OpKind::Reshape, n, {x, s});
  return g_.op(id).outputs.at(0);
}

int ModelBuilder::transpose(int x, const std::vector<int64_t>& perm, const std::string& name) {
  Attributes a;
  a.set("perm", perm);
  return emit(OpKind::Transpose, op_name(name, "transpose"), {x}, std::move(a));
}

int ModelBuilder::flatten(int x, int64_t axis, const std::string& name) {
  Attributes a;
  a.set("axis", axis);
  return emit(OpKind::Flatten, op_name(name, "flatten"), {x}, std::move(a));
}

int ModelBuilder::squeeze(int x, const std::vector<int64_t>& axes, const std::string& name) {
  const std::string n = op_name(name, "squeeze");
  const int id = g_.add_op(OpKind::Squeeze, n, {x, const_ints(n + ".axes", axes)});
  return g_.op(id).outputs.at(0);
}

int ModelBuilder::unsqueeze(int x, const std::vector<int64_t>& axes, const std::string& name) {
  const std::string n = op_name(name, "unsqueeze");
  const int id = g_.add_op(OpKind::Unsqueeze, n, {x, const_ints(n + ".axes", axes)});
  return g_.op(id).outputs.at(0);
}

int ModelBuilder::pad(int x, const std::vector<int64_t>& pads, const std::string& mode,
                      const std::string& name) {
  const std::string n = op_name(name, "pad");
  Attributes a;
  a.set("mode", mode);
  const int id = g_.add_op(OpKind::Pad, n, {x, const_ints(n + ".pads", pads)}, std::move(a));
  return g_.op(id).outputs.at(0);
}

int ModelBuilder::resize(int x, const std::vector<float>& scales, const std::string& mode,
                         const std::string& name) {
  const std::string n = op_name(name, "resize");
  // Resize's scales are float32 whatever the data type (ONNX).
  const int s = const_floats(n + ".scales", {static_cast<int64_t>(scales.size())}, scales);
  Attributes a;
  a.set("mode", mode);
  const int id = g_.add_op(OpKind::Resize, n, {x, -1, s}, std::move(a));
  return g_.op(id).outputs.at(0);
}

int ModelBuilder::gather(int data, int indices, int64_t axis, const std::string& name) {
  Attributes a;
  a.set("axis", axis);
  return emit(OpKind::Gather, op_name(name, "gather"), {data, indices}, std::move(a));
}

int ModelBuilder::cast(int x, DType to, const std::string& name) {
  Attributes a;
  a.set("to", onnx_elem_type(to));
  return emit(OpKind::Cast, op_name(name, "cast"), {x}, std::move(a));
}

int ModelBuilder::reduce_mean(int x, const std::vector<int64_t>& axes, bool keepdims,
                              const std::string& name) {
  Attributes a;
  a.set("axes", axes);
  a.set("keepdims", int64_t{keepdims ? 1 : 0});
  return emit(OpKind::ReduceMean, op_name(name, "reduce_mean"), {x}, std::move(a));
}

int ModelBuilder::depth_to_space(int x, int64_t blocksize, const std::string& name) {
  Attributes a;
  a.set("blocksize", blocksize);
  return emit(OpKind::DepthToSpace, op_name(name, "depth_to_space"), {x}, std::move(a));
}

// ---- composite blocks ------------------------------------------------------------------------
int ModelBuilder::self_attention(int x, int64_t heads, int mask, const std::string& name) {
  auto guard = scope(name);
  if (rank(x) != 3) {
    throw Error("graph '" + g_.name + "': self_attention '" + name +
                "' needs [B, S, hidden], got " + shape_str(shape(x)));
  }
  const int64_t batch = dim(x, 0), seq = dim(x, 1), hidden = dim(x, 2);
  if (heads <= 0 || hidden % heads != 0) {
    throw Error("graph '" + g_.name + "': self_attention '" + name + "': " + std::to_string(heads) +
                " heads do not divide hidden size " + std::to_string(hidden));
  }
  const int64_t head_dim = hidden / heads;
  auto heads_of = [&](const std::string& what, const std::vector<int64_t>& perm) {
    const int p = linear(x, hidden, true, what);
    const int r = reshape(p, {batch, seq, heads, head_dim}, what + ".reshape");
    return transpose(r, perm, what + ".transpose");
  };
  const int q = heads_of("query", {0, 2, 1, 3});
  const int k = heads_of("key", {0, 2, 3, 1});
  const int v = heads_of("value", {0, 2, 1, 3});
  int scores = matmul(q, k, "scores");
  scores =
      div_scalar(scores, static_cast<float>(std::sqrt(static_cast<double>(head_dim))), "scale");
  if (mask >= 0) scores = add(scores, mask, "mask_add");
  const int probs = softmax(scores, -1, "softmax");
  int ctx = matmul(probs, v, "context");
  ctx = transpose(ctx, {0, 2, 1, 3}, "context.transpose");
  ctx = reshape(ctx, {batch, seq, hidden}, "context.reshape");
  return linear(ctx, hidden, true, "output");
}

Graph ModelBuilder::finish(const std::vector<int>& outputs) {
  for (int t : outputs) g_.mark_output(t);
  validate(g_);
  Graph out = std::move(g_);
  g_ = Graph();
  scopes_.clear();
  counters_.clear();
  return out;
}

}  // namespace dgs
