#pragma once
// ModelBuilder: a small API over Graph that every network in models/ is written with.
//
//   ModelBuilder b("resnet50", opts.dtype);
//   int x = b.input("data", {1, 3, 224, 224});
//   x = b.conv2d(x, 64, 7, /*stride=*/2, /*pad=*/3);   // creates "<op>.weight" and "<op>.bias"
//   x = b.relu(x);
//   ...
//   return b.finish({x});                               // marks outputs, validates
//
// Every helper adds its operator(s) with Graph::add_op (so shapes are inferred at once and any
// inconsistency throws naming the op) and returns the index of the output tensor.
//
// Naming. Op names are "<scope>.<name>": `name` is the helper's last argument, or, when it is
// empty, a generated "<base>_<n>" (e.g. "conv_0", "relu_3"; n counts per scope and base). Scopes
// nest: `auto s = b.scope("layer1.0");` prefixes every op until `s` is destroyed. Weights are named
// after the op that owns them: "<op>.weight", "<op>.bias" (BatchNormalization: "<op>.weight",
// "<op>.bias", "<op>.running_mean", "<op>.running_var"), as in PyTorch's state dicts.
//
// Dtypes. Inputs and weights take the builder's dtype (F32 or F16) unless a helper says otherwise
// (e.g. int64 token ids); integer constants (Reshape shapes, Slice bounds, ...) are int64
// Constant tensors; float scalar constants (Clip bounds, GELU's 0.5, ...) are Constant tensors of
// the builder's dtype.
//
// ONNX. Every op is a standard ONNX opset-17 operator, so a built graph can be written with
// save_onnx_file and checked by ONNX's own checker; the one exception is gelu_op() (a single
// Gelu, which opset 17 lacks: it is written in the "com.microsoft" domain as ONNX Runtime does).
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/graph/graph.h"

namespace dgs {

// The classes of the ImageNet classifiers' last layer.
inline constexpr int64_t kImageNetClasses = 1000;

// A general 2-D convolution: kernel, strides, pads (ONNX order: top, left, bottom, right),
// dilations, groups and whether it has a bias.
struct Conv2dSpec {
  std::array<int64_t, 2> kernel{1, 1};
  std::array<int64_t, 2> strides{1, 1};
  std::array<int64_t, 4> pads{0, 0, 0, 0};
  std::array<int64_t, 2> dilations{1, 1};
  int64_t groups = 1;
  bool bias = true;
};

class ModelBuilder {
 public:
  explicit ModelBuilder(std::string graph_name, DType dtype = DType::F32);

  Graph& graph() { return g_; }
  const Graph& graph() const { return g_; }
  DType dtype() const { return dtype_; }
  const Shape& shape(int tensor) const { return g_.tensor(tensor).shape; }
  int64_t dim(int tensor, int axis) const;  // axis may be negative (counts from the end)
  int rank(int tensor) const { return static_cast<int>(shape(tensor).size()); }

  // ---- naming -------------------------------------------------------------------------------
  class ScopeGuard {
   public:
    ScopeGuard(ModelBuilder* b, size_t depth) : b_(b), depth_(depth) {}
    ScopeGuard(const ScopeGuard&) = delete;
    ScopeGuard& operator=(const ScopeGuard&) = delete;
    ScopeGuard(ScopeGuard&& o) noexcept : b_(o.b_), depth_(o.depth_) { o.b_ = nullptr; }
    ~ScopeGuard();

   private:
    ModelBuilder* b_;
    size_t depth_;
  };
  // Pushes a name scope; it is popped when the returned guard is destroyed.
  [[nodiscard]] ScopeGuard scope(const std::string& name);
  // The full name for a new op: "<scope>.<name>", or "<scope>.<base>_<n>" if `name` is empty.
  std::string op_name(const std::string& name, const std::string& base);

  // ---- graph inputs, weights and constants --------------------------------------------------
  int input(const std::string& name, Shape shape);  // builder dtype
  int input(const std::string& name, Shape shape, DType dtype);
  int weight(const std::string& name, Shape shape);  // builder dtype, full name as given
  int const_ints(const std::string& name, std::vector<int64_t> values);  // int64, 1-D
  int const_scalar(const std::string& name, float value);                // builder dtype, rank 0
  // float32 whatever the builder's dtype (for inputs ONNX requires as float, e.g. Resize scales).
  int const_floats(const std::string& name, Shape shape, std::vector<float> values);

