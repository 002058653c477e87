// Loading an exported-style ONNX file and scheduling it (issue: a torchvision ResNet-50 export
// through model_info under 2 s, every --model item of IOS and Welder under 10 s on 2 cores).
// The file is made here from the zoo's ResNet-50 the way PyTorch's exporter writes it: weights
// as float initializers with data (raw_data), an Identity in front of every third weight, the
// Flatten's shape computed by a Shape -> Gather -> Unsqueeze -> Concat chain on Constant nodes,
// and a symbolic batch.
//   bench_onnx_export --benchmark_out=onnx_export.json --benchmark_out_format=json
#include <benchmark/benchmark.h>
#include <onnx/onnx_pb.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "common/gpumodel/gpu_model.h"
#include "common/hw/hardware.h"
#include "common/onnx/onnx_io.h"
#include "models/zoo.h"
#include "reproductions/ios/scheduler.h"

namespace {

using namespace dgs;
using namespace dgs::ios;

onnx::NodeProto* add_node(onnx::GraphProto* g, const std::string& type, const std::string& name,
                          std::vector<std::string> inputs, const std::string& output) {
  onnx::NodeProto* n = g->add_node();
  n->set_op_type(type);
  n->set_name(name);
  for (const std::string& in : inputs) n->add_input(in);
  n->add_output(output);
  return n;
}

onnx::NodeProto* add_constant(onnx::GraphProto* g, const std::string& name,
                              const std::vector<int64_t>& dims, std::vector<int64_t> values) {
  onnx::NodeProto* n = add_node(g, "Constant", "/" + name, {}, name);
  auto* a = n->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto_AttributeType_TENSOR);
  onnx::TensorProto* t = a->mutable_t();
  t->set_data_type(onnx::TensorProto_DataType_INT64);
  for (int64_t d : dims) t->add_dims(d);
  for (int64_t v : values) t->add_int64_data(v);
  return n;
}

// The zoo's ResNet-50 as a raw PyTorch export.
onnx::ModelProto exported_resnet50() {
  onnx::ModelProto m;
  graph_to_onnx(build_zoo_model("resnet50"), &m);
  m.set_producer_name("pytorch");
  onnx::GraphProto* g = m.mutable_graph();
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-0.05f, 0.05f);
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> inputs;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> prefix;
  std::map<std::string, std::string> renamed;
  int k = 0;
  for (const auto& in : g->input()) {
    if (in.doc_string() != kOnnxWeightDocString) {
      *inputs.Add() = in;
      inputs.Mutable(inputs.size() - 1)
          ->mutable_type()
          ->mutable_tensor_type()
          ->mutable_shape()
          ->mutable_dim(0)
          ->set_dim_param("batch");
      continue;
    }
    onnx::TensorProto* t = g->add_initializer();
    t->set_name(in.name());
    t->set_data_type(onnx::TensorProto_DataType_FLOAT);
    int64_t n = 1;
    for (const auto& d : in.type().tensor_type().shape().dim()) {
      t->add_dims(d.dim_value());
      n *= d.dim_value();
    }
    std::vector<float> v(static_cast<size_t>(n));
    for (float& x : v) x = u(rng);
    t->set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4));
    if (k++ % 3 == 0) {
      onnx::NodeProto id;
      id.set_op_type("Identity");
      id.set_name("/Identity_" + in.name());
      id.add_input(in.name());
      id.add_output(in.name() + "_id");
      *prefix.Add() = id;
      renamed[in.name()] = in.name() + "_id";
    }
  }
  g->mutable_input()->Swap(&inputs);
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  nodes.Swap(g->mutable_node());
  for (auto& n : prefix) *g->add_node() = n;
  for (onnx::NodeProto& n : nodes) {
    for (std::string& in : *n.mutable_input()) {
      if (renamed.count(in)) in = renamed[in];
    }
    if (n.op_type() == "Flatten") {  // torch.flatten(x, 1) as the TorchScript exporter writes it
      const std::string x = n.input(0), p = "/flatten";
      add_node(g, "Shape", p + "/Shape", {x}, p + "_shape");
      add_constant(g, p + "_zero", {}, {0});
      add_node(g, "Gather", p + "/Gather", {p + "_shape", p + "_zero"}, p + "_batch");
      add_constant(g, p + "_axes", {1}, {0});
      add_node(g, "Unsqueeze", p + "/Unsqueeze", {p + "_batch", p + "_axes"}, p + "_b");
      add_constant(g, p + "_rest", {1}, {-1});
      add_node(g, "Concat", p + "/Concat", {p + "_b", p + "_rest"}, p + "_target")
          ->add_attribute()
          ->CopyFrom([] {
            onnx::AttributeProto a;
            a.set_name("axis");
            a.set_type(onnx::AttributeProto_AttributeType_INT);
            a.set_i(0);
            return a;
          }());
      onnx::NodeProto r;
      r.set_op_type("Reshape");
      r.set_name(n.name());
      r.add_input(x);
      r.add_input(p + "_target");
      r.add_output(n.output(0));
      *g->add_node() = r;
      continue;
    }
    *g->add_node() = n;
  }
  for (auto& o : *g->mutable_output()) {
    o.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param(
        "batch");
  }
  return m;
}

