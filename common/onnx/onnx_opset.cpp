#include "common/onnx/onnx_opset.h"

#include <onnx/onnx_pb.h>

#include <map>
#include <set>

#include "common/onnx/onnx_convert.h"
#include "common/onnx/onnx_tensor.h"
#include "common/util/error.h"

namespace dgs {

namespace {

void remove_attribute(onnx::NodeProto* n, const std::string& name) {
  auto* attrs = n->mutable_attribute();
  for (int i = attrs->size(); i-- > 0;) {
    if (attrs->Get(i).name() == name) attrs->DeleteSubrange(i, 1);
  }
}

const onnx::AttributeProto* find_attribute(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

// Reductions whose axes became an input in opset 18 (ReduceSum did in 13).
bool is_axes_input_reduction(const std::string& op) {
  static const std::set<std::string> kOps = {"ReduceMean",   "ReduceMax",       "ReduceMin",
                                             "ReduceProd",   "ReduceL1",        "ReduceL2",
                                             "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"};
  return kOps.count(op) != 0;
}

}  // namespace

void convert_to_checker_opset(onnx::ModelProto* model, const std::string& origin) {
  onnx::OperatorSetIdProto* default_import = nullptr;
  for (auto& o : *model->mutable_opset_import()) {
    if (is_onnx_domain(o.domain())) default_import = &o;
  }
  const int64_t opset = default_import ? default_import->version() : 0;
  if (opset < kOnnxMinOpset || opset > kOnnxMaxOpset) {
    throw Error(origin + ": default-domain opset " + std::to_string(opset) +
                " is not supported; expected " + std::to_string(kOnnxMinOpset) + " to " +
                std::to_string(kOnnxMaxOpset));
  }
  if (model->ir_version() > kOnnxCheckerIrVersion) model->set_ir_version(kOnnxCheckerIrVersion);
  if (opset <= kOnnxCheckerOpset) return;

  onnx::GraphProto* g = model->mutable_graph();
  std::map<std::string, onnx::TensorProto> literals;  // initializers and Constant node values
  for (const auto& t : g->initializer()) literals[t.name()] = t;
  bool uses_microsoft_gelu = false;
  for (int i = 0; i < g->node_size(); ++i) {
    onnx::NodeProto* n = g->mutable_node(i);
    if (!is_onnx_domain(n->domain())) continue;
    const std::string what = origin + ": node '" + (n->name().empty() ? n->op_type() : n->name()) +
                             "' (" + n->op_type() + ", opset " + std::to_string(opset) + ")";
    const std::string& op = n->op_type();
    if (op == "Constant" && n->output_size() == 1) {
      if (auto t = constant_node_tensor(*n)) literals[n->output(0)] = *t;
    } else if (is_axes_input_reduction(op)) {
      const bool noop = find_attribute(*n, "noop_with_empty_axes") &&
                        find_attribute(*n, "noop_with_empty_axes")->i() != 0;
      remove_attribute(n, "noop_with_empty_axes");
      if (n->input_size() > 1 && !n->input(1).empty()) {
        auto it = literals.find(n->input(1));
        if (it == literals.end()) {
          throw Error(what + ": axes input '" + n->input(1) +
                      "' is not a constant; expected an initializer or Constant node");
        }
        const std::vector<int64_t> axes = int_values(it->second, what + ": axes");
        n->mutable_input()->DeleteSubrange(1, n->input_size() - 1);
        if (!axes.empty()) {
          auto* a = n->add_attribute();
          a->set_name("axes");
          a->set_type(onnx::AttributeProto_AttributeType_INTS);
          for (int64_t x : axes) a->add_ints(x);
        } else if (noop) {
          n->set_op_type("Identity");
          remove_attribute(n, "keepdims");
        }
      } else if (noop) {
        n->set_op_type("Identity");
        remove_attribute(n, "keepdims");
      }
    } else if (op == "Split") {
      if (const auto* a = find_attribute(*n, "num_outputs")) {
        if (a->i() != n->output_size()) {
          throw Error(what + ": num_outputs " + std::to_string(a->i()) + " differs from its " +
                      std::to_string(n->output_size()) + " outputs");
        }
        remove_attribute(n, "num_outputs");
      }
    } else if (op == "Resize") {
      const auto* antialias = find_attribute(*n, "antialias");
      const auto* axes = find_attribute(*n, "axes");
      const auto* policy = find_attribute(*n, "keep_aspect_ratio_policy");
      if ((antialias && antialias->i() != 0) || axes || (policy && policy->s() != "stretch")) {
        throw Error(what +
                    ": antialias, axes and keep_aspect_ratio_policy other than stretch "
                    "are not supported");
      }
      remove_attribute(n, "antialias");
      remove_attribute(n, "keep_aspect_ratio_policy");
    } else if (op == "Pad") {
      if (n->input_size() > 3 && !n->input(3).empty()) {
        throw Error(what +
                    ": the axes input of Pad is not supported; expected pads for every axis");
      }
    } else if (op == "Cast" || op == "CastLike") {
      remove_attribute(n, "saturate");
    } else if (op == "Gelu") {
      const auto* approx = find_attribute(*n, "approximate");
      if (approx && approx->s() != "none") {
        throw Error(what + ": approximate='" + approx->s() + "' is not supported; expected 'none'");
      }
      remove_attribute(n, "approximate");
      n->set_domain("com.microsoft");
      uses_microsoft_gelu = true;
    }
  }
  default_import->set_version(kOnnxCheckerOpset);
  if (uses_microsoft_gelu) {
    bool has = false;
    for (const auto& o : model->opset_import()) has |= o.domain() == "com.microsoft";
    if (!has) {
      auto* ms = model->add_opset_import();
      ms->set_domain("com.microsoft");
      ms->set_version(1);
    }
  }
}

}  // namespace dgs
