// Convolutions that read the same input merged into one kernel, and merged plan tasks.
#include <algorithm>

#include "common/gpumodel/kernel_rules.h"
#include "common/gpumodel/model_internal.h"
#include "common/graph/window.h"
#include "common/util/error.h"

namespace dgs {

using namespace gpu_model_internal;

std::vector<KernelLaunch> kernels_for_merged_conv(const Graph& g, const std::vector<int>& ops,
                                                  const GpuSpec& spec, const KernelOptions& opts) {
  if (ops.empty()) throw Error("gpu model: kernels_for_merged_conv of an empty op list");
  if (ops.size() == 1) return kernels_for_op(g, ops[0], spec, opts);
  const int first = ops[0];
  if (first < 0 || first >= g.num_ops())
    throw Error("gpu model: merged conv op index " + std::to_string(first) + " out of range");
  const Op& o0 = g.op(first);
  if (o0.kind != OpKind::Conv) op_fail(g, first, "cannot be merged", "a Conv");
  const ConvDims d0 = conv_dims(g, first);
  const Shape& x = g.tensor(o0.inputs[0]).shape;
  const Shape& y0 = g.tensor(o0.outputs[0]).shape;
  int64_t kh_max = 1, kw_max = 1, cout_total = 0;
  double out_bytes = 0, bias_bytes = 0;
  for (int op : ops) {
    if (op < 0 || op >= g.num_ops())
      throw Error("gpu model: merged conv op index " + std::to_string(op) + " out of range");
    const Op& o = g.op(op);
    if (o.kind != OpKind::Conv) op_fail(g, op, "cannot be merged", "a Conv");
    const ConvDims d = conv_dims(g, op);
    if (o.inputs[0] != o0.inputs[0])
      op_fail(g, op, "reads a different input than '" + o0.name + "'", "the same input tensor");
    if (d.group != 1) op_fail(g, op, "group " + std::to_string(d.group), "group 1 to merge");
    const Window win = resolve_window(g, op), win0 = resolve_window(g, first);
    if (win.strides != win0.strides || win.dilations != win0.dilations)
      op_fail(g, op, "strides/dilations differ from '" + o0.name + "'",
              "equal strides and dilations");
    const Shape& y = g.tensor(o.outputs[0]).shape;
    if (y.size() != y0.size() || !std::equal(y.begin() + 2, y.end(), y0.begin() + 2) ||
        y[0] != y0[0])
      op_fail(
          g, op,
          "output " + shape_str(y) + " differs spatially from '" + o0.name + "' " + shape_str(y0),
          "the same output spatial size");
    const Shape& w = g.tensor(o.inputs[1]).shape;
    kh_max = std::max(kh_max, w.size() > 2 ? w[2] : 1);
    kw_max = std::max(kw_max, w.size() > 3 ? w[3] : 1);
    cout_total += d.cout;
    out_bytes += static_cast<double>(g.tensor(o.outputs[0]).bytes());
    if (o.inputs.size() > 2 && o.inputs[2] >= 0)
      bias_bytes += static_cast<double>(g.tensor(o.inputs[2]).bytes());
  }
  const DType dt = g.tensor(o0.outputs[0]).dtype;
  const int64_t es = dtype_size(dt);
  const int64_t M = d0.n * d0.out_spatial;
  const int64_t K = d0.cin * kh_max * kw_max;
  // Multiply-adds of the zero-padded kernels count (merging adds FLOPs); the bias
  // add counts one per output, as op_cost counts it.
  const double flops = 2.0 * static_cast<double>(M) * static_cast<double>(cout_total) * K +
                       (bias_bytes > 0 ? static_cast<double>(M) * cout_total : 0.0);
  const double weight_bytes = static_cast<double>(cout_total) * static_cast<double>(K) * es;
  const double in_bytes = static_cast<double>(numel(x)) * es;
  const double bytes = in_bytes + weight_bytes + bias_bytes + out_bytes;
  std::string name = "merged";
  for (int op : ops) name += "+" + g.op(op).name;
  // The split back into the original outputs is a channel-range view (no kernel).
  // One library call (no Winograd: the merged kernel is zero-padded to the largest kernel),
  // the fused Conv+bias+activation one when every merged conv's activation is folded.
  bool fused = opts.fold_activation;
  for (int op : ops) fused = fused && has_folded_epilogue(g, op);
  return library_conv_call(
      spec, ConvGemm{name, 1, M, cout_total, K, flops, bytes, dt, math_for(dt, spec, opts, true)},
      nullptr, fused);
}

std::vector<KernelLaunch> kernels_for_merged_task(const Graph& g, const std::vector<int>& ops,
                                                  const GpuSpec& spec, const KernelOptions& opts) {
  std::vector<int> convs;
  for (int op : ops) {
    if (op < 0 || op >= g.num_ops())
      throw Error("gpu model: merged task op index " + std::to_string(op) + " out of range");
    if (g.op(op).kind == OpKind::Conv) convs.push_back(op);
  }
  if (convs.empty()) throw Error("gpu model: merged task holds no Conv; expected >= 1 Conv");
  // Every other op must run in the epilogue of one of the task's convolutions.
  for (int op : ops) {
    if (g.op(op).kind == OpKind::Conv) continue;
    if (!opts.fold_activation)
      op_fail(g, op, "is in a merged task but KernelOptions::fold_activation is off",
              "only Convs, or element-wise ops folded into their epilogues with fold_activation");
    if (!is_folded_activation(g, op))
      op_fail(g, op, "is in a merged task but is not an epilogue op of a Conv",
              "an element-wise op whose input is produced only for it by a Conv of the task");
    int x = g.op(op).inputs[0];
    if (g.tensor(x).is_param() && g.op(op).inputs.size() > 1) x = g.op(op).inputs[1];
    int producer = g.tensor(x).producer;
    while (producer >= 0 && g.op(producer).kind != OpKind::Conv) {  // walk up an epilogue chain
      const Op& p = g.op(producer);
      int in = p.inputs[0];
      if (g.tensor(in).is_param() && p.inputs.size() > 1) in = p.inputs[1];
      producer = g.tensor(in).producer;
    }
    if (std::find(convs.begin(), convs.end(), producer) == convs.end())
      op_fail(g, op, "is in a merged task but its convolution is not in the task",
              "the epilogue op of one of the task's Convs");
  }
  std::vector<KernelLaunch> ks = kernels_for_merged_conv(g, convs, spec, opts);
  for (auto& k : ks) k.ops = ops;
  return ks;
}

}  // namespace dgs