  // ---- generic ------------------------------------------------------------------------------
  // Adds any op with one output; when `name` is empty it is named after its kind ("erf_0").
  int op(OpKind kind, const std::vector<int>& inputs, Attributes attrs = {},
         const std::string& name = "");
  // The same for ops with several outputs.
  std::vector<int> op_multi(OpKind kind, const std::vector<int>& inputs, int num_outputs,
                            Attributes attrs = {}, const std::string& name = "");

  // ---- convolution, pooling, normalisation --------------------------------------------------
  // Square kernel; symmetric padding; weight [out, in/groups, k, k], bias [out].
  int conv2d(int x, int64_t out_channels, int64_t kernel, int64_t stride = 1, int64_t pad = 0,
             int64_t groups = 1, bool bias = true, const std::string& name = "");
  // Rectangular kernel (kh, kw), strides (sh, sw), symmetric pads (ph, pw).
  int conv2d(int x, int64_t out_channels, std::array<int64_t, 2> kernel,
             std::array<int64_t, 2> stride, std::array<int64_t, 2> pad, int64_t groups = 1,
             bool bias = true, const std::string& name = "");
  int conv2d(int x, int64_t out_channels, const Conv2dSpec& spec, const std::string& name = "");
  // 3-D convolution on (N, C, D, H, W): kernel, strides, symmetric pads and dilations per axis
  // (D, H, W); weight [out, in/groups, kd, kh, kw], bias [out].
  int conv3d(int x, int64_t out_channels, std::array<int64_t, 3> kernel,
             std::array<int64_t, 3> stride = {1, 1, 1}, std::array<int64_t, 3> pad = {0, 0, 0},
             std::array<int64_t, 3> dilation = {1, 1, 1}, int64_t groups = 1, bool bias = true,
             const std::string& name = "");
  // 3-D max pooling, symmetric pads per axis (D, H, W).
  int max_pool3d(int x, std::array<int64_t, 3> kernel, std::array<int64_t, 3> stride,
                 std::array<int64_t, 3> pad = {0, 0, 0}, const std::string& name = "");
  // ConvTranspose, weight [in, out/groups, k, k].
  int conv_transpose2d(int x, int64_t out_channels, int64_t kernel, int64_t stride = 1,
                       int64_t pad = 0, bool bias = true, const std::string& name = "");
  // BatchNormalization over axis 1 (inference form).
  int batchnorm(int x, double epsilon = 1e-5, const std::string& name = "");
  int max_pool2d(int x, int64_t kernel, int64_t stride, int64_t pad = 0, bool ceil_mode = false,
                 const std::string& name = "");
  // count_include_pad follows ONNX's attribute (0 = exclude padding, PyTorch's default is 1).
  int avg_pool2d(int x, int64_t kernel, int64_t stride, int64_t pad = 0,
                 bool count_include_pad = false, bool ceil_mode = false,
                 const std::string& name = "");
  int global_avg_pool(int x, const std::string& name = "");
  // LayerNormalization over the last `num_axes` axes with scale and bias of those dims.
  int layernorm(int x, double epsilon = 1e-5, int num_axes = 1, const std::string& name = "");
  int softmax(int x, int64_t axis = -1, const std::string& name = "");

  // ---- activations ----------------------------------------------------------------------------
  int relu(int x, const std::string& name = "");
  int relu6(int x, const std::string& name = "");  // Clip(x, 0, 6)
  int clip(int x, float lo, float hi, const std::string& name = "");
  int sigmoid(int x, const std::string& name = "");
  int tanh(int x, const std::string& name = "");
  int hardswish(int x, const std::string& name = "");
  int silu(int x, const std::string& name = "");  // x * Sigmoid(x): 2 ops, as exported by PyTorch
  // GELU as PyTorch exports it at opset 17 (which has no Gelu op): x * 0.5 * (1 + Erf(x / sqrt 2)),
  // i.e. Div, Erf, Add, Mul, Mul. The ops are named "<name>.div", ".erf", ".add", ".mul", ".mul2".
  int gelu(int x, const std::string& name = "");
  // GELU as one Gelu op (ONNX domain "com.microsoft" in files).
  int gelu_op(int x, const std::string& name = "");