const onnx::ModelProto& resnet50_export() {
  static const onnx::ModelProto m = exported_resnet50();
  return m;
}

// graph_from_onnx on the export: checker, opset conversion, folding rounds, conversion, our
// shape inference and validation (the file's parsing is not included).
void BM_LoadExportedResNet50(benchmark::State& state) {
  const onnx::ModelProto& m = resnet50_export();
  OnnxLoadSummary summary;
  OnnxLoadOptions opts;
  opts.summary = &summary;
  int64_t ops = 0;
  for (auto _ : state) ops = graph_from_onnx(m, "resnet50_export.onnx", opts).num_ops();
  state.counters["ops"] = static_cast<double>(ops);
  state.counters["folded_nodes"] = summary.folded_total();
}

// The export written to a temporary file with its weights (about 100 MB; removed at exit).
const std::string& resnet50_export_file() {
  // Never destroyed, so that the exit handler can still read it.
  static const std::string* path = [] {
    auto* p = new std::string((std::filesystem::temp_directory_path() /
                               ("bench_resnet50_export_" + std::to_string(::getpid()) + ".onnx"))
                                  .string());
    std::ofstream out(*p, std::ios::binary | std::ios::trunc);
    resnet50_export().SerializeToOstream(&out);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove(resnet50_export_file(), ec);
    });
    return p;
  }();
  return *path;
}

// The file loaded at the five batches IOS Fig. 4.9 rebatches a symbolic-batch file to (1, 16,
// 32, 64, 128), as the item does: parsed once (parsed_onnx_file keeps it), normalised and
// converted per batch.
void BM_LoadExportedResNet50FileAtFiveBatches(benchmark::State& state) {
  const std::string& path = resnet50_export_file();
  OnnxLoadSummary summary;
  int64_t ops = 0;
  for (auto _ : state) {
    for (int64_t batch : {1, 16, 32, 64, 128}) {
      OnnxLoadOptions opts;
      opts.batch = batch;
      opts.summary = &summary;
      ops = load_onnx_file(path, opts).num_ops();
    }
  }
  state.counters["ops"] = static_cast<double>(ops);
  state.counters["whole_graph_inferences"] = summary.whole_graph_inferences;
  state.counters["file_MB"] = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
}

// IOS-Both (r = 3, s = 8, GPU model of the V100) on the loaded export.
void BM_IosSearchExportedResNet50(benchmark::State& state) {
  static const Graph g = graph_from_onnx(resnet50_export(), "resnet50_export.onnx");
  static const Network net = make_network(g, PartRule::Blocks);
  const GpuSpec spec = load_gpu_spec("v100");
  SearchStats stats;
  for (auto _ : state) {
    GpuModelStageCost cost(spec);
    benchmark::DoNotOptimize(ios_schedule(net, StrategySet::Both, Pruning{3, 8}, cost, &stats));
  }
  state.counters["parts"] = static_cast<double>(net.parts.size());
  state.counters["states"] = static_cast<double>(stats.states);
}

}  // namespace

BENCHMARK(BM_LoadExportedResNet50)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoadExportedResNet50FileAtFiveBatches)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_IosSearchExportedResNet50)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
