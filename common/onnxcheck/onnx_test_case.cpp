#include "common/onnxcheck/onnx_test_case.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "common/exec/executor.h"
#include "common/graph/onnx_dtype.h"
#include "common/graph/op_signature.h"
#include "common/onnx/onnx_external_data.h"
#include "common/onnx/onnx_fold_eval.h"
#include "common/onnx/onnx_io.h"

namespace dgs {

namespace {

namespace fs = std::filesystem;

// Element types whose values can be read: those with a DType, and double (held as float32).
bool supported_elem_type(int t) {
  return dtype_of_onnx_values(t).has_value();
}

template <class T>
std::vector<T> raw_values(const std::string& raw, int64_t n, const std::string& origin) {
  if (static_cast<int64_t>(raw.size()) != n * static_cast<int64_t>(sizeof(T))) {
    throw Error(origin + ": raw_data holds " + std::to_string(raw.size()) + " bytes; expected " +
                std::to_string(n * static_cast<int64_t>(sizeof(T))));
  }
  std::vector<T> v(static_cast<size_t>(n));
  if (n > 0) std::memcpy(v.data(), raw.data(), raw.size());  // little-endian host (x86-64)
  return v;
}

template <class Field>
void check_count(const Field& f, int64_t n, const std::string& origin, const char* field) {
  if (static_cast<int64_t>(f.size()) != n) {
    throw Error(origin + ": " + field + " holds " + std::to_string(f.size()) +
                " values; expected " + std::to_string(n));
  }
}

}  // namespace

TensorData tensor_from_proto(const onnx::TensorProto& p, const std::string& origin) {
  if (p.data_location() == onnx::TensorProto::EXTERNAL) {
    throw UnsupportedFeature(origin + ": tensor data stored externally");
  }
  const int type = p.data_type();
  if (!supported_elem_type(type)) {
    throw UnsupportedFeature(origin + ": unsupported element type " + onnx_type_name(type));
  }
  TensorData t;
  t.dtype = *dtype_of_onnx_values(type);
  for (int64_t d : p.dims()) {
    if (d < 0) throw Error(origin + ": negative dimension " + std::to_string(d));
    t.shape.push_back(d);
  }
  const int64_t n = numel(t.shape);
  const bool raw = p.has_raw_data();
  const std::string& rd = p.raw_data();
  switch (type) {
    case onnx::TensorProto::FLOAT:
      if (raw) {
        t.f = raw_values<float>(rd, n, origin);
      } else {
        check_count(p.float_data(), n, origin, "float_data");
        t.f.assign(p.float_data().begin(), p.float_data().end());
      }
      break;
    case onnx::TensorProto::DOUBLE: {
      std::vector<double> v;
      if (raw) {
        v = raw_values<double>(rd, n, origin);
      } else {
        check_count(p.double_data(), n, origin, "double_data");
        v.assign(p.double_data().begin(), p.double_data().end());
      }
      t.f.assign(v.begin(), v.end());
      break;
    }
    case onnx::TensorProto::FLOAT16: {
      std::vector<uint16_t> bits;
      if (raw) {
        bits = raw_values<uint16_t>(rd, n, origin);
      } else {
        check_count(p.int32_data(), n, origin, "int32_data");
        for (int32_t b : p.int32_data()) bits.push_back(static_cast<uint16_t>(b));
      }
      for (uint16_t b : bits) t.f.push_back(half_bits_to_float(b));
      break;
    }
    case onnx::TensorProto::INT64:
      if (raw) {
        t.i = raw_values<int64_t>(rd, n, origin);
      } else {
        check_count(p.int64_data(), n, origin, "int64_data");
        t.i.assign(p.int64_data().begin(), p.int64_data().end());
      }
      break;
    case onnx::TensorProto::INT32: {
      if (raw) {
        const auto v = raw_values<int32_t>(rd, n, origin);
        t.i.assign(v.begin(), v.end());
      } else {
        check_count(p.int32_data(), n, origin, "int32_data");
        t.i.assign(p.int32_data().begin(), p.int32_data().end());
      }
      break;
    }
    case onnx::TensorProto::BOOL: {
      if (raw) {
        const auto v = raw_values<uint8_t>(rd, n, origin);
        for (uint8_t b : v) t.i.push_back(b != 0 ? 1 : 0);
      } else {
        check_count(p.int32_data(), n, origin, "int32_data");
        for (int32_t b : p.int32_data()) t.i.push_back(b != 0 ? 1 : 0);
      }
      break;
    }
    default:
      break;
  }
  return t;
}

NamedTensorData read_tensor_proto_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read " + path + ": no such file or not readable");
  onnx::TensorProto p;
  if (!p.ParseFromIstream(&in)) throw Error(path + ": not a serialized ONNX TensorProto");
  NamedTensorData r;
  r.name = p.name();
  r.value = tensor_from_proto(p, path);
  return r;
}