  // ---- linear algebra -----------------------------------------------------------------------
  // y = x W^T + b over the last axis. For a 2-D x one Gemm (transB=1, weight [out, in]); for a
  // higher-rank x a MatMul (weight [in, out]) and an Add (bias [out]) named "<name>.bias_add",
  // as PyTorch exports nn.Linear.
  int linear(int x, int64_t out_features, bool bias = true, const std::string& name = "");
  int matmul(int a, int b, const std::string& name = "");
  int gemm(int a, int b, int c, bool trans_a = false, bool trans_b = false, double alpha = 1.0,
           double beta = 1.0, const std::string& name = "");

  // ---- element-wise binary (NumPy broadcasting) ---------------------------------------------
  int add(int a, int b, const std::string& name = "");
  int sub(int a, int b, const std::string& name = "");
  int mul(int a, int b, const std::string& name = "");
  int div(int a, int b, const std::string& name = "");
  int pow(int a, int b, const std::string& name = "");
  // Element-wise with a float scalar constant as the second operand (e.g. x * 0.125).
  int add_scalar(int a, float v, const std::string& name = "");
  int mul_scalar(int a, float v, const std::string& name = "");
  int div_scalar(int a, float v, const std::string& name = "");

  // ---- data movement ------------------------------------------------------------------------
  int concat(const std::vector<int>& xs, int64_t axis = 1, const std::string& name = "");
  // Split along `axis` into pieces of the given sizes.
  std::vector<int> split(int x, const std::vector<int64_t>& sizes, int64_t axis = 1,
                         const std::string& name = "");
  int slice(int x, const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
            const std::vector<int64_t>& axes, const std::vector<int64_t>& steps = {},
            const std::string& name = "");
  int reshape(int x, const std::vector<int64_t>& shape, const std::string& name = "");
  int transpose(int x, const std::vector<int64_t>& perm, const std::string& name = "");
  int flatten(int x, int64_t axis = 1, const std::string& name = "");
  int squeeze(int x, const std::vector<int64_t>& axes, const std::string& name = "");
  int unsqueeze(int x, const std::vector<int64_t>& axes, const std::string& name = "");
  // Pad with the ONNX pads layout [x1_begin, x2_begin, ..., x1_end, x2_end, ...].
  int pad(int x, const std::vector<int64_t>& pads, const std::string& mode = "constant",
          const std::string& name = "");
  // Resize by per-axis scales (mode "nearest" or "linear").
  int resize(int x, const std::vector<float>& scales, const std::string& mode = "nearest",
             const std::string& name = "");
  int gather(int data, int indices, int64_t axis = 0, const std::string& name = "");
  int cast(int x, DType to, const std::string& name = "");
  int reduce_mean(int x, const std::vector<int64_t>& axes, bool keepdims = true,
                  const std::string& name = "");
  int depth_to_space(int x, int64_t blocksize, const std::string& name = "");

  // ---- composite blocks shared by several networks ------------------------------------------
  // Multi-head self-attention on x [B, S, hidden] as BERT/ViT export it: Q, K, V linears, reshape
  // to [B, S, heads, d] and transpose (K to [B, heads, d, S]), MatMul, Div by sqrt(d), optional
  // Add of `mask` (broadcast to [B, heads, S, S]; -1 for none), Softmax, MatMul with V, transpose
  // and reshape back, output linear. Ops are named under scope `name` ("query", "key", ...).
  int self_attention(int x, int64_t heads, int mask = -1, const std::string& name = "attention");

  // Marks `outputs` as graph outputs, validates the graph and hands it over (the builder is empty
  // afterwards).
  Graph finish(const std::vector<int>& outputs);

 private:
  int binary(OpKind kind, int a, int b, const std::string& name, const std::string& base);
  // `full_name` variants: the name is already scoped (from op_name).
  int scalar_binary(OpKind kind, int a, float v, const std::string& full_name);
  int clip_named(int x, float lo, float hi, const std::string& full_name);
  int emit(OpKind kind, const std::string& full_name, const std::vector<int>& inputs,
           Attributes attrs);
  static std::string kind_base(OpKind kind);

  Graph g_;
  DType dtype_;
  std::vector<std::string> scopes_;
  std::map<std::string, int> counters_;  // "<scope>.<base>" -> next number
};

}  // namespace dgs
