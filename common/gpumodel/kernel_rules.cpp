// Operators -> kernels: the rule per operator family (stated in kernel_rules.h).
#include "common/gpumodel/kernel_rules.h"

#include <algorithm>
#include <iterator>

#include "common/gpumodel/block_simulation.h"
#include "common/gpumodel/kernel_family.h"
#include "common/gpumodel/model_internal.h"
#include "common/graph/op_cost.h"
#include "common/graph/window.h"
#include "common/util/error.h"

namespace dgs {

using namespace gpu_model_internal;

std::string_view kernel_rule_name(KernelRule r) {
  switch (r) {
    case KernelRule::ImplicitGemm:
      return "implicit_gemm_128x64";
    case KernelRule::DepthwiseDirect:
      return "depthwise_direct";
    case KernelRule::ElementwiseMemory:
      return "memory_bound_256";
    case KernelRule::LayoutOnly:
      return "layout_only";
  }
  return "?";
}

namespace gpu_model_internal {

[[noreturn]] void op_fail(const Graph& g, int op, const std::string& what,
                          const std::string& expected) {
  const Op& o = g.op(op);
  throw Error("gpu model: op '" + o.name + "' (" + std::string(op_kind_name(o.kind)) +
              ") in graph '" + g.name + "': " + what + "; expected " + expected);
}

MathUnit math_for(DType dt, const GpuSpec& spec, const KernelOptions& opts, bool gemm) {
  if (dt != DType::F16) return MathUnit::Fp32;
  if (gemm && opts.tensor_cores && spec.peak_tensor_tflops > 0) return MathUnit::Tensor;
  return MathUnit::Fp16;
}

// An implicit-GEMM kernel (the 128x64 rule) for `batch` independent GEMMs of M x N x K.
KernelLaunch gemm_kernel(const std::string& name, int64_t batch, int64_t M, int64_t N, int64_t K,
                         double flops, double dram_bytes, DType dt, MathUnit math, int sm_count,
                         int tile) {
  KernelLaunch k;
  M = std::max<int64_t>(M, 1);
  N = std::max<int64_t>(N, 1);
  int64_t tile_m = 0, tile_n = 0;
  for (const auto& [tm, tn] : kGemmTiles) {
    tile_m = tm;
    tile_n = tn;
    if (tile < 0 && batch * ceil_div(M, tile_m) * ceil_div(N, tile_n) >= sm_count) break;
    if (tile == 0) break;
    --tile;
  }
  const int64_t tiles_m = ceil_div(M, tile_m);
  const int64_t tiles_n = ceil_div(N, tile_n);
  k.name = name + ":implicit_gemm_" + std::to_string(tile_m) + "x" + std::to_string(tile_n);
  k.grid_blocks = std::max<int64_t>(1, batch * tiles_m * tiles_n);
  k.threads_per_block = kGemmThreads;
  k.registers_per_thread = kGemmRegisters;
  const int64_t es = dtype_size(dt);
  k.shared_bytes_per_block = kGemmBuffers * (tile_m + tile_n) * kGemmTileK * es;
  k.flops = flops;
  k.dram_bytes = dram_bytes;
  // Every tile reads its 128 x K panel of A and K x 64 panel of B through L2.
  const double rereads = static_cast<double>(k.grid_blocks) * static_cast<double>(tile_m + tile_n) *
                         static_cast<double>(K) * static_cast<double>(es);
  k.l2_bytes = dram_bytes + rereads;
  k.math = math;
  k.klass = KernelClass::Gemm;
  k.tile = GemmTile{tile_m, tile_n, static_cast<int>(es)};
  return k;
}

std::vector<KernelLaunch> library_conv_call(const GpuSpec& spec, const ConvGemm& c,
                                            const WinogradConv* winograd, bool fused_epilogue) {
  KernelLaunch k = gemm_kernel(c.name, c.batch, c.M, c.N, c.K, c.flops, c.dram_bytes, c.dt, c.math,
                               spec.sm_count);
  const double fraction3 =
      gpu_efficiency::suite_model_value(spec, gpu_efficiency::kWinogradFlopFraction);
  // Winograd's transforms cost a fixed time that only a problem filling the GPU repays: the
  // library takes it where the implicit GEMM's grid fills the GPU at the smallest tile.
  constexpr auto kSmallestTile = kGemmTiles[std::size(kGemmTiles) - 1];
  const bool winograd_too =
      winograd != nullptr && c.math == MathUnit::Fp32 && fraction3 > 0 && fraction3 < 1 &&
      c.batch * ceil_div(c.M, kSmallestTile.first) * ceil_div(c.N, kSmallestTile.second) >=
          spec.sm_count;
  // F(2x2, r x r): (r+1)^2 multiplies per 2x2 outputs and input channel instead of 4 r^2; the
  // config states r = 3's fraction (16/36), r = 5's is that times (36/100) / (16/36).
  const int64_t r = winograd != nullptr ? winograd->kernel : 3;
  const int64_t transformed = (r + 1) * (r + 1);
  const double fraction =
      fraction3 * (static_cast<double>(transformed) / (4.0 * r * r)) / (16.0 / 36.0);
  if (gpu_efficiency::suite_model_value(spec, gpu_efficiency::kLibraryAlgorithmSearch) <= 0) {
    if (winograd_too) {
      k.flops *= fraction;
      k.name += "+winograd";
    }
  } else {
    // A candidate as it runs: a block computes its whole tile, so the multiply-adds of the
    // padded rows and columns of the edge tiles are issued too (FLOPs >= grid x tile x K x 2).
    double best = -1;
    auto consider = [&](KernelLaunch cand, int64_t gemm_k) {
      cand.flops = std::max(cand.flops, 2.0 * static_cast<double>(cand.grid_blocks) *
                                            static_cast<double>(cand.tile.m * cand.tile.n) *
                                            static_cast<double>(gemm_k));
      const double us = estimate_kernel(spec, cand).latency_us;
      if (best < 0 || us < best) best = us, k = std::move(cand);
    };
    constexpr int kTiles = static_cast<int>(std::size(kGemmTiles));
    for (int t = 0; t < kTiles; ++t)
      consider(gemm_kernel(c.name, c.batch, c.M, c.N, c.K, c.flops, c.dram_bytes, c.dt, c.math,
                           spec.sm_count, t),
               c.K);
    // Winograd F(2x2, r x r), its transforms inside the kernel: per element of the
    // (r+1) x (r+1) transformed tile one GEMM of tiles x C_out x C_in.
    for (int t = 0; winograd_too && t < kTiles; ++t)
      consider(gemm_kernel(c.name + ":winograd", transformed, winograd->tiles, winograd->cout,
                           winograd->cin, c.flops * fraction, c.dram_bytes, c.dt, c.math,
                           spec.sm_count, t),
               winograd->cin);
  }
  k.exclusive =
      gpu_efficiency::suite_model_value(spec, gpu_efficiency::kLibraryKernelsSerialize) > 0;
  const double call_us = gpu_efficiency::suite_model_value(
      spec, fused_epilogue ? gpu_efficiency::kLibraryFusedCallUs : gpu_efficiency::kLibraryCallUs);
  std::vector<KernelLaunch> out;
  if (call_us > 0) {
    KernelLaunch s;
    s.name = k.name + ":library_call";
    s.grid_blocks = 1;
    s.threads_per_block = spec.warp_size > 0 ? spec.warp_size : 32;
    s.registers_per_thread = kSimpleRegisters;
    s.math = c.math;
    s.klass = KernelClass::Memory;
    s.block_floor_us = call_us;
    out.push_back(std::move(s));
  }
  out.push_back(std::move(k));
  return out;
}

// (model_internal.h) Whether the output of op `op` goes to an activation that runs in its epilogue
// (the library's fused Conv+bias+activation call).
bool has_folded_epilogue(const Graph& g, int op) {
  const Op& o = g.op(op);
  if (o.outputs.empty() || o.outputs[0] < 0) return false;
  const Tensor& y = g.tensor(o.outputs[0]);
  return y.consumers.size() == 1 && is_folded_activation(g, y.consumers[0]);
}

ConvDims conv_dims(const Graph& g, int op) {
  const Op& o = g.op(op);
  if (o.inputs.size() < 2 || o.outputs.empty() || o.inputs[0] < 0 || o.inputs[1] < 0)
    op_fail(g, op, "missing input or weight", "X and W");
  const Shape& x = g.tensor(o.inputs[0]).shape;
  const Shape& w = g.tensor(o.inputs[1]).shape;
  const Shape& y = g.tensor(o.outputs[0]).shape;
  if (x.size() < 3 || w.size() != x.size() || y.size() != x.size())
    op_fail(g, op, "input of rank " + std::to_string(x.size()), "NC + spatial dims, rank >= 3");
  ConvDims d;
  d.n = x[0];
  d.cin = x[1];
  d.cout = y[1];
  const Window win = resolve_window(g, op);
  d.group = win.group;
  for (int64_t k : win.kernel) d.kernel_area *= k;
  for (size_t i = 2; i < y.size(); ++i) d.out_spatial *= y[i];
  return d;
}

}  // namespace gpu_model_internal

namespace {

int64_t out_elements(const Graph& g, int op) {
  int64_t n = 0;
  for (int t : g.op(op).outputs)
    if (t >= 0) n += g.tensor(t).numel();
  return n;
}

int64_t in_elements(const Graph& g, int op) {
  int64_t n = 0;
  for (int t : g.op(op).inputs)
    if (t >= 0 && g.tensor(t).role != TensorRole::Constant) n += g.tensor(t).numel();
  return n;
}

KernelLaunch simple_kernel(const std::string& name, KernelRule rule, int64_t threads_needed,
                           double flops, double dram_bytes, MathUnit math, KernelClass klass) {
  KernelLaunch k;
  k.name = name + ":" + std::string(kernel_rule_name(rule));
  k.grid_blocks = std::max<int64_t>(1, ceil_div(threads_needed, kSimpleThreads));
  k.threads_per_block = kSimpleThreads;
  k.registers_per_thread = kSimpleRegisters;
  k.shared_bytes_per_block = 0;
  k.flops = flops;
  k.dram_bytes = dram_bytes;
  k.l2_bytes = dram_bytes;
  k.math = math;
  k.klass = klass;
  return k;
}

// A 3x3 or 5x5, stride-1, dilation-1, group-1 2-D convolution (the shapes Winograd F(2x2,3x3)
// and F(2x2,5x5) cover) as its GEMM stage sees it; false otherwise.
bool winograd_conv(const Graph& g, int op, const ConvDims& d, WinogradConv* w) {
  if (d.group != 1) return false;
  const Window win = resolve_window(g, op);
  if (win.kernel.size() != 2) return false;
  const int64_t r = win.kernel[0];
  if (r != 3 && r != 5) return false;
  for (size_t i = 0; i < 2; ++i)
    if (win.kernel[i] != r || win.strides[i] != 1 || win.dilations[i] != 1) return false;
  w->kernel = r;
  const Shape& y = g.tensor(g.op(op).outputs[0]).shape;
  w->tiles = d.n * ceil_div(y[2], 2) * ceil_div(y[3], 2);
  w->cin = d.cin;
  w->cout = d.cout;
  return true;
}

}  // namespace

bool is_folded_activation(const Graph& g, int op) {
  const Op& o = g.op(op);
  if (o.inputs.empty() || o.outputs.empty()) return false;
  // The epilogue ops a cuDNN-class conv/GEMM applies before writing its output.
  int data = -1;  // the input that carries the activation
  if (is_activation(o.kind) || o.kind == OpKind::BatchNormalization) {
    data = o.inputs[0];
  } else {
    switch (o.kind) {
      case OpKind::Add:
      case OpKind::Sub:
      case OpKind::Mul:
      case OpKind::Div: {
        if (o.inputs.size() != 2 || o.inputs[0] < 0 || o.inputs[1] < 0) return false;
        const bool p0 = g.tensor(o.inputs[0]).is_param(), p1 = g.tensor(o.inputs[1]).is_param();
        if (p0 == p1) return false;  // needs exactly one bias/scale operand
        data = p0 ? o.inputs[1] : o.inputs[0];
        break;
      }
      default:
        return false;
    }
  }
  if (data < 0) return false;
  const Tensor& x = g.tensor(data);
  if (x.producer < 0 || x.consumers.size() != 1 || x.role == TensorRole::Output) return false;
  const OpKind pk = g.op(x.producer).kind;
  if (is_conv_like(pk) || is_matmul_like(pk)) return true;
  return is_folded_activation(g, x.producer);  // a chain of epilogue ops
}

KernelRule kernel_rule_for(const Graph& g, int op) {
  const Op& o = g.op(op);
  if (is_layout_only(o.kind)) return KernelRule::LayoutOnly;
  switch (o.kind) {
    case OpKind::Conv: {
      const ConvDims d = conv_dims(g, op);
      if (d.group > 1 && d.group == d.cin && d.cout % d.cin == 0)
        return KernelRule::DepthwiseDirect;
      return KernelRule::ImplicitGemm;
    }
    case OpKind::ConvTranspose:
    case OpKind::Gemm:
    case OpKind::MatMul:
      return KernelRule::ImplicitGemm;
    default:
      return KernelRule::ElementwiseMemory;
  }
}

std::vector<KernelLaunch> kernels_for_op(const Graph& g, int op, const GpuSpec& spec,
                                         const KernelOptions& opts) {
  if (op < 0 || op >= g.num_ops())
    throw Error("gpu model: op index " + std::to_string(op) + " out of range for graph '" + g.name +
                "' with " + std::to_string(g.num_ops()) + " ops");
  const Op& o = g.op(op);
  if (o.outputs.empty() || o.outputs[0] < 0) op_fail(g, op, "no output", "at least one output");
  const DType dt = g.tensor(o.outputs[0]).dtype;
  const KernelRule rule = kernel_rule_for(g, op);
  std::vector<KernelLaunch> out;
  if (rule == KernelRule::LayoutOnly) return out;
  if (opts.fold_activation && is_folded_activation(g, op)) return out;
  // FLOPs and bytes (inputs incl. weights + outputs, each once) from the shared graph analysis.
  const OpCost cost = op_cost(g, op);
  const double bytes = static_cast<double>(cost.bytes_read + cost.bytes_written);
  const double op_flops = static_cast<double>(cost.flops);
  switch (rule) {
    case KernelRule::LayoutOnly:
      return out;
    case KernelRule::ImplicitGemm: {
      const MathUnit math = math_for(dt, spec, opts, true);
      if (o.kind == OpKind::Conv || o.kind == OpKind::ConvTranspose) {
        const ConvDims d = conv_dims(g, op);  // cin = X channels, cout = Y channels
        const int64_t M = d.n * d.out_spatial;
        const int64_t N = d.cout / d.group;
        // Conv: K = C_in/g * kernel. ConvTranspose (computed output-stationary): the reduction
        // length per output that gives its FLOPs, FLOPs / (2 * M * C_out).
        int64_t K = d.cin / d.group * d.kernel_area;
        if (o.kind == OpKind::ConvTranspose)
          K = std::max<int64_t>(1, cost.macs / std::max<int64_t>(1, M * d.cout));
        if (o.kind == OpKind::ConvTranspose) {
          out.push_back(
              gemm_kernel(o.name, d.group, M, N, K, op_flops, bytes, dt, math, spec.sm_count));
          return out;
        }
        WinogradConv w;
        return library_conv_call(spec,
                                 ConvGemm{o.name, d.group, M, N, K, op_flops, bytes, dt, math},
                                 winograd_conv(g, op, d, &w) ? &w : nullptr,
                                 opts.fold_activation && has_folded_epilogue(g, op));
      } else {  // Gemm, MatMul
        const Shape& a = g.tensor(o.inputs[0]).shape;
        const Shape& y = g.tensor(o.outputs[0]).shape;
        int64_t K = a.empty() ? 1 : a.back();
        if (o.kind == OpKind::Gemm && o.attrs.get_int("transA", 0) != 0 && a.size() == 2) K = a[0];
        const int64_t N = y.empty() ? 1 : y.back();
        const int64_t M = y.size() >= 2 ? y[y.size() - 2] : 1;
        const int64_t batch = std::max<int64_t>(1, numel(y) / std::max<int64_t>(1, M * N));
        out.push_back(
            gemm_kernel(o.name, batch, M, N, K, op_flops, bytes, dt, math, spec.sm_count));
      }
      return out;
    }
    case KernelRule::DepthwiseDirect: {
      const int64_t outs = out_elements(g, op);
      out.push_back(simple_kernel(o.name, rule, outs, op_flops, bytes,
                                  math_for(dt, spec, opts, false), KernelClass::Direct));
      return out;
    }
    case KernelRule::ElementwiseMemory: {
      const int64_t outs = out_elements(g, op);
      const int64_t ins = in_elements(g, op);
      const int64_t threads = std::max(outs, ceil_div(ins, kInputElementsPerThread));
      out.push_back(simple_kernel(o.name, rule, threads, op_flops, bytes,
                                  math_for(dt, spec, opts, false), KernelClass::Memory));
      return out;
    }
  }
  return out;
}

}  // namespace dgs