std::string onnx_case_unsupported_reason(const onnx::ModelProto& model) {
  const onnx::GraphProto& g = model.graph();
  for (const onnx::NodeProto& n : g.node()) {
    const std::string& dom = n.domain();
    if (!dom.empty() && dom != "ai.onnx" && !(dom == "com.microsoft" && n.op_type() == "Gelu")) {
      return "operator domain '" + dom + "' (" + n.op_type() + ")";
    }
    if (n.op_type() == "Constant") continue;  // the loader folds Constant nodes into tensors
    // Shape arithmetic and masks of exported models, and PyTorch's softmax NaN guard, which the
    // loader folds or removes where it can (and refuses, naming the node, where it cannot).
    if (n.op_type() == "Shape" || n.op_type() == "Size" || n.op_type() == "IsNaN" ||
        is_foldable_op_type(n.op_type()))
      continue;
    if (!op_kind_from_name(n.op_type())) return n.op_type();
  }
  auto check_values = [](const auto& list) -> std::string {
    for (const onnx::ValueInfoProto& v : list) {
      if (!v.type().has_tensor_type()) return "non-tensor value '" + v.name() + "'";
      const int t = v.type().tensor_type().elem_type();
      if (!supported_elem_type(t)) return "element type " + onnx_type_name(t);
    }
    return "";
  };
  for (const std::string& r :
       {check_values(g.input()), check_values(g.output()), check_values(g.value_info())}) {
    if (!r.empty()) return r;
  }
  for (const onnx::TensorProto& t : g.initializer()) {
    if (!supported_elem_type(t.data_type())) {
      return "element type " + onnx_type_name(t.data_type());
    }
  }
  return "";
}

namespace {

// The tensors of `folder`/<prefix>0.pb, <prefix>1.pb, ... up to the first missing number.
std::vector<NamedTensorData> read_numbered(const fs::path& folder, const std::string& prefix) {
  std::vector<NamedTensorData> out;
  for (int k = 0;; ++k) {
    const fs::path p = folder / (prefix + std::to_string(k) + ".pb");
    if (!fs::exists(p)) break;
    out.push_back(read_tensor_proto_file(p.string()));
  }
  return out;
}

// One data set of the case: its inputs (shape-determining ones folded into the model as
// initializers), the graph loaded from the model so completed, its feeds and expected outputs.
OnnxCaseDataSet load_data_set(const onnx::ModelProto& model, const fs::path& model_path,
                              const fs::path& set, const std::vector<std::string>& fed_inputs,
                              const std::set<std::string>& shape_inputs) {
  const std::string origin = set.string();
  std::vector<NamedTensorData> inputs = read_numbered(set, "input_");
  std::vector<NamedTensorData> outputs = read_numbered(set, "output_");
  if (inputs.size() > fed_inputs.size()) {
    throw Error(origin + ": " + std::to_string(inputs.size()) + " input files for " +
                std::to_string(fed_inputs.size()) + " model inputs");
  }
  if (static_cast<int>(outputs.size()) != model.graph().output_size()) {
    throw Error(origin + ": " + std::to_string(outputs.size()) + " output files for " +
                std::to_string(model.graph().output_size()) + " model outputs");
  }
  // Name each input file by the model input it feeds (files are in model input order; a file
  // whose proto name is a model input uses that name).
  for (size_t k = 0; k < inputs.size(); ++k) {
    const std::string& nm = inputs[k].name;
    if (std::find(fed_inputs.begin(), fed_inputs.end(), nm) == fed_inputs.end()) {
      inputs[k].name = fed_inputs[k];
    }
  }
  onnx::ModelProto m = model;
  std::set<std::string> folded;
  {
    const fs::path pdir = set;
    int k = 0;
    for (const auto& in : inputs) {
      if (shape_inputs.count(in.name)) {
        // Re-read the proto itself so that the initializer keeps the file's exact encoding.
        std::ifstream f(pdir / ("input_" + std::to_string(k) + ".pb"), std::ios::binary);
        onnx::TensorProto* init = m.mutable_graph()->add_initializer();
        if (!init->ParseFromIstream(&f)) throw Error(origin + ": cannot re-read input " + in.name);
        init->set_name(in.name);
        folded.insert(in.name);
      }
      ++k;
    }
    auto* gin = m.mutable_graph()->mutable_input();
    for (int i = gin->size(); i-- > 0;) {
      if (folded.count(gin->Get(i).name())) gin->DeleteSubrange(i, 1);
    }
  }
  OnnxCaseDataSet ds;
  ds.name = set.filename().string();
  OnnxLoadOptions load_options;
  try {
    OnnxLoadOptions lo;
    lo.allow_empty_inputs = true;  // ONNX's backend tests have empty inputs
    // A symbolic batch takes the batch of the data set (a file's fixed batch wins).
    if (!inputs.empty() && !inputs[0].value.shape.empty()) lo.batch = inputs[0].value.shape[0];
    load_options = lo;
    ds.graph = graph_from_onnx(m, model_path.string(), lo);
  } catch (const UnsupportedFeature&) {
    throw;
  } catch (const OnnxInvalidModel&) {
    throw;
  } catch (const Error& e) {
    const std::string msg = e.what();
    if (msg.find("has unsupported operator") != std::string::npos ||
        msg.find("cannot be folded at load time") != std::string::npos) {
      throw UnsupportedFeature(msg);
    }
    throw OnnxModelRejected(msg);
  }
  for (const auto& in : inputs) {
    if (folded.count(in.name)) continue;
    const int t = ds.graph.find_tensor(in.name);
    if (t < 0) continue;  // an input no node reads
    ds.feeds[t] = in.value;
  }
  auto feed_initializers = [&](const onnx::ModelProto& from) {
    for (const onnx::TensorProto& init : from.graph().initializer()) {
      const int t = ds.graph.find_tensor(init.name());
      if (t < 0 || ds.graph.tensor(t).role == TensorRole::Constant || ds.feeds.count(t)) continue;
      ds.feeds[t] =
          tensor_from_proto(init, model_path.string() + " initializer '" + init.name() + "'");
    }
  };
  feed_initializers(m);
  // Weights that loading computed (a folded Transpose or Reshape of a parameter) are
  // initializers of the normalized model.
  for (int t : ds.graph.weight_tensors()) {
    if (!ds.feeds.count(t)) {
      feed_initializers(normalized_onnx_model(m, model_path.string(), load_options));
      break;
    }
  }
  // Constant nodes whose values the loader keeps as Weight tensors (large float tensors).
  for (const onnx::NodeProto& n : m.graph().node()) {
    if (n.op_type() != "Constant" || n.output_size() != 1) continue;
    const int t = ds.graph.find_tensor(n.output(0));
    if (t < 0 || ds.graph.tensor(t).role == TensorRole::Constant) continue;
    for (const onnx::AttributeProto& a : n.attribute()) {
      if (a.name() == "value" && a.has_t()) {
        ds.feeds[t] = tensor_from_proto(
            a.t(), model_path.string() + " Constant node output '" + n.output(0) + "'");
      }
    }
  }
  for (int k = 0; k < model.graph().output_size(); ++k) {
    const std::string& nm = model.graph().output(k).name();
    const int t = ds.graph.find_tensor(nm);
    if (t < 0) throw Error(origin + ": model output '" + nm + "' is not in the loaded graph");
    ds.expected.emplace_back(t, std::move(outputs[static_cast<size_t>(k)].value));
  }
  return ds;
}

}  // namespace

std::vector<OnnxCaseDataSet> load_onnx_test_case(const std::string& dir) {
  const fs::path root(dir);
  const fs::path model_path = root / "model.onnx";
  if (!fs::is_regular_file(model_path)) {
    throw UsageError(dir + " is not an ONNX test case: no model.onnx in it");
  }
  std::vector<fs::path> sets;
  for (const auto& e : fs::directory_iterator(root)) {
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) {
      sets.push_back(e.path());
    }
  }
  std::sort(sets.begin(), sets.end());
  if (sets.empty()) throw UsageError(dir + " is not an ONNX test case: no test_data_set_* folder");

  onnx::ModelProto model;
  {
    std::ifstream in(model_path, std::ios::binary);
    if (!in || !model.ParseFromIstream(&in)) {
      throw Error(model_path.string() + ": not a serialized ONNX model");
    }
  }
  load_external_initializers(&model, model_path.string());
  if (const std::string why = onnx_case_unsupported_reason(model); !why.empty()) {
    throw UnsupportedFeature(model_path.string() + ": " + why);
  }

  // Inputs fed by the data sets: graph inputs that are not initializers, in order.
  std::set<std::string> init_names;
  for (const auto& t : model.graph().initializer()) init_names.insert(t.name());
  std::vector<std::string> fed_inputs;
  for (const auto& v : model.graph().input()) {
    if (!init_names.count(v.name())) fed_inputs.push_back(v.name());
  }
  // Inputs that determine shapes: they must be constants before shape inference.
  std::set<std::string> shape_inputs;
  for (const auto& n : model.graph().node()) {
    const auto kind = op_kind_from_name(n.op_type());
    if (!kind) continue;
    for (int i = 0; i < n.input_size(); ++i) {
      if (is_shape_input(*kind, i) && !n.input(i).empty()) shape_inputs.insert(n.input(i));
    }
  }

  std::vector<OnnxCaseDataSet> result;
  for (const fs::path& set : sets) {
    result.push_back(load_data_set(model, model_path, set, fed_inputs, shape_inputs));
  }
  return result;
}

}  // namespace dgs
